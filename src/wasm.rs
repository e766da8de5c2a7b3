//! The JavaScript binding: the only module that knows wasm-bindgen.
//!
//! Results cross the boundary as one JSON string per call, parsed once on the JS side
//! (`JSON.parse` through js-sys): one crossing per batch instead of one per field.
//! Errors are JS `Error`s whose message names the valid options.

use crate::event::{events_to_json, Event};
use crate::parser::{Options, ToolCallParser};
use crate::sse::{diagnostics_to_json, rewrite_completion, SseOptions, SseRewriter};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    #[cfg(feature = "panic-hook")]
    console_error_panic_hook::set_once();
}

fn json_to_js(s: &str) -> JsValue {
    js_sys::JSON::parse(s).unwrap_or(JsValue::NULL)
}

/// Reads JS options as JSON: `undefined`/`null` (null: auto), a parser name, or an object.
fn options_json(v: &JsValue) -> Result<crate::json::Value, JsError> {
    if v.is_undefined() || v.is_null() {
        return Ok(crate::json::Value::Null);
    }
    if let Some(s) = v.as_string() {
        return Ok(crate::json::Value::String(s));
    }
    let text: String = js_sys::JSON::stringify(v)
        .map_err(|_| JsError::new("options must be a plain object (JSON-serialisable)"))?
        .into();
    crate::json::parse(&text).map_err(|e| JsError::new(&format!("options: {e}")))
}

/// Reads JS parser options: `undefined`/`null` (auto), a parser name, or an options object.
fn options(v: &JsValue) -> Result<Options, JsError> {
    Options::from_json(&options_json(v)?).map_err(|e| JsError::new(&e.0))
}

fn sse_options(v: &JsValue) -> Result<SseOptions, JsError> {
    SseOptions::from_json(&options_json(v)?).map_err(|e| JsError::new(&e.0))
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

/// The SSE rewriter (contract §6): upstream OpenAI SSE bytes in, rewritten SSE bytes out.
/// Free it with `free()` (or `Symbol.dispose`) when the stream ends.
#[wasm_bindgen(js_name = SseRewriter)]
pub struct JsSseRewriter {
    inner: SseRewriter,
}

#[wasm_bindgen(js_class = SseRewriter)]
impl JsSseRewriter {
    /// Throws on unknown options (the message lists the valid ones).
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "SseRewriteOptions")] opts: JsValue) -> Result<JsSseRewriter, JsError> {
        Ok(JsSseRewriter { inner: SseRewriter::new(sse_options(&opts)?) })
    }

    /// Feeds upstream bytes (any chunking); returns the rewritten bytes they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        self.inner.push(bytes, &mut out);
        out
    }

    /// Ends the stream: flushes held text and open calls of choices that got no finish.
    pub fn finish(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        self.inner.finish(&mut out);
        out
    }

    /// The diagnostics since the last call: `[{label, message, index?, choice?}]`.
    #[wasm_bindgen(js_name = takeDiagnostics, unchecked_return_type = "StreamDiagnostic[]")]
    pub fn take_diagnostics(&mut self) -> JsValue {
        let list = self.inner.take_diagnostics();
        if list.is_empty() {
            return js_sys::Array::new().into();
        }
        json_to_js(&diagnostics_to_json(&list))
    }
}

/// The non-streaming rewrite of a completion body (JSON text): `{body, diagnostics}`, `body`
/// null when unchanged.
#[wasm_bindgen(js_name = rewriteCompletionBody)]
pub fn rewrite_completion_js(body: &str, #[wasm_bindgen(unchecked_param_type = "SseRewriteOptions")] opts: JsValue) -> Result<JsValue, JsError> {
    let r = rewrite_completion(body, &sse_options(&opts)?);
    let out = js_sys::Object::new();
    let body = r.body.map_or(JsValue::NULL, |b| JsValue::from_str(&b));
    let _ = js_sys::Reflect::set(&out, &"body".into(), &body);
    let _ = js_sys::Reflect::set(&out, &"diagnostics".into(), &json_to_js(&diagnostics_to_json(&r.diagnostics)));
    Ok(out.into())
}
