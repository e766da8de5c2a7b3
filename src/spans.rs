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
    pub fn hold_tail(&mut self, _end: usize) {}
    #[inline(always)]
    pub fn record(&mut self, _end: usize, _kind: SpanKind, _sink: &Sink) {}
}

/// How a held segment is attributed when the next `record` releases it as `kind`.
#[cfg(feature = "spans")]
#[derive(Clone, Copy, PartialEq)]
enum Held {
    /// As `kind`.
    AsTold,
    /// A swallowed marker: markup when released as text, reasoning or dropped.
    Marker,
    /// Reasoning's trailing whitespace held by the sink (Step-3.5): reasoning when more
    /// reasoning follows, else markup (the sink drops it).
    Tail,
}

#[cfg(feature = "spans")]
#[derive(Default)]
struct Recorder {
    list: Vec<Span>,
    /// Bytes attributed so far.
    done: usize,
    /// Bytes held undecided after `done`: segment ends, and what each becomes on release.
    pending: Vec<(usize, Held)>,
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
        self.hold_as(end, if as_text { Held::AsTold } else { Held::Marker });
    }

    /// Bytes up to `end` are reasoning whitespace the sink holds back (`strip_reasoning_tail`).
    #[inline]
    pub fn hold_tail(&mut self, end: usize) {
        self.hold_as(end, Held::Tail);
    }

    fn hold_as(&mut self, end: usize, held: Held) {
        let Some(r) = self.0.as_mut() else { return };
        match r.pending.last_mut() {
            Some((e, h)) if *h == held => *e = (*e).max(end),
            _ => r.pending.push((end, held)),
        }
    }

    /// Every byte up to `end` (held ones first) became `kind`; held segments that do not
    /// become text when released as text are markup.
    #[inline]
    pub fn record(&mut self, end: usize, kind: SpanKind, sink: &Sink) {
        let Some(r) = self.0.as_mut() else { return };
        let pending = core::mem::take(&mut r.pending);
        for (i, &(e, held)) in pending.iter().enumerate() {
            if e > end {
                // Held past `end` (the sink released part of a held tail): the rest stays held.
                r.pending.extend_from_slice(&pending[i..]);
                break;
            }
            let k = match (held, kind) {
                (Held::Marker, SpanKind::Text | SpanKind::Reasoning | SpanKind::Dropped) => SpanKind::Markup,
                (Held::Tail, SpanKind::Reasoning) => SpanKind::Reasoning,
                (Held::Tail, _) => SpanKind::Markup,
                (_, k) => k,
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
