//! toolwire: incremental tool-call parsing for every vLLM parser family.
//!
//! Feed model output in chunks of any size; get events as the model writes them: text,
//! reasoning, tool-call start (name first), argument fragments, end, diagnostics.
//!
//! ```
//! use toolwire::{Options, ToolCallParser, Event};
//! let mut p = ToolCallParser::new(&Options::new("hermes")).unwrap();
//! let mut events = p.push("Sure.<tool_call>{\"name\": \"get_weather\", \"argu");
//! events.extend(p.push("ments\": {\"city\": \"Paris\"}}</tool_call>"));
//! events.extend(p.finish());
//! assert_eq!(events[0], Event::Text("Sure.".into()));
//! assert!(matches!(&events[1], Event::ToolCallStart { name, .. } if name == "get_weather"));
//! ```
//!
//! The core is pure Rust (no I/O, no JS types) and `#![no_std]` with `alloc`: the `std` feature
//! (default) adds `std::error::Error`, and `regex` (default) regex-lite for `pattern`; `wasm.rs`
//! is the only module that knows wasm-bindgen. See ARCHITECTURE.md for the layers.

#![no_std]

extern crate alloc;
#[cfg(all(feature = "std", not(test)))]
extern crate std;
// Unit tests use std's macros (`format!`, `vec!`, `eprintln!`) as any test does.
#[cfg(test)]
#[macro_use]
extern crate std;

/// What `std`'s prelude gives and `core`'s does not: every module imports this.
#[allow(unused_imports)]
pub(crate) mod prelude {
    pub use alloc::borrow::ToOwned;
    pub use alloc::boxed::Box;
    pub use alloc::format;
    pub use alloc::string::{String, ToString};
    pub use alloc::vec;
    pub use alloc::vec::Vec;
}

pub mod channels;
pub mod classify;
/// Documentation text (family and reasoning descriptions): the value natively; empty in the
/// wasm, which ships it as generated JS instead (`pkg/meta.js`, see scripts/build-pkg.mjs) to
/// stay within its size budget. Const-evaluated, so the text never reaches the wasm.
macro_rules! text {
    ($s:expr) => {
        if cfg!(target_arch = "wasm32") { "" } else { $s }
    };
}

/// Documentation lists (public model names); see `text!`.
macro_rules! names {
    ($($s:expr),* $(,)?) => {
        if cfg!(target_arch = "wasm32") { &[] as &[&str] } else { &[$($s),*] }
    };
}

pub mod detect;
pub mod engine;
pub mod event;
pub mod families;
pub mod json;
pub mod limits;
pub mod parser;
pub mod policy;
pub mod pythonic;
pub mod reader;
pub mod reasoning;
pub mod scan;
pub mod schema;
pub mod sink;
pub mod spans;
pub mod sse;
mod small;
pub mod template;
pub mod syntax;
pub mod text;
pub mod tools;
pub mod utf8;
pub mod xml;

/// The binding needs std (wasm-bindgen's); the core does not.
#[cfg(all(target_arch = "wasm32", feature = "std"))]
pub mod wasm;

pub use event::{Diagnostic, Event, Label, ParseResult, ToolCall};
pub use classify::{classify, Classification, Verdict};
pub use detect::{detect_parser, sniff_parser};
pub use limits::Limits;
pub use parser::{parse, Error, Options, ToolCallParser};
pub use policy::{Policy, Preset};
