//! XML-parameter payloads (Qwen3-Coder, GLM, MiniMax, DSML, ...). Filled in by the XML family
//! group: `XmlSyntax` describes a dialect as data, `reader` makes its streaming reader.

use crate::engine::Reader;

/// One XML-parameter dialect.
#[derive(Debug)]
pub struct XmlSyntax {}

/// A fresh reader for one payload in dialect `cfg`.
pub fn reader(_cfg: &'static XmlSyntax, _bare: bool) -> Box<dyn Reader> {
    Box::new(crate::json::call::NoCalls)
}
