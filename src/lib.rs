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
//! A consumer that handles each event as it comes can take borrowed views instead: no string
//! is allocated per event (the parser's one buffer holds them until the callback returns).
//!
//! ```
//! use toolwire::{EventRef, Options, ToolCallParser};
//! let mut p = ToolCallParser::new(&Options::new("hermes")).unwrap();
//! let mut names = Vec::new();
//! p.push_with("<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>", |e| {
//!     if let EventRef::ToolCallStart { name, .. } = e {
//!         names.push(name.to_string());
//!     }
//! });
//! p.finish_with(|_| {});
//! assert_eq!(names, ["f"]);
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

mod channels;
mod classify;
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

// The public API is what this file re-exports, plus `json` (the `Value` that options and tools
// are given as), `sse` (the OpenAI wire rewrite) and `registry`. Every other module is
// internal; tests, benches, the fuzz crate and examples reach the internals they check through
// `testing` (hidden, not semver API).
mod detect;
mod engine;
mod event;
mod families;
pub mod json;
mod limits;
mod parser;
mod policy;
mod pythonic;
mod quiet;
mod reader;
mod reasoning;
mod scan;
mod schema;
mod sink;
mod spans;
pub mod sse;
mod small;
mod template;
mod syntax;
mod text;
mod tools;
mod utf8;
mod xml;

/// The binding needs std (wasm-bindgen's); the core does not. Public for `tests/wasm.rs`.
#[cfg(all(target_arch = "wasm32", feature = "std"))]
#[doc(hidden)]
pub mod wasm;

pub use event::{Diagnostic, Event, EventRef, Keep, Label, ParseResult, ToolCall};
pub use classify::{classify, Classification, Verdict};
pub use detect::{detect_parser, sniff_parser};
pub use limits::Limits;
pub use parser::{parse, Error, Options, ToolCallParser};
pub use quiet::{Quiet, QuietKind, Stop};
pub use policy::{Policy, Preset};
pub use schema::pattern::HostEngine;
pub use schema::format::HostFormat;
/// JSON Schema `format` checks (`date-time`, `email`, `uri`, ...): `Some(valid)`, or `None` for a
/// format not checked.
#[cfg(feature = "formats")]
pub use schema::format::check as check_format;
pub use schema::Engines;
pub use spans::{Span, SpanKind};

/// Registry queries: the parser families (vLLM `--tool-call-parser` names and aliases) and
/// the reasoning parsers, with their documentation.
pub mod registry {
    pub use crate::families::{all, find, names, to_json};
    pub use crate::reasoning::{find as find_reasoning, names as reasoning_names, to_json as reasoning_to_json};
    pub use crate::syntax::{Family, Reasoning};
}

/// Internals for the crate's own tests, benches, fuzz targets and examples. Not API: hidden
/// from the docs and free to change in any release.
#[doc(hidden)]
pub mod testing;
