//! Pythonic call lists (`[f(a=1), g()]`) and key-value formats (Gemma 4 `call:f{k:v}`).
//! Filled in by the pythonic family group: `PySyntax` describes a dialect as data, `reader`
//! makes its streaming reader.

use crate::engine::Reader;

/// One pythonic or key-value dialect.
#[derive(Debug)]
pub struct PySyntax {}

/// A fresh reader for one payload in dialect `cfg`.
pub fn reader(_cfg: &'static PySyntax, _bare: bool) -> Box<dyn Reader> {
    Box::new(crate::json::call::NoCalls)
}
