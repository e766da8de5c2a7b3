//! The JavaScript binding: the only module that knows wasm-bindgen.
//!
//! Options come in as JSON text and results go out as text, one string per call; the JS
//! shell (`pkg-template/api.js`) does `JSON.stringify`/`JSON.parse` once per call, but for a
//! streaming parser's events, whose form needs no JSON (`drain`). This keeps one boundary
//! crossing per call and no JS-object building code in the wasm. Errors are JS
//! `Error`s whose message names the valid options.

use crate::prelude::*;
use crate::event::EventRef;
use crate::parser::{Options, ToolCallParser};
use crate::small::Single;
use crate::sse::{diagnostics_to_json, rewrite_completion, SseOptions, SseRewriter};
use wasm_bindgen::prelude::*;

/// talc: smaller than the default allocator and fast; wasm32 here is single-threaded.
#[global_allocator]
static ALLOC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[wasm_bindgen(start)]
fn start() {
    #[cfg(feature = "panic-hook")]
    console_error_panic_hook::set_once();
}

/// Reads options JSON: an object, a parser name as a JSON string, or `null` (auto).
fn options_value(json: &str) -> Result<crate::json::Value, JsError> {
    let json = if json.trim().is_empty() { "null" } else { json };
    crate::json::parse(json).map_err(|e| JsError::new(&format!("options: {e}")))
}

fn options(json: &str) -> Result<Options, JsError> {
    let mut o = Options::from_json(&options_value(json)?).map_err(|e| JsError::new(&e.0))?;
    o.engines = ENGINES;
    Ok(o)
}

/// The JavaScript engines: `RegExp` for `pattern` (the package's wasm leaves regex-lite out) and
/// pkg-template/formats.js for `format` (it leaves the `formats` feature out); see
/// `crate::schema::Engines`.
const ENGINES: crate::schema::Engines = crate::schema::Engines { pattern: Some(js_regexp), format: Some(js_format) };

/// Options read from their JSON text, with their tools compiled (`tools: None` in `options`:
/// they are in `tools`).
struct Prepared {
    json: String,
    options: Options,
    tools: Option<crate::tools::Tools>,
}

/// An options text longer than this is not remembered (`parser_for`).
const PREPARED_MAX_BYTES: usize = 256 * 1024;

/// The options of the latest parser: a program usually builds every parser of a request (and
/// often of every request) from the same options, tools included.
static PREPARED: Single<Option<alloc::rc::Rc<Prepared>>> = Single::new(None);

/// A parser for options JSON `json`. The options are read, and their tools compiled, once for
/// the same text as the previous parser's (the same text always reads the same: the result
/// does not depend on anything else), so building a parser with the options of the previous
/// one skips the JSON, the schemas and the patterns; the parser gets `Tools::fresh` (its own
/// notes).
#[inline(never)]
fn parser_for(json: &str) -> Result<ToolCallParser, JsError> {
    let last = PREPARED.0.borrow().clone().filter(|p| p.json == json);
    let p = match last {
        Some(p) => p,
        None => {
            let mut options = options(json)?;
            let tools = crate::parser::tools_of(&options).map_err(|e| JsError::new(&e.0))?;
            options.tools = None;
            let p = alloc::rc::Rc::new(Prepared { json: json.to_string(), options, tools });
            if json.len() <= PREPARED_MAX_BYTES {
                *PREPARED.0.borrow_mut() = Some(p.clone());
            }
            p
        }
    };
    ToolCallParser::with_tools(&p.options, p.tools.as_ref().map(crate::tools::Tools::fresh)).map_err(|e| JsError::new(&e.0))
}

#[wasm_bindgen]
extern "C" {
    /// The JavaScript `RegExp`: the ECMA-262 engine JSON Schema's `pattern` names.
    #[wasm_bindgen(js_name = RegExp)]
    type JsRegExp;
    #[wasm_bindgen(constructor, js_class = "RegExp", catch)]
    fn new(pattern: &str, flags: &str) -> Result<JsRegExp, JsValue>;
    #[wasm_bindgen(method, js_class = "RegExp")]
    fn test(this: &JsRegExp, s: &str) -> bool;
}

/// `pattern` through the JavaScript engine (flag `u`, as Ajv does): the package's wasm leaves
/// regex-lite out to stay within its size budget (see `crate::schema::pattern`).
fn js_regexp(pattern: &str) -> Result<alloc::rc::Rc<dyn Fn(&str) -> bool>, String> {
    match JsRegExp::new(pattern, "u") {
        Ok(re) => Ok(alloc::rc::Rc::new(move |s: &str| re.test(s))),
        Err(e) => Err(js_sys_message(&e)),
    }
}

#[wasm_bindgen(module = "/pkg-template/formats.js")]
extern "C" {
    /// `schema::format::check` in JavaScript: 0 not checked, 1 invalid, 2 valid.
    #[wasm_bindgen(js_name = checkFormat)]
    fn check_format(format: &str, s: &str) -> u32;
}

/// `format` through pkg-template/formats.js (`crate::schema::format::HostFormat`).
fn js_format(format: &str, s: &str) -> Option<bool> {
    match check_format(format, s) {
        0 => None,
        n => Some(n == 2),
    }
}

/// The message of a thrown JS error (a `SyntaxError` for a bad pattern).
fn js_sys_message(e: &JsValue) -> String {
    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_name = String)]
        fn js_string(v: &JsValue) -> String;
    }
    js_string(e)
}

/// The options of the latest rewriter and their JSON text: a server usually builds every
/// rewriter (one a request) from the same options.
static SSE_PREPARED: Single<Option<(String, alloc::rc::Rc<SseOptions>)>> = Single::new(None);

/// Rewriter options: the parser options plus `cumulative`, `comments`, `maxEventBytes`. Read
/// once for the same text as the previous rewriter's (the same text always reads the same),
/// then shared.
fn sse_options(json: &str) -> Result<alloc::rc::Rc<SseOptions>, JsError> {
    if let Some((text, o)) = &*SSE_PREPARED.0.borrow() {
        if text == json {
            return Ok(o.clone());
        }
    }
    let mut o = SseOptions::from_json(&options_value(json)?).map_err(|e| JsError::new(&e.0))?;
    o.parser.engines = ENGINES;
    let o = alloc::rc::Rc::new(o);
    if json.len() <= PREPARED_MAX_BYTES {
        *SSE_PREPARED.0.borrow_mut() = Some((json.to_string(), o.clone()));
    }
    Ok(o)
}

/// `parse(text, optionsJson)`: the one-shot result `{content, reasoning, toolCalls, diagnostics}` as JSON.
#[wasm_bindgen(js_name = parse)]
pub fn parse_js(text: &str, opts: &str) -> Result<String, JsError> {
    let o = options(opts)?;
    let r = crate::parser::parse(text, &o).map_err(|e| JsError::new(&e.0))?;
    Ok(r.to_json())
}

/// A streaming parser: `push(chunk)` and `finish()` return JSON arrays of events.
#[wasm_bindgen(js_name = ToolCallParser)]
pub struct JsToolCallParser {
    inner: ToolCallParser,
    /// The input buffer JS writes a chunk's UTF-8 into (`inputBuffer`, `pushInput`).
    input: Vec<u8>,
    /// The last result (`outputPtr` after `pushInput`), reused from call to call.
    output: String,
    /// The quiet-run hint after the last call (`quietPtr`).
    quiet: [u32; 8],
}

/// `pushInput`'s `skipped` for bytes (`pushBytes`): they go through the parser's UTF-8 decoder.
const BYTES: usize = usize::MAX;

/// The quiet-run hint's eight words (see `quietPtr`): the kind, the call index, the byte budget
/// (at most `u32::MAX`), the stop set in four words, the flags.
fn hint_words(kind: u32, index: u32, budget: usize, stop: crate::quiet::Stop, flags: u32) -> [u32; 8] {
    let s = stop.0;
    [kind, index, u32::try_from(budget).unwrap_or(u32::MAX), s as u32, (s >> 32) as u32, (s >> 64) as u32, (s >> 96) as u32, flags]
}

#[wasm_bindgen(js_class = ToolCallParser)]
impl JsToolCallParser {
    #[wasm_bindgen(constructor)]
    pub fn new(opts: &str) -> Result<JsToolCallParser, JsError> {
        let inner = parser_for(opts)?;
        let mut p = JsToolCallParser { inner, input: Vec::new(), output: String::new(), quiet: [0; 8] };
        p.set_quiet();
        Ok(p)
    }

    /// Makes this parser what `new(opts)` makes, keeping its buffers' allocations (up to 64
    /// KiB each: `ToolCallParser::recycle`; the input buffer whatever its size: the package
    /// pools no parser whose input buffer is larger): the package's pool of freed parsers. On
    /// an error the parser is left as it was.
    pub fn renew(&mut self, opts: &str) -> Result<(), JsError> {
        let old = core::mem::replace(&mut self.inner, parser_for(opts)?);
        self.inner.recycle(old);
        if self.output.capacity() > crate::small::SPARE_MAX_BYTES {
            self.output = String::new();
        }
        self.set_quiet();
        Ok(())
    }

    /// Where the quiet-run hint (`crate::quiet`) is, as eight u32: the kind (0 none, 1 text,
    /// 2 reasoning, 3 arguments), the call index, the byte budget (at most `u32::MAX`), the
    /// stop bytes as a 128-bit set (bit `b % 32` of word `3 + b / 32`; the DEL bit marks simple
    /// escapes quiet, `Stop::ESCAPES`), and flags (bit 0: whole non-ASCII characters are quiet,
    /// `Quiet::utf8`; bit 1: a `\\` is held, `Quiet::backslash`). Kind 5: a held run
    /// (`ToolCallParser::held_run`): its lead's address (as the call index), the lead's length
    /// and the run's budget together, the run's stop set as above, and the lead's length (as
    /// the flags); a held marker (`ToolCallParser::held_marker`) is sent as one whose lead is
    /// the bytes that continue the marker and whose run is empty.
    /// Renewed by every call that takes input; the package answers quiet pushes without
    /// calling in (`pushInput`'s `skipped`) and holds pushes that continue a held marker or run.
    #[wasm_bindgen(js_name = quietPtr)]
    pub fn quiet_ptr(&self) -> *const u32 {
        self.quiet.as_ptr()
    }

    fn set_quiet(&mut self) {
        self.quiet = [0; 8];
        let Some(q) = self.inner.quiet() else {
            let held = self.inner.held_marker().map(|rest| (rest, crate::quiet::Stop(0), 0)).or_else(|| self.inner.held_run());
            if let Some((lead, stop, budget)) = held {
                self.quiet = hint_words(5, lead.as_ptr() as u32, lead.len() + budget, stop, lead.len() as u32);
            }
            return;
        };
        let (kind, index) = match q.kind {
            crate::QuietKind::Text => (1, 0),
            crate::QuietKind::Reasoning => (2, 0),
            crate::QuietKind::Args(i) => (3, u32::try_from(i).unwrap_or(u32::MAX)),
        };
        if index == u32::MAX {
            return;
        }
        self.quiet = hint_words(kind, index, q.budget, q.stop, u32::from(q.utf8) | u32::from(q.backslash) << 1);
    }

    /// The resolved parser id (useful with `parser: "auto"`).
    #[wasm_bindgen(getter)]
    pub fn parser(&self) -> String {
        self.inner.parser_id().to_string()
    }

    /// The address of an input buffer of at least `len` bytes in wasm memory, valid until the
    /// next call of `inputBuffer` (memory growth does not move it), holding the first `keep`
    /// bytes of the previous one. The package writes each chunk's UTF-8 there (the quiet
    /// pushes' as they are answered) and calls `pushInput`: no string is passed or allocated
    /// for the input.
    #[wasm_bindgen(js_name = inputBuffer)]
    pub fn input_buffer(&mut self, len: usize, keep: usize) -> *mut u8 {
        if self.input.len() < len {
            // A new zeroed buffer (`memory.fill`) and a copy: `resize` would copy the old bytes
            // and write the new ones one at a time (about 20 µs for 64 KiB in the package's build).
            let mut grown = vec![0; len];
            let keep = keep.min(self.input.len());
            grown[..keep].copy_from_slice(&self.input[..keep]);
            self.input = grown;
        }
        self.input.as_mut_ptr()
    }

    /// Feeds the first `len` bytes of the input buffer (a whole string's UTF-8), of which the
    /// first `skipped` were answered from the quiet-run hint already
    /// (`ToolCallParser::push_after_quiet`), or, with `skipped` `BYTES`, bytes that may split
    /// code points (the package's `pushBytes`: `ToolCallParser::push_bytes`); returns the UTF-8
    /// length of the result (`drain`'s encoding) at `outputPtr`, 0 when there are no events
    /// (then nothing needs to be read).
    #[wasm_bindgen(js_name = pushInput)]
    pub fn push_input(&mut self, len: usize, skipped: usize) -> usize {
        self.feed_input(len, skipped);
        self.drain();
        self.set_quiet();
        self.output.len()
    }

    fn feed_input(&mut self, len: usize, skipped: usize) {
        let bytes = self.input.get(..len).unwrap_or(&self.input);
        match core::str::from_utf8(bytes) {
            Ok(text) if skipped != BYTES => self.inner.feed_after_quiet(text, skipped),
            _ => self.inner.feed_bytes(bytes),
        }
    }

    /// `pushInput` (the bytes that waited, when `len` is not 0), then `finish`, in one call:
    /// returns the result's length at `outputPtr` (the events of both).
    #[wasm_bindgen(js_name = finishInput)]
    pub fn finish_input(&mut self, len: usize, skipped: usize) -> usize {
        if len != 0 {
            self.feed_input(len, skipped);
        }
        self.inner.end_input();
        self.quiet = [0; 8];
        self.drain();
        self.output.len()
    }

    /// Where the last `pushInput` result is (its length is what `pushInput` returned).
    #[wasm_bindgen(js_name = outputPtr)]
    pub fn output_ptr(&self) -> *const u8 {
        self.output.as_ptr()
    }

    /// Writes the queued events to `output` as the JS shell reads them (`decodeEvents` in
    /// pkg-template/events.js), from their borrowed views (no string per event), without JSON:
    /// `""`: none; `t…`: one text; `r…`: one reasoning; `dN:…`: one delta of call N (most
    /// pushes give one of these); else `*` and a record per event (`record`).
    fn drain(&mut self) {
        let out = &mut self.output;
        out.clear();
        match self.inner.single() {
            Some(EventRef::Text(t)) => tagged(out, 't', t),
            Some(EventRef::Reasoning(t)) => tagged(out, 'r', t),
            Some(EventRef::ToolCallDelta { index, arguments_delta }) => {
                out.push('d');
                crate::event::push_usize(out, index);
                out.push(':');
                out.push_str(arguments_delta);
            }
            _ if self.inner.queued() == 0 => {}
            _ => {
                out.push('*');
                self.inner.drain_with(|e| match e {
                    EventRef::Text(t) => record(out, 't', &[], &[t]),
                    EventRef::Reasoning(t) => record(out, 'r', &[], &[t]),
                    EventRef::ToolCallStart { index, id, name } => record(out, 's', &[index], &[id, name]),
                    EventRef::ToolCallDelta { index, arguments_delta } => record(out, 'd', &[index], &[arguments_delta]),
                    EventRef::ToolCallEnd { index, id, name, arguments, repaired, kept, text } => {
                        record(out, 'e', &[index, usize::from(repaired) | usize::from(kept) << 1], &[id, name, arguments, text])
                    }
                    EventRef::Diagnostic { label, message, index } => record(out, 'g', &[index.map_or(0, |i| i + 1)], &[label.as_str(), message]),
                });
                return;
            }
        }
        // The short forms read the queue without emptying it.
        self.inner.drain_with(|_| {});
    }
}

/// The string forms of the package's pushes, for the Rust tests of the binding (tests/wasm.rs):
/// not exported (the package writes input into `inputBuffer` and reads `outputPtr`).
#[doc(hidden)]
impl JsToolCallParser {
    /// `pushInput` of `chunk` with nothing answered: the result as a string.
    pub fn push(&mut self, chunk: &str) -> String {
        self.push_string(chunk.as_bytes(), 0)
    }

    /// `pushInput` of `bytes` as `pushBytes` (code points may be split across pushes): the
    /// result as a string.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> String {
        self.push_string(bytes, BYTES)
    }

    fn push_string(&mut self, bytes: &[u8], skipped: usize) -> String {
        self.input_buffer(bytes.len(), 0);
        self.input[..bytes.len()].copy_from_slice(bytes);
        self.push_input(bytes.len(), skipped);
        self.output.clone()
    }

    /// `finishInput` with nothing waiting: the result as a string.
    pub fn finish(&mut self) -> String {
        self.finish_input(0, 0);
        self.output.clone()
    }
}

fn tagged(out: &mut String, tag: char, text: &str) {
    out.push(tag);
    out.push_str(text);
}

/// One event of a `*` batch: `tag`, the numbers and then the UTF-16 lengths of the strings in
/// decimal, each followed by `,` but the last by `:`, then the strings as they are (no escaping
/// for what may be a whole file, no `JSON.parse` in JS). Tags and numbers: `t`/`r` (text,
/// reasoning), `s` index (a call's start: id, name), `d` index (a delta), `e` index and flags
/// (bit 0 repaired, bit 1 kept; a call's end: id, name, arguments, text), `g` index + 1 or 0
/// (a diagnostic: label, message).
fn record(out: &mut String, tag: char, numbers: &[usize], texts: &[&str]) {
    out.push(tag);
    for &n in numbers {
        crate::event::push_usize(out, n);
        out.push(',');
    }
    for t in texts {
        crate::event::push_usize(out, if t.is_ascii() { t.len() } else { t.chars().map(char::len_utf16).sum() });
        out.push(',');
    }
    // The last `,` is the `:`.
    out.pop();
    out.push(':');
    for t in texts {
        out.push_str(t);
    }
}

/// The wasm memory (the package reads `pushInput` results from it).
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

/// The parser id for a model name, or `null` when unknown.
#[wasm_bindgen(js_name = detectParser)]
pub fn detect_parser(model: &str) -> Option<String> {
    crate::detect::detect_parser(model).map(str::to_string)
}

/// Which families' markers appear in a text (most specific first), as a JSON array.
#[wasm_bindgen(js_name = sniffParser)]
pub fn sniff_parser(text: &str) -> String {
    let mut out = String::from("[");
    for (i, id) in crate::detect::sniff_parser(text).iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        crate::json::push_json_string(&mut out, id);
    }
    out.push(']');
    out
}

/// Every family's reading of one text: `[{parser, verdict, count?, content, reasoning,
/// toolCalls, diagnostics}]`. Options as for `parse` (`tools`, `reasoning`, policy), minus
/// `parser`.
#[wasm_bindgen(js_name = classify)]
pub fn classify_js(text: &str, opts: &str) -> Result<String, JsError> {
    let o = options(opts)?;
    let list = crate::classify::classify_with(text, &o).map_err(|e| JsError::new(&e.0))?;
    Ok(crate::classify::to_json(&list))
}

/// The SSE rewriter: upstream OpenAI SSE bytes in, rewritten SSE bytes out.
/// Free it with `free()` when the stream ends.
#[wasm_bindgen(js_name = SseRewriter)]
pub struct JsSseRewriter {
    inner: SseRewriter,
    /// The input buffer the package writes a chunk into (`inputBuffer`, `pushInput`).
    input: Vec<u8>,
    /// The last `pushInput` output.
    output: Vec<u8>,
    /// Where the last `pushInput` output is (`outputAt`): its address and length.
    at: [u32; 2],
}

/// `pushInput`'s answer when the output is the input chunk itself.
const VERBATIM: u32 = u32::MAX;
/// Input and output buffers larger than this are not kept after use.
const SSE_BUFFER_KEEP: usize = 1 << 16;

#[wasm_bindgen(js_class = SseRewriter)]
impl JsSseRewriter {
    /// Throws on unknown options (the message lists the valid ones).
    #[wasm_bindgen(constructor)]
    pub fn new(opts: &str) -> Result<JsSseRewriter, JsError> {
        Ok(JsSseRewriter { inner: SseRewriter::shared(sse_options(opts)?), input: Vec::new(), output: Vec::new(), at: [0; 2] })
    }

    /// Feeds upstream bytes (any chunking); returns the rewritten bytes they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        self.inner.push(bytes, &mut out);
        out
    }

    /// The address of an input buffer of at least `len` bytes in wasm memory, valid until the
    /// next `inputBuffer` or a `pushInput` of more than 64 KiB (memory growth does not move it).
    #[wasm_bindgen(js_name = inputBuffer)]
    pub fn input_buffer(&mut self, len: usize) -> *mut u8 {
        if self.input.len() < len {
            self.input.resize(len, 0);
        }
        self.input.as_mut_ptr()
    }

    /// Feeds the first `len` bytes of the input buffer (`SseRewriter::push_answered`: quiet
    /// events are answered without being parsed); returns `u32::MAX` when the output is those
    /// bytes themselves, else the output's length (at `outputAt`).
    #[wasm_bindgen(js_name = pushInput)]
    pub fn push_input(&mut self, len: usize) -> u32 {
        if self.output.capacity() > SSE_BUFFER_KEEP {
            self.output = Vec::new();
        }
        // The output buffer's bytes are scratch: a quiet answer overwrites them from the start
        // without zeroing room again (`push_answered_over`).
        let bytes = self.input.get(..len).unwrap_or(&self.input);
        let (answer, n) = self.inner.push_answered_over(bytes, &mut self.output);
        if self.input.len() > SSE_BUFFER_KEEP {
            self.input = Vec::new();
        }
        self.at = [self.output.as_ptr() as u32, n as u32];
        match answer {
            crate::sse::Answer::Verbatim => VERBATIM,
            crate::sse::Answer::Written => self.at[1],
        }
    }

    /// Where the last `pushInput` output's address is (a u32, then its length), at a fixed
    /// address for the rewriter's life.
    #[wasm_bindgen(js_name = outputAt)]
    pub fn output_at(&self) -> *const u32 {
        self.at.as_ptr()
    }

    /// How many chunks `pushInput` answered from the quiet-run hint.
    #[wasm_bindgen(js_name = quietChunks)]
    pub fn quiet_chunks(&self) -> usize {
        self.inner.quiet_chunks()
    }

    /// Ends the stream: flushes held text and open calls of choices that got no finish.
    pub fn finish(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        self.inner.finish(&mut out);
        out
    }

    /// The diagnostics since the last call, as JSON: `[{label, message, index?, choice?}]`.
    #[wasm_bindgen(js_name = takeDiagnostics)]
    pub fn take_diagnostics(&mut self) -> String {
        diagnostics_to_json(&self.inner.take_diagnostics())
    }
}

/// The non-streaming rewrite of a completion body (JSON text), as JSON:
/// `{"body": <the rewritten body text, or null when unchanged>, "diagnostics": [...]}`.
#[wasm_bindgen(js_name = rewriteCompletionBody)]
pub fn rewrite_completion_js(body: &str, opts: &str) -> Result<String, JsError> {
    let r = rewrite_completion(body, &*sse_options(opts)?);
    let mut out = String::from("{\"body\":");
    crate::event::push_opt_string(&mut out, r.body.as_deref());
    out.push_str(",\"diagnostics\":");
    out.push_str(&diagnostics_to_json(&r.diagnostics));
    out.push('}');
    Ok(out)
}
