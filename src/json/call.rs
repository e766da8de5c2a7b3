//! Readers for JSON call objects: `{"name": "f", "arguments": {...}}`, arrays of them, and
//! separator-joined sequences of them.
//!
//! - A call starts when its name is known and its arguments begin (or when the object closes
//!   without arguments: `{}`). The arguments are forwarded raw, byte for byte, as they arrive.
//! - Arguments before the name are buffered (bounded) until the name arrives.
//! - Arguments given as a JSON string holding JSON are decoded on the fly and streamed decoded,
//!   with an `escaping_error` diagnostic.
//! - Until a call starts, nothing is emitted: an object that turns out not to be a call is
//!   rejected (the sequencer turns its bytes back into text). With a bare opening (`{` in
//!   prose), the first key must be a name or arguments key, so ordinary JSON in prose is
//!   released as soon as its first key is read, and the object needs both a name and
//!   arguments (`{"name": "x"}` in prose is text).
//! - Parallel collapse: when one tool-call block (a payload opened by a marker) holds several
//!   call objects fused together (`{...}{...}`, `{...}, {...}`, or an array where one object
//!   was expected), every object is read as a call and a `parallel_collapse` diagnostic is
//!   reported.

use crate::prelude::*;
use crate::reader::{CallError, Reader, Status, Step};
use crate::event::Label;
use crate::json::scanner::{is_ws, plain_string_end, Expect, JsonError, JsonScanner, Progress};
use crate::json::{unescape, unescape_into};
use crate::sink::Sink;

/// Keys of a JSON call object such as `{"name": "f", "arguments": {...}}`.
#[derive(Clone, Copy, Debug)]
pub struct Wrapper {
    /// Keys whose string value is the tool name, in order of preference.
    pub name_keys: &'static [&'static str],
    /// Keys whose value is the arguments object (or a JSON string holding it).
    pub args_keys: &'static [&'static str],
    /// Single-key objects `{"NAME": {args}}` (Apertus).
    pub key_is_name: bool,
}

impl Wrapper {
    /// The spellings seen across families: `name`/`tool_name`; `arguments`/`parameters`/`args`/`input`.
    pub const STANDARD: Wrapper = Wrapper {
        name_keys: &["name", "tool_name"],
        args_keys: &["arguments", "parameters", "args", "input"],
        key_is_name: false,
    };
    /// `{"fn_name": {args}}`.
    pub const KEY_IS_NAME: Wrapper = Wrapper { name_keys: &[], args_keys: &[], key_is_name: true };
}

/// How JSON call objects are laid out after the opening marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonShape {
    /// One call object.
    Object,
    /// An array of call objects; `]` ends the payload.
    Array,
    /// An array or a single object, decided by the first byte.
    ObjectOrArray,
    /// Call objects separated by this byte (Llama 3 uses `;`).
    Sequence(u8),
}

/// For `Payload::None`: rejects everything.
pub struct NoCalls;

impl Reader for NoCalls {
    fn feed(&mut self, _input: &str, _eof: bool, _sink: &mut Sink) -> Step {
        Step::reject(0)
    }
}

/// The first index at or after `i` that is not JSON whitespace.
pub(crate) fn skip_ws(input: &str, mut i: usize) -> usize {
    let b = input.as_bytes();
    while i < b.len() && is_ws(b[i]) {
        i += 1;
    }
    i
}

/// The error a JSON scanner error means for a call.
pub(crate) fn describe(e: JsonError) -> CallError {
    match e {
        JsonError::Unexpected(b) if b.is_ascii_graphic() => CallError::Malformed(format!("unexpected `{}`", b as char)),
        JsonError::Unexpected(b) => CallError::Malformed(format!("unexpected byte 0x{b:02x}")),
        JsonError::TooDeep => CallError::Limit("nesting deeper than the maxDepth limit".into()),
    }
}

/// Which part of a list of call objects (array, sequence) the reader is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ListPart {
    Begin,
    /// After `[` or `,` in an array: a call object (or `]` right after `[`).
    ArrItem { first: bool },
    InObj { in_array: bool },
    ArrAfter,
    /// After a call object outside an array: another object may follow (sequences, collapse).
    Next,
    Done,
}

/// Reads the JSON calls of one payload. See the module docs.
pub struct CallsReader {
    shape: JsonShape,
    wrapper: Wrapper,
    bare: bool,
    /// Read further objects fused into this block, reporting `parallel_collapse`.
    collapse: bool,
    /// An array opened where one object was expected (each extra element is a collapse).
    collapsed_array: bool,
    part: ListPart,
    /// Boxed, as `spare_obj`: the reader is large and moves between the two for every call.
    obj: Option<Box<WrapperReader>>,
    /// The last call object's reader, renewed for the next object (its buffers kept).
    spare_obj: Option<Box<WrapperReader>>,
    /// Calls this reader completed.
    calls: usize,
    /// Bytes consumed so far (for "did anything happen" decisions at eof).
    consumed: usize,
    /// Whitespace and separator before a further object (text if that object is not a call).
    gap: String,
    /// Array elements without a tool name skipped before the first call (text once a call starts).
    skipped: String,
    /// Call objects without a tool name are calls with an empty name (see `keep_nameless`).
    keep_nameless: bool,
}

impl CallsReader {
    /// `bare`: the opening marker belongs to the payload (`{` in prose). Payloads opened by a
    /// marker read fused call objects (`parallel_collapse`); see `without_collapse`.
    pub fn new(shape: JsonShape, wrapper: Wrapper, bare: bool) -> Self {
        CallsReader {
            shape,
            wrapper,
            bare,
            collapse: !bare,
            collapsed_array: false,
            part: ListPart::Begin,
            obj: None,
            spare_obj: None,
            calls: 0,
            consumed: 0,
            gap: String::new(),
            skipped: String::new(),
            keep_nameless: false,
        }
    }

    /// A call object that closes without a tool name (`{"arguments": {...}}`, `{}`) is a call
    /// with an empty name and a `malformed_json` diagnostic, not skipped (Mistral pre-v11, as
    /// vLLM keeps it). Not for bare openings: JSON in prose stays text.
    pub fn keep_nameless(mut self) -> Self {
        self.keep_nameless = !self.bare;
        self
    }

    fn object(&mut self, strict: bool) -> Box<WrapperReader> {
        let mut obj = match self.spare_obj.take() {
            Some(mut o) => {
                o.renew(self.wrapper, strict);
                o
            }
            None => Box::new(WrapperReader::new(self.wrapper, strict)),
        };
        obj.keep_nameless = self.keep_nameless;
        obj
    }

    /// Ends the payload after the first object: what follows is not part of the block (Mistral
    /// pre-v11 `[TOOL_CALLS] {...}` has no closing marker).
    pub fn without_collapse(mut self) -> Self {
        self.collapse = false;
        self
    }


    fn fail(&mut self, used: usize, sink: &mut Sink, msg: &str) -> Step {
        self.consumed += used;
        self.part = ListPart::Done;
        let error = CallError::Malformed(msg.to_string());
        if self.calls == 0 && !sink.in_call() {
            if self.consumed > 0 && !self.bare {
                return Step::reject_with(used, error);
            }
            return Step::reject(used);
        }
        Step::fail(used, error, sink)
    }
}

impl Reader for CallsReader {
    fn quiet(&self) -> Option<crate::quiet::Stop> {
        match self.part {
            ListPart::InObj { .. } => self.obj.as_ref()?.quiet(),
            _ => None,
        }
    }

    fn quiet_backslash(&self) -> bool {
        matches!(self.part, ListPart::InObj { .. }) && self.obj.as_ref().is_some_and(|o| o.quiet_backslash())
    }

    fn held_run(&self, sink: &Sink) -> Option<(&'static [u8], crate::quiet::Stop, usize)> {
        match self.part {
            ListPart::InObj { .. } => self.obj.as_ref()?.held_run(sink),
            _ => None,
        }
    }

    fn take_quiet(&mut self, run: &str, sink: &mut Sink) -> bool {
        let taken = matches!(self.part, ListPart::InObj { .. }) && self.obj.as_mut().is_some_and(|o| o.forwarding() && sink.args_quiet(run, &mut o.sc));
        self.consumed += if taken { run.len() } else { 0 };
        taken
    }

    fn reset(&mut self, bare: bool) -> bool {
        // Only a reader configured as `new` makes it (not `keep_nameless`, `without_collapse`).
        if self.keep_nameless || self.collapse == self.bare {
            return false;
        }
        // Field by field as `new(shape, wrapper, bare)` makes them, keeping the buffers' memory
        // and the last call object's reader.
        let CallsReader { shape: _, wrapper: _, bare: b, collapse, collapsed_array, part, obj, spare_obj, calls, consumed, gap, skipped, keep_nameless: _ } = self;
        if spare_obj.is_none() {
            *spare_obj = obj.take();
        }
        *obj = None;
        (*b, *collapse, *collapsed_array, *part, *calls, *consumed) = (bare, !bare, false, ListPart::Begin, 0, 0);
        gap.clear();
        skipped.clear();
        true
    }

    /// The usual payload, one call object `{"name": "f", "arguments": {...}}`, read in one pass
    /// when it ends in `input` (`Reader::whole`, native only): optional whitespace, `{`, a name
    /// key then an arguments key of the wrapper (plain keys within maxNameBytes), the name a
    /// plain string within maxNameBytes with nothing to trim, the arguments an object that a
    /// strict scanner reads whole (within maxDepth and maxArgsBytes) starting within the hold
    /// limit, `}`, and after it no further object fused into the block (`ws [,] ws {`, or input
    /// that ends before that is decided). Those are the bytes `feed` forwards (its repairing
    /// scanner writes its input unchanged when it repairs nothing) and the events it writes:
    /// start, one delta, end. Any other layout (more keys, arguments first, a string of
    /// arguments, arrays, sequences) is `feed`'s.
    #[cfg(not(target_arch = "wasm32"))]
    fn whole(&mut self, input: &str, room: usize, sink: &mut Sink) -> Option<usize> {
        if !matches!(self.shape, JsonShape::Object | JsonShape::ObjectOrArray) || self.wrapper.key_is_name {
            return None;
        }
        let b = input.as_bytes();
        let max_name = sink.limits.max_name_bytes;
        // One of `keys` (at most `max_name` bytes) as a string at `i`, then `:` and optional
        // whitespace: the offset after them.
        let key_at = |i: usize, keys: &[&str]| -> Option<usize> {
            let rest = b.get(i..)?.strip_prefix(b"\"")?;
            let key = keys.iter().find(|k| rest.strip_prefix(k.as_bytes()).is_some_and(|r| r.first() == Some(&b'"')))?;
            let colon = skip_ws(input, i + key.len() + 2);
            (key.len() <= max_name && b.get(colon) == Some(&b':')).then(|| skip_ws(input, colon + 1))
        };
        let mut i = skip_ws(input, 0);
        if b.get(i) != Some(&b'{') {
            return None;
        }
        let at = key_at(skip_ws(input, i + 1), self.wrapper.name_keys)?;
        // The name: a plain string (no escape, no control byte) of at most `max_name` bytes.
        if b.get(at) != Some(&b'"') {
            return None;
        }
        let end = plain_string_end(b, at + 1);
        let name = &input[at + 1..end];
        // Nothing for `feed` to trim: only a space can be ASCII whitespace here.
        let trimmed = match (name.as_bytes().first(), name.as_bytes().last()) {
            (Some(&f), Some(&l)) if f.is_ascii() && l.is_ascii() => f != b' ' && l != b' ',
            (Some(_), _) => name.trim().len() == name.len(),
            _ => false,
        };
        if b.get(end) != Some(&b'"') || name.len() > max_name || !trimmed {
            return None;
        }
        let at = skip_ws(input, end + 1);
        if b.get(at) != Some(&b',') {
            return None;
        }
        let at = key_at(skip_ws(input, at + 1), self.wrapper.args_keys)?;
        // The call starts at the arguments' `{`, within the hold limit.
        if b.get(at) != Some(&b'{') || at >= room {
            return None;
        }
        let used = JsonScanner::whole_object(&input[at..], sink.limits.depth()).filter(|&n| n <= sink.limits.max_args_bytes)?;
        i = skip_ws(input, at + used);
        if b.get(i) != Some(&b'}') {
            return None;
        }
        let end = i + 1;
        // What `ListPart::Next` looks for: another object fused into the block.
        let j = skip_ws(input, end);
        let k = if b.get(j) == Some(&b',') { skip_ws(input, j + 1) } else { j };
        if k - end <= 2 * 64 + 1 && b.get(k).is_none_or(|&c| c == b'{') {
            return None;
        }
        sink.whole_call(name, &input[at..at + used]);
        Some(end)
    }

    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let bytes = input.as_bytes();
        let mut i = 0;
        loop {
            match self.part {
                ListPart::Done => return Step::done(i),
                ListPart::Begin => {
                    i = skip_ws(input, i);
                    if i == bytes.len() {
                        if eof {
                            self.consumed += i;
                            return Step::reject(i);
                        }
                        self.consumed += i;
                        return Step::partial(i);
                    }
                    let b = bytes[i];
                    let array_ok = !matches!(self.shape, JsonShape::Object) || self.collapse;
                    let object_ok = !matches!(self.shape, JsonShape::Array);
                    if b == b'[' && array_ok {
                        i += 1;
                        self.collapsed_array = self.shape == JsonShape::Object;
                        self.part = ListPart::ArrItem { first: true };
                    } else if b == b'{' && object_ok {
                        self.obj = Some(self.object(self.bare));
                        self.part = ListPart::InObj { in_array: false };
                    } else {
                        self.consumed += i;
                        return Step::reject(i);
                    }
                }
                ListPart::ArrItem { first } => {
                    i = skip_ws(input, i);
                    if i == bytes.len() {
                        if eof {
                            return self.at_eof(i, sink);
                        }
                        self.consumed += i;
                        return Step::partial(i);
                    }
                    match bytes[i] {
                        b']' if first => {
                            i += 1;
                            self.part = ListPart::Done;
                        }
                        b'{' => {
                            let mut obj = self.object(self.bare && self.calls == 0);
                            obj.fused = self.collapsed_array && !first;
                            obj.pre_text = core::mem::take(&mut self.skipped);
                            self.obj = Some(obj);
                            self.part = ListPart::InObj { in_array: true };
                        }
                        _ => return self.fail(i, sink, "expected a call object in the array"),
                    }
                }
                ListPart::InObj { in_array } => {
                    let Some(obj) = self.obj.as_mut() else { return self.fail(i, sink, "internal") };
                    let step = obj.feed(&input[i..], eof, sink);
                    i += step.used;
                    let error = step.error;
                    match step.status {
                        Status::Partial => {
                            self.consumed += i;
                            return Step::partial(i);
                        }
                        Status::Done => {
                            self.gap.clear();
                            if obj.committed {
                                self.calls += 1;
                            }
                            let failed = obj.failed;
                            self.spare_obj = self.obj.take();
                            if failed {
                                self.part = ListPart::Done;
                                self.consumed += i;
                                return Step { used: i, status: Status::Done, error };
                            }
                            self.part = if in_array {
                                ListPart::ArrAfter
                            } else if matches!(self.shape, JsonShape::Sequence(_)) || self.collapse {
                                ListPart::Next
                            } else {
                                ListPart::Done
                            };
                            if i < bytes.len() && self.part != ListPart::Done {
                                // Stop at the call's end (`Reader::feed`).
                                self.consumed += i;
                                return Step::partial(i);
                            }
                        }
                        Status::Reject => {
                            let obj = self.obj.take();
                            let nameless = obj.as_ref().is_some_and(|o| o.nameless);
                            let (pre, raw) = obj.map(|o| { let o = *o; (o.pre_text, o.raw) }).unwrap_or_default();
                            if in_array && nameless {
                                // A complete element without a tool name is skipped (as vLLM's
                                // Mistral parser does): its bytes are text, the array goes on.
                                if let Some(e) = error {
                                    sink.diag(e.label(), e.message(), None);
                                }
                                if self.calls == 0 {
                                    self.skipped = pre + &raw;
                                } else {
                                    sink.text(&raw);
                                }
                                self.part = ListPart::ArrAfter;
                                continue;
                            }
                            if self.calls == 0 {
                                self.consumed += i;
                                self.part = ListPart::Done;
                                return Step { used: i, status: Status::Reject, error };
                            }
                            // A later element that is not a call: its bytes are text.
                            if let Some(e) = error {
                                sink.diag(e.label(), e.message(), None);
                            }
                            sink.text(&self.gap);
                            sink.text(&raw);
                            self.part = ListPart::Done;
                            self.consumed += i;
                            return Step::done(i);
                        }
                    }
                }
                ListPart::ArrAfter => {
                    i = skip_ws(input, i);
                    if i == bytes.len() {
                        if eof {
                            return self.at_eof(i, sink);
                        }
                        self.consumed += i;
                        return Step::partial(i);
                    }
                    match bytes[i] {
                        b',' => {
                            i += 1;
                            self.part = ListPart::ArrItem { first: false };
                        }
                        b']' => {
                            i += 1;
                            self.part = ListPart::Done;
                            if self.calls == 0 && !self.skipped.is_empty() {
                                // No element was a call: the whole array is text.
                                self.consumed += i;
                                return Step::reject(i);
                            }
                        }
                        _ => return self.fail(i, sink, "expected `,` or `]` after a call object"),
                    }
                }
                ListPart::Next => {
                    // Look ahead (bounded) for `ws [sep] ws {` without consuming unless it matches.
                    let sep = if let JsonShape::Sequence(sep) = self.shape { sep } else { b',' };
                    let j = skip_ws(input, i);
                    let k = if j < bytes.len() && bytes[j] == sep { skip_ws(input, j + 1) } else { j };
                    if k - i > 2 * 64 + 1 {
                        self.part = ListPart::Done;
                        continue;
                    }
                    if k == bytes.len() {
                        if eof {
                            self.part = ListPart::Done;
                            continue;
                        }
                        self.consumed += i;
                        return Step::partial(i);
                    }
                    if bytes[k] != b'{' {
                        self.part = ListPart::Done;
                        continue;
                    }
                    self.gap.clear();
                    self.gap.push_str(&input[i..k]);
                    i = k;
                    let mut obj = self.object(self.bare);
                    obj.fused = !matches!(self.shape, JsonShape::Sequence(_));
                    self.obj = Some(obj);
                    self.part = ListPart::InObj { in_array: false };
                }
            }
        }
    }
}

impl CallsReader {
    fn at_eof(&mut self, i: usize, sink: &mut Sink) -> Step {
        self.part = ListPart::Done;
        if self.calls == 0 {
            return Step::reject_with(i, CallError::Truncated("the output ended inside a tool-call array".into()));
        }
        Step::fail(i, CallError::Truncated("the output ended before the tool-call array closed".into()), sink)
    }
}

/// Which part of a call object the reader is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ObjectPart {
    Open,
    /// After `{` (`first`) or `,`: a key (or `}` when first).
    Key { first: bool },
    /// Inside a key string.
    KeyStr,
    Colon,
    ValueStart,
    Value,
    After,
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Name,
    Args,
    ArgsString,
    Skip,
}

/// Reads one call object.
struct WrapperReader {
    wrapper: Wrapper,
    /// Opened by a bare `{` in prose: the first key must be a call key.
    strict: bool,
    part: ObjectPart,
    sc: JsonScanner,
    key: String,
    key_escape: bool,
    keys: usize,
    role: Role,
    name: Option<String>,
    /// The last call's name buffer (`name`'s memory), for the next name.
    spare_name: String,
    name_raw: String,
    /// Input bytes of the name's JSON string consumed so far (decides `maxNameBytes`).
    name_len: usize,
    args_seen: bool,
    args_done: bool,
    /// Arguments read before the name was known.
    args_buf: Option<String>,
    string_args: Option<StringArgs>,
    double_encoded: bool,
    /// Bytes consumed while no call was started.
    raw: String,
    committed: bool,
    failed: bool,
    /// Fused into a block after another call object: reports `parallel_collapse` if it is a call.
    fused: bool,
    /// The object closed without a tool name (an array element that can be skipped).
    nameless: bool,
    /// Such an object is a call with an empty name instead (`CallsReader::keep_nameless`).
    keep_nameless: bool,
    /// Skipped elements before this one: text emitted just before this call starts.
    pre_text: String,
    scratch: String,
}

impl WrapperReader {
    fn new(wrapper: Wrapper, strict: bool) -> Self {
        WrapperReader {
            wrapper,
            strict,
            part: ObjectPart::Open,
            sc: JsonScanner::new(Expect::Any, 1),
            key: String::new(),
            key_escape: false,
            keys: 0,
            role: Role::Skip,
            name: None,
            spare_name: String::new(),
            name_raw: String::new(),
            name_len: 0,
            args_seen: false,
            args_done: false,
            args_buf: None,
            string_args: None,
            double_encoded: false,
            raw: String::new(),
            committed: false,
            failed: false,
            fused: false,
            nameless: false,
            keep_nameless: false,
            pre_text: String::new(),
            scratch: String::new(),
        }
    }

    /// Makes this reader what `new(wrapper, strict)` makes, keeping its buffers' memory.
    fn renew(&mut self, wrapper: Wrapper, strict: bool) {
        // Field by field as `new` makes them (the pattern names them all), in place: no
        // reader-sized copy per payload.
        let WrapperReader {
            wrapper: w, strict: st, part, sc, key, key_escape, keys, role, name, spare_name, name_raw, name_len, args_seen, args_done, args_buf,
            string_args, double_encoded, raw, committed, failed, fused, nameless, keep_nameless, pre_text, scratch,
        } = self;
        if let Some(n) = name.take() {
            *spare_name = n;
        }
        for b in [key, spare_name, name_raw, raw, pre_text, scratch] {
            b.clear();
        }
        (*w, *st, *part, *sc, *key_escape, *keys, *role, *name_len, *args_seen, *args_done, *args_buf, *string_args) =
            (wrapper, strict, ObjectPart::Open, JsonScanner::new(Expect::Any, 1), false, 0, Role::Skip, 0, false, false, None, None);
        (*double_encoded, *committed, *failed, *fused, *nameless, *keep_nameless) = (false, false, false, false, false, false);
    }

    fn commit(&mut self, sink: &mut Sink) {
        let name = self.name.take().unwrap_or_default();
        self.commit_named(&name, sink);
        self.name = Some(name);
    }

    fn commit_named(&mut self, name: &str, sink: &mut Sink) {
        if self.fused {
            sink.call_diag(Label::ParallelCollapse, "several call objects fused in one tool-call block; each was read as a call");
        }
        if !self.pre_text.is_empty() {
            sink.text(&core::mem::take(&mut self.pre_text));
        }
        sink.start_call(name, None);
        self.committed = true;
        self.raw.clear();
        if self.double_encoded {
            sink.call_diag(Label::EscapingError, format!("`{name}`: arguments were a JSON string holding JSON; decoded"));
        }
        if let Some(buf) = self.args_buf.take() {
            sink.args(&buf);
        }
    }

    /// An error at `input[i]`: reject if nothing was started, else end the call.
    fn error(&mut self, input: &str, i: usize, sink: &mut Sink, error: CallError) -> Step {
        self.part = ObjectPart::Done;
        self.failed = true;
        if !self.committed {
            self.raw.push_str(&input[..i]);
            // A bare `{` in prose that is not a call is just text.
            if self.strict && self.keys <= 1 && self.name.is_none() {
                return Step::reject(i);
            }
            return Step::reject_with(i, error.prefixed("not a valid tool call: "));
        }
        if !sink.in_call() {
            return Step::done(i);
        }
        if self.args_done {
            sink.end_call();
            return Step::fail(i, CallError::Malformed(format!("malformed call object after the arguments: {}", error.message())), sink);
        }
        Step::fail(i, error.map(|m| format!("malformed arguments ({m}); closed")), sink)
    }

    /// The object closed at `input[i]` (the `}`), or the input ended.
    fn close(&mut self, input: &str, i: usize, sink: &mut Sink) -> Step {
        self.part = ObjectPart::Done;
        if !self.committed {
            if self.strict && !self.args_seen {
                // `{"name": "x"}` in prose: ordinary JSON, not a call.
                self.raw.push_str(&input[..i]);
                self.failed = true;
                return Step::reject(i);
            }
            let named = self.name.as_deref().is_some_and(|n| !n.is_empty());
            if named || (self.keep_nameless && !self.strict) {
                if self.args_buf.is_none() {
                    self.args_buf = Some("{}".to_string());
                }
                self.commit(sink);
                if !named {
                    sink.call_diag(Label::MalformedJson, "a call object without a tool name; kept as a call with an empty name");
                }
            } else {
                self.raw.push_str(&input[..i]);
                self.failed = true;
                if !(self.strict && self.name.is_none() && !self.args_seen) {
                    self.nameless = true;
                    return Step::reject_with(i, CallError::Malformed("a call object without a tool name".into()));
                }
                return Step::reject(i);
            }
        } else if !self.args_seen {
            sink.args("{}");
        }
        if self.sc.repairs() > 0 {
            sink.call_diag(Label::EscapingError, "raw control characters or invalid escapes in argument strings were repaired");
        }
        sink.end_call();
        Step::done(i)
    }

    /// See `Reader::quiet`: inside a string of arguments forwarded raw.
    fn quiet(&self) -> Option<crate::quiet::Stop> {
        (self.forwarding() && self.sc.in_plain_string()).then_some(crate::quiet::Stop::JSON_STRING_ESCAPES)
    }

    /// See `Reader::quiet_backslash`.
    fn quiet_backslash(&self) -> bool {
        self.forwarding() && self.sc.held_backslash()
    }

    /// See `Reader::held_run`: inside a key string, or the tool name's string, plain: nothing
    /// comes out until its closing `"` (or a `\\`, a control byte), within maxNameBytes. Before
    /// a call starts, a lead first where the header may go on as `"name": "` (then the name's
    /// run) or `, "arguments": ` (short of the `{` that starts the call) goes on: the bytes
    /// that take it there from where the reader is, none of which gives an event.
    fn held_run(&self, sink: &Sink) -> Option<(&'static [u8], crate::quiet::Stop, usize)> {
        let max = sink.limits.max_name_bytes;
        let plain_key = self.part == ObjectPart::KeyStr && !self.key_escape;
        // (A wrapper but `KEY_IS_NAME` is `STANDARD`: `name` and `arguments` are call keys.)
        let named = self.name.is_some();
        if !self.committed && !self.wrapper.key_is_name && !self.args_seen && max >= 9 {
            // The header's usual continuation: `"name": "` (to 9), or `, "arguments": ` (from 9).
            const HEADER: &[u8] = b"\"name\": \", \"arguments\": ";
            let (from, word, end) = if named { (9, 12, HEADER.len()) } else { (0, 1, 9) };
            // The key read so far, followed by its closing quote when `closed`.
            let key_at = |closed: bool| {
                let rest = &HEADER[word..end];
                let k = self.key.as_bytes();
                (rest.starts_with(k) && (!closed || rest.get(k.len()) == Some(&b'"'))).then_some(word + k.len() + usize::from(closed))
            };
            let at = match self.part {
                ObjectPart::Key { first } if first != named => Some(from + usize::from(named)),
                ObjectPart::After if named => Some(from),
                _ if plain_key => key_at(false),
                ObjectPart::Colon => key_at(true),
                _ => None,
            };
            if let Some(at) = at {
                // After `"name": "`, the name's string with its opening quote read (its run below).
                return Some((&HEADER[at..end], crate::quiet::Stop::JSON_STRING, if named { 0 } else { max + 1 }));
            }
        }
        let room = match self.part {
            _ if plain_key => max.checked_sub(self.key.len())?,
            ObjectPart::Value if self.role == Role::Name && self.sc.in_plain_string() => (max + 2).checked_sub(self.name_len)?,
            _ => return None,
        };
        Some((b"", crate::quiet::Stop::JSON_STRING, room))
    }

    /// Reading the arguments value, sent on as it comes.
    fn forwarding(&self) -> bool {
        self.part == ObjectPart::Value && self.role == Role::Args && self.committed
    }

    fn classify_key(&self) -> Role {
        let key = crate::json::unescaped(&self.key).unwrap_or_default();
        let key = key.as_ref();
        if self.wrapper.key_is_name {
            return if self.keys == 1 { Role::Args } else { Role::Skip };
        }
        if self.wrapper.name_keys.contains(&key) && self.name.is_none() {
            return Role::Name;
        }
        if self.wrapper.args_keys.contains(&key) && !self.args_seen {
            return Role::Args;
        }
        Role::Skip
    }

    /// Like `Reader::feed`. While no call started, sees at most the hold limit (see the engine).
    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let room = sink.limits.max_buffer_bytes.saturating_sub(self.raw.len());
        let capped = !self.committed && input.len() > room;
        let visible = if capped { &input[..crate::text::floor_char_boundary(input, room)] } else { input };
        let step = self.feed_inner(visible, eof && !capped, sink);
        if !self.committed && step.status == Status::Partial {
            self.raw.push_str(&input[..step.used]);
            if capped {
                self.failed = true;
                return Step::reject_with(step.used, CallError::Limit("a call object stayed undecided too long; released as text".into()));
            }
        }
        step
    }

    fn feed_inner(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let bytes = input.as_bytes();
        let mut i = 0;
        loop {
            if i == bytes.len() && !matches!(self.part, ObjectPart::Done) {
                if !eof {
                    return Step::partial(i);
                }
                return self.at_eof(input, i, sink);
            }
            match self.part {
                ObjectPart::Done => return Step::done(i),
                ObjectPart::Open => {
                    i = skip_ws(input, i);
                    if i == bytes.len() {
                        continue;
                    }
                    if bytes[i] != b'{' {
                        return self.error(input, i, sink, CallError::Malformed("expected `{`".into()));
                    }
                    i += 1;
                    self.part = ObjectPart::Key { first: true };
                }
                ObjectPart::Key { first } => {
                    i = skip_ws(input, i);
                    if i == bytes.len() {
                        continue;
                    }
                    match bytes[i] {
                        b'"' => {
                            i += 1;
                            self.key.clear();
                            self.key_escape = false;
                            self.part = ObjectPart::KeyStr;
                        }
                        b'}' if first => return self.close(input, i + 1, sink),
                        b => return self.error(input, i, sink, describe(JsonError::Unexpected(b))),
                    }
                }
                ObjectPart::KeyStr => {
                    let start = i;
                    // Up to the closing `"`, a control byte or the end of the input; plain
                    // bytes a word at a time, an escaped byte taken as it is.
                    loop {
                        if self.key_escape {
                            if i == bytes.len() {
                                break;
                            }
                            self.key_escape = false;
                            i += 1;
                        }
                        i = plain_string_end(bytes, i);
                        if i < bytes.len() && bytes[i] == b'\\' {
                            self.key_escape = true;
                            i += 1;
                            continue;
                        }
                        break;
                    }
                    // The limit first: the bytes before `i` come before the byte at `i`.
                    if let Some(at) = crate::limits::crossing(input, start, i, self.key.len(), sink.limits.max_name_bytes) {
                        return self.error(input, at, sink, CallError::Limit("key too long".into()));
                    }
                    if i < bytes.len() && bytes[i] != b'"' {
                        return self.error(input, i, sink, CallError::Malformed("control character in a key".into()));
                    }
                    self.key.push_str(&input[start..i]);
                    if i < bytes.len() {
                        i += 1;
                        self.keys += 1;
                        self.part = ObjectPart::Colon;
                    }
                }
                ObjectPart::Colon => {
                    i = skip_ws(input, i);
                    if i == bytes.len() {
                        continue;
                    }
                    if bytes[i] != b':' {
                        return self.error(input, i, sink, CallError::Malformed("expected `:`".into()));
                    }
                    i += 1;
                    self.part = ObjectPart::ValueStart;
                }
                ObjectPart::ValueStart => {
                    i = skip_ws(input, i);
                    if i == bytes.len() {
                        continue;
                    }
                    let b = bytes[i];
                    let mut role = self.classify_key();
                    if self.strict && self.keys == 1 && role == Role::Skip {
                        // Ordinary JSON in prose.
                        return self.error(input, i, sink, CallError::Malformed("not a call object".into()));
                    }
                    if self.wrapper.key_is_name && role == Role::Args {
                        self.name = unescape(&self.key);
                    }
                    let depth = sink.limits.depth();
                    match role {
                        Role::Name => {
                            if b != b'"' {
                                return self.error(input, i, sink, CallError::Malformed("the tool name is not a string".into()));
                            }
                            self.name_raw.clear();
                            self.name_len = 0;
                            self.sc = JsonScanner::new(Expect::Any, depth);
                        }
                        Role::Args => {
                            self.args_seen = true;
                            if b == b'"' {
                                role = Role::ArgsString;
                                self.double_encoded = true;
                                self.string_args = Some(StringArgs::new(depth));
                                i += 1;
                                if self.name.is_none() {
                                    self.args_buf = Some(String::new());
                                }
                            } else if b == b'{' {
                                self.sc = JsonScanner::repairing(Expect::Object, depth);
                                if self.name.is_some() && !self.committed {
                                    self.commit(sink);
                                } else {
                                    self.args_buf = Some(String::new());
                                }
                            } else {
                                return self.error(input, i, sink, CallError::Malformed("the arguments are not an object".into()));
                            }
                        }
                        _ => self.sc = JsonScanner::new(Expect::Any, depth),
                    }
                    self.role = role;
                    self.part = ObjectPart::Value;
                }
                ObjectPart::Value => {
                    let rest = &input[i..];
                    match self.role {
                        Role::ArgsString => {
                            let Some(sa) = self.string_args.as_mut() else { return self.error(input, i, sink, CallError::Malformed("internal".into())) };
                            self.scratch.clear();
                            let (used, r) = sa.feed(rest, &mut self.scratch);
                            let started = sa.started();
                            if !self.committed && started && self.name.is_some() {
                                self.commit(sink);
                            }
                            if self.committed {
                                sink.args(&self.scratch);
                            } else if let Some(buf) = self.args_buf.as_mut() {
                                buf.push_str(&self.scratch);
                            }
                            i += used;
                            match r {
                                Ok(false) => {}
                                Ok(true) => {
                                    self.args_done = true;
                                    self.part = ObjectPart::After;
                                }
                                Err(msg) => {
                                    if self.committed {
                                        return self.error(input, i, sink, msg);
                                    }
                                    self.part = ObjectPart::Done;
                                    self.failed = true;
                                    self.raw.push_str(&input[..i]);
                                    return Step::reject_with(i, CallError::Escaping(format!("arguments are a string that does not hold a JSON object: {}", msg.message())));
                                }
                            }
                        }
                        role => {
                            self.scratch.clear();
                            // A name is fed at most up to the character that crosses
                            // `maxNameBytes` (its quotes aside), so the limit is hit at the same
                            // byte whatever the chunking.
                            let rest = match role {
                                Role::Name => {
                                    let room = (sink.limits.max_name_bytes + 3).saturating_sub(self.name_len);
                                    &rest[..crate::text::ceil_char_boundary(rest, room)]
                                }
                                _ => rest,
                            };
                            // A name that is a whole plain string here needs no scanner.
                            let plain = match role {
                                Role::Name if self.sc.at_start() && rest.starts_with('"') => {
                                    let end = plain_string_end(rest.as_bytes(), 1);
                                    (rest.as_bytes().get(end) == Some(&b'"')).then_some(end + 1)
                                }
                                _ => None,
                            };
                            let (used, r) = match plain {
                                Some(n) => (n, Ok(Progress::Done)),
                                None => self.sc.feed(rest, Some(&mut self.scratch)),
                            };
                            match role {
                                Role::Name if plain.is_none() => self.name_raw.push_str(&self.scratch),
                                Role::Args if self.committed => {
                                    if r.is_ok() {
                                        sink.args_read(&self.scratch, &self.sc);
                                    } else {
                                        sink.args(&self.scratch);
                                    }
                                }
                                Role::Args => {
                                    if let Some(buf) = self.args_buf.as_mut() {
                                        buf.push_str(&self.scratch);
                                    }
                                }
                                _ => {}
                            }
                            self.name_len += if role == Role::Name { used } else { 0 };
                            if role == Role::Name && self.name_len > sink.limits.max_name_bytes + 2 {
                                return self.error(input, i + used, sink, CallError::Limit("tool name too long".into()));
                            }
                            i += used;
                            match r {
                                Ok(Progress::More) => {}
                                Ok(Progress::Done) => {
                                    self.part = ObjectPart::After;
                                    match role {
                                        Role::Name => {
                                            let mut name = self.name.take().unwrap_or_else(|| core::mem::take(&mut self.spare_name));
                                            name.clear();
                                            // A plain string's body is the name as it is.
                                            let decoded = match plain {
                                                Some(n) => {
                                                    name.push_str(&rest[1..n - 1]);
                                                    Some(())
                                                }
                                                None => unescape_into(&self.name_raw[1..self.name_raw.len() - 1], &mut name),
                                            };
                                            if decoded.is_some() {
                                                crate::text::trim_in_place(&mut name);
                                                self.name = Some(name);
                                            } else {
                                                self.spare_name = name;
                                            }
                                            if self.args_done && !self.committed && self.name.is_some() {
                                                self.commit(sink);
                                            }
                                        }
                                        Role::Args => self.args_done = true,
                                        _ => {}
                                    }
                                }
                                Err(e) => return self.error(input, i, sink, describe(e)),
                            }
                        }
                    }
                }
                ObjectPart::After => {
                    // A top-level number value ends here; let the scanner know.
                    i = skip_ws(input, i);
                    if i == bytes.len() {
                        continue;
                    }
                    match bytes[i] {
                        b',' => {
                            i += 1;
                            self.part = ObjectPart::Key { first: false };
                        }
                        b'}' => return self.close(input, i + 1, sink),
                        b => return self.error(input, i, sink, describe(JsonError::Unexpected(b))),
                    }
                }
            }
            // A skipped number value ends only at the next byte: the scanner reported Done
            // without consuming it, which `ObjectPart::After` now reads.
        }
    }

    fn at_eof(&mut self, input: &str, i: usize, sink: &mut Sink) -> Step {
        if self.part == ObjectPart::Value && self.role == Role::Skip && self.sc.finish() {
            self.part = ObjectPart::After;
        }
        self.part = ObjectPart::Done;
        self.failed = true;
        if !self.committed {
            self.raw.push_str(&input[..i]);
            if !self.raw.trim().is_empty() && !(self.strict && self.keys == 0) {
                return Step::reject_with(i, CallError::Truncated("the output ended inside a tool call".into()));
            }
            return Step::reject(i);
        }
        if sink.in_call() {
            sink.end_call_truncated();
        }
        Step::done(i)
    }
}

/// Decodes a JSON string literal's body (after the opening quote) and scans the decoded text
/// as a JSON object.
struct StringArgs {
    esc: u8,
    u: u32,
    un: u8,
    high: Option<u32>,
    inner: JsonScanner,
    decoded: String,
}

const ESC_NONE: u8 = 0;
const ESC_BACKSLASH: u8 = 1;
const ESC_U: u8 = 2;

impl StringArgs {
    fn new(depth: usize) -> Self {
        StringArgs { esc: ESC_NONE, u: 0, un: 0, high: None, inner: JsonScanner::repairing(Expect::Object, depth), decoded: String::new() }
    }

    /// True once the inner object began.
    fn started(&self) -> bool {
        !self.inner.at_start()
    }

    /// Feeds the inner scanner with decoded text; output (inner JSON) goes to `out`. An error
    /// comes with the bytes of `s` read before the offending one.
    fn push_decoded(&mut self, s: &str, out: &mut String) -> Result<(), (usize, CallError)> {
        let trailing = |s: &str| s.bytes().position(|b| !is_ws(b));
        if self.inner.is_done() {
            return match trailing(s) {
                None => Ok(()),
                Some(at) => Err((at, CallError::Malformed("text after the arguments object".into()))),
            };
        }
        let (used, r) = self.inner.feed(s, Some(out));
        match r {
            Err(e) => Err((used, describe(e))),
            Ok(Progress::Done) => match trailing(&s[used..]) {
                None => Ok(()),
                Some(at) => Err((used + at, CallError::Malformed("text after the arguments object".into()))),
            },
            Ok(_) => Ok(()),
        }
    }

    /// Returns (bytes used, Ok(true) when the string closed).
    fn feed(&mut self, input: &str, out: &mut String) -> (usize, Result<bool, CallError>) {
        let bytes = input.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match self.esc {
                ESC_NONE => {
                    let start = i;
                    while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\\' {
                        i += 1;
                    }
                    if i > start {
                        self.decoded.clear();
                        self.decoded.push_str(&input[start..i]);
                        let d = core::mem::take(&mut self.decoded);
                        let r = self.push_decoded(&d, out);
                        self.decoded = d;
                        if let Err((at, e)) = r {
                            // Decided at the offending byte, whatever the chunking.
                            return (start + at, Err(e));
                        }
                    }
                    if i == bytes.len() {
                        break;
                    }
                    if bytes[i] == b'"' {
                        i += 1;
                        if !self.inner.is_done() {
                            return (i, Err(CallError::Malformed("the string ended before the object did".into())));
                        }
                        return (i, Ok(true));
                    }
                    self.esc = ESC_BACKSLASH;
                    i += 1;
                }
                ESC_BACKSLASH => {
                    let c = match bytes[i] {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            self.esc = ESC_U;
                            self.u = 0;
                            self.un = 0;
                            i += 1;
                            continue;
                        }
                        _ => return (i, Err(CallError::Malformed("invalid escape in the arguments string".into()))),
                    };
                    i += 1;
                    self.esc = ESC_NONE;
                    let mut tmp = [0u8; 4];
                    if let Err((_, e)) = self.push_decoded(c.encode_utf8(&mut tmp), out) {
                        return (i, Err(e));
                    }
                }
                _ => {
                    let Some(d) = (bytes[i] as char).to_digit(16) else {
                        return (i, Err(CallError::Malformed("invalid \\u escape in the arguments string".into())));
                    };
                    self.u = self.u * 16 + d;
                    self.un += 1;
                    i += 1;
                    if self.un == 4 {
                        self.esc = ESC_NONE;
                        let u = self.u;
                        let c = if (0xD800..0xDC00).contains(&u) {
                            self.high = Some(u);
                            continue;
                        } else if (0xDC00..0xE000).contains(&u) {
                            match self.high.take() {
                                Some(h) => char::from_u32(0x10000 + ((h - 0xD800) << 10) + (u - 0xDC00)).unwrap_or('\u{FFFD}'),
                                None => '\u{FFFD}',
                            }
                        } else {
                            char::from_u32(u).unwrap_or('\u{FFFD}')
                        };
                        let mut tmp = [0u8; 4];
                        if let Err((_, e)) = self.push_decoded(c.encode_utf8(&mut tmp), out) {
                            return (i, Err(e));
                        }
                    }
                }
            }
        }
        (i, Ok(false))
    }
}
