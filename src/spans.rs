//! Byte accounting ("nothing lost": every input byte ends up in text, reasoning, a tool call
//! or consumed markup, never in two of them): the engine attributes every input byte
//! it consumes to one span: text, reasoning, markup (markers, call payloads, framing whitespace)
//! or dropped (only by the `keepMalformed: false` policy). Off by default (no cost but a branch);
//! the fixture harness turns it on and checks that the spans cover the input exactly once and
//! that text and reasoning events are exactly the bytes of their spans. Offsets are byte offsets
//! in the text the engine saw (for the byte API: after UTF-8 decoding).

#[allow(unused_imports)] // only the `spans` feature needs it
use crate::prelude::*;
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
    #[inline(always)]
    pub fn left_out(&mut self, _start: usize, _end: usize, _dropped: usize) {}
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
impl Accounting {
    /// Markup `start..end` (already recorded) was a left-out call's: its bytes came back as text
    /// (on the end event). Text a reader emitted from inside the markup was held and `dropped`
    /// (`Emitter::hold`): it is no longer counted on the spans around it.
    pub fn left_out(&mut self, start: usize, end: usize, dropped: usize) {
        let Some(r) = self.0.as_mut() else { return };
        let end = end.min(r.done);
        if start >= end {
            return;
        }
        // Spans inside the call lose their inner text; what was dropped beyond that was counted
        // on a span that straddles the call's edge.
        let inside: usize = r.list.iter().filter(|s| s.start >= start && s.end <= end).map(|s| s.inner_text).sum();
        let mut dropped = dropped.saturating_sub(inside);
        let mut less = |n: usize| {
            let d = dropped.min(n);
            dropped -= d;
            n - d
        };
        let mut out = Vec::with_capacity(r.list.len() + 2);
        for s in r.list.drain(..) {
            if s.end <= start || s.start >= end {
                out.push(s);
                continue;
            }
            let (lo, hi) = (s.start.max(start), s.end.min(end));
            // The inner text goes with the part after the call (a token given back), else before.
            let inner = (s.inner_text, s.inner_reasoning);
            if s.start < start {
                let keep = if s.end > end { (0, 0) } else { inner };
                out.push(Span { end: start, inner_text: less(keep.0), inner_reasoning: keep.1, ..s });
            }
            match out.last_mut() {
                Some(last) if last.kind == SpanKind::Text && last.end == lo => last.end = hi,
                _ => out.push(Span { start: lo, end: hi, kind: SpanKind::Text, inner_text: 0, inner_reasoning: 0 }),
            }
            if s.end > end {
                out.push(Span { start: end, inner_text: less(inner.0), inner_reasoning: inner.1, ..s });
            }
        }
        r.list = out;
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

/// The conservation check (nothing lost) over one run: `spans` cover `input` exactly
/// once, in order; text (text events and left-out calls' `text`, in event order) and reasoning
/// are exactly the bytes of the text and reasoning spans (plus what readers emitted from inside markup spans: a subsequence of those spans'
/// bytes); bytes are dropped only when `may_drop` (the `keepMalformed: false` policy), and then
/// only after a diagnostic. Used by the fixture harness and the fuzz targets.
#[cfg(feature = "spans")]
pub fn check_conservation(input: &str, events: &[crate::event::Event], spans: &[Span], may_drop: bool) -> Result<(), String> {
    use crate::event::Event;
    let input = input.as_bytes();
    let (mut text, mut reasoning) = (Vec::new(), Vec::new());
    for e in events {
        match e {
            // A left-out call's markup is text at its place (the merge rule).
            Event::Text(t) | Event::ToolCallEnd { kept: false, text: t, .. } => text.extend_from_slice(t.as_bytes()),
            Event::Reasoning(t) => reasoning.extend_from_slice(t.as_bytes()),
            _ => {}
        }
    }
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let (mut at, mut tc, mut rc) = (0, 0, 0);
    let mut dropped = false;
    let take = |out: &[u8], c: &mut usize, n: usize, what: &str, s: &Span| -> Result<Vec<u8>, String> {
        let got = out.get(*c..*c + n).ok_or_else(|| format!("{s:?}: fewer {what} bytes emitted than attributed"))?;
        *c += n;
        Ok(got.to_vec())
    };
    for s in spans {
        if s.start != at {
            return Err(format!("spans leave a gap or overlap at byte {at}: {spans:?}"));
        }
        if s.end < s.start || s.end > input.len() {
            return Err(format!("bad span {s:?}"));
        }
        let bytes = &input[s.start..s.end];
        let len = s.end - s.start;
        if s.kind != SpanKind::Markup && (s.inner_text, s.inner_reasoning) != (0, 0) {
            return Err(format!("a reader emitted inside a {:?} span {s:?}", s.kind));
        }
        match s.kind {
            SpanKind::Text | SpanKind::Reasoning => {
                let (out, c, what) = if s.kind == SpanKind::Text { (&text, &mut tc, "text") } else { (&reasoning, &mut rc, "reasoning") };
                let got = take(out, c, len, what, s)?;
                if got != bytes {
                    return Err(format!("{what} of {s:?} is not its input: {:?} vs {:?}", lossy(&got), lossy(bytes)));
                }
            }
            SpanKind::Markup => {
                let t = take(&text, &mut tc, s.inner_text, "text", s)?;
                let r = take(&reasoning, &mut rc, s.inner_reasoning, "reasoning", s)?;
                for (what, got) in [("text", t), ("reasoning", r)] {
                    if !is_byte_subsequence(&got, bytes) {
                        return Err(format!("{what} emitted inside {s:?} is not from its input: {:?} in {:?}", lossy(&got), lossy(bytes)));
                    }
                }
            }
            SpanKind::Dropped => dropped = true,
        }
        at = s.end;
    }
    if at != input.len() {
        return Err(format!("bytes {at}.. were never accounted for: {spans:?}"));
    }
    if tc != text.len() {
        return Err(format!("text emitted that no span accounts for: {:?}", lossy(&text[tc..])));
    }
    if rc != reasoning.len() {
        return Err("reasoning emitted that no span accounts for".into());
    }
    if dropped && !may_drop {
        return Err(format!("bytes dropped without keepMalformed: false: {spans:?}"));
    }
    if dropped && !events.iter().any(|e| matches!(e, Event::Diagnostic { .. })) {
        return Err("bytes dropped without a diagnostic".into());
    }
    Ok(())
}

#[cfg(feature = "spans")]
fn is_byte_subsequence(needle: &[u8], hay: &[u8]) -> bool {
    let mut h = hay.iter();
    needle.iter().all(|c| h.any(|d| d == c))
}
