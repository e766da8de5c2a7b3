//! The payload reader contract: what the sequencer (`engine.rs`) asks of every reader, and all a
//! reader needs to know of the sequencer.
//!
//! A reader is a push parser for what follows an opening marker. It consumes a prefix of its
//! input and says whether the payload goes on (`Partial`), ended (`Done`) or was not a payload
//! after all (`Reject`, only before it committed anything). It writes calls, text and
//! diagnostics to the `Sink`; it never emits markup as content and never re-reads what it
//! consumed.

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
    /// `used <= input.len()` always. With `eof`, no more input will come: the reader must
    /// return `Done` or `Reject`, ending (with a `truncation` diagnostic) any call it started.
    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step;

    /// True once the reader emitted text or reasoning itself (channel formats such as Harmony):
    /// as with a started call, the payload is committed: its consumed bytes are no longer held
    /// and it must not `Reject`.
    fn committed(&self) -> bool {
        false
    }
}

/// See `Reader::feed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// Bytes of the input consumed.
    pub used: usize,
    pub status: Status,
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
        Step { used, status: Status::Partial }
    }
    pub fn done(used: usize) -> Step {
        Step { used, status: Status::Done }
    }
    pub fn reject(used: usize) -> Step {
        Step { used, status: Status::Reject }
    }
}

/// What a reader may keep unconsumed while deciding between parts of a payload: whitespace (at
/// most 64 bytes per gap, two gaps) around a separator or a marker of at most 64 bytes.
pub const READER_LOOKAHEAD: usize = 64 * 3 + 8;
