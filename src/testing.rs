//! Internals for the crate's own tests, benches, fuzz targets and examples (`toolwire::testing`).
//! Not API: hidden from the docs and free to change in any release. It sits above the parser
//! (it builds parsers); nothing in the crate imports it.

#[cfg(feature = "spans")]
use crate::prelude::*;

pub use crate::json::scanner::{is_valid_json, is_ws, nests_within, Expect, JsonError, JsonScanner, Progress};
pub use crate::schema::number::Decimal;
pub use crate::schema::validate::{validate, Check};
#[cfg(feature = "spans")]
pub use crate::spans::check_conservation;
pub use crate::syntax::Payload;
pub use crate::tools::Tools;

/// `push_with` against `push_into` on one whole `input`: natively `push_with` reads a large
/// chunk in parts and drains at call ends (`Engine::push_pausing`); the events, unmerged, and
/// the spans must be `push_into`'s exactly. Used by the fixture harness and the fuzz targets
/// (each on an input repeated to a few hundred events, so that it pauses).
#[cfg(feature = "spans")]
pub fn check_pausing_push(opts: &crate::parser::Options, input: &str) -> Result<(), String> {
    let mut into = crate::parser::ToolCallParser::new(opts).map_err(|e| e.0)?;
    let mut with = crate::parser::ToolCallParser::new(opts).map_err(|e| e.0)?;
    into.record_spans();
    with.record_spans();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    into.push_into(input, &mut a);
    into.finish_into(&mut a);
    with.push_with(input, |e| b.push(e.to_event()));
    with.finish_with(|e| b.push(e.to_event()));
    if a != b {
        return Err("push_with's events differ from push_into's".into());
    }
    if into.spans() != with.spans() {
        return Err("push_with's spans differ from push_into's".into());
    }
    Ok(())
}
