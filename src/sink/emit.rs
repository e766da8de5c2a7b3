//! The emitter: the event list, merged as it grows (adjacent text, reasoning and argument
//! fragments of one call join), call ids, and the input offsets of what it emits: text and
//! reasoning the sequencer emits carry the offset of their bytes, what readers emit comes from
//! inside the markup they read, so the byte accounting (`spans.rs`) falls out of emission.
//!
//! The queue holds no `String` per event: every event's strings are ranges of one buffer
//! (`buf`), reused from push to push, and a call's end event names the same id and name bytes
//! as its start when both are queued. Draining hands out borrowed views (`EventRef`), or owned
//! events for the `Vec<Event>` API; a caller of the views allocates nothing per event.

use crate::prelude::*;
use crate::event::{EventRef, Label};
use crate::spans::{Accounting, Span, SpanKind};
use crate::small::Spare;

/// How call ids are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdStyle {
    /// `{prefix}{index}`.
    Prefixed,
    /// Nine alphanumeric characters derived from the prefix and index (Mistral templates).
    Alnum9,
}

/// Trailing reasoning whitespace held at most; a longer run is emitted but for its last bytes.
const MAX_REASONING_WS: usize = 256;

/// A string of a queued event: `Emitter::buf[start..end]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Str {
    start: usize,
    end: usize,
}

/// A queued event: an `Event` whose strings are ranges of `Emitter::buf`.
#[derive(Clone, Copy, Debug)]
enum Queued {
    Text(Str),
    Reasoning(Str),
    Start { index: usize, id: Str, name: Str },
    Delta { index: usize, args: Str },
    End { index: usize, id: Str, name: Str, arguments: Str, repaired: bool, kept: bool, text: Str },
    Diagnostic { label: Label, message: Str, index: Option<usize> },
}

/// Capacity of the event buffer (bytes) and queue (events) kept across pushes at most: a
/// larger one (a big push) is given back after it is drained.
const KEEP_BUF: usize = 1 << 20;
const KEEP_EVENTS: usize = 1 << 14;

/// See the module docs.
pub(crate) struct Emitter {
    events: Vec<Queued>,
    /// The strings of `events`, appended in emission order (the last event's last string ends
    /// the buffer, so merging into it appends).
    buf: String,
    /// The queued start of the open call, when its id and name are in `buf` (`end` names them).
    started: Option<(usize, Str, Str)>,
    id_prefix: String,
    id_style: IdStyle,
    /// `Alnum9`: the FNV-1a hash of `id_prefix` (each id hashes its index on from it).
    prefix_hash: u64,
    /// The decimal digits of the latest generated `Prefixed` id's index and that index: the
    /// next call's id counts on from them (calls are numbered in order).
    id_digits: String,
    id_index: Option<usize>,
    /// Where each consumed input byte went (off unless `record_spans`).
    acct: Accounting,
    /// Drop the whitespace that ends a reasoning block (Step-3.5).
    pub strip_reasoning_tail: bool,
    /// With `strip_reasoning_tail`: the reasoning's trailing whitespace so far, emitted when
    /// more reasoning follows, dropped when anything else does (at most `MAX_REASONING_WS`).
    reasoning_ws: String,
    /// Input offset of `reasoning_ws` when the sequencer emitted it (`None`: a reader did).
    reasoning_ws_at: Option<usize>,
    /// Position in `events` of the latest call end and whether it is kept (`take_ended`);
    /// reset when the events are taken.
    ended: Option<(usize, bool)>,
    /// The engine keeps the current call's markup (`CallMarkup`): text readers emit goes to
    /// `held_text` until the call ends (bounded as that markup is: its bytes are from it).
    /// A kept call's held text is emitted right after its end event; a left-out call's is
    /// dropped (`leave_out`): its `text` holds those bytes at their place, so content keeps the
    /// input order and no byte comes twice.
    pub hold: bool,
    held_text: String,
    /// Text and reasoning bytes readers emitted (held text included).
    reader_output: usize,
    /// Call end events emitted so far, and `reader_output` at the latest one: what a reader
    /// emitted after ending a call.
    ends: usize,
    output_at_end: usize,
}

impl Emitter {
    /// Takes over `old`'s buffers, cleared (`ToolCallParser::recycle`; this emitter is new).
    pub fn recycle(&mut self, old: &mut Emitter) {
        self.events.spare(&mut old.events);
        self.buf.spare(&mut old.buf);
    }

    pub fn new(id_prefix: String, id_style: IdStyle) -> Emitter {
        Emitter {
            events: Vec::new(),
            buf: String::new(),
            started: None,
            prefix_hash: id_prefix.bytes().fold(FNV_BASIS, fnv1a),
            id_prefix,
            id_style,
            id_digits: String::new(),
            id_index: None,
            acct: Accounting::default(),
            strip_reasoning_tail: false,
            reasoning_ws: String::new(),
            reasoning_ws_at: None,
            ended: None,
            hold: false,
            held_text: String::new(),
            reader_output: 0,
            ends: 0,
            output_at_end: 0,
        }
    }

    /// Turns on byte accounting: call before anything is emitted.
    pub fn record_spans(&mut self) {
        self.acct.enable();
    }

    /// Where each input byte went (see `spans.rs`: complete once `end_input` was called).
    pub fn spans(&self) -> &[Span] {
        self.acct.spans()
    }

    /// The sequencer dropped input `start..end` (`keepMalformed: false`).
    pub fn dropped(&mut self, start: usize, end: usize) {
        self.acct.emitted(start, end.saturating_sub(start), SpanKind::Dropped);
    }

    /// The input ended at offset `end`: consumed bytes not emitted were markup.
    pub fn end_input(&mut self, end: usize) {
        self.acct.end(end);
    }

    /// Hands each event emitted so far to `f`, in order, and empties the queue. (In the wasm
    /// every caller passes a `&mut dyn FnMut`: one copy of this loop, see `Sink::drain_with`.)
    pub fn drain_with(&mut self, mut f: impl FnMut(EventRef<'_>)) {
        self.ended = None;
        self.started = None;
        for q in &self.events {
            f(view(&self.buf, q));
        }
        self.clear_drained();
    }

    /// Empties the queue after a drain (not generic: one copy for every `drain_with` closure).
    #[inline(never)]
    fn clear_drained(&mut self) {
        self.events.clear();
        self.buf.clear();
        if self.buf.capacity() > KEEP_BUF {
            self.buf.shrink_to(KEEP_BUF / 16);
        }
        if self.events.capacity() > KEEP_EVENTS {
            self.events.shrink_to(KEEP_EVENTS / 16);
        }
    }

    /// Makes room for `n` more bytes of event strings (a push of `n` bytes emits about as
    /// many: one allocation instead of a doubling series).
    pub fn reserve(&mut self, n: usize) {
        self.buf.reserve(n);
    }

    /// Queued events (diagnostics validation adds when they are drained not counted).
    pub fn queued(&self) -> usize {
        self.events.len()
    }

    /// The only queued event, when there is exactly one.
    pub fn single(&self) -> Option<EventRef<'_>> {
        match self.events.as_slice() {
            [q] => Some(view(&self.buf, q)),
            _ => None,
        }
    }

    /// Leaves the first `head.len()` bytes of the first queued event out: they are `head`, the
    /// start of its text, reasoning or arguments fragment (a quiet run the caller reported
    /// already, `ToolCallParser::push_after_quiet`), after a `\\` when `backslash` (a held one
    /// that went out with them, `Quiet::backslash`). False (and nothing changes) when they are
    /// not.
    pub fn skip_head(&mut self, head: &str, backslash: bool) -> bool {
        let Some(q) = self.events.first_mut() else { return false };
        let (Queued::Text(t) | Queued::Reasoning(t) | Queued::Delta { args: t, .. }) = q else { return false };
        let held = if backslash { "\\" } else { "" };
        // The bytes are `head` when `quiet()` kept its promise, which the harness checks at
        // every split (`check_quiet`, natively). The package's wasm checks only that they end
        // at a character boundary: its byte-by-byte compare of a 2 KB run cost about 1 µs.
        let same = |rest: &str| if cfg!(target_arch = "wasm32") { rest.is_char_boundary(head.len()) } else { rest.starts_with(head) };
        if !self.buf[t.start..t.end].strip_prefix(held).is_some_and(same) {
            return false;
        }
        t.start += held.len() + head.len();
        if t.start == t.end {
            self.events.remove(0);
            self.ended = self.ended.map(|(pos, kept)| (pos - 1, kept));
        }
        true
    }

    /// The buffer (`Sink::scratch`).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn scratch(&mut self) -> &mut String {
        &mut self.buf
    }

    /// Appends `s` to the buffer; its range there.
    #[cfg(not(target_arch = "wasm32"))]
    #[inline]
    pub fn put_str(&mut self, s: &str) -> core::ops::Range<usize> {
        let s = self.put(s);
        s.start..s.end
    }

    /// Appends `s` to the buffer: a new string.
    fn put(&mut self, s: &str) -> Str {
        let start = self.buf.len();
        self.buf.push_str(s);
        Str { start, end: self.buf.len() }
    }

    /// Appends `s` to the string `at` (moved to the end of the buffer first unless it ends it).
    fn grow(buf: &mut String, at: &mut Str, s: &str) {
        if at.end != buf.len() {
            let start = buf.len();
            let moved = buf[at.start..at.end].to_string();
            buf.push_str(&moved);
            *at = Str { start, end: buf.len() };
        }
        buf.push_str(s);
        at.end = buf.len();
    }

    /// Emits a call's end event (`id` and `name` as on its start); a kept call's held text
    /// follows it (see `hold`).
    pub fn end(&mut self, index: usize, id: &str, name: &str, arguments: &str, repaired: bool, kept: bool) {
        self.ends += 1;
        self.output_at_end = self.reader_output;
        self.ended = Some((self.events.len(), kept));
        let (id, name) = match self.started.take() {
            Some((i, id, name)) if i == index => (id, name),
            _ => (self.put(id), self.put(name)),
        };
        // The call's one queued delta holds all of its arguments (deltas concatenate to them,
        // and none is empty): the end names the same bytes.
        let arguments = match self.events.last() {
            Some(Queued::Delta { index: i, args }) if *i == index && args.end - args.start == arguments.len() => *args,
            _ => self.put(arguments),
        };
        self.events.push(Queued::End { index, id, name, arguments, repaired, kept, text: Str::default() });
        // A left-out call's held text waits for `leave_out` while the engine keeps its markup.
        if kept || !self.hold {
            self.release_held();
        }
    }

    /// Reader text of bytes consumed inside the open call (a failed token given back): it
    /// follows the call's end event, or is dropped with the held text of a left-out call
    /// whose markup holds its bytes (`hold`).
    pub fn text_after_end(&mut self, s: &str) {
        self.reader_output += s.len();
        self.reasoning_ws.clear();
        self.held_text.push_str(s);
    }

    /// Emits the held text (see `hold`).
    pub fn release_held(&mut self) {
        if self.held_text.is_empty() {
            return;
        }
        let held = core::mem::take(&mut self.held_text);
        self.acct.inner(held.len(), false);
        self.push_text(&held);
        self.held_text = held;
        self.held_text.clear();
    }

    /// Emits the held text if there is any (see `hold`); true when there was.
    pub fn release_held_if_any(&mut self) -> bool {
        let any = !self.held_text.is_empty();
        self.release_held();
        any
    }

    /// Drops the held text: the markup given back as text holds its bytes (see `hold`).
    pub fn drop_held(&mut self) {
        self.held_text.clear();
    }

    /// The latest queued event is a call's end, not waiting for `take_ended` (unless
    /// `!ends_taken`: no one takes it), and nothing is held (`Sink::at_call_boundary`).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn at_call_end(&self, ends_taken: bool) -> bool {
        matches!(self.events.last(), Some(Queued::End { .. })) && !(ends_taken && self.ended.is_some()) && self.held_text.is_empty() && self.reasoning_ws.is_empty() && !self.hold
    }

    /// Call end events emitted so far.
    pub fn ends(&self) -> usize {
        self.ends
    }

    /// True when readers emitted text or reasoning since the latest call end.
    pub fn output_since_end(&self) -> bool {
        self.output_at_end != self.reader_output
    }

    /// The latest call end not taken yet, as (event position, kept); once per end.
    pub fn take_ended(&mut self) -> Option<(usize, bool)> {
        self.ended.take()
    }

    /// Gives the left-out call whose end event is at `pos` its markup as `text`: `markup` holds
    /// the input bytes from offset `at` the reader consumed through the call's end (it stopped
    /// there, `Reader::feed`). Text held since the markup began (`hold`) is dropped: `markup`
    /// holds its bytes.
    pub fn leave_out(&mut self, pos: usize, markup: String, at: usize) {
        self.drop_held();
        if !markup.is_empty() {
            self.acct.emitted(at, markup.len(), SpanKind::Text);
        }
        if matches!(self.events.get(pos), Some(Queued::End { .. })) {
            let markup = self.put(&markup);
            if let Some(Queued::End { text, .. }) = self.events.get_mut(pos) {
                *text = markup;
            }
        }
    }

    /// Text: input `at..` byte for byte when `at` is given (the sequencer's), else emitted by a
    /// reader from inside the markup it reads.
    pub fn text(&mut self, s: &str, at: Option<usize>) {
        if s.is_empty() {
            return;
        }
        self.reasoning_ws.clear();
        match at {
            Some(at) => self.acct.emitted(at, s.len(), SpanKind::Text),
            None => {
                self.reader_output += s.len();
                if self.hold {
                    return self.held_text.push_str(s);
                }
                self.acct.inner(s.len(), false);
            }
        }
        self.push_text(s);
    }

    fn push_text(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        if let Some(Queued::Text(t)) = self.events.last_mut() {
            Emitter::grow(&mut self.buf, t, s);
        } else {
            let t = self.put(s);
            self.events.push(Queued::Text(t));
        }
    }

    /// Trailing reasoning whitespace held back so far (`strip_reasoning_tail`).
    pub fn held_reasoning_ws(&self) -> usize {
        self.reasoning_ws.len()
    }

    /// Reasoning (`at` as for `text`).
    pub fn reasoning(&mut self, s: &str, at: Option<usize>) {
        if !self.strip_reasoning_tail {
            return self.push_reasoning(s, at);
        }
        let body = s.trim_end_matches(|c: char| c.is_ascii_whitespace());
        if !body.is_empty() {
            self.flush_reasoning_ws();
            self.push_reasoning(body, at);
        }
        if self.reasoning_ws.is_empty() {
            self.reasoning_ws_at = at.map(|at| at + body.len());
        }
        self.reasoning_ws.push_str(&s[body.len()..]);
        let over = self.reasoning_ws.len().saturating_sub(MAX_REASONING_WS);
        if over > 0 {
            // ASCII whitespace: any byte count is a char boundary.
            let head: String = self.reasoning_ws.drain(..over).collect();
            self.push_reasoning(&head, self.reasoning_ws_at);
            self.reasoning_ws_at = self.reasoning_ws_at.map(|at| at + over);
        }
    }

    /// Emits the reasoning whitespace held back (a marker swallowed inside reasoning follows it).
    pub fn flush_reasoning_ws(&mut self) {
        let ws = core::mem::take(&mut self.reasoning_ws);
        self.push_reasoning(&ws, self.reasoning_ws_at);
        self.reasoning_ws = ws;
        self.reasoning_ws.clear();
    }

    fn push_reasoning(&mut self, s: &str, at: Option<usize>) {
        if s.is_empty() {
            return;
        }
        match at {
            Some(at) => self.acct.emitted(at, s.len(), SpanKind::Reasoning),
            None => {
                self.reader_output += s.len();
                self.acct.inner(s.len(), true);
            }
        }
        if let Some(Queued::Reasoning(t)) = self.events.last_mut() {
            Emitter::grow(&mut self.buf, t, s);
        } else {
            let t = self.put(s);
            self.events.push(Queued::Reasoning(t));
        }
    }

    pub fn diag(&mut self, label: Label, message: &str, index: Option<usize>) {
        let message = self.put(message);
        self.events.push(Queued::Diagnostic { label, message, index });
    }

    /// `tool-call-start` of call `index`; `id` overrides the generated id. The id is written
    /// to `id_out` (cleared first).
    pub fn start(&mut self, index: usize, id: Option<&str>, name: &str, id_out: &mut String) {
        self.reasoning_ws.clear();
        id_out.clear();
        match id.filter(|s| !s.is_empty()) {
            Some(id) => id_out.push_str(id),
            None => self.write_id(index, id_out),
        }
        let (id, name) = (self.put(id_out), self.put(name));
        self.started = Some((index, id, name));
        self.events.push(Queued::Start { index, id, name });
    }

    /// A whole call's start, one delta and end (`Sink::whole_call`): what `start`, `delta` and
    /// `end` emit for a new call with a generated id whose arguments are `args`, a range of
    /// the buffer (not repaired, kept), the id and name written once each.
    #[cfg(not(target_arch = "wasm32"))]
    #[inline(always)]
    pub fn whole_call(&mut self, index: usize, name: &str, args: core::ops::Range<usize>) {
        self.reasoning_ws.clear();
        let arguments = Str { start: args.start, end: args.end };
        let mut buf = core::mem::take(&mut self.buf);
        let start = buf.len();
        self.write_id(index, &mut buf);
        self.buf = buf;
        let id = Str { start, end: self.buf.len() };
        let name = self.put(name);
        self.started = None;
        self.ends += 1;
        self.output_at_end = self.reader_output;
        self.ended = Some((self.events.len() + 2, true));
        self.events.extend_from_slice(&[
            Queued::Start { index, id, name },
            Queued::Delta { index, args: arguments },
            Queued::End { index, id, name, arguments, repaired: false, kept: true, text: Str::default() },
        ]);
        self.release_held();
    }

    /// An arguments fragment of call `index` (joined to the previous one of the same call).
    pub fn delta(&mut self, index: usize, s: &str) {
        if let Some(Queued::Delta { index: i, args }) = self.events.last_mut() {
            if *i == index {
                return Emitter::grow(&mut self.buf, args, s);
            }
        }
        let args = self.put(s);
        self.events.push(Queued::Delta { index, args });
    }

    /// Appends the generated id of call `index` to `s`.
    fn write_id(&mut self, index: usize, s: &mut String) {
        match self.id_style {
            IdStyle::Prefixed => {
                if self.id_index.is_some_and(|last| last.checked_add(1) == Some(index)) {
                    increment_decimal(&mut self.id_digits);
                } else {
                    self.id_digits.clear();
                    crate::event::push_usize(&mut self.id_digits, index);
                }
                self.id_index = Some(index);
                s.push_str(&self.id_prefix);
                s.push_str(&self.id_digits);
            }
            IdStyle::Alnum9 => {
                // FNV-1a over the prefix and index: deterministic, so any chunking gives the same ids.
                let mut h = (index as u64).to_le_bytes().into_iter().fold(self.prefix_hash, fnv1a);
                const ALNUM: &[u8; 62] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
                s.reserve(9);
                for _ in 0..9 {
                    s.push(ALNUM[(h % 62) as usize] as char);
                    h = h / 62 ^ h.rotate_left(17);
                }
            }
        }
    }
}

/// FNV-1a's offset basis and one step (`Alnum9` ids).
const FNV_BASIS: u64 = 0xcbf29ce484222325;
fn fnv1a(h: u64, b: u8) -> u64 {
    (h ^ b as u64).wrapping_mul(0x100000001b3)
}

/// Adds one to the decimal number `digits` (ASCII digits, no sign).
fn increment_decimal(digits: &mut String) {
    let mut nines = 0;
    while digits.ends_with('9') {
        digits.pop();
        nines += 1;
    }
    match digits.pop() {
        Some(d) => digits.push((d as u8 + 1) as char),
        None => digits.push('1'),
    }
    for _ in 0..nines {
        digits.push('0');
    }
}

/// The view of queued event `q` (its strings in `buf`).
#[inline(always)]
fn view<'a>(buf: &'a str, q: &Queued) -> EventRef<'a> {
    let at = |s: &Str| &buf[s.start..s.end];
    match q {
        Queued::Text(t) => EventRef::Text(at(t)),
        Queued::Reasoning(t) => EventRef::Reasoning(at(t)),
        Queued::Start { index, id, name } => EventRef::ToolCallStart { index: *index, id: at(id), name: at(name) },
        Queued::Delta { index, args } => EventRef::ToolCallDelta { index: *index, arguments_delta: at(args) },
        Queued::End { index, id, name, arguments, repaired, kept, text } => EventRef::ToolCallEnd {
            index: *index,
            id: at(id),
            name: at(name),
            arguments: at(arguments),
            repaired: *repaired,
            kept: *kept,
            text: at(text),
        },
        Queued::Diagnostic { label, message, index } => EventRef::Diagnostic { label: *label, message: at(message), index: *index },
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;

    /// `Alnum9` ids: FNV-1a over the prefix's bytes then the index's eight little-endian
    /// bytes, then nine digits base 62 (the prefix hashed once, the same ids as hashing it
    /// per call).
    #[test]
    fn alnum9_ids_hash_prefix_and_index() {
        let mut e = super::Emitter::new("chatcmpl-7_".into(), super::IdStyle::Alnum9);
        let mut id = String::new();
        for index in [0usize, 1, 2, 61, 62, 1000, usize::MAX] {
            e.start(index, None, "f", &mut id);
            let mut h: u64 = 0xcbf29ce484222325;
            for b in "chatcmpl-7_".bytes().chain((index as u64).to_le_bytes()) {
                h = (h ^ b as u64).wrapping_mul(0x100000001b3);
            }
            let alnum = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
            let mut want = String::new();
            for _ in 0..9 {
                want.push(alnum[(h % 62) as usize] as char);
                h = h / 62 ^ h.rotate_left(17);
            }
            assert_eq!(id, want);
        }
    }

    /// A whole call's id is the index formatted, as `start`'s, whole calls and starts mixed.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn whole_call_ids_count_on_as_formatted() {
        let mut e = super::Emitter::new("call_".into(), super::IdStyle::Prefixed);
        let mut id = String::new();
        for index in (0..1100).chain([5, 6, 99_999, 100_000, 7, 8, 9, 10]) {
            // Every seventh call by `start` (the general path's ids count on from theirs).
            if index % 7 == 3 {
                e.start(index, None, "f", &mut id);
                assert_eq!(id, format!("call_{index}"));
                e.drain_with(|_| {});
                continue;
            }
            let args = e.put_str("{}");
            e.whole_call(index, "f", args);
            let mut ids = Vec::new();
            e.drain_with(|ev| match ev {
                crate::event::EventRef::ToolCallStart { id, .. } | crate::event::EventRef::ToolCallEnd { id, .. } => ids.push(id.to_string()),
                _ => {}
            });
            assert_eq!(ids, [format!("call_{index}"), format!("call_{index}")]);
        }
    }

    /// Generated ids count on from the previous one exactly as formatting the index does.
    #[test]
    fn ids_count_on_as_formatted() {
        let mut e = super::Emitter::new("call_".into(), super::IdStyle::Prefixed);
        let mut id = String::new();
        for index in (0..1100).chain([5, 6, 99_999, 100_000, 7]) {
            e.start(index, None, "f", &mut id);
            assert_eq!(id, format!("call_{index}"));
        }
    }
}
