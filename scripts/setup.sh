#!/usr/bin/env bash
# Installs what `make` needs on a machine of this kind, skipping whatever is present, so a
# second run takes seconds. Usage: scripts/setup.sh [--browser]
#   - the wasm32 target for tests (rustup; Debian's rustc-web with build-std when rustup cannot)
#   - Debian's rustc-web + rust-web-src: the package's wasm is built with build-std and
#     panic=immediate-abort, which keeps it within the size budget (scripts/cargo-wasm.sh)
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

# 1b. Debian's rustc with the std sources, for the package build.
if ! { [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ]; }; then
  log "installing Debian's rustc-web and std sources (package build with build-std)"
  apt_install rustc-web cargo-web rust-web-src rust-web-llvm lld-22 || log "could not install rustc-web: the wasm will be built with rustup and may exceed the size budget"
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
