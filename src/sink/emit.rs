//! The emitter: the event list, merged as it grows (adjacent text, reasoning and argument
//! fragments of one call join), call ids, and the input offsets of what it emits: text and
//! reasoning the sequencer emits carry the offset of their bytes, what readers emit comes from
//! inside the markup they read, so the byte accounting (`spans.rs`) falls out of emission.

use crate::prelude::*;
use crate::event::{Event, Label};
use crate::spans::{Accounting, Span, SpanKind};

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

/// See the module docs.
pub(crate) struct Emitter {
    events: Vec<Event>,
    id_prefix: String,
    id_style: IdStyle,
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

/// `s` as the start of an event that later pieces join: room for a few small ones without
/// growing.
fn joinable(s: &str) -> String {
    let mut t = String::with_capacity(s.len().max(64));
    t.push_str(s);
    t
}

impl Emitter {
    pub fn new(id_prefix: String, id_style: IdStyle) -> Emitter {
        Emitter {
            events: Vec::new(),
            id_prefix,
            id_style,
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

    /// Moves the events emitted so far to the end of `out`.
    pub fn drain_into(&mut self, out: &mut Vec<Event>) {
        self.ended = None;
        out.append(&mut self.events);
    }

    /// Like `drain_into`, calling `at_end(end, out)` before each call end event is moved.
    pub fn drain_ends_into(&mut self, out: &mut Vec<Event>, mut at_end: impl FnMut(&Event, &mut Vec<Event>)) {
        self.ended = None;
        out.reserve(self.events.len());
        for e in self.events.drain(..) {
            if matches!(e, Event::ToolCallEnd { .. }) {
                at_end(&e, out);
            }
            out.push(e);
        }
    }

    /// Emits a call's end event; a kept call's held text follows it (see `hold`).
    pub fn end(&mut self, event: Event, kept: bool) {
        self.ends += 1;
        self.output_at_end = self.reader_output;
        self.ended = Some((self.events.len(), kept));
        self.events.push(event);
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
        if let Some(Event::ToolCallEnd { text, .. }) = self.events.get_mut(pos) {
            *text = markup;
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
        if let Some(Event::Text(t)) = self.events.last_mut() {
            t.push_str(s);
        } else {
            self.events.push(Event::Text(joinable(s)));
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
        if let Some(Event::Reasoning(t)) = self.events.last_mut() {
            t.push_str(s);
        } else {
            self.events.push(Event::Reasoning(s.to_string()));
        }
    }

    pub fn diag(&mut self, label: Label, message: String, index: Option<usize>) {
        self.events.push(Event::Diagnostic { label, message, index });
    }

    /// `tool-call-start` of call `index`; `id` overrides the generated id. Returns the id.
    pub fn start(&mut self, index: usize, id: Option<String>, name: &str) -> String {
        self.reasoning_ws.clear();
        let id = id.filter(|s| !s.is_empty()).unwrap_or_else(|| self.make_id(index));
        self.events.push(Event::ToolCallStart { index, id: id.clone(), name: name.to_string() });
        id
    }

    /// An arguments fragment of call `index` (joined to the previous one of the same call).
    pub fn delta(&mut self, index: usize, s: &str) {
        if let Some(Event::ToolCallDelta { index: i, arguments_delta }) = self.events.last_mut() {
            if *i == index {
                arguments_delta.push_str(s);
                return;
            }
        }
        self.events.push(Event::ToolCallDelta { index, arguments_delta: joinable(s) });
    }

    fn make_id(&self, index: usize) -> String {
        match self.id_style {
            IdStyle::Prefixed => {
                let mut s = String::with_capacity(self.id_prefix.len() + 20);
                s.push_str(&self.id_prefix);
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
