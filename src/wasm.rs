//! The JavaScript binding: the only module that knows wasm-bindgen.
//!
//! Results cross the boundary as one JSON string per call, parsed once on the JS side
//! (`JSON.parse` through js-sys): one crossing per batch instead of one per field.
//! Errors are JS `Error`s whose message names the valid options.

use crate::event::{events_to_json, Event};
use crate::parser::{Options, ToolCallParser};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    #[cfg(feature = "panic-hook")]
    console_error_panic_hook::set_once();
}

fn json_to_js(s: &str) -> JsValue {
    js_sys::JSON::parse(s).unwrap_or(JsValue::NULL)
}

/// Reads JS options: `undefined`/`null` (auto), a parser name, or an options object.
fn options(v: &JsValue) -> Result<Options, JsError> {
    if v.is_undefined() || v.is_null() {
        return Ok(Options::new("auto"));
    }
    if let Some(s) = v.as_string() {
        return Ok(Options::new(&s));
    }
    let text: String = js_sys::JSON::stringify(v)
        .map_err(|_| JsError::new("options must be a plain object (JSON-serialisable)"))?
        .into();
    let value = crate::json::parse(&text).map_err(|e| JsError::new(&format!("options: {e}")))?;
    Options::from_json(&value).map_err(|e| JsError::new(&e.0))
}

/// `parse(text, options)`: the one-shot result `{content, reasoning, toolCalls, diagnostics}`.
#[wasm_bindgen(js_name = parse, unchecked_return_type = "ParseResult")]
pub fn parse_js(text: &str, #[wasm_bindgen(unchecked_param_type = "ParserOptions")] opts: JsValue) -> Result<JsValue, JsError> {
    let o = options(&opts)?;
    let r = crate::parser::parse(text, &o).map_err(|e| JsError::new(&e.0))?;
    Ok(json_to_js(&r.to_json()))
}

/// A streaming parser: `push(chunk)` and `finish()` return arrays of events.
#[wasm_bindgen(js_name = ToolCallParser)]
pub struct JsToolCallParser {
    inner: ToolCallParser,
    events: Vec<Event>,
}

#[wasm_bindgen(js_class = ToolCallParser)]
impl JsToolCallParser {
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "ParserOptions")] opts: JsValue) -> Result<JsToolCallParser, JsError> {
        let o = options(&opts)?;
        let inner = ToolCallParser::new(&o).map_err(|e| JsError::new(&e.0))?;
        Ok(JsToolCallParser { inner, events: Vec::new() })
    }

    /// The resolved parser id (useful with `parser: "auto"`).
    #[wasm_bindgen(getter)]
    pub fn parser(&self) -> String {
        self.inner.parser_id().to_string()
    }

    /// Feeds a text chunk; returns the events it completes.
    #[wasm_bindgen(unchecked_return_type = "ToolCallEvent[]")]
    pub fn push(&mut self, chunk: &str) -> JsValue {
        self.events.clear();
        self.inner.push_into(chunk, &mut self.events);
        self.drain()
    }

    /// Feeds UTF-8 bytes (code points may be split across chunks).
    #[wasm_bindgen(js_name = pushBytes, unchecked_return_type = "ToolCallEvent[]")]
    pub fn push_bytes(&mut self, bytes: &[u8]) -> JsValue {
        self.events.clear();
        self.inner.push_bytes(bytes, &mut self.events);
        self.drain()
    }

    /// Ends the input: flushes held text, ends an open call (reporting truncation).
    #[wasm_bindgen(unchecked_return_type = "ToolCallEvent[]")]
    pub fn finish(&mut self) -> JsValue {
        self.events.clear();
        self.inner.finish_into(&mut self.events);
        self.drain()
    }

    fn drain(&mut self) -> JsValue {
        if self.events.is_empty() {
            return js_sys::Array::new().into();
        }
        let s = events_to_json(&self.events);
        self.events.clear();
        json_to_js(&s)
    }
}

/// Every parser family: `[{id, aliases, models, description}]`.
#[wasm_bindgen(unchecked_return_type = "ParserInfo[]")]
pub fn parsers() -> JsValue {
    json_to_js(&crate::families::to_json())
}

/// The parser id for a model name, or `null` when unknown.
#[wasm_bindgen(js_name = detectParser)]
pub fn detect_parser(model: &str) -> Option<String> {
    crate::detect::detect_parser(model).map(str::to_string)
}

/// Which families' markers appear in a text (most specific first).
#[wasm_bindgen(js_name = sniffParser, unchecked_return_type = "string[]")]
pub fn sniff_parser(text: &str) -> JsValue {
    let list = js_sys::Array::new();
    for id in crate::detect::sniff_parser(text) {
        list.push(&JsValue::from_str(id));
    }
    list.into()
}

/// Every family's reading of one text: `[{parser, verdict, count?, content, reasoning,
/// toolCalls, diagnostics}]`. Options as for `parse` (`tools`, `reasoning`, policy), minus
/// `parser`.
#[wasm_bindgen(js_name = classify, unchecked_return_type = "Classification[]")]
pub fn classify_js(text: &str, #[wasm_bindgen(unchecked_param_type = "ParserOptions")] opts: JsValue) -> Result<JsValue, JsError> {
    let o = options(&opts)?;
    let list = crate::classify::classify_with(text, &o).map_err(|e| JsError::new(&e.0))?;
    Ok(json_to_js(&crate::classify::to_json(&list)))
}
