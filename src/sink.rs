//! The sink: the single owner of what was emitted.
//!
//! Readers report text, calls and argument fragments here; the sink turns them into events,
//! merges adjacent text, numbers calls, makes ids, and checks every argument fragment with a
//! JSON scanner. Whatever a reader does, a call's fragments concatenate to one valid JSON object
//! (arguments are append-only): a fragment that would break that is refused with a diagnostic, and an
//! unfinished object is completed (append-only) when the call ends.

use crate::prelude::*;
use crate::event::{Event, Keep, Label};
use crate::json::scanner::{Expect, JsonScanner, Progress};
use crate::limits::Limits;
use crate::tools::Tools;

/// How call ids are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdStyle {
    /// `{prefix}{index}`.
    Prefixed,
    /// Nine alphanumeric characters derived from the prefix and index (Mistral templates).
    Alnum9,
}

struct OpenCall {
    index: usize,
    id: String,
    name: String,
    args: String,
    scanner: JsonScanner,
    /// Argument bytes past the size limit were dropped.
    overflowed: bool,
    /// Keys whose value failed coercion (already reported as `type_coercion`).
    coerced: Vec<String>,
}

/// See the module docs.
pub struct Sink {
    events: Vec<Event>,
    pub limits: Limits,
    pub tools: Option<Tools>,
    id_prefix: String,
    id_style: IdStyle,
    calls: usize,
    open: Option<OpenCall>,
    /// Set by the engine while a reader runs: text and reasoning emitted then are counted as
    /// the reader's (byte accounting, `spans.rs`).
    pub in_reader: bool,
    reader_text: usize,
    reader_reasoning: usize,
    /// Drop the whitespace that ends a reasoning block (Step-3.5).
    pub strip_reasoning_tail: bool,
    /// Which repaired calls `parse()` keeps (the recovery policy): decides `kept` on each end
    /// event. Keeps every call unless the parser sets it.
    pub keep: Keep,
    /// Index of the call named by the latest `truncation` diagnostic (`Keep::truncated`).
    last_truncation: Option<usize>,
    /// With `strip_reasoning_tail`: the reasoning's trailing whitespace so far, emitted when
    /// more reasoning follows, dropped when anything else does (at most `MAX_REASONING_WS`).
    reasoning_ws: String,
}

/// Trailing reasoning whitespace held at most; a longer run is emitted but for its last bytes.
const MAX_REASONING_WS: usize = 256;

impl Sink {
    pub fn new(limits: Limits, tools: Option<Tools>, id_prefix: String, id_style: IdStyle) -> Self {
        Sink {
            events: Vec::new(),
            limits,
            tools,
            id_prefix,
            id_style,
            calls: 0,
            open: None,
            in_reader: false,
            reader_text: 0,
            reader_reasoning: 0,
            strip_reasoning_tail: false,
            keep: Keep::from(true),
            last_truncation: None,
            reasoning_ws: String::new(),
        }
    }

    /// Takes the events emitted so far.
    pub fn take(&mut self) -> Vec<Event> {
        core::mem::take(&mut self.events)
    }

    /// Moves the events emitted so far to the end of `out`.
    pub fn drain_into(&mut self, out: &mut Vec<Event>) {
        out.append(&mut self.events);
    }

    /// Number of calls started so far.
    pub fn calls_started(&self) -> usize {
        self.calls
    }

    /// Text and reasoning bytes emitted by readers so far (see `in_reader`).
    pub fn reader_emitted(&self) -> (usize, usize) {
        (self.reader_text, self.reader_reasoning)
    }

    pub fn in_call(&self) -> bool {
        self.open.is_some()
    }

    /// Name of the open call.
    pub fn call_name(&self) -> Option<&str> {
        self.open.as_ref().map(|c| c.name.as_str())
    }

    /// Index of the open call, or of the next call when none is open.
    pub fn call_index(&self) -> usize {
        self.open.as_ref().map_or(self.calls, |c| c.index)
    }

    /// Length of the open call's arguments so far.
    pub fn args_len(&self) -> usize {
        self.open.as_ref().map_or(0, |c| c.args.len())
    }

    /// True when a text value of parameter `key` of the open call streams as a JSON string
    /// (no tools, undeclared, or a string-only schema). See `Tools::streams_as_string`.
    pub fn param_streams_as_string(&self, key: &str) -> bool {
        match (&self.tools, self.call_name()) {
            (Some(t), Some(name)) => t.streams_as_string(name, key),
            _ => true,
        }
    }

    /// The JSON text of a text value of parameter `key` of the open call, coerced by the
    /// declared schema (a JSON string when there is none). A value that matches none of the
    /// declared types keeps its raw form and is reported as `type_coercion`.
    pub fn coerce_param(&mut self, key: &str, text: &str) -> String {
        let (Some(tools), Some(name)) = (&self.tools, self.call_name()) else {
            let mut s = String::new();
            crate::json::push_json_string(&mut s, text);
            return s;
        };
        let c = tools.coerce_text(name, key, text);
        if !c.ok {
            let expected = tools.param(name, key).map(|(s, r)| crate::schema::types(s, r).names()).unwrap_or_default();
            let mut got = String::new();
            crate::json::push_json_string(&mut got, text);
            let msg = format!("`{name}`.`{key}`: expected {expected}, got {got}; kept as given");
            self.call_diag(Label::TypeCoercion, msg);
            if let Some(call) = self.open.as_mut() {
                call.coerced.push(key.to_string());
            }
        }
        let json = c.value.to_string();
        self.within_depth(key, json, text)
    }

    /// `json` when it nests at most `max_depth` deep (so that the arguments object holding it
    /// stays within the limit); else `raw` as a JSON string, reported as `limit_exceeded`.
    fn within_depth(&mut self, key: &str, json: String, raw: &str) -> String {
        let mut sc = JsonScanner::new(Expect::Any, self.limits.max_depth);
        if !matches!(sc.feed(&json, None).1, Err(crate::json::scanner::JsonError::TooDeep)) {
            return json;
        }
        let msg = format!("`{}`.`{key}`: the value nests deeper than {}; kept as a string", self.call_name().unwrap_or_default(), self.limits.max_depth);
        self.call_diag(Label::LimitExceeded, msg);
        let mut s = String::new();
        crate::json::push_json_string(&mut s, raw);
        s
    }

    /// Like `coerce_param`, for a value that is already JSON text (a container of a typed
    /// parameter): coerced member by member by the declared schema. What does not fit keeps its
    /// form and is reported once as `type_coercion` (validation then skips the key).
    pub fn coerce_param_json(&mut self, key: &str, json: &str) -> String {
        let Ok(v) = crate::json::parse(json) else { return json.to_string() };
        let (Some(tools), Some(name)) = (&self.tools, self.call_name()) else { return json.to_string() };
        let Some((schema, root)) = tools.param(name, key) else { return json.to_string() };
        let c = crate::schema::coerce::coerce_value(&v, schema, root);
        if !c.ok {
            let expected = crate::schema::types(schema, root).names();
            let msg = format!("`{name}`.`{key}`: expected {expected}, got {json}; kept as given where it did not fit");
            self.call_diag(Label::TypeCoercion, msg);
            if let Some(call) = self.open.as_mut() {
                call.coerced.push(key.to_string());
            }
        }
        let out = c.value.to_string();
        self.within_depth(key, out, json)
    }

    pub fn text(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        self.reader_text += if self.in_reader { s.len() } else { 0 };
        self.reasoning_ws.clear();
        if let Some(Event::Text(t)) = self.events.last_mut() {
            t.push_str(s);
        } else {
            self.events.push(Event::Text(s.to_string()));
        }
    }

    /// Trailing reasoning whitespace held back so far (`strip_reasoning_tail`).
    pub fn held_reasoning_ws(&self) -> usize {
        self.reasoning_ws.len()
    }

    pub fn reasoning(&mut self, s: &str) {
        if !self.strip_reasoning_tail {
            return self.push_reasoning(s);
        }
        let body = s.trim_end_matches(|c: char| c.is_ascii_whitespace());
        if !body.is_empty() {
            let ws = core::mem::take(&mut self.reasoning_ws);
            self.push_reasoning(&ws);
            self.push_reasoning(body);
        }
        self.reasoning_ws.push_str(&s[body.len()..]);
        let over = self.reasoning_ws.len().saturating_sub(MAX_REASONING_WS);
        if over > 0 {
            // ASCII whitespace: any byte count is a char boundary.
            let head: String = self.reasoning_ws.drain(..over).collect();
            self.push_reasoning(&head);
        }
    }

    /// Emits the reasoning whitespace held back: a marker swallowed inside reasoning follows it.
    pub fn flush_reasoning_ws(&mut self) {
        let ws = core::mem::take(&mut self.reasoning_ws);
        self.push_reasoning(&ws);
    }

    fn push_reasoning(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        self.reader_reasoning += if self.in_reader { s.len() } else { 0 };
        if let Some(Event::Reasoning(t)) = self.events.last_mut() {
            t.push_str(s);
        } else {
            self.events.push(Event::Reasoning(s.to_string()));
        }
    }

    pub fn diag(&mut self, label: Label, message: impl Into<String>, index: Option<usize>) {
        if label == Label::Truncation && index.is_some() {
            self.last_truncation = index;
        }
        self.events.push(Event::Diagnostic { label, message: message.into(), index });
    }

    /// A diagnostic about the open call (or the next one).
    pub fn call_diag(&mut self, label: Label, message: impl Into<String>) {
        let index = Some(self.call_index());
        self.diag(label, message, index);
    }

    /// Starts a call. `id` overrides the generated id (e.g. Kimi's `functions.NAME:IDX`).
    /// An open call is ended first. Returns the call index.
    pub fn start_call(&mut self, name: &str, id: Option<String>) -> usize {
        self.reasoning_ws.clear();
        if self.open.is_some() {
            self.end_call_incomplete(Label::MalformedJson, "a new call began before this one ended");
        }
        let index = self.calls;
        self.calls += 1;
        let id = id.filter(|s| !s.is_empty()).unwrap_or_else(|| self.make_id(index));
        self.events.push(Event::ToolCallStart { index, id: id.clone(), name: name.to_string() });
        self.open = Some(OpenCall {
            index,
            id,
            name: name.to_string(),
            args: String::new(),
            scanner: JsonScanner::new(Expect::Object, self.limits.max_depth + 1),
            overflowed: false,
            coerced: Vec::new(),
        });
        if let Some(tools) = &self.tools {
            if !tools.is_empty() && !tools.has(name) {
                let msg = tools.unknown_tool_message(name);
                self.diag(Label::WrongTool, msg, Some(index));
            }
        }
        index
    }

    /// Appends an arguments fragment to the open call. Returns false when it was refused
    /// (no open call, over the size limit, or not a valid continuation of the JSON so far).
    pub fn args(&mut self, s: &str) -> bool {
        if s.is_empty() {
            return true;
        }
        let max = self.limits.max_args_bytes;
        let Some(call) = self.open.as_mut() else { return false };
        if call.overflowed {
            return false;
        }
        if call.args.len() + s.len() > max {
            // Keep what fits (at a char boundary), so the cut falls at the same byte whatever
            // the fragments; the rest is dropped.
            let mut fit = crate::text::floor_char_boundary(s, max.saturating_sub(call.args.len()));
            // Not inside an escape (`\u00` then `":null}` would not close the string).
            let mut probe = call.scanner.clone();
            while fit > 0 && {
                probe.clone_from(&call.scanner);
                let _ = probe.feed(&s[..fit], None);
                probe.in_escape()
            } {
                fit = crate::text::floor_char_boundary(s, fit - 1);
            }
            if fit > 0 {
                self.args(&s[..fit]);
            }
            let Some(call) = self.open.as_mut() else { return false };
            call.overflowed = true;
            let (index, name) = (call.index, call.name.clone());
            self.diag(
                Label::LimitExceeded,
                format!("arguments of `{name}` exceed the {max}-byte limit; the rest was dropped"),
                Some(index),
            );
            return false;
        }
        let before = call.scanner.clone();
        let (used, r) = call.scanner.feed(s, None);
        let ok = match r {
            Ok(Progress::More) => used == s.len(),
            Ok(Progress::Done) => s[used..].bytes().all(crate::json::scanner::is_ws),
            Err(_) => false,
        };
        if !ok {
            call.scanner = before;
            let index = call.index;
            self.diag(Label::MalformedJson, "internal: refused an argument fragment that is not valid JSON", Some(index));
            return false;
        }
        call.args.push_str(s);
        let index = call.index;
        if let Some(Event::ToolCallDelta { index: i, arguments_delta }) = self.events.last_mut() {
            if *i == index {
                arguments_delta.push_str(s);
                return true;
            }
        }
        self.events.push(Event::ToolCallDelta { index, arguments_delta: s.to_string() });
        true
    }

    /// True when the open call's arguments form a complete JSON object.
    pub fn args_complete(&self) -> bool {
        self.open.as_ref().is_some_and(|c| c.scanner.is_done())
    }

    /// Ends the open call. Arguments that are not a complete object are completed, with a
    /// `malformed_json` diagnostic (readers that know better call `end_call_incomplete`).
    pub fn end_call(&mut self) {
        if self.open.as_ref().is_some_and(|c| !c.scanner.is_done() && !c.overflowed) {
            self.end_call_incomplete(Label::MalformedJson, "arguments were not a complete JSON object; closed");
        } else {
            self.close_open();
        }
    }

    /// Ends the open call at the end of the output. Complete arguments end normally (a missing
    /// closing tag is not an error); cut-off arguments are closed and reported as `truncation`.
    pub fn end_call_truncated(&mut self) {
        if self.args_complete() {
            self.close_open();
        } else {
            self.end_call_incomplete(Label::Truncation, "the output ended inside the arguments");
        }
    }

    /// Ends the open call after something went wrong: completes the arguments and reports
    /// `label` with `message` (prefixed with the tool name).
    pub fn end_call_incomplete(&mut self, label: Label, message: &str) {
        let Some(call) = self.open.as_ref() else { return };
        let (index, name) = (call.index, call.name.clone());
        self.diag(label, format!("`{name}`: {message}"), Some(index));
        self.close_open();
    }

    fn close_open(&mut self) {
        let Some(mut call) = self.open.take() else { return };
        let tail = call.scanner.completion();
        let repaired = !tail.is_empty() || call.overflowed;
        if !tail.is_empty() {
            call.args.push_str(&tail);
            if let Some(Event::ToolCallDelta { index, arguments_delta }) = self.events.last_mut() {
                if *index == call.index {
                    arguments_delta.push_str(&tail);
                } else {
                    self.events.push(Event::ToolCallDelta { index: call.index, arguments_delta: tail });
                }
            } else {
                self.events.push(Event::ToolCallDelta { index: call.index, arguments_delta: tail });
            }
        }
        if let Some(tools) = &self.tools {
            let mut diags = Vec::new();
            tools.validate_call(&call.name, &call.args, repaired, &call.coerced, &mut diags);
            for (label, message) in diags {
                self.diag(label, message, Some(call.index));
            }
        }
        let kept = !repaired || self.keep.repaired || (self.keep.truncated && self.last_truncation == Some(call.index));
        self.events.push(Event::ToolCallEnd { index: call.index, id: call.id, name: call.name, arguments: call.args, repaired, kept, text: String::new() });
    }

    fn make_id(&self, index: usize) -> String {
        match self.id_style {
            IdStyle::Prefixed => {
                let mut s = self.id_prefix.clone();
                crate::event::push_usize(&mut s, index);
                s
            }
            IdStyle::Alnum9 => {
                // FNV-1a over the prefix and index: deterministic, so any chunking gives the same ids.
                let mut h: u64 = 0xcbf29ce484222325;
                for b in self.id_prefix.bytes().chain((index as u64).to_le_bytes()) {
                    h ^= b as u64;
                    h = h.wrapping_mul(0x100000001b3);
                }
                const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
                let mut s = String::with_capacity(9);
                for _ in 0..9 {
                    s.push(ALNUM[(h % 62) as usize] as char);
                    h = h / 62 ^ h.rotate_left(17);
                }
                s
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;

    fn sink() -> Sink {
        Sink::new(Limits::default(), None, "call_".into(), IdStyle::Prefixed)
    }

    #[test]
    fn merges_text_and_deltas() {
        let mut s = sink();
        s.text("a");
        s.text("b");
        s.start_call("f", None);
        s.args("{\"x\"");
        s.args(": 1}");
        s.end_call();
        let ev = s.take();
        assert_eq!(ev[0], Event::Text("ab".into()));
        assert_eq!(ev[2], Event::ToolCallDelta { index: 0, arguments_delta: "{\"x\": 1}".into() });
        assert!(matches!(&ev[3], Event::ToolCallEnd { id, arguments, .. } if id == "call_0" && arguments == "{\"x\": 1}"));
    }

    #[test]
    fn refuses_invalid_fragments_and_completes_truncation() {
        let mut s = sink();
        s.start_call("f", None);
        assert!(s.args("{\"x\": [1"));
        assert!(!s.args("}"));
        s.end_call_incomplete(Label::Truncation, "cut off");
        let ev = s.take();
        let Event::ToolCallEnd { arguments, .. } = ev.last().unwrap() else { panic!() };
        assert_eq!(arguments, "{\"x\": [1]}");
    }

    #[test]
    fn alnum_ids_are_nine_alphanumerics() {
        let mut s = Sink::new(Limits::default(), None, "x".into(), IdStyle::Alnum9);
        s.start_call("f", None);
        s.end_call();
        let ev = s.take();
        let Event::ToolCallStart { id, .. } = &ev[0] else { panic!() };
        assert_eq!(id.len(), 9);
        assert!(id.bytes().all(|b| b.is_ascii_alphanumeric()));
    }
}
