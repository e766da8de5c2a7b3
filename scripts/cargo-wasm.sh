#!/usr/bin/env bash
# cargo for wasm32-unknown-unknown.
#   scripts/cargo-wasm.sh release   the package's wasm, as small as we can make it: Debian's
#                                   rustc-web building std with panic=immediate-abort, no panic
#                                   locations, no Debug code (TOOLCHAIN.md's verified build-std
#                                   path). Prints the path of the .wasm.
#   scripts/cargo-wasm.sh <args>    any other cargo command (tests): rustup's wasm32 target, or
#                                   Debian's rustc with build-std when rustup has no target.
set -euo pipefail
cd "$(dirname "$0")/.."
debian_ok() { [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ] && /usr/bin/rustc --version >/dev/null 2>&1; }
rustup_ok() { command -v rustup >/dev/null && rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; }
debian() { RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 /usr/bin/cargo "$@"; }

if [ "${1:-}" = release ]; then
  if debian_ok; then
    RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Zfmt-debug=none" \
      CARGO_TARGET_DIR=target/small debian build --release --lib --no-default-features --features std \
      --target wasm32-unknown-unknown -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size >&2
    echo target/small/wasm32-unknown-unknown/release/toolwire.wasm
  else
    echo "cargo-wasm: Debian's rustc-web is missing (scripts/setup.sh installs it); building with rustup: the wasm will be larger" >&2
    cargo build --release --lib --no-default-features --features std --target wasm32-unknown-unknown >&2
    echo target/wasm32-unknown-unknown/release/toolwire.wasm
  fi
  exit 0
fi
if rustup_ok; then
  exec cargo "$@" --target wasm32-unknown-unknown
fi
RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 exec /usr/bin/cargo "$@" --target wasm32-unknown-unknown -Zbuild-std=std,panic_abort
