//! The calls of one pythonic or key-value payload.
//!
//! - Python: an optional `[`, then `name(args)` calls separated by `,` or whitespace (Olmo 3
//!   puts one per line), then `]` when the list was opened. A dotted name keeps its dots.
//! - Key-value: `call:name{args}` (or a bare `:name{`, or `(args)`), back to back. A name that
//!   reaches the end marker without arguments is a call with `{}` (reported).
//!
//! A call starts at its `(` / `{`. Before the first call anything unexpected rejects the
//! payload (its bytes become text); after it, an item that is not a call is given back as
//! text and ends the payload. Whitespace after a call is read ahead (at most `WS_AHEAD`
//! bytes) and left to the sequencer when the payload ends there.

use crate::prelude::*;
use super::lex;
use super::values::{Status, Values, WS_AHEAD};
use super::{PySyntax, Style};
use crate::reader::{CallError, Reader, Step};
use crate::event::Label;
use crate::scan::{Act, MarkerSet};
use crate::sink::Sink;

/// Which part of a call list the reader is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Begin,
    /// Python: after `[` or `,`, a call comes.
    Item,
    Name,
    Args,
    After,
    Done,
}

/// See the module docs.
pub struct CallsReader {
    cfg: &'static PySyntax,
    part: Part,
    /// Python: the list was opened with `[`.
    bracket: bool,
    name: String,
    /// Bytes consumed since the last call ended (separator, whitespace), for giving back.
    raw: String,
    calls: usize,
    args: Option<Values>,
    prefix: MarkerSet,
    stop: MarkerSet,
    /// What broke a call that the reader ended and went on after, for the payload's `Done`.
    failure: Option<CallError>,
    /// The buffers of `Reader::whole`.
    #[cfg(not(target_arch = "wasm32"))]
    whole: Whole,
}

/// What `Reader::whole` reads before it writes: every call's name and the end of its
/// arguments' JSON, which follow each other in the sink's event buffer (`Sink::scratch`).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Default)]
struct Whole {
    /// Per call: its name (a range of the input) and where its JSON ends in the buffer.
    calls: Vec<(usize, usize, usize)>,
}

impl CallsReader {
    pub fn new(cfg: &'static PySyntax) -> Self {
        let mut prefix = MarkerSet::new();
        prefix.add_all(cfg.call_prefix, Act::Other(0));
        let mut stop = MarkerSet::new();
        stop.add_all(cfg.stop, Act::Other(0));
        CallsReader {
            cfg,
            part: Part::Begin,
            bracket: false,
            name: String::new(),
            raw: String::new(),
            calls: 0,
            args: None,
            prefix,
            stop,
            failure: None,
            #[cfg(not(target_arch = "wasm32"))]
            whole: Whole::default(),
        }
    }

    /// What `new(self.cfg)` makes, keeping the marker sets and the last call's `Values`.
    fn restart(&mut self) {
        self.part = Part::Begin;
        self.bracket = false;
        self.name.clear();
        self.raw.clear();
        self.calls = 0;
        self.failure = None;
    }

    fn python(&self) -> bool {
        self.cfg.style == Style::Python
    }

    /// What was read is not a call: rejected before the first call, else given back as text.
    fn not_call(&mut self, i: usize, sink: &mut Sink) -> Step {
        self.part = Part::Done;
        if self.calls == 0 {
            return Step::reject(i);
        }
        let error = CallError::Malformed(format!("expected a tool call after call {}; the rest is text", self.calls - 1));
        sink.diag(error.label(), error.message(), None);
        sink.text(&self.raw);
        sink.text(&self.name);
        Step::done_with(i, error)
    }

    /// The call name in `name` as read: a Python name is identifier bytes and dots, a
    /// key-value one is trimmed.
    fn call_name<'a>(&self, name: &'a str) -> &'a str {
        if self.python() { name } else { name.trim() }
    }

    /// Starts call `name` (as read) whose arguments end at `close`.
    fn start(&mut self, name: &str, sink: &mut Sink, close: u8) {
        sink.start_call(self.call_name(name), None);
        self.calls += 1;
        match self.args.as_mut() {
            Some(v) => v.restart(close),
            None => self.args = Some(Values::new(self.cfg, close)),
        }
        self.part = Part::Args;
    }

    /// A key-value name with no arguments: a call with `{}`, reported.
    fn call_without_args(&mut self, sink: &mut Sink, label: Label, msg: &str) {
        sink.start_call(self.call_name(&self.name), None);
        self.calls += 1;
        sink.end_call_incomplete(label, msg);
        if label == Label::MalformedJson {
            self.failure = Some(CallError::Malformed(msg.into()));
        }
        self.raw.clear();
        self.part = Part::After;
    }

    /// Whether `name` (as read) is a call name.
    fn valid_name(&self, name: &str, sink: &Sink) -> bool {
        let n = self.call_name(name);
        if !self.python() {
            return !n.is_empty() && n.len() <= sink.limits.max_name_bytes;
        }
        valid_python_name(n, sink.limits.max_name_bytes)
    }

    fn name(&mut self, input: &str, mut i: usize, eof: bool, sink: &mut Sink) -> Result<usize, Step> {
        let bytes = input.as_bytes();
        let python = self.python();
        let start = i;
        while i < bytes.len() && (if python { lex::is_name_byte(bytes[i]) } else { !matches!(bytes[i], b'{' | b'(' | b'<' | b'\n') }) {
            i += 1;
        }
        let max = sink.limits.max_name_bytes;
        if let Some(at) = crate::limits::crossing(input, start, i, self.name.len(), max) {
            // The name fails at the byte that crosses the limit; what follows is read again.
            self.name.push_str(&input[start..at]);
            let msg = format!("a tool name ran past the {max}-byte maxNameBytes limit; released as text");
            if self.calls == 0 {
                self.part = Part::Done;
                return Err(Step::reject_with(at, CallError::Limit(msg)));
            }
            sink.diag(Label::LimitExceeded, msg, None);
            return Err(self.not_call(at, sink));
        }
        if self.name.is_empty() && matches!(bytes.get(i), Some(b'(') | Some(b'{')) {
            // The whole name is in `input` (the usual case): no copy.
            let (name, c) = (&input[start..i], bytes[i]);
            if self.valid_name(name, sink) && (c == b'(' || !python) {
                self.start(name, sink, if c == b'(' { b')' } else { b'}' });
                return Ok(i + 1);
            }
        }
        self.name.push_str(&input[start..i]);
        let Some(&c) = bytes.get(i) else {
            if !eof {
                return Err(Step::partial(i));
            }
            if !python && self.valid_name(&self.name, sink) {
                self.call_without_args(sink, Label::Truncation, "the output ended after the tool name");
                return Ok(i);
            }
            return Err(self.not_call(i, sink));
        };
        match c {
            b'(' | b'{' if self.valid_name(&self.name, sink) && (c == b'(' || !python) => {
                let name = core::mem::take(&mut self.name);
                self.start(&name, sink, if c == b'(' { b')' } else { b'}' });
                self.name = name;
                Ok(i + 1)
            }
            b'<' if !python && self.valid_name(&self.name, sink) => match self.stop.at_start(&input[i..], eof) {
                Err(()) => Err(Step::partial(i)),
                Ok(Some(_)) => {
                    self.call_without_args(sink, Label::MalformedJson, "no arguments before the end marker; `{}` used");
                    Ok(i)
                }
                Ok(None) => Err(self.not_call(i, sink)),
            },
            _ => Err(self.not_call(i, sink)),
        }
    }

    /// After a call: another call, the list's end, or the end of the payload.
    fn after(&mut self, input: &str, i: usize, eof: bool, sink: &mut Sink) -> Result<usize, Step> {
        let bytes = input.as_bytes();
        let mut j = i;
        while j < bytes.len() && bytes[j].is_ascii_whitespace() && j - i <= WS_AHEAD {
            j += 1;
        }
        if j - i > WS_AHEAD {
            return Err(self.end(i, false, sink));
        }
        let Some(&c) = bytes.get(j) else {
            return Err(if eof { self.end(i, true, sink) } else { Step::partial(i) });
        };
        self.raw.clear();
        self.name.clear();
        if !self.python() {
            return match self.prefix.at_start(&input[j..], eof) {
                Err(()) => Err(Step::partial(i)),
                Ok(Some(idx)) => {
                    let k = j + self.prefix.text(idx).len();
                    self.raw.push_str(&input[i..k]);
                    self.part = Part::Name;
                    Ok(k)
                }
                Ok(None) => Err(self.end(i, false, sink)),
            };
        }
        match c {
            b',' => {
                self.raw.push_str(&input[i..=j]);
                self.part = Part::Item;
                Ok(j + 1)
            }
            b']' if self.bracket => {
                self.part = Part::Done;
                Ok(j + 1)
            }
            _ if lex::is_ident_start(c) => {
                self.raw.push_str(&input[i..j]);
                self.part = Part::Name;
                Ok(j)
            }
            _ => Err(self.end(i, false, sink)),
        }
    }

    /// The payload ends at `i`; an open list is reported (`cut`: the output ended).
    fn end(&mut self, i: usize, cut: bool, sink: &mut Sink) -> Step {
        self.part = Part::Done;
        if self.bracket {
            let msg = "the call list was not closed with `]`".to_string();
            return Step::fail(i, if cut { CallError::Truncated(msg) } else { CallError::Malformed(msg) }, sink);
        }
        Step::done(i)
    }
}

/// Whether `n` (name bytes) is a Python call name at most `max` bytes long: no dot at its
/// ends, no `..`.
fn valid_python_name(n: &str, max: usize) -> bool {
    // `..` by bytes (a substring search costs a searcher's setup per name).
    !n.is_empty() && n.len() <= max && !n.starts_with('.') && !n.ends_with('.') && !n.as_bytes().windows(2).any(|w| w == b"..")
}

/// The scan of `Reader::whole` (see there): each call's name (a range of `input`) and the end
/// of its arguments' JSON, appended to `json`, pushed to `calls`; the offset after the list.
#[cfg(not(target_arch = "wasm32"))]
fn whole_list(input: &str, room: usize, max_name: usize, max_args: usize, json: &mut String, calls: &mut Vec<(usize, usize, usize)>) -> Option<usize> {
    use super::values::{plain_call_args, run_end};
    use crate::text::skip_ascii_ws as skip_ws;
    let bytes = input.as_bytes();
    let mut i = skip_ws(bytes, 0);
    let bracket = bytes.get(i) == Some(&b'[');
    i += usize::from(bracket);
    // `i` is where an item (a call) comes, after `[`, `,` or whitespace.
    loop {
        i = skip_ws(bytes, i);
        let c = *bytes.get(i)?;
        if c == b']' && bracket && !calls.is_empty() {
            // A trailing comma.
            return Some(i + 1);
        }
        if !lex::is_ident_start(c) {
            return None;
        }
        let name_end = run_end(bytes, i, lex::is_name_byte);
        let name = &input[i..name_end];
        // The first call must start within the hold limit.
        if bytes.get(name_end) != Some(&b'(') || !valid_python_name(name, max_name) || (calls.is_empty() && name_end >= room) {
            return None;
        }
        let from = json.len();
        let close = plain_call_args(input, name_end + 1, max_name, json)?;
        if json.len() - from > max_args {
            return None;
        }
        calls.push((i, name_end, json.len()));
        // After a call: another one, the list's end, or (no list) the payload's end.
        i = close + 1;
        let j = skip_ws(bytes, i);
        if j - i > WS_AHEAD {
            return if bracket { None } else { Some(i) };
        }
        match *bytes.get(j)? {
            b',' => i = j + 1,
            b']' if bracket => return Some(j + 1),
            c if lex::is_ident_start(c) => i = j,
            _ if bracket => return None,
            _ => return Some(i),
        }
    }
}

impl Reader for CallsReader {
    fn reset(&mut self, _bare: bool) -> bool {
        self.restart();
        true
    }

    /// Python: a list of calls whose names are plain and whose arguments are plain keyword
    /// members (`values::plain_call_args`), with its closing `]` (or, without `[`, up to the
    /// first item that is not a call), read as `feed` reads it: `[`, then calls separated by
    /// `,` or whitespace (a trailing comma allowed), at most `WS_AHEAD` bytes of whitespace
    /// after a call. Anything else, or a list that reaches the end of `input`, is left to
    /// `feed`. The list is read whole before any event is written.
    #[cfg(not(target_arch = "wasm32"))]
    fn whole(&mut self, input: &str, room: usize, sink: &mut Sink) -> Option<usize> {
        if !self.python() || sink.limits.depth() == 0 {
            return None;
        }
        let (max_name, max_args) = (sink.limits.max_name_bytes, sink.limits.max_args_bytes);
        // The arguments' JSON goes straight into the sink's event buffer (`Sink::scratch`),
        // taken back when the list is not read whole.
        let calls = &mut self.whole.calls;
        calls.clear();
        let json = sink.scratch();
        let base = json.len();
        let Some(end) = whole_list(input, room, max_name, max_args, json, calls) else {
            sink.scratch().truncate(base);
            return None;
        };
        let mut from = base;
        for &(start, name_end, to) in calls.iter() {
            sink.whole_call_written(&input[start..name_end], from..to);
            from = to;
        }
        Some(end)
    }

    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let mut step = self.feed_list(input, eof, sink);
        if step.status == crate::reader::Status::Done && step.error.is_none() {
            step.error = self.failure.take();
        }
        step
    }
}

impl CallsReader {
    fn feed_list(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let bytes = input.as_bytes();
        let mut i = 0;
        loop {
            let r = match self.part {
                Part::Done => return Step::done(i),
                Part::Begin | Part::Item => {
                    let ws = i;
                    i = crate::text::skip_ascii_ws(bytes, i);
                    if self.calls > 0 {
                        self.raw.push_str(&input[ws..i]);
                    }
                    let Some(&c) = bytes.get(i) else {
                        if !eof {
                            return Step::partial(i);
                        }
                        if self.calls == 0 {
                            return Step::reject(i);
                        }
                        return self.end(i, true, sink);
                    };
                    let begin = self.part == Part::Begin;
                    if !self.python() {
                        match self.prefix.at_start(&input[i..], eof) {
                            Err(()) => return Step::partial(i),
                            Ok(Some(idx)) => {
                                self.part = Part::Name;
                                Ok(i + self.prefix.text(idx).len())
                            }
                            Ok(None) => return Step::reject(i),
                        }
                    } else if begin && c == b'[' {
                        self.bracket = true;
                        self.part = Part::Item;
                        Ok(i + 1)
                    } else if lex::is_ident_start(c) {
                        self.part = Part::Name;
                        Ok(i)
                    } else if c == b']' && self.bracket && self.calls > 0 {
                        // A trailing comma.
                        self.part = Part::Done;
                        Ok(i + 1)
                    } else {
                        return self.not_call(i, sink);
                    }
                }
                Part::Name => self.name(input, i, eof, sink),
                Part::Args => {
                    let Some(args) = self.args.as_mut() else { return self.not_call(i, sink) };
                    let (used, status) = args.feed(&input[i..], eof, sink);
                    i += used;
                    match status {
                        Status::More if !eof => return Step::partial(i),
                        Status::More => {
                            args.finish(sink);
                            sink.end_call_truncated();
                            self.part = Part::Done;
                            return Step::done(i);
                        }
                        Status::Closed => {
                            sink.end_call();
                            self.part = Part::After;
                            // Stop at the call's end (`Reader::feed`).
                            return Step::partial(i);
                        }
                        Status::Stopped => {
                            args.finish(sink);
                            self.part = Part::Done;
                            return Step::fail(i, CallError::Malformed("the arguments were not closed before the end marker".into()), sink);
                        }
                        Status::Failed(error) => {
                            let unread = args.take_unread();
                            // The failed token's text follows the call: the call ends here.
                            let error = error.map(|m| format!("malformed arguments ({m}); closed"));
                            sink.text_after_end(&unread);
                            sink.end_call_incomplete(error.label(), error.message());
                            self.part = Part::Done;
                            return Step::done_with(i, error);
                        }
                    }
                }
                Part::After => self.after(input, i, eof, sink),
            };
            match r {
                Ok(j) => i = j,
                Err(step) => return step,
            }
        }
    }
}
