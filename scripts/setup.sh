#!/usr/bin/env bash
# Installs what `make` needs on a machine of this kind, skipping whatever is present, so a
# second run takes seconds. Usage: scripts/setup.sh [--browser]
#   - the pinned nightly (scripts/nightly-version) with rust-src, through rustup: the package's
#     wasm is built with build-std and panic=immediate-abort (scripts/cargo-wasm.sh release);
#     when rustup cannot fetch it, Debian's rustc-web + rust-web-src instead (same flags)
#   - the wasm32 target for tests (rustup; Debian's rustc-web with build-std when rustup cannot)
#   - wasm-bindgen-cli, exactly the crate's version
#   - npm dev dependencies (npm ci)
#   - with --browser: Debian chromium + chromium-driver (playground and browser tests)
set -euo pipefail
cd "$(dirname "$0")/.."
WB_VERSION=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)
log() { echo "setup: $*" >&2; }

apt_install() {
  if ! command -v apt-get >/dev/null; then log "apt-get not found: install $* by hand"; return 1; fi
  local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  if [ ! -f /tmp/.toolwire-apt-updated ]; then $sudo apt-get update -qq && touch /tmp/.toolwire-apt-updated; fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@"
}

# 1. The wasm32 target.
if command -v rustup >/dev/null && rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; then
  :
elif command -v rustup >/dev/null && timeout 180 rustup target add wasm32-unknown-unknown; then
  log "installed the wasm32 target with rustup"
else
  log "rustup could not add the wasm32 target; tests will use Debian's rustc with build-std"
fi

# 1b. A compiler that builds std from source, for the package: the pinned nightly with rust-src
# (rustup), else Debian's rustc-web with its std sources.
NIGHTLY=$(cat scripts/nightly-version)
nightly_src() { local r; r=$(rustup run "$NIGHTLY" rustc --print sysroot 2>/dev/null) && [ -d "$r/lib/rustlib/src/rust/library" ]; }
if command -v rustup >/dev/null && ! nightly_src; then
  log "installing $NIGHTLY with rust-src (the package build)"
  timeout 600 rustup toolchain install "$NIGHTLY" --profile minimal --component rust-src >&2 \
    || log "rustup could not install $NIGHTLY: the package build will use Debian's rustc-web"
fi
if ! { command -v rustup >/dev/null && nightly_src; } && ! { [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ]; }; then
  log "installing Debian's rustc-web and std sources (package build with build-std)"
  apt_install rustc-web cargo-web rust-web-src rust-web-llvm lld-22 || log "could not install rustc-web either: make build cannot build the package"
fi

# 2. wasm-bindgen-cli (must equal the crate version).
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WB_VERSION\$"; then
  log "installing wasm-bindgen-cli $WB_VERSION (takes a few minutes)"
  cargo install wasm-bindgen-cli --version "$WB_VERSION"
fi

# 3. npm dev dependencies.
if ! command -v node >/dev/null; then log "node (>= 20) is required"; exit 1; fi
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm dev dependencies"
  npm ci --no-audit --no-fund --loglevel=error
fi

# 4. A browser for the playground and browser tests.
if [ "${1:-}" = "--browser" ] && ! command -v chromium >/dev/null; then
  log "installing Debian chromium and chromium-driver"
  apt_install chromium chromium-driver
fi
exit 0
