//! One parameter value, written into the call's arguments object as it arrives.
//!
//! - `Str`: `"` then the characters JSON-escaped as they arrive, `"` at the end. With
//!   `trim`, one leading newline is dropped and a trailing newline is held until the next
//!   character shows it was not the last.
//! - `Typed` (the tool schema names a non-string type): the text is buffered (at most
//!   `max_buffer_bytes`) and written coerced (`Sink::coerce_param`) when the value ends.
//! - `Json` (the format says the value is JSON: DSML `string="false"`, Kimi K3 `type="number"`,
//!   Muse Glimmer): buffered while it is a valid JSON prefix and written when it ends (coerced by
//!   the schema, when declared); as soon as it cannot be JSON it is a string (streamed, or coerced
//!   when the schema says so).
//!
//! A buffer that outgrows its limit is reported (`limit_exceeded`) and the value streams as a
//! string from there on.

use crate::prelude::*;
use crate::event::Label;
use crate::json::scanner::{is_ws, Expect, JsonScanner, Progress};
use crate::json::{push_json_string, ObjectWriter};
use crate::sink::Sink;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Str,
    Typed,
    Json,
}

/// See the module docs.
pub struct ParamValue {
    key: String,
    kind: Kind,
    trim: bool,
    /// A byte of the value was seen (the leading-newline decision is made).
    started: bool,
    pending_nl: bool,
    buf: String,
    sc: JsonScanner,
    scratch: String,
}

impl ParamValue {
    /// Starts the value of `key` in the open call: writes `"key": ` (and `"` for a string).
    /// `format_string` is the format's own typing: `Some(true)` a string, `Some(false)` JSON,
    /// `None` per tool schema. `trim`: drop one leading and one trailing newline. `spare`: an
    /// ended value (`end`) whose buffers are reused, and whose unsent end goes out with this
    /// value's first output. What it writes goes to the sink with the value's first text or
    /// its end (one fragment, not two), or with `flush`.
    pub fn begin(spare: Option<ParamValue>, key: &str, format_string: Option<bool>, trim: bool, w: &mut ObjectWriter, sink: &mut Sink) -> ParamValue {
        let as_string = sink.param_streams_as_string(key);
        let kind = match format_string {
            Some(false) => Kind::Json,
            _ if as_string => Kind::Str,
            _ => Kind::Typed,
        };
        let sc = JsonScanner::new(Expect::Any, sink.limits.value_depth());
        let mut v = match spare {
            Some(mut v) => {
                // Every field as below (the pattern names them all); the buffers keep their memory
                // and `scratch` the spare's unsent end, which this value's output follows.
                let ParamValue { key: k, kind: kd, trim: t, started, pending_nl, buf, sc: scanner, scratch: _ } = &mut v;
                k.clear();
                k.push_str(key);
                buf.clear();
                (*kd, *t, *started, *pending_nl, *scanner) = (kind, trim, false, false, sc);
                v
            }
            None => ParamValue { key: key.to_string(), kind, trim, started: false, pending_nl: false, buf: String::new(), sc, scratch: String::new() },
        };
        w.key(key, &mut v.scratch);
        if kind == Kind::Str {
            w.open_string(&mut v.scratch);
        }
        v
    }

    /// Sends what was written and not sent yet; before anything else reaches the sink, and
    /// before a value that did not `end` is dropped.
    pub fn flush(&mut self, sink: &mut Sink) {
        if !self.scratch.is_empty() {
            sink.args(&self.scratch);
            self.scratch.clear();
        }
    }

    /// A streamed string with nothing held (no newline, nothing unsent): bytes outside
    /// `Stop::JSON_STRING` (which holds `\n`, the one byte `trim` acts on) go out as they are
    /// (`Reader::quiet`).
    pub fn quiet(&self) -> bool {
        self.kind == Kind::Str && !self.pending_nl && self.scratch.is_empty()
    }

    /// Appends value text.
    pub fn push(&mut self, s: &str, w: &mut ObjectWriter, sink: &mut Sink) {
        if s.is_empty() {
            return;
        }
        match self.kind {
            Kind::Str => self.push_string(s, w, sink),
            Kind::Typed => {
                self.buf.push_str(s);
                self.check_size(w, sink);
            }
            Kind::Json => {
                self.buf.push_str(s);
                if !self.json_continues(s) {
                    if sink.param_streams_as_string(&self.key) {
                        self.stream_as_string(w, sink);
                    } else {
                        self.kind = Kind::Typed;
                        self.check_size(w, sink);
                    }
                } else {
                    self.check_size(w, sink);
                }
            }
        }
    }

    /// Feeds the JSON scanner; false once the text cannot be one JSON value.
    fn json_continues(&mut self, s: &str) -> bool {
        if self.sc.is_done() {
            return s.bytes().all(is_ws);
        }
        match self.sc.feed(s, None) {
            (_, Err(_)) => false,
            (used, Ok(Progress::Done)) => s.as_bytes().get(used..).is_some_and(|r| r.iter().all(|b| is_ws(*b))),
            (_, Ok(Progress::More)) => true,
        }
    }

    fn check_size(&mut self, w: &mut ObjectWriter, sink: &mut Sink) {
        let max = sink.limits.max_buffer_bytes;
        if self.buf.len() > max {
            self.flush(sink);
            let msg = format!("the value of `{}` exceeds the {max}-byte buffer; streamed as a string", self.key);
            sink.call_diag(Label::LimitExceeded, msg);
            self.stream_as_string(w, sink);
        }
    }

    /// Switches to a streamed string, writing what was buffered.
    fn stream_as_string(&mut self, w: &mut ObjectWriter, sink: &mut Sink) {
        self.kind = Kind::Str;
        w.open_string(&mut self.scratch);
        self.flush(sink);
        let buf = core::mem::take(&mut self.buf);
        self.started = false;
        self.push_string(&buf, w, sink);
    }

    fn push_string(&mut self, mut s: &str, w: &mut ObjectWriter, sink: &mut Sink) {
        if self.trim && !self.started {
            s = s.strip_prefix('\n').unwrap_or(s);
        }
        self.started = true;
        if s.is_empty() {
            return;
        }
        if self.pending_nl {
            w.string_chunk("\n", &mut self.scratch);
            self.pending_nl = false;
        }
        if self.trim {
            if let Some(t) = s.strip_suffix('\n') {
                s = t;
                self.pending_nl = true;
            }
        }
        w.string_chunk(s, &mut self.scratch);
        self.flush(sink);
    }

    /// The buffered text without the framing newlines.
    fn trimmed(&self) -> &str {
        let mut t = self.buf.as_str();
        if self.trim {
            t = t.strip_prefix('\n').unwrap_or(t);
            t = t.strip_suffix('\n').unwrap_or(t);
        }
        t
    }

    /// Ends the value (its close tag arrived, or the next part of the call began); returns it
    /// for reuse (`begin`'s `spare`) with its last output unsent: the caller sends it with what
    /// follows (the next value's `begin`, `close_call`) or `flush`es it before anything else
    /// reaches the sink.
    pub fn end(mut self, w: &mut ObjectWriter, sink: &mut Sink) -> ParamValue {
        if self.kind != Kind::Str {
            // Coercion may report: the key goes first.
            self.flush(sink);
        }
        match self.kind {
            Kind::Str => w.close_string(&mut self.scratch),
            Kind::Typed => {
                let json = coerce_text(sink, &self.key, self.trimmed());
                w.raw_value(&json, &mut self.scratch);
            }
            Kind::Json => {
                let json = if self.sc.finish() {
                    coerce_json(sink, &self.key, self.trimmed().trim())
                } else if sink.param_streams_as_string(&self.key) {
                    let mut s = String::new();
                    push_json_string(&mut s, self.trimmed());
                    s
                } else {
                    coerce_text(sink, &self.key, self.trimmed())
                };
                w.raw_value(&json, &mut self.scratch);
            }
        }
        self
    }

    /// True when some output was not sent yet (see `end`).
    pub fn has_unsent(&self) -> bool {
        !self.scratch.is_empty()
    }
}

/// A text value of parameter `key` of the open call, coerced by its schema (`Sink::coerce_param`).
/// A value that is not JSON but a Python literal (`{'a': True}`, `['x', 'y']`, `('a', 1)`) is
/// read as that literal when the schema allows an object or an array and it is one, as vLLM's
/// and mlx-lm's XML parsers do (`ast.literal_eval`).
pub fn coerce_text(sink: &mut Sink, key: &str, text: &str) -> String {
    if let Some(json) = python_container(sink, key, text) {
        return sink.coerce_param_json(key, &json);
    }
    sink.coerce_param(key, text)
}

/// The JSON of a Python-literal object or array value, when the schema of `key` allows one and
/// the text is not JSON.
fn python_container(sink: &Sink, key: &str, text: &str) -> Option<String> {
    let t = text.trim();
    if !t.starts_with(['{', '[', '(']) || crate::json::parse(t).is_ok() {
        return None;
    }
    let (Some(tools), Some(name)) = (&sink.tools, sink.call_name()) else { return None };
    let (schema, root) = tools.param(name, key)?;
    let allowed = crate::schema::types(schema, root);
    if !allowed.has(crate::schema::Ty::Object) && !allowed.has(crate::schema::Ty::Array) {
        return None;
    }
    let v = crate::pythonic::literal_to_json(t, &sink.limits)?;
    let fits = (v.is_object() && allowed.has(crate::schema::Ty::Object)) || (v.is_array() && allowed.has(crate::schema::Ty::Array));
    fits.then(|| crate::json::to_text(&v))
}

/// Valid JSON text of parameter `key` of the open call, coerced by its declared schema (as is
/// when none is declared). Reports `type_coercion` when the value fits none of the types.
pub fn coerce_json(sink: &mut Sink, key: &str, json: &str) -> String {
    let coerced = match (&sink.tools, sink.call_name()) {
        (Some(tools), Some(name)) => tools.param(name, key).and_then(|(schema, root)| {
            let v = crate::json::parse(json).ok()?;
            Some(crate::schema::coerce::coerce_value(&v, schema, root))
        }),
        _ => None,
    };
    match coerced {
        None => json.to_string(),
        Some(c) => {
            if !c.ok {
                let name = sink.call_name().unwrap_or_default().to_string();
                sink.call_diag(Label::TypeCoercion, format!("`{name}`.`{key}`: {json} does not match the declared type; kept as given"));
            }
            crate::json::to_text(&c.value)
        }
    }
}

/// Like `close_call`, after the call's last value `spent` (`ParamValue::end`): its unsent end
/// and the object's close go out as one fragment.
pub fn close_call_after(spent: Option<&mut ParamValue>, w: &mut ObjectWriter, sink: &mut Sink) {
    match spent {
        Some(v) => {
            v.scratch.push_str(w.closing());
            v.flush(sink);
            sink.end_call();
        }
        None => close_call(w, sink),
    }
}

/// Closes the open call's arguments object (`}`, or `{}` without parameters) and ends the call.
pub fn close_call(w: &mut ObjectWriter, sink: &mut Sink) {
    match w.closing() {
        // No parameter: the whole arguments, taken without a scan (`Sink::args_whole`).
        whole @ "{}" => sink.args_whole(whole, 1),
        tail => sink.args(tail),
    };
    sink.end_call();
}
