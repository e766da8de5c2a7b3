# toolwire: the README's commands. `make test` works on a fresh machine of this kind: it
# installs what is missing (scripts/setup.sh), builds, and runs every suite.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
BINDGEN_OUT := target/bindgen
export CARGO_TERM_COLOR ?= never

.PHONY: test build setup playground worker bench fuzz test-rust test-wasm test-js test-worker test-www link

## test: install what is missing, build, run every suite (native, wasm, JS package, worker, playground)
test: setup build test-rust test-wasm test-js test-worker test-www
	@echo "make test: all suites passed"

setup:
	@scripts/setup.sh --browser

## build: the npm package in pkg/
build: setup
	wasm=$$(scripts/cargo-wasm.sh release) && wasm-bindgen --target web --out-dir $(BINDGEN_OUT) --out-name toolwire "$$wasm"
	node scripts/build-pkg.mjs $(BINDGEN_OUT)
	@$(MAKE) --no-print-directory link

# The package as a dependency of the tests, worker and playground (resolved by name, with
# the conditions a consumer gets).
link:
	@mkdir -p node_modules && ln -sfn ../pkg node_modules/toolwire

test-rust:
	cargo test --quiet

test-wasm:
	CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner WASM_BINDGEN_TEST_TIMEOUT=300 \
		scripts/cargo-wasm.sh test --test wasm

test-js:
	node --test --test-reporter=spec tests/js/

test-worker:
	@if [ -d tests/worker ]; then node --test --test-reporter=spec tests/worker/; else echo "worker tests: not built yet"; fi

test-www:
	@if [ -d tests/www ]; then node --test --test-reporter=spec tests/www/; else echo "playground tests: not built yet"; fi

## playground: build the package and serve www/ on http://127.0.0.1:8080
playground: build
	@if [ -f scripts/serve.mjs ]; then node scripts/serve.mjs; else echo "playground: not built yet (see issue 7)"; fi

## worker: run the worker in workerd on http://127.0.0.1:8787 (UPSTREAM_URL or a replay upstream)
worker: build
	@if [ -f worker/dev.mjs ]; then node worker/dev.mjs; else echo "worker: not built yet (see issue 6)"; fi

## bench: benchmark tables
bench: build
	@if [ -f benches/run.mjs ]; then node benches/run.mjs; else echo "bench: not built yet (see issue 8)"; fi
