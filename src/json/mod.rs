//! JSON: whole documents through serde_json (`Value`, `parse`), and what no library does for
//! us: a byte-level streaming validator (`scanner`), incremental writers (`emit`), and the call
//! readers built on them.
//!
//! `Value` is serde_json's, with `preserve_order` (objects keep their key order; a repeated key
//! keeps its first position and its last value, as `JSON.parse` does) and `arbitrary_precision`
//! (numbers keep their JSON text: nothing is lost or reformatted; `schema::number` compares
//! them as exact decimals).

use crate::prelude::*;
pub(crate) mod call;
pub(crate) mod emit;
pub(crate) mod named;
pub(crate) mod scanner;

pub(crate) use emit::{push_escaped, push_json_string, unescape, ObjectWriter};
pub use serde_json::{Number, Value};

/// A JSON object (keys in insertion order).
pub type Map = serde_json::Map<String, Value>;

/// Parses one JSON document (RFC 8259, whitespace around allowed, nesting under 128 deep).
/// The error names the line and column.
pub fn parse(text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// Appends the compact JSON text of `v` (serde_json's writer, no intermediate string).
pub fn write_value(v: &Value, out: &mut String) {
    use core::fmt::Write;
    let _ = write!(out, "{v}");
}

/// `json!` for unit tests.
#[cfg(test)]
pub(crate) use serde_json::json;
