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
//! The core is pure Rust (no I/O, no JS types); `wasm.rs` is the only module that knows
//! wasm-bindgen. See ARCHITECTURE.md for the layers.

extern crate alloc;

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
pub mod reasoning;
pub mod scan;
pub mod schema;
pub mod sink;
pub mod spans;
pub mod sse;
mod small;
pub mod template;
pub mod syntax;
pub mod tools;
pub mod utf8;
pub mod xml;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use event::{Diagnostic, Event, Label, ParseResult, ToolCall};
pub use classify::{classify, Classification, Verdict};
pub use detect::{detect_parser, sniff_parser};
pub use limits::Limits;
pub use parser::{parse, Error, Options, ToolCallParser};
pub use policy::{Policy, Preset};
