//! Byte accounting (contract invariant 4, "nothing lost"): the engine attributes every input byte
//! it consumes to one span: text, reasoning, markup (markers, call payloads, framing whitespace)
//! or dropped (only by the `keepMalformed: false` policy). Off by default (no cost but a branch);
//! the fixture harness turns it on and checks that the spans cover the input exactly once and
//! that text and reasoning events are exactly the bytes of their spans. Offsets are byte offsets
//! in the text the engine saw (for the byte API: after UTF-8 decoding).

use crate::sink::Sink;

/// What a span of input became.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanKind {
    /// Emitted as text, byte for byte.
    Text,
    /// Emitted as reasoning, byte for byte.
    Reasoning,
    /// Consumed: markers, call payloads, framing. Readers may emit text or reasoning from inside
    /// (a channel body, a later element that is not a call): `Span::inner_*` bytes, a subsequence
    /// of the span's bytes.
    Markup,
    /// Dropped by policy (`keepMalformed: false`), always after a diagnostic.
    Dropped,
}

/// `start..end` of the input became `kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub kind: SpanKind,
    /// Text bytes readers emitted from inside this (markup) span.
    pub inner_text: usize,
    /// Reasoning bytes readers emitted from inside this (markup) span.
    pub inner_reasoning: usize,
}

/// The recorder. `None` inside: off. Without the `spans` feature (the package's wasm build)
/// it is compiled out: every method is a no-op and `spans()` is empty.
#[derive(Default)]
pub struct Accounting(#[cfg(feature = "spans")] Option<Recorder>);

#[cfg(not(feature = "spans"))]
impl Accounting {
    #[inline(always)]
    pub fn enable(&mut self) {}
    #[inline(always)]
    pub fn spans(&self) -> &[Span] {
        &[]
    }
    #[inline(always)]
    pub fn hold(&mut self, _end: usize, _as_text: bool) {}
    #[inline(always)]
    pub fn record(&mut self, _end: usize, _kind: SpanKind, _sink: &Sink) {}
}

#[cfg(feature = "spans")]
#[derive(Default)]
struct Recorder {
    list: Vec<Span>,
    /// Bytes attributed so far.
    done: usize,
    /// Bytes held undecided after `done`: segment ends, and whether the segment becomes text
    /// when the hold is released as text (a swallowed marker inside a held section does not).
    pending: Vec<(usize, bool)>,
    /// Reader-emitted (text, reasoning) bytes already attributed.
    seen: (usize, usize),
}

#[cfg(feature = "spans")]
impl Accounting {
    pub fn enable(&mut self) {
        self.0.get_or_insert_with(Recorder::default);
    }

    /// The spans so far (empty when off).
    pub fn spans(&self) -> &[Span] {
        self.0.as_ref().map_or(&[], |r| &r.list)
    }

    /// Bytes up to `end` are held undecided (a marker that may turn out to be text, whitespace
    /// after a payload): their fate comes with the next `record`.
    #[inline]
    pub fn hold(&mut self, end: usize, as_text: bool) {
        let Some(r) = self.0.as_mut() else { return };
        match r.pending.last_mut() {
            Some((e, t)) if *t == as_text => *e = (*e).max(end),
            _ => r.pending.push((end, as_text)),
        }
    }

    /// Every byte up to `end` (held ones first) became `kind`; held segments that do not
    /// become text when released as text are markup.
    #[inline]
    pub fn record(&mut self, end: usize, kind: SpanKind, sink: &Sink) {
        let Some(r) = self.0.as_mut() else { return };
        for (e, as_text) in core::mem::take(&mut r.pending) {
            let k = match kind {
                SpanKind::Text | SpanKind::Reasoning | SpanKind::Dropped if !as_text => SpanKind::Markup,
                k => k,
            };
            r.push(e, k, (0, 0));
        }
        let now = sink.reader_emitted();
        let inner = (now.0 - r.seen.0, now.1 - r.seen.1);
        r.seen = now;
        r.push(end, kind, inner);
    }
}

#[cfg(feature = "spans")]
impl Recorder {
    fn push(&mut self, end: usize, kind: SpanKind, inner: (usize, usize)) {
        if end <= self.done && inner == (0, 0) {
            return;
        }
        let end = end.max(self.done);
        match self.list.last_mut() {
            Some(last) if last.kind == kind && last.end == self.done => {
                last.end = end;
                last.inner_text += inner.0;
                last.inner_reasoning += inner.1;
            }
            _ => self.list.push(Span { start: self.done, end, kind, inner_text: inner.0, inner_reasoning: inner.1 }),
        }
        self.done = end;
    }
}
