#!/usr/bin/env bash
# cargo for wasm32-unknown-unknown.
#   scripts/cargo-wasm.sh release   the package's wasm, as small as we can make it: std built from
#                                   source with panic=immediate-abort, no panic locations, no
#                                   Debug code. Compiler: rustup's pinned nightly with rust-src
#                                   (works wherever rustup does), else Debian's rustc-web forced
#                                   into nightly features (RUSTC_BOOTSTRAP=1) when rustup cannot
#                                   fetch. TOOLWIRE_TOOLCHAIN=nightly|debian picks one. Both give
#                                   the same flags and a package within the budget; with neither,
#                                   this fails (no silent larger build). Prints the .wasm path.
#   scripts/cargo-wasm.sh <args>    any other cargo command (tests, checks): rustup's wasm32
#                                   target, or Debian's rustc with build-std when rustup has none.
set -euo pipefail
cd "$(dirname "$0")/.."
# The pinned nightly (scripts/setup.sh installs it with rust-src).
NIGHTLY=$(cat scripts/nightly-version)
debian_ok() { [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ] && /usr/bin/rustc --version >/dev/null 2>&1; }
nightly_ok() {
  command -v rustup >/dev/null || return 1
  local sysroot
  sysroot=$(rustup run "$NIGHTLY" rustc --print sysroot 2>/dev/null) || return 1
  [ -d "$sysroot/lib/rustlib/src/rust/library" ]
}
rustup_ok() { command -v rustup >/dev/null && rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; }
# Wasm SIMD (128-bit): the SSE answered path compares sixteen bytes a step with it
# (src/sse/rewriter/answered.rs, `same_bytes`). Every runtime the package targets has it
# (Node >= 16.4, workerd, Chromium 91+, Firefox 89+, Safari 16.4+); a runtime without it
# cannot compile the module. The tests and checks build with it too.
SIMD="-Ctarget-feature=+simd128"
debian() { RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 /usr/bin/cargo "$@"; }

if [ "${1:-}" = release ]; then
  export RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Zfmt-debug=none $SIMD"
  args=(build --release --lib --no-default-features --features std --target wasm32-unknown-unknown
        -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size)
  choice=${TOOLWIRE_TOOLCHAIN:-}
  if [ -z "$choice" ]; then
    if nightly_ok; then choice=nightly; elif debian_ok; then choice=debian; else choice=none; fi
  fi
  case "$choice" in
    nightly)
      nightly_ok || { echo "cargo-wasm: rustup's $NIGHTLY with rust-src is missing (scripts/setup.sh installs it)" >&2; exit 1; }
      echo "cargo-wasm: building the package wasm with rustup $NIGHTLY (build-std)" >&2
      CARGO_TARGET_DIR=target/small/nightly cargo "+$NIGHTLY" "${args[@]}" >&2
      echo target/small/nightly/wasm32-unknown-unknown/release/toolwire.wasm ;;
    debian)
      debian_ok || { echo "cargo-wasm: Debian's rustc-web + rust-web-src are missing (scripts/setup.sh installs them)" >&2; exit 1; }
      echo "cargo-wasm: building the package wasm with Debian's $(/usr/bin/rustc --version) (build-std, RUSTC_BOOTSTRAP)" >&2
      CARGO_TARGET_DIR=target/small/debian debian "${args[@]}" >&2
      echo target/small/debian/wasm32-unknown-unknown/release/toolwire.wasm ;;
    *)
      echo "cargo-wasm: no compiler that can build std from source: install rustup (scripts/setup.sh then installs $NIGHTLY with rust-src) or, on Debian, rustc-web rust-web-src" >&2
      exit 1 ;;
  esac
  exit 0
fi
export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }$SIMD"
if rustup_ok; then
  exec cargo "$@" --target wasm32-unknown-unknown
fi
RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 exec /usr/bin/cargo "$@" --target wasm32-unknown-unknown -Zbuild-std=std,panic_abort
