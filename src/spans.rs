//! Byte accounting ("nothing lost": every input byte ends up in text, reasoning, a tool call
//! or consumed markup, never in two of them). The emitter (`sink/emit.rs`) owns it: every text
//! and reasoning event the sequencer emits carries the input offset of its bytes, so spans fall
//! out of emission: an emitted range is a text or reasoning span, consumed bytes between two
//! emissions are markup (markers, call payloads, framing whitespace), and what readers emit
//! from inside a payload is counted on that markup span (`Span::inner_*`). Only a drop (the
//! `keepMalformed: false` policy) and the end of the input are told apart. Off by default (no
//! cost but a branch); the fixture harness turns it on and checks that the spans cover the input
//! exactly once and that text and reasoning events are exactly the bytes of their spans.
//! Offsets are byte offsets in the text the engine saw (for the byte API: after UTF-8
//! decoding). Spans are complete after `finish`; while streaming, consumed bytes after the last
//! emission are not attributed yet (they may still come back as text).

#[allow(unused_imports)] // only the `spans` feature needs it
use crate::prelude::*;

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
    pub fn emitted(&mut self, _at: usize, _len: usize, _kind: SpanKind) {}
    #[inline(always)]
    pub fn inner(&mut self, _len: usize, _reasoning: bool) {}
    #[inline(always)]
    pub fn end(&mut self, _end: usize) {}
}

#[cfg(feature = "spans")]
#[derive(Default)]
struct Recorder {
    list: Vec<Span>,
    /// Bytes attributed so far.
    done: usize,
    /// (text, reasoning) bytes readers emitted since the last span was closed: from inside the
    /// markup that ends where the next emission starts.
    inner: (usize, usize),
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

    /// Input `at..at + len` became `kind` (emitted as text or reasoning byte for byte, or
    /// dropped); the consumed bytes before it that no span holds yet were markup.
    #[inline]
    pub fn emitted(&mut self, at: usize, len: usize, kind: SpanKind) {
        let Some(r) = self.0.as_mut() else { return };
        r.close_markup(at);
        r.push(at + len, kind, (0, 0));
    }

    /// A reader emitted `len` bytes of text (or `reasoning`) from inside the payload it reads.
    #[inline]
    pub fn inner(&mut self, len: usize, reasoning: bool) {
        let Some(r) = self.0.as_mut() else { return };
        if reasoning {
            r.inner.1 += len;
        } else {
            r.inner.0 += len;
        }
    }

    /// The input ended at `end`: what no span holds yet was markup.
    pub fn end(&mut self, end: usize) {
        let Some(r) = self.0.as_mut() else { return };
        r.close_markup(end);
    }
}

#[cfg(feature = "spans")]
impl Recorder {
    /// Bytes up to `at` not attributed yet are markup, holding what readers emitted since.
    fn close_markup(&mut self, at: usize) {
        let inner = core::mem::take(&mut self.inner);
        self.push(at, SpanKind::Markup, inner);
    }

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
