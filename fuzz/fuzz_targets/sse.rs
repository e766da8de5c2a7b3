//! The SSE decoder and rewriter on arbitrary upstream bytes: see `toolwire_fuzz::check_sse`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| toolwire_fuzz::check_sse(data));
