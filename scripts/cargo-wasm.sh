#!/usr/bin/env bash
# Runs cargo for wasm32-unknown-unknown: rustup's target when installed, else Debian's
# rustc-web building std from source (TOOLCHAIN.md). Usage: scripts/cargo-wasm.sh build --release
set -euo pipefail
if command -v rustup >/dev/null && rustup target list --installed 2>/dev/null | grep -q '^wasm32-unknown-unknown$'; then
  exec cargo "$@" --target wasm32-unknown-unknown
fi
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1
exec /usr/bin/cargo "$@" --target wasm32-unknown-unknown -Zbuild-std=std,panic_abort
