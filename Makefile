# toolwire: the README's commands. `make test` works on a fresh machine of this kind: it
# installs what is missing (scripts/setup.sh), builds, and runs every suite.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
BINDGEN_OUT := target/bindgen
export CARGO_TERM_COLOR ?= never

.PHONY: test build setup playground worker bench fuzz test-rust test-nostd test-wasm test-js test-worker test-www link

## test: install what is missing, build, run every suite (native, no-std check, wasm, JS package, worker, playground)
test: setup build test-rust test-nostd test-wasm test-js test-worker test-www
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

# The core without std (`#![no_std]` + alloc; `pattern` is then reported as not checked), for
# wasm32: `cargo check --no-default-features` as an rlib (the cdylib needs a panic handler).
test-nostd:
	scripts/cargo-wasm.sh rustc --lib --no-default-features --crate-type rlib --profile check

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

## bench: benchmark tables (native, then wasm through JS and the JS peers; BENCH_ARGS=--quick for a short run)
bench: build
	node benches/run.mjs $(BENCH_ARGS)

## fuzz: every fuzz target for FUZZ_SECONDS each (nightly + cargo-fuzz; not part of `make test`).
## Crashes land in fuzz/artifacts/<target>/; reproduce with `cd fuzz && cargo +nightly fuzz run <target> <file>`.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= engine_json engine_xml engine_pythonic engine_other json sse
fuzz:
	@rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
	@command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
	node scripts/fuzz-seed.mjs fuzz/seeds
	cd fuzz && for t in $(FUZZ_TARGETS); do \
		seeds=seeds/engine; if [ $$t = json ] || [ $$t = sse ]; then seeds=seeds/$$t; fi; \
		mkdir -p corpus/$$t; \
		echo "== fuzz $$t for $(FUZZ_SECONDS) s"; \
		log=artifacts/$$t.log; mkdir -p artifacts; \
		cargo +nightly fuzz run $$t corpus/$$t $$seeds -- -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 -print_final_stats=1 >$$log 2>&1 \
			&& grep -E 'stat::number_of_executed_units|^#[0-9]+ +DONE' $$log \
			|| { grep -E -A30 'panicked|ERROR: libFuzzer|SUMMARY' $$log | head -60; echo "fuzz $$t: a finding, see fuzz/$$log and fuzz/artifacts/$$t/"; exit 1; }; \
	done
	@echo "make fuzz: every target ran $(FUZZ_SECONDS) s without a finding"
