//! The payload reader contract: what the sequencer (`engine.rs`) asks of every reader, and all a
//! reader needs to know of the sequencer.
//!
//! A reader is a push parser for what follows an opening marker. It consumes a prefix of its
//! input and says whether the payload goes on (`Partial`), ended (`Done`) or was not a payload
//! after all (`Reject`, only before it committed anything). It writes calls, text and
//! diagnostics to the `Sink`; it never emits markup as content and never re-reads what it
//! consumed.

use crate::event::Label;
use crate::prelude::*;
use crate::sink::Sink;

/// A payload reader (httparse style).
pub trait Reader {
    /// Consumes a prefix of `input` and reports what happened.
    ///
    /// - `Partial`: the reader needs more input to decide about `input[used..]`. What it keeps
    ///   unconsumed is bounded: a partial marker, or at most `READER_LOOKAHEAD` bytes between
    ///   parts of a payload, or the reader's own limit (`Limits`).
    /// - `Done`: the payload ended after `used` bytes; the rest belongs to the sequencer. Any
    ///   call the reader started is ended by the sequencer.
    /// - `Reject`: nothing was committed (no call started, `committed()` false) and this is not a
    ///   payload after all; `input[used..]` goes back to the sequencer, the consumed bytes
    ///   become text.
    ///
    /// A `Done` or `Reject` may carry the `CallError` that ended the payload: the sequencer
    /// decides from it whether the payload was malformed markup (dropped under
    /// `keepMalformed: false`). A `Reject`'s error is reported by the sequencer, before the
    /// bytes it gives back as text; a `Done`'s error was reported by the reader (`Step::fail`),
    /// which knows where it stands among the events it emitted. A reader that breaks this contract (`used` past the input, a
    /// `Reject` after committing, `Partial` at `eof`) trips a `debug_assert!`.
    ///
    /// `used <= input.len()` always. With `eof`, no more input will come: the reader must
    /// return `Done` or `Reject`, ending (with a `truncation` diagnostic) any call it started;
    /// it may still return `Partial` with input left right after ending a call.
    ///
    /// **A step that ends a call ends at the call's last byte.** A reader that ends a call
    /// returns right there (`Done` when the payload ends with it, else `Partial`, even with
    /// `used == 0` when the byte that ended it is not the call's): it consumes nothing after
    /// the call's last byte and emits nothing after its end in that step (an optional closing
    /// marker, the next call, text that follows are read by the next step). Text of bytes
    /// consumed inside the call that it gives back (a failed token) goes through
    /// `Sink::text_after_end`, before the end. The sequencer gives a left-out call's markup
    /// back as text up to the end of the step that ended it, so this is what makes that text
    /// the same at every chunking. It checks what it can see (one end per step, no text,
    /// reasoning or call start after it) with a `debug_assert!`.
    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step;

    /// True once the reader emitted text or reasoning itself (channel formats such as Harmony):
    /// as with a started call, the payload is committed: its consumed bytes are no longer held
    /// and it must not `Reject`.
    fn committed(&self) -> bool {
        false
    }

    /// Makes this reader what its payload kind's `reader(bare)` would make for the next payload
    /// of the same family, keeping what it built once (marker sets), and returns true; false
    /// when it cannot (the sequencer then makes a new one).
    fn reset(&mut self, _bare: bool) -> bool {
        false
    }

    /// While input is forwarded as it comes with nothing held: the ASCII bytes that would end
    /// or change that (`crate::quiet`). Input without them must then be consumed whole and
    /// sent on as one event, byte for byte, leaving the reader in the same state. `None` (the
    /// default) otherwise. The event is an arguments fragment of the open call when the payload
    /// started one (inside a JSON string of them), else the reader's own output once it is
    /// `committed`: reasoning when the set holds `Stop::REASONING`, text otherwise.
    ///
    /// Own output is hinted only in a part that no call follows in the payload (the body of a
    /// message of text or reasoning): that text cannot be part of a left-out call's markup, so
    /// the reader emits it as it comes (`Sink::hold_text(false)` before its `Sink::text`), not
    /// held until the payload ends while the engine keeps the payload's markup (`CallMarkup`).
    fn quiet(&self) -> Option<crate::quiet::Stop> {
        None
    }

    /// When all the reader left unconsumed (`held`, the start of its next input) is a proper
    /// prefix of a marker it waits for, the rest of that marker but its last byte
    /// (`MarkerSet::continuation`): input that begins those bytes must be left unconsumed
    /// whole, with no event and the reader where it was. `None` (the default) otherwise.
    fn held_marker(&self, _held: &str) -> Option<&[u8]> {
        None
    }

    /// When the reader holds nothing unconsumed and reads a part no event can come from until
    /// one of the ASCII bytes of the set (a header string: the tool name, a key), maybe after
    /// a lead (exact bytes that take it there, none giving an event: `{"name": "` of a JSON
    /// call): the lead, the set, and how many bytes may come after the lead before a limit
    /// could be reached. Input of ASCII bytes that begin the lead or are the whole lead
    /// followed by at most that many bytes outside the set must be consumed with no event,
    /// the reader where that still holds. `None` (the default) otherwise.
    fn held_run(&self, _sink: &Sink) -> Option<(&'static [u8], crate::quiet::Stop, usize)> {
        None
    }

    /// In an arguments string forwarded raw (as `quiet` with `Stop::ESCAPES`), when the only
    /// thing held is the `\\` of an escape: input that starts with a simple-escape byte
    /// (`crate::quiet::is_simple_escape`) and whose rest that hint admits must be consumed
    /// whole and sent on as one arguments fragment, `\\` and the input, leaving the reader where
    /// that hint holds. False (the default) otherwise.
    fn quiet_backslash(&self) -> bool {
        false
    }

    /// Where `quiet` hints an arguments string (or `quiet_backslash` holds): consumes `run`,
    /// input that hint admits, whole, its arguments fragment going to the call without an
    /// event (`Sink::args_quiet`: the caller answered it) and without scanning it again, and
    /// returns true; false (the default), with nothing changed, when it cannot (the caller then
    /// feeds it).
    fn take_quiet(&mut self, _run: &str, _sink: &mut Sink) -> bool {
        false
    }

    /// A native fast path (not in the wasm: size): the whole payload that starts `input` (after
    /// its consumed opening marker, or at its bare one), read in one pass when all of it is in
    /// `input` and plain, its calls written to the sink; returns the bytes it takes (the
    /// payload ends there, as with a `Done` without error). The events must be exactly those
    /// `feed` would write for the same bytes at any chunking, every call complete and kept
    /// (never repaired), and the payload must not need more than `room` bytes before its first
    /// call starts (the sequencer's hold limit). `None` (the default) when it cannot: nothing
    /// was emitted, and the sequencer opens the payload and feeds it from its first byte.
    /// Called before the payload opens, on the family's spare reader (whatever payload it
    /// read last) or a new one; it leaves that reader as `reset` can reuse it.
    #[cfg(not(target_arch = "wasm32"))]
    fn whole(&mut self, _input: &str, _room: usize, _sink: &mut Sink) -> Option<usize> {
        None
    }
}

/// `spare` reset for a new payload (`Reader::reset`), or a new reader from `make`.
pub fn reuse<R: Reader + ?Sized>(spare: Option<Box<R>>, bare: bool, make: impl FnOnce() -> Box<R>) -> Box<R> {
    match spare {
        Some(mut reader) => {
            if reader.reset(bare) { reader } else { make() }
        }
        None => make(),
    }
}

/// See `Reader::feed`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Bytes of the input consumed.
    pub used: usize,
    pub status: Status,
    /// What ended the payload (`Done`, `Reject`), reported by the sequencer.
    pub error: Option<CallError>,
}

/// Why a payload or a call failed: its diagnostic label and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallError {
    /// The markup or the JSON breaks the format (`malformed_json`).
    Malformed(String),
    /// A configured limit was hit (`limit_exceeded`): depth, name or key length, buffer.
    Limit(String),
    /// The output ended inside the payload (`truncation`).
    Truncated(String),
    /// Arguments given as a string that does not hold JSON (`escaping_error`).
    Escaping(String),
}

impl CallError {
    pub fn label(&self) -> Label {
        match self {
            CallError::Malformed(_) => Label::MalformedJson,
            CallError::Limit(_) => Label::LimitExceeded,
            CallError::Truncated(_) => Label::Truncation,
            CallError::Escaping(_) => Label::EscapingError,
        }
    }

    pub fn message(&self) -> &str {
        match self {
            CallError::Malformed(m) | CallError::Limit(m) | CallError::Truncated(m) | CallError::Escaping(m) => m,
        }
    }

    /// The same error with `prefix` before its message.
    pub fn prefixed(self, prefix: &str) -> CallError {
        self.map(|m| format!("{prefix}{m}"))
    }

    /// The same kind of error with the message `f` makes of this one's.
    pub fn map(self, f: impl FnOnce(&str) -> String) -> CallError {
        match self {
            CallError::Malformed(m) => CallError::Malformed(f(&m)),
            CallError::Limit(m) => CallError::Limit(f(&m)),
            CallError::Truncated(m) => CallError::Truncated(f(&m)),
            CallError::Escaping(m) => CallError::Escaping(f(&m)),
        }
    }
}

/// How a payload stands after a `Reader::feed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Partial,
    Done,
    Reject,
}

impl Step {
    pub fn partial(used: usize) -> Step {
        Step { used, status: Status::Partial, error: None }
    }
    pub fn done(used: usize) -> Step {
        Step { used, status: Status::Done, error: None }
    }
    pub fn reject(used: usize) -> Step {
        Step { used, status: Status::Reject, error: None }
    }
    /// The payload ended after `used` bytes because of `error`, which the reader reported.
    pub fn done_with(used: usize, error: CallError) -> Step {
        Step { used, status: Status::Done, error: Some(error) }
    }
    /// The payload ended after `used` bytes because of `error`, reported now: the open call
    /// ends incomplete with it, or (no call open) it is a payload diagnostic.
    pub fn fail(used: usize, error: CallError, sink: &mut Sink) -> Step {
        if sink.in_call() {
            sink.end_call_incomplete(error.label(), error.message());
        } else {
            sink.diag(error.label(), error.message(), None);
        }
        Step::done_with(used, error)
    }
    /// This step of a reader that saw its input `by` bytes later (a wrapping reader's view).
    pub fn shifted(mut self, by: usize) -> Step {
        self.used += by;
        self
    }
    /// Not a payload after all, because of `error` (reported as payload-level diagnostic).
    pub fn reject_with(used: usize, error: CallError) -> Step {
        Step { used, status: Status::Reject, error: Some(error) }
    }
}

/// What a reader may keep unconsumed while deciding between parts of a payload: whitespace (at
/// most 64 bytes per gap, two gaps) around a separator or a marker of at most 64 bytes.
pub const READER_LOOKAHEAD: usize = 64 * 3 + 8;

/// A payload inside another reader's payload (an invoke inside a Muse tool message): the
/// sequencer's commit bookkeeping for it, in one place. Until the inner reader starts a call
/// (or commits), the bytes it consumed are held, the opening marker first; if it turns out not
/// to be a payload, its error is reported and those bytes come back for the outer reader to
/// emit as text. A call it started is ended when it ends (`truncation` at the end of input).
pub struct Nested {
    reader: Box<dyn Reader>,
    held: String,
    calls_before: usize,
}

/// What a `Nested::feed` came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Nest {
    /// The inner payload goes on.
    More,
    /// It ended (its call, if any, is ended).
    Ended,
    /// It was not a payload: these bytes (opening marker included) are text.
    Text(String),
}

impl Nested {
    /// `reader` opened at `opening`, consumed by the outer reader at the first byte of its step
    /// (the outer reader stops before an opening it cannot take first): see `Sink::call_opens`.
    /// `held` is a buffer to hold bytes in (its content is dropped; `into_parts` gives it back).
    pub fn new(reader: Box<dyn Reader>, opening: &str, mut held: String, sink: &mut Sink) -> Nested {
        sink.call_opens();
        held.clear();
        held.push_str(opening);
        Nested { reader, held, calls_before: sink.calls_started() }
    }

    fn committed(&self, sink: &Sink) -> bool {
        sink.calls_started() > self.calls_before || self.reader.committed()
    }

    /// The inner reader and the held buffer, for reuse (`Reader::reset`, `new`) once its
    /// payload is over.
    pub fn into_parts(self) -> (Box<dyn Reader>, String) {
        (self.reader, self.held)
    }

    /// Feeds the inner reader; returns the bytes it used and what that came to. The outer
    /// reader returns right after a `feed` that did not come to `Text` (`Reader::feed`: it
    /// stops at a call's end).
    pub fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> (usize, Nest) {
        let step = self.reader.feed(input, eof, sink);
        let used = step.used.min(input.len());
        let committed = self.committed(sink);
        if !committed {
            self.held.push_str(&input[..used]);
        }
        match step.status {
            Status::Partial if !eof => (used, Nest::More),
            _ if !committed => {
                if let Some(e) = &step.error {
                    sink.diag(e.label(), e.message(), None);
                }
                (used, Nest::Text(core::mem::take(&mut self.held)))
            }
            status => {
                if sink.in_call() {
                    if status == Status::Partial {
                        sink.end_call_truncated();
                    } else {
                        sink.end_call();
                    }
                }
                (used, Nest::Ended)
            }
        }
    }
}
