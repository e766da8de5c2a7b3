//! `SseRewriter`: an OpenAI-compatible SSE stream in, the same stream with tool calls out.
//!
//! The rewrite, per `data:` event of a chunk object with a non-empty `choices` array:
//! - Each choice (by its `index`; n > 1 supported) has its own parser. Its text (`delta.content`,
//!   or `text` for `/v1/completions` chunks) is parsed; the events come out as `delta.content`,
//!   `delta.reasoning_content` and `delta.tool_calls` (first delta: `index`, `id`,
//!   `type:"function"`, `function:{name, arguments:""}`; then `{index, function:{arguments}}`
//!   fragments). Completions chunks get `text`, `reasoning_content` and `tool_calls` on the
//!   choice itself.
//! - Order is kept: when one upstream chunk yields text then a call (or a call then text), it is
//!   written as several events, one kind of delta each, in the order the parser emitted them.
//!   A call start is always its own event, as OpenAI sends it.
//! - Native upstream `delta.tool_calls` pass through; their indices and the synthesized ones
//!   are assigned from one counter per choice, so they never collide (upstream indices are kept
//!   when nothing was synthesized before them).
//! - `finish_reason`: held text and an open call are flushed first; `"stop"` becomes
//!   `"tool_calls"` when calls were synthesized. A finish after tool-call deltas comes as its
//!   own event with an empty delta.
//! - `[DONE]` and the end of the stream flush choices that got no finish (with the envelope of
//!   the first chunk). Usage chunks (empty `choices`), comments, events of other types, data
//!   that is not a chunk, and chunks the rewrite does not change pass through verbatim.
//! - Cumulative upstreams (whole text in every chunk) are normalized to deltas (`Cumulative`).
//!
//! `push`'s output depends only on the SSE events, never on how the bytes were chunked.
//!
//! `answered.rs`: `push_answered`, the same output without reading most events as SSE or JSON,
//! but for one thing: a quiet run of argument or reasoning deltas within one chunk goes out as
//! one event (the same once merged: `toolwire::testing::merged_deltas`).

use crate::prelude::*;
use alloc::borrow::Cow;
use alloc::rc::Rc;
use super::decoder::{Decoder, Event as SseEvent, Item};
use super::fast::{self, Fields};
use super::{Cumulative, SseOptions, WireDiagnostic};
use crate::event::{push_usize, EventRef, Label};
use crate::json::push_json_string;
use crate::json::{Map, Value};
use crate::parser::ToolCallParser;

mod answered;
use answered::Shape;
pub use answered::{Answer, SseQuiet};

/// Choices per stream with their own parser; later ones pass through (`limit_exceeded`).
const MAX_CHOICES: usize = 256;
/// Distinct native tool-call indices remembered per choice; later ones pass through unmapped.
const MAX_NATIVE: usize = 1024;
/// Diagnostics kept for `take_diagnostics`; later ones only go out as comments.
const MAX_KEPT_DIAGNOSTICS: usize = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// `choices[].delta.content` (chat completions).
    Chat,
    /// `choices[].text` (completions).
    Text,
}

/// Where the cumulative detection stands for one choice.
#[derive(Debug)]
enum CumulativeDetection {
    /// No text yet.
    Start,
    /// One text seen (fed as is).
    First(String),
    /// The second text extends the first: held until the third decides.
    Pending { first_len: usize, second: String },
    Delta,
    /// Cumulative: the whole text so far.
    Whole(String),
}

struct Choice {
    index: u64,
    style: Style,
    parser: Option<ToolCallParser>,
    /// The parser could not be built (text passes through).
    failed: bool,
    finished: bool,
    wire: Wire,
    detection: CumulativeDetection,
}

/// A choice's calls on the wire: indices shared by synthesized and native calls.
#[derive(Default)]
struct Wire {
    /// Calls synthesized so far.
    calls: usize,
    /// The next free wire index (shared by synthesized and native calls).
    next_wire: usize,
    /// (parser index, wire index) of the last synthesized call.
    open: Option<(usize, usize)>,
    natives: Vec<(u64, usize)>,
}

impl Wire {
    fn wire_of(&self, parser_index: usize) -> usize {
        match self.open {
            Some((p, w)) if p == parser_index => w,
            _ => parser_index,
        }
    }

    /// The wire index of native upstream index `n` (`None` past `MAX_NATIVE`).
    fn native_wire(&mut self, n: u64) -> Option<usize> {
        if let Some((_, w)) = self.natives.iter().find(|(k, _)| *k == n) {
            return Some(*w);
        }
        if self.natives.len() >= MAX_NATIVE {
            return None;
        }
        let w = self.next_wire;
        self.next_wire += 1;
        self.natives.push((n, w));
        Some(w)
    }
}

impl Choice {

    /// Turns an upstream text into the delta text(s) to parse (see `Cumulative`).
    fn normalize(&mut self, t: String, out: &mut Vec<String>) -> Option<String> {
        let mut problem = None;
        self.detection = match core::mem::replace(&mut self.detection, CumulativeDetection::Delta) {
            CumulativeDetection::Delta => {
                out.push(t);
                CumulativeDetection::Delta
            }
            CumulativeDetection::Start => {
                out.push(t.clone());
                CumulativeDetection::First(t)
            }
            CumulativeDetection::First(f) => {
                if t.len() > f.len() && t.starts_with(&f) {
                    CumulativeDetection::Pending { first_len: f.len(), second: t }
                } else {
                    out.push(t);
                    CumulativeDetection::Delta
                }
            }
            CumulativeDetection::Pending { first_len, second } => {
                if t.starts_with(&second) {
                    out.push(t.get(first_len..).unwrap_or("").to_string());
                    CumulativeDetection::Whole(t)
                } else {
                    out.push(second);
                    out.push(t);
                    CumulativeDetection::Delta
                }
            }
            CumulativeDetection::Whole(sent) => {
                let keep = if t.starts_with(&sent) {
                    sent.len()
                } else {
                    problem = Some("cumulative upstream text does not extend the text so far; the text after the common prefix is sent again");
                    common_prefix(&sent, &t)
                };
                out.push(t.get(keep..).unwrap_or("").to_string());
                CumulativeDetection::Whole(t)
            }
        };
        problem.map(str::to_string)
    }

    /// Releases a text held by the cumulative detection (read as a delta).
    fn flush_pending(&mut self, out: &mut Vec<String>) {
        if let CumulativeDetection::Pending { second, .. } = core::mem::replace(&mut self.detection, CumulativeDetection::Delta) {
            out.push(second);
        }
    }
}

/// Byte length of the longest common prefix of `a` and `b` that ends on a char boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices().zip(b.chars()).find(|((_, x), y)| x != y).map_or(a.len().min(b.len()), |((i, _), _)| i)
}

/// What a choice contributes to the output, in order.
enum Out {
    /// One output choice, as JSON text.
    Choice(String),
    Comment(String),
}

/// A piece of a rewritten delta.
enum Part {
    Content(String),
    Reasoning(String),
    Start { wire: usize, id: String, name: String },
    Args { wire: usize, text: String },
    Comment(String),
}

/// The rewriter. `push` bytes, then `finish`; both append output bytes.
pub struct SseRewriter {
    /// The options (shared by the rewriters built from the same options text, see
    /// `SseRewriter::shared`).
    opts: Rc<SseOptions>,
    /// `SseOptions::general_only`, or as `set_general_only` set it.
    general_only: bool,
    decoder: Decoder,
    items: Vec<Item>,
    choices: Vec<Choice>,
    /// The first chunk's data: read again at a flush, its `choices` emptied, as the envelope of
    /// flushed chunks (without `usage`).
    envelope: Option<String>,
    upstream_id: Option<String>,
    upstream_model: Option<String>,
    diagnostics: Vec<WireDiagnostic>,
    /// A choice was refused past `MAX_CHOICES` (reported once).
    choices_full: bool,
    finished: bool,
    /// Events the fast path rewrote (`fast_events`).
    fast_events: usize,
    /// The envelope of the last chunk the fast path read in full.
    prefix: fast::Prefix,
    /// The quiet-run hint after the last push (`quiet_hint`).
    hint: Option<SseQuiet>,
    /// The last event's shape (see `Shape`), while no other input came.
    shape: Option<Shape>,
    /// The event being read is the last of its push: only its hint can outlive the push, so
    /// only it is worth working out (the template written, the strings cut).
    hint_wanted: bool,
    /// Texts of events `push_answered` answered from the hint, not yet given to the parser:
    /// the first `quiet_len` bytes (whole decoded texts: valid UTF-8);
    /// the rest is room written before (scratch) kept for the next answers.
    quiet_texts: Vec<u8>,
    quiet_len: usize,
    /// The waiting texts end with the `\\` of an escape (an answered text may end inside one):
    /// the parser holds it, so it is left out of the answers so far and of the skipped bytes.
    quiet_escape: bool,
    /// Chunks `push_answered` answered from the hint (`quiet_chunks`).
    quiet_chunks: usize,
    /// Events `push_answered` read as the last event's shape (`shape_events`).
    shape_events: usize,
}

impl SseRewriter {
    pub fn new(opts: SseOptions) -> SseRewriter {
        SseRewriter::shared(Rc::new(opts))
    }

    /// `new` with options shared with other rewriters (read once for many streams).
    pub fn shared(opts: Rc<SseOptions>) -> SseRewriter {
        let decoder = Decoder::new(opts.max_event_bytes);
        SseRewriter {
            general_only: opts.general_only,
            opts,
            decoder,
            items: Vec::new(),
            choices: Vec::new(),
            envelope: None,
            upstream_id: None,
            upstream_model: None,
            diagnostics: Vec::new(),
            choices_full: false,
            finished: false,
            fast_events: 0,
            prefix: fast::Prefix::default(),
            hint: None,
            shape: None,
            hint_wanted: false,
            quiet_texts: Vec::new(),
            quiet_len: 0,
            quiet_escape: false,
            quiet_chunks: 0,
            shape_events: 0,
        }
    }

    /// Feeds upstream bytes (chunks of any size); appends the rewritten bytes they complete.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        if self.finished {
            return;
        }
        self.flush_quiet();
        let mut items = core::mem::take(&mut self.items);
        self.decoder.push(bytes, &mut items);
        let last = items.len();
        for (i, item) in items.drain(..).enumerate() {
            self.hint = None;
            self.shape = None;
            self.hint_wanted = i + 1 == last;
            self.item(item, out);
        }
        self.hint_wanted = false;
        self.items = items;
        if !self.decoder.is_idle() {
            self.hint = None;
            self.shape = None;
        }
    }

    /// Ends the stream: flushes choices that got no finish, then an event cut off by the end
    /// (verbatim, with a `truncation` diagnostic). Later calls do nothing.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if self.finished {
            return;
        }
        self.flush_quiet();
        self.hint = None;
        self.shape = None;
        let mut items = core::mem::take(&mut self.items);
        self.decoder.finish(&mut items);
        self.flush_all(out);
        for item in items.drain(..) {
            self.item(item, out);
        }
        self.finished = true;
    }

    /// Every event through the general path (`SseOptions::general_only`): for tests and
    /// benchmarks that compare the two paths.
    pub fn set_general_only(&mut self, on: bool) {
        self.general_only = on;
    }

    /// How many events went through the fast path (tests check that it is taken).
    pub fn fast_events(&self) -> usize {
        self.fast_events
    }

    /// Takes the diagnostics reported so far (at most `MAX_KEPT_DIAGNOSTICS` are kept between
    /// calls).
    pub fn take_diagnostics(&mut self) -> Vec<WireDiagnostic> {
        core::mem::take(&mut self.diagnostics)
    }

    fn item(&mut self, item: Item, out: &mut Vec<u8>) {
        match item {
            Item::Event(ev) => self.event(ev, out),
            Item::Line(line) => {
                out.extend_from_slice(line.as_bytes());
                out.push(b'\n');
            }
            Item::Overflow => {
                let mut m = String::from("an SSE event longer than ");
                crate::event::push_usize(&mut m, self.opts.max_event_bytes);
                m.push_str(" bytes (maxEventBytes) is passed through unparsed");
                self.stream_diag(Label::LimitExceeded, m, out);
            }
            Item::Raw(bytes) => out.extend_from_slice(&bytes),
            Item::Incomplete(bytes) => {
                self.stream_diag(Label::Truncation, "the stream ended inside an SSE event (clients drop it); passed through".into(), out);
                out.extend_from_slice(&bytes);
            }
        }
    }

    fn keep(&mut self, d: WireDiagnostic) {
        keep(&mut self.diagnostics, d);
    }

    fn stream_diag(&mut self, label: Label, message: String, out: &mut Vec<u8>) {
        let d = WireDiagnostic { choice: None, label, message, index: None };
        if self.opts.comments {
            out.extend_from_slice(d.comment().as_bytes());
        }
        self.keep(d);
    }

    fn event(&mut self, ev: SseEvent, out: &mut Vec<u8>) {
        let verbatim = |out: &mut Vec<u8>, ev: &SseEvent| {
            out.extend_from_slice(ev.raw.as_bytes());
            out.push(b'\n');
        };
        let data = match (&ev.data, &ev.kind) {
            (Some(d), None) => d.as_str(),
            (Some(d), Some(k)) if k == "message" => d.as_str(),
            _ => return verbatim(out, &ev),
        };
        if data.trim() == "[DONE]" {
            self.flush_all(out);
            return verbatim(out, &ev);
        }
        if !data.trim_start().starts_with('{') {
            return verbatim(out, &ev);
        }
        if !self.general_only {
            if let Some(c) = fast::read(data, &mut self.prefix) {
                if self.fast_event(&c, &ev, out) {
                    self.fast_events += 1;
                    return;
                }
            }
        }
        let mut chunk = match crate::json::parse(data) {
            Ok(Value::Object(m)) => m,
            Ok(_) => return verbatim(out, &ev),
            Err(e) => {
                self.stream_diag(Label::MalformedJson, format!("upstream data is not JSON ({e}); passed through"), out);
                return verbatim(out, &ev);
            }
        };
        let choices = match chunk.get_mut("choices") {
            Some(Value::Array(a)) if !a.is_empty() => core::mem::take(a),
            _ => return verbatim(out, &ev),
        };
        self.remember(data, chunk.get("id").and_then(Value::as_str), chunk.get("model").and_then(Value::as_str));
        let mut outs = Vec::new();
        let mut changed = false;
        // One chunk when every choice gave exactly one delta; else one chunk per delta.
        let mut single = true;
        for (pos, c) in choices.into_iter().enumerate() {
            let before = outs.len();
            match c {
                Value::Object(m) => changed |= self.choice(m, pos, &mut outs),
                other => outs.push(Out::Choice(crate::json::to_text(&other))),
            }
            single &= outs.len() == before + 1 && matches!(outs.last(), Some(Out::Choice(_)));
        }
        if !changed {
            return verbatim(out, &ev);
        }
        let extra = ev.non_data_lines();
        let chunk = fields_of(&chunk);
        if single {
            let list: Vec<String> = outs.into_iter().filter_map(|o| if let Out::Choice(c) = o { Some(c) } else { None }).collect();
            write_chunk(out, &extra, &chunk, &crate::small::join(&list, ","), true);
            return;
        }
        write_outs(out, &chunk, outs, true, &extra);
    }

    /// The fast path's event (one chat choice read in place, see `fast`): false, with nothing
    /// changed, when it is one for the general path.
    fn fast_event(&mut self, c: &fast::ChatChunk, ev: &SseEvent, out: &mut Vec<u8>) -> bool {
        let index = match fast::get(&c.choice, "index") {
            None => 0,
            Some(n) => match crate::text::parse_u64(n, 10) {
                Some(n) => n,
                None => return false,
            },
        };
        let text = match fast::get(&c.delta, "content") {
            Some(t) if t.starts_with('"') => match crate::json::unescaped(&t[1..t.len() - 1]) {
                Some(t) => Some(t),
                None => return false,
            },
            Some("null") | None => None,
            Some(_) => return false,
        };
        let known = self.choices.iter().position(|st| st.index == index);
        if known.is_none() && self.choices.len() >= MAX_CHOICES {
            return false;
        }
        let verbatim = |out: &mut Vec<u8>| {
            out.extend_from_slice(ev.raw.as_bytes());
            out.push(b'\n');
        };
        let Some(slot) = known.or_else(|| self.slot(index, Style::Chat)) else { return false };
        if self.envelope.is_none() {
            // Strings outside `content` hold no escapes on the fast path.
            let string = |key: &str| fast::get(&c.chunk, key).and_then(|v| v.strip_prefix('"')?.strip_suffix('"'));
            self.remember(ev.data.as_deref().unwrap_or_default(), string("id"), string("model"));
        }
        if self.choices[slot].finished {
            verbatim(out);
            return true;
        }
        let finish = fast::get(&c.choice, "finish_reason").and_then(|f| f.strip_prefix('"')).map(|f| &f[..f.len() - 1]);
        let mut outs = Vec::new();
        let (parts, finish_out, same) = self.rewrite(slot, index, text.as_deref(), finish, &mut outs);
        if same {
            verbatim(out);
        } else if !(parts.is_empty() && outs.is_empty() && finish_out.as_deref().is_some_and(|f| write_finish(c, ev, f, out))) {
            self.write_fast(c, &ev.non_data_lines(), text.is_some(), parts, finish_out, outs, out);
        }
        if self.hint_wanted {
            self.shape = self.shape_of(c, ev, slot, text.as_deref(), finish);
            self.hint = self.hint_for(slot);
        }
        true
    }

    /// Writes a fast-path event's output: `parts` (and comments already in `outs`) as deltas
    /// of `c`'s choice, its delta's other fields (`base`; its `content` left out when the
    /// event had a text) merged into the first.
    #[allow(clippy::too_many_arguments)]
    fn write_fast(&self, c: &fast::ChatChunk, extra: &str, had_text: bool, parts: Vec<Part>, finish_out: Option<String>, mut outs: Vec<Out>, out: &mut Vec<u8>) {
        let base: Fields = c.delta.iter().filter(|(k, _)| !had_text || *k != "content").copied().collect();
        self.emit(&borrowed(&c.choice), Style::Chat, &borrowed(&base), parts, finish_out, &mut outs);
        let chunk = borrowed(&c.chunk);
        match outs.as_slice() {
            [Out::Choice(one)] => write_chunk(out, extra, &chunk, one, true),
            _ => write_outs(out, &chunk, outs, true, extra),
        }
    }

    /// Keeps what later chunks need from the first chunk: its data (the envelope), id and
    /// model.
    fn remember(&mut self, data: &str, id: Option<&str>, model: Option<&str>) {
        if self.envelope.is_some() {
            return;
        }
        self.upstream_id = id.map(str::to_string);
        self.upstream_model = model.map(str::to_string);
        self.envelope = Some(data.to_string());
    }

    /// The state of choice `index`, created on first sight (`None` past `MAX_CHOICES`).
    fn slot(&mut self, index: u64, style: Style) -> Option<usize> {
        if let Some(i) = self.choices.iter().position(|c| c.index == index) {
            return Some(i);
        }
        if self.choices.len() >= MAX_CHOICES {
            return None;
        }
        let detection = match self.opts.cumulative {
            Cumulative::Auto => CumulativeDetection::Start,
            Cumulative::Always => CumulativeDetection::Whole(String::new()),
            Cumulative::Never => CumulativeDetection::Delta,
        };
        self.choices.push(Choice {
            index,
            style,
            parser: None,
            failed: false,
            finished: false,
            wire: Wire::default(),
            detection,
        });
        Some(self.choices.len() - 1)
    }

    /// Feeds delta texts to choice `slot`'s parser (built on first use); its events become
    /// `parts`.
    fn feed(&mut self, slot: usize, texts: &[String], finish: bool, parts: &mut Vec<Part>) {
        let st = &self.choices[slot];
        if st.parser.is_none() && !st.failed && texts.iter().any(|t| !t.is_empty()) {
            let o = self.opts.for_choice(self.upstream_id.as_deref(), self.upstream_model.as_deref(), st.index);
            match ToolCallParser::new(&o) {
                Ok(p) => self.choices[slot].parser = Some(p),
                Err(e) => {
                    self.choices[slot].failed = true;
                    let index = self.choices[slot].index;
                    self.keep(WireDiagnostic { choice: Some(index), label: Label::MalformedJson, message: e.0, index: None });
                }
            }
        }
        let st = &mut self.choices[slot];
        let mut to = Parts { parts, wire: &mut st.wire, choice: st.index, comments: self.opts.comments, diagnostics: &mut self.diagnostics };
        match &mut st.parser {
            Some(p) => {
                for t in texts {
                    p.push_with(t, |e| to.add(e));
                }
                if finish {
                    p.finish_with(|e| to.add(e));
                }
            }
            None => texts.iter().for_each(|t| to.add(EventRef::Text(t))),
        }
    }

    /// Rewrites one upstream choice into `outs`; returns whether anything changed.
    fn choice(&mut self, mut choice: Map, pos: usize, outs: &mut Vec<Out>) -> bool {
        let index = choice.get("index").and_then(crate::json::as_u64).unwrap_or(pos as u64);
        let style = if choice.get("delta").is_some_and(Value::is_object) {
            Style::Chat
        } else if choice.get("text").is_some_and(Value::is_string) {
            Style::Text
        } else {
            outs.push(Out::Choice(crate::json::to_text(&Value::Object(choice))));
            return false;
        };
        let Some(slot) = self.slot(index, style) else {
            if !self.choices_full {
                self.choices_full = true;
                let d = WireDiagnostic {
                    choice: Some(index),
                    label: Label::LimitExceeded,
                    message: format!("more than {MAX_CHOICES} choices: later ones pass through unparsed"),
                    index: None,
                };
                if self.opts.comments {
                    outs.push(Out::Comment(d.comment()));
                }
                self.keep(d);
            }
            outs.push(Out::Choice(crate::json::to_text(&Value::Object(choice))));
            return false;
        };
        let finish = choice.get("finish_reason").and_then(Value::as_str).map(str::to_string);

        // Native tool calls: indices from the shared counter.
        let mut changed = false;
        if let Some(Value::Array(calls)) = choice.get_mut("delta").and_then(|d| d.as_object_mut()).and_then(|d| d.get_mut("tool_calls")) {
            let st = &mut self.choices[slot];
            for call in calls.iter_mut().filter_map(Value::as_object_mut) {
                if let Some(n) = call.get("index").and_then(crate::json::as_u64) {
                    if let Some(w) = st.wire.native_wire(n) {
                        if w as u64 != n {
                            call.insert("index".into(), Value::from(w as u64));
                            changed = true;
                        }
                    }
                }
            }
        }
        if self.choices[slot].finished {
            outs.push(Out::Choice(crate::json::to_text(&Value::Object(choice))));
            return changed;
        }

        // The text, taken out of the choice (an empty string stays in its place for now).
        let text = text_slot(&mut choice, style).and_then(|v| match v {
            Value::String(s) => Some(core::mem::take(s)),
            _ => None,
        });
        let finish = finish.as_deref();
        let (parts, finish_out, same) = self.rewrite(slot, index, text.as_deref(), finish, outs);
        if same && !changed {
            if let (Some(t), Some(slot)) = (text, text_slot(&mut choice, style)) {
                *slot = Value::String(t);
            }
            outs.push(Out::Choice(crate::json::to_text(&Value::Object(choice))));
            return false;
        }
        // The template of every output choice: the upstream one, its text or delta cleared.
        let base = match style {
            Style::Chat => {
                let mut d = choice.get_mut("delta").map(Value::take).and_then(|d| if let Value::Object(m) = d { Some(m) } else { None }).unwrap_or_default();
                if text.is_some() {
                    d.shift_remove("content");
                }
                d
            }
            Style::Text => Map::new(),
        };
        self.emit(&fields_of(&choice), style, &fields_of(&base), parts, finish_out, outs);
        true
    }

    /// The rewrite of one choice's text (`text`: the upstream's, `None` when the choice has
    /// none) and finish: the parts to write, the finish reason, and whether the choice can go
    /// out as it came (same text, finish and no call). Diagnostics of cumulative texts go to
    /// `outs` as comments.
    fn rewrite(&mut self, slot: usize, index: u64, text: Option<&str>, finish: Option<&str>, outs: &mut Vec<Out>) -> (Vec<Part>, Option<String>, bool) {
        let mut texts = Vec::new();
        let mut noted = false;
        let mut parts = Vec::new();
        let calls_before = self.choices[slot].wire.calls;
        let st = &mut self.choices[slot];
        if let (Some(t), None, CumulativeDetection::Delta, Some(p)) = (text, finish, &st.detection, st.parser.as_mut()) {
            // The steady state of a delta stream: the text goes to the parser as it is. When it
            // comes back as the one text event, the choice goes out as it came: nothing is
            // copied out of the parser (`same`; the parts are not needed).
            p.feed(t);
            if matches!(p.single(), Some(EventRef::Text(back)) if back == t) {
                p.drain_with(|_| {});
                return (Vec::new(), None, true);
            }
            let mut to = Parts { parts: &mut parts, wire: &mut st.wire, choice: st.index, comments: self.opts.comments, diagnostics: &mut self.diagnostics };
            p.drain_with(|e| to.add(e));
        } else if let Some(t) = text.filter(|t| !t.is_empty()) {
            if let Some(problem) = self.choices[slot].normalize(t.to_string(), &mut texts) {
                let d = WireDiagnostic { choice: Some(index), label: Label::MalformedJson, message: problem, index: None };
                if self.opts.comments {
                    outs.push(Out::Comment(d.comment()));
                }
                self.keep(d);
                noted = true;
            }
        }
        if finish.is_some() {
            self.choices[slot].flush_pending(&mut texts);
        }
        if !texts.is_empty() || finish.is_some() {
            self.feed(slot, &texts, finish.is_some(), &mut parts);
        }
        if finish.is_some() {
            self.choices[slot].finished = true;
        }
        let finish_out = finish.map(|f| self.finish_reason(slot, f));
        let same_text = match (text, parts.as_slice()) {
            (None, []) => true,
            (Some(t), []) => t.is_empty(),
            (Some(t), [Part::Content(c)]) => c == t,
            _ => false,
        };
        let same = !noted && same_text && finish_out.as_deref() == finish && self.choices[slot].wire.calls == calls_before;
        (parts, finish_out, same)
    }

    /// `"stop"` becomes `"tool_calls"` once calls were synthesized for the choice.
    fn finish_reason(&self, slot: usize, f: &str) -> String {
        if f == "stop" && self.choices[slot].wire.calls > 0 { "tool_calls".into() } else { f.into() }
    }

    /// Writes the parts of one choice as output choices: `base` (the upstream delta minus its
    /// text) merges into the first part when it holds no content of its own; the finish goes on
    /// the last text delta or, after a tool call, on an empty delta of its own.
    fn emit(&self, template: &Obj, style: Style, base: &Obj, parts: Vec<Part>, finish: Option<String>, outs: &mut Vec<Out>) {
        const OWN: [&str; 4] = ["content", "reasoning_content", "reasoning", "tool_calls"];
        /// A delta: the base's fields (JSON text without braces), one field of a part
        /// (key, JSON value text), and whether the finish may ride on it.
        enum Seq {
            Delta(String, Option<(&'static str, String)>, bool),
            Comment(String),
        }
        let own = base.iter().any(|(k, _)| OWN.contains(k));
        let mut text = String::with_capacity(base.iter().map(|(k, v)| k.len() + v.len() + 4).sum());
        for (i, (k, v)) in base.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            push_json_string(&mut text, k);
            text.push(':');
            text.push_str(v);
        }
        let mut base = Some(text);
        let mut seq = Vec::new();
        if own {
            seq.push(Seq::Delta(base.take().unwrap_or_default(), None, true));
        }
        for part in parts {
            if let Part::Comment(c) = part {
                seq.push(Seq::Comment(c));
                continue;
            }
            let mut v = String::new();
            let (key, text_like) = part_value(&part, &mut v);
            seq.push(Seq::Delta(base.take().unwrap_or_default(), Some((key, v)), text_like));
        }
        if let Some(b) = base.filter(|b| !b.is_empty()) {
            seq.push(Seq::Delta(b, None, true));
        }
        let last = seq.iter().rposition(|s| matches!(s, Seq::Delta(..)));
        let finish_at = match (&finish, last) {
            (None, _) => None,
            (Some(_), Some(i)) if matches!(seq[i], Seq::Delta(_, _, true)) => Some(i),
            (Some(_), _) => {
                seq.push(Seq::Delta(String::new(), None, true));
                Some(seq.len() - 1)
            }
        };
        let mut first = true;
        for (i, s) in seq.into_iter().enumerate() {
            match s {
                Seq::Comment(c) => outs.push(Out::Comment(c)),
                Seq::Delta(base, part, _) => {
                    let f = if Some(i) == finish_at { finish.as_deref() } else { None };
                    outs.push(Out::Choice(write_choice(template, style, &base, part, first, f)));
                    first = false;
                }
            }
        }
    }

    /// Flushes every choice that got no finish (at `[DONE]` or the end of the stream).
    fn flush_all(&mut self, out: &mut Vec<u8>) {
        for slot in 0..self.choices.len() {
            let st = &mut self.choices[slot];
            if st.finished {
                continue;
            }
            st.finished = true;
            let mut texts = Vec::new();
            st.flush_pending(&mut texts);
            let (index, style) = (st.index, st.style);
            if st.parser.is_none() && texts.is_empty() {
                continue;
            }
            let mut parts = Vec::new();
            self.feed(slot, &texts, true, &mut parts);
            if parts.is_empty() {
                continue;
            }
            let mut number = String::new();
            crate::event::push_u64(&mut number, index);
            let null = Cow::Borrowed("null");
            let template = vec![("index", Cow::Owned(number)), (if style == Style::Chat { "delta" } else { "text" }, null.clone()), ("finish_reason", null)];
            let mut outs = Vec::new();
            self.emit(&template, style, &Vec::new(), parts, None, &mut outs);
            let mut envelope = match self.envelope.as_deref().map(crate::json::parse) {
                Some(Ok(Value::Object(m))) => m,
                _ => Map::new(),
            };
            if let Some(c) = envelope.get_mut("choices") {
                *c = Value::Array(Vec::new());
            }
            write_outs(out, &fields_of(&envelope), outs, false, "");
        }
    }
}

/// A fast-path event of one `data` line whose delta is `{}` and whose output is its finish
/// alone (no part, no comment), `finish` for its `finish_reason`: written as it came with that
/// value replaced, which is what `emit` and `write_chunk` write for it (the delta `{}`, every
/// other field as it came, `stop_reason` and `logprobs` too on a finishing first choice).
/// False, with nothing written, for any other event.
fn write_finish(c: &fast::ChatChunk, ev: &SseEvent, finish: &str, out: &mut Vec<u8>) -> bool {
    let (Some(data), Some(old)) = (ev.one_data_line(), fast::get(&c.choice, "finish_reason")) else { return false };
    let raw = ev.raw.as_bytes();
    if !c.delta.is_empty() {
        return false;
    }
    // (`old` is a span of `data`: `fast::read` cuts its fields from it.)
    let Some(at) = (old.as_ptr() as usize).checked_sub(data.as_ptr() as usize).map(|o| 6 + o) else { return false };
    let (Some(head), Some(tail)) = (raw.get(..at), raw.get(at + old.len()..)) else { return false };
    out.extend_from_slice(head);
    let mut v = String::with_capacity(finish.len() + 2);
    push_json_string(&mut v, finish);
    out.extend_from_slice(v.as_bytes());
    out.extend_from_slice(tail);
    out.push(b'\n');
    true
}

/// Writes the JSON value of a delta part's field to `v`; returns the field's key and whether
/// the finish may ride on its delta (text and reasoning). A comment has no field (`""`).
#[inline(never)]
fn part_value(part: &Part, v: &mut String) -> (&'static str, bool) {
    match part {
        Part::Comment(_) => ("", false),
        Part::Content(t) => {
            push_json_string(v, t);
            ("content", true)
        }
        Part::Reasoning(t) => {
            push_json_string(v, t);
            ("reasoning_content", true)
        }
        Part::Start { wire, id, name } => {
            v.push_str("[{\"index\":");
            push_usize(v, *wire);
            v.push_str(",\"id\":");
            push_json_string(v, id);
            v.push_str(",\"type\":\"function\",\"function\":{\"name\":");
            push_json_string(v, name);
            v.push_str(",\"arguments\":\"\"}}]");
            ("tool_calls", false)
        }
        Part::Args { wire, text } => {
            v.push_str("[{\"index\":");
            push_usize(v, *wire);
            v.push_str(",\"function\":{\"arguments\":");
            push_json_string(v, text);
            v.push_str("}}]");
            ("tool_calls", false)
        }
    }
}

/// A choice's text field: `delta.content` (chat) or `text` (completions).
fn text_slot(choice: &mut Map, style: Style) -> Option<&mut Value> {
    match style {
        Style::Chat => choice.get_mut("delta")?.as_object_mut()?.get_mut("content"),
        Style::Text => choice.get_mut("text"),
    }
}

/// Writes `outs` in order: comments as they are, each choice as a chunk of its own (`chunk`
/// with `choices: [choice]`); `usage` (when `usage`) and the `extra` lines go with the last
/// chunk (or, when there is none, `extra` alone).
fn write_outs(out: &mut Vec<u8>, chunk: &Obj, outs: Vec<Out>, usage: bool, extra: &str) {
    let last = outs.iter().rposition(|o| matches!(o, Out::Choice(_)));
    for (i, o) in outs.into_iter().enumerate() {
        match o {
            Out::Comment(c) => out.extend_from_slice(c.as_bytes()),
            Out::Choice(c) => {
                let is_last = Some(i) == last;
                write_chunk(out, if is_last { extra } else { "" }, chunk, &c, usage && is_last);
            }
        }
    }
    if last.is_none() && !extra.is_empty() {
        out.extend_from_slice(extra.as_bytes());
        out.push(b'\n');
    }
}

/// Writes one event: `extra` lines (verbatim, each with `\n`), then `data:` with `chunk`'s
/// fields in order, `choices` being `[<choices>]` and `usage` kept only with `usage`.
fn write_chunk(out: &mut Vec<u8>, extra: &str, chunk: &Obj, choices: &str, usage: bool) {
    let mut s = String::with_capacity(extra.len() + choices.len() + chunk.iter().map(|(k, v)| k.len() + v.len() + 4).sum::<usize>() + 16);
    s.push_str(extra);
    s.push_str("data: {");
    let mut comma = false;
    for (k, v) in chunk {
        if *k == "usage" && !usage {
            continue;
        }
        if comma {
            s.push(',');
        }
        comma = true;
        push_json_string(&mut s, k);
        s.push(':');
        if *k == "choices" {
            s.push('[');
            s.push_str(choices);
            s.push(']');
        } else {
            s.push_str(v);
        }
    }
    s.push_str("}\n\n");
    out.extend_from_slice(s.as_bytes());
}

/// One output choice as JSON: `template`'s fields in order, with the delta (`base` fields plus
/// the part's field) or, for completions, the text and the part's field; `finish_reason` set
/// on the finishing one (null elsewhere, as `stop_reason`); `logprobs` only on the first.
fn write_choice(template: &Obj, style: Style, base: &str, part: Option<(&str, String)>, first: bool, finish: Option<&str>) -> String {
    let part_len = part.as_ref().map_or(0, |(k, v)| k.len() + v.len() + 4);
    let mut s = String::with_capacity(template.iter().map(|(k, v)| k.len() + v.len() + 4).sum::<usize>() + base.len() + part_len + 16);
    s.push('{');
    let field = |s: &mut String, key: &str, json: &str| {
        push_json_string(s, key);
        s.push(':');
        s.push_str(json);
    };
    let (content, other) = match part {
        Some(("content", v)) if style == Style::Text => (Some(v), None),
        p => (None, p),
    };
    for (i, (k, v)) in template.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        push_json_string(&mut s, k);
        s.push(':');
        match *k {
            "delta" if style == Style::Chat => {
                s.push('{');
                s.push_str(base);
                if let Some((key, json)) = &other {
                    if !base.is_empty() {
                        s.push(',');
                    }
                    field(&mut s, key, json);
                }
                s.push('}');
            }
            "text" if style == Style::Text => s.push_str(content.as_deref().unwrap_or("\"\"")),
            "finish_reason" => match finish {
                Some(f) => push_json_string(&mut s, f),
                None => s.push_str("null"),
            },
            "stop_reason" if finish.is_none() => s.push_str("null"),
            "logprobs" if !first => s.push_str("null"),
            _ => s.push_str(v),
        }
    }
    if let (Style::Text, Some((key, json))) = (style, &other) {
        s.push(',');
        field(&mut s, key, json);
    }
    s.push('}');
    s
}

/// An object's fields in order: (key, the value's compact JSON text).
type Obj<'a> = Vec<(&'a str, Cow<'a, str>)>;

/// A parsed object's fields, each value written as compact JSON.
fn fields_of(m: &Map) -> Obj<'_> {
    m.iter().map(|(k, v)| (k.as_str(), Cow::Owned(crate::json::to_text(v)))).collect()
}

/// The fast path's fields as they were written upstream.
fn borrowed<'a>(f: &Fields<'a>) -> Obj<'a> {
    f.iter().map(|&(k, v)| (k, Cow::Borrowed(v))).collect()
}

/// Keeps `d` for `take_diagnostics` (at most `MAX_KEPT_DIAGNOSTICS`).
fn keep(diagnostics: &mut Vec<WireDiagnostic>, d: WireDiagnostic) {
    if diagnostics.len() < MAX_KEPT_DIAGNOSTICS {
        diagnostics.push(d);
    }
}

/// Turns one choice's parser events, as their views are drained, into delta parts: text
/// merged, call indices mapped to wire indices, diagnostics kept (and written as comments
/// with `comments`). A call's end only adds a left-out call's markup, as content (as in
/// `parse()`; its deltas went out already: the wire cannot take a call back); the wire takes
/// nothing else from an end.
struct Parts<'a> {
    parts: &'a mut Vec<Part>,
    wire: &'a mut Wire,
    /// The upstream choice index.
    choice: u64,
    comments: bool,
    diagnostics: &'a mut Vec<WireDiagnostic>,
}

impl Parts<'_> {
    fn add(&mut self, e: EventRef<'_>) {
        let parts = &mut *self.parts;
        match e {
            EventRef::Text(t) | EventRef::ToolCallEnd { kept: false, text: t, .. } if !t.is_empty() => match parts.last_mut() {
                Some(Part::Content(s)) if matches!(e, EventRef::Text(_)) => s.push_str(t),
                _ => parts.push(Part::Content(t.to_string())),
            },
            EventRef::Reasoning(t) => match parts.last_mut() {
                Some(Part::Reasoning(s)) => s.push_str(t),
                _ => parts.push(Part::Reasoning(t.to_string())),
            },
            EventRef::ToolCallStart { index, id, name } => {
                let w = &mut *self.wire;
                let wire = w.next_wire;
                w.next_wire += 1;
                w.open = Some((index, wire));
                w.calls += 1;
                parts.push(Part::Start { wire, id: id.to_string(), name: name.to_string() });
            }
            EventRef::ToolCallDelta { index, arguments_delta } => {
                let wire = self.wire.wire_of(index);
                match parts.last_mut() {
                    Some(Part::Args { wire: w, text }) if *w == wire => text.push_str(arguments_delta),
                    _ => parts.push(Part::Args { wire, text: arguments_delta.to_string() }),
                }
            }
            EventRef::Diagnostic { label, message, index } => {
                let d = WireDiagnostic { choice: Some(self.choice), label, message: message.to_string(), index: index.map(|i| self.wire.wire_of(i)) };
                if self.comments {
                    parts.push(Part::Comment(d.comment()));
                }
                keep(self.diagnostics, d);
            }
            EventRef::Text(_) | EventRef::ToolCallEnd { .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;
    use crate::json::parse;
    use crate::parser::Options;

    fn opts(parser: &str) -> SseOptions {
        SseOptions::new(Options::new(parser))
    }

    fn chunk(delta: &str, finish: Option<&str>) -> String {
        let f = finish.map_or("null".to_string(), |f| format!("\"{f}\""));
        format!("data: {{\"id\":\"chatcmpl-t1\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{f}}}]}}\n\n")
    }

    fn run(o: SseOptions, input: &str) -> (String, Vec<WireDiagnostic>) {
        let mut r = SseRewriter::new(o);
        let mut out = Vec::new();
        r.push(input.as_bytes(), &mut out);
        r.finish(&mut out);
        (String::from_utf8(out).unwrap(), r.take_diagnostics())
    }

    /// The deltas of every data event, in order.
    fn deltas(out: &str) -> Vec<Value> {
        out.split("\n\n")
            .filter_map(|e| e.lines().find_map(|l| l.strip_prefix("data: ")))
            .filter(|d| *d != "[DONE]")
            .map(|d| parse(d).unwrap()["choices"][0]["delta"].clone())
            .collect()
    }

    #[test]
    fn one_chunk_with_text_call_text_keeps_the_order() {
        let text = r#"Hi<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>Bye"#;
        let input = chunk(&format!("{{\"role\":\"assistant\",\"content\":{}}}", Value::from(text)), None) + &chunk("{}", Some("stop"));
        let (out, _) = run(opts("hermes"), &input);
        let d = deltas(&out);
        assert_eq!(d[0].to_string(), r#"{"role":"assistant","content":"Hi"}"#);
        assert_eq!(d[1].to_string(), r#"{"tool_calls":[{"index":0,"id":"call_t1_0","type":"function","function":{"name":"f","arguments":""}}]}"#);
        assert_eq!(d[2].to_string(), r#"{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\": 1}"}}]}"#);
        assert_eq!(d[3].to_string(), r#"{"content":"Bye"}"#);
        assert!(out.contains(r#""finish_reason":"tool_calls""#));
    }

    #[test]
    fn native_calls_after_synthesized_ones_get_fresh_indices() {
        let input = chunk(r#"{"content":"<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"}"#, None)
            + &chunk(r#"{"tool_calls":[{"index":0,"id":"n0","type":"function","function":{"name":"g","arguments":"{}"}}]}"#, None)
            + &chunk(r#"{"tool_calls":[{"index":0,"function":{"arguments":" "}}]}"#, Some("tool_calls"));
        let (out, _) = run(opts("hermes"), &input);
        let d = deltas(&out);
        assert_eq!(d[0]["tool_calls"][0]["index"], 0);
        assert_eq!(d[2]["tool_calls"][0]["id"], "n0");
        assert_eq!(d[2]["tool_calls"][0]["index"], 1);
        assert_eq!(d[3]["tool_calls"][0]["index"], 1);
    }

    #[test]
    fn cumulative_auto_detection() {
        let texts = |list: &[&str], o: SseOptions| {
            let input: String = list.iter().map(|t| chunk(&format!("{{\"content\":{}}}", Value::from(*t)), None)).collect::<String>() + &chunk("{}", Some("stop"));
            let (out, diags) = run(o, &input);
            (deltas(&out).iter().filter_map(|d| d["content"].as_str().map(str::to_string)).collect::<String>(), diags)
        };
        // Cumulative: each text extends the one before.
        assert_eq!(texts(&["He", "Hello", "Hello wor", "Hello world"], opts("hermes")).0, "Hello world");
        // Deltas, even when the second text happens to start with the first.
        assert_eq!(texts(&["a", "ab", "c"], opts("hermes")).0, "aabc");
        assert_eq!(texts(&["Hel", "lo"], opts("hermes")).0, "Hello");
        // Two texts only: read as deltas.
        assert_eq!(texts(&["a", "ab"], opts("hermes")).0, "aab");
        // Forced modes.
        let mut never = opts("hermes");
        never.cumulative = Cumulative::Never;
        assert_eq!(texts(&["He", "Hello", "Hello!"], never).0, "HeHelloHello!");
        let mut always = opts("hermes");
        always.cumulative = Cumulative::Always;
        let (text, diags) = texts(&["He", "Hello", "Help!"], always);
        assert_eq!(text, "Hellop!");
        assert_eq!(diags[0].label, Label::MalformedJson);
    }

    #[test]
    fn the_first_token_after_an_empty_role_chunk_goes_out_at_once() {
        // An empty text (vLLM's role chunk) is not read by the cumulative detection: the first
        // text with content is not held for it.
        let mut r = SseRewriter::new(opts("hermes"));
        let mut out = Vec::new();
        r.push(chunk(r#"{"role":"assistant","content":""}"#, None).as_bytes(), &mut out);
        r.push(chunk(r#"{"content":"Hello"}"#, None).as_bytes(), &mut out);
        r.push(chunk(r#"{"content":"Hello world"}"#, None).as_bytes(), &mut out);
        let so_far = String::from_utf8(out).unwrap();
        let texts: Vec<String> = deltas(&so_far).iter().filter_map(|d| d["content"].as_str().map(str::to_string)).collect();
        // The third text extends the second: held until a fourth decides, but "Hello" is out.
        assert_eq!(texts.concat(), "Hello", "{so_far}");
    }

    #[test]
    fn other_events_pass_through_and_problems_are_comments() {
        let input = "event: ping\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n: hi\n\ndata: {not json\n\ndata: {\"error\":{\"message\":\"m\"}}\n\n";
        let (out, diags) = run(opts("hermes"), input);
        assert_eq!(out, "event: ping\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n: hi\n\n: toolwire malformed_json {\"message\":\"upstream data is not JSON (key must be a string at line 1 column 2); passed through\"}\ndata: {not json\n\ndata: {\"error\":{\"message\":\"m\"}}\n\n");
        assert_eq!(diags.len(), 1);
        let mut quiet = opts("hermes");
        quiet.comments = false;
        let (out, diags) = run(quiet, input);
        assert!(!out.contains("toolwire") && diags.len() == 1);
    }

    #[test]
    fn oversized_events_pass_through_with_a_diagnostic() {
        let mut o = opts("hermes");
        o.max_event_bytes = 100;
        let big = chunk(&format!("{{\"content\":\"{}\"}}", "x".repeat(200)), None);
        let input = chunk(r#"{"content":"a"}"#, None) + &big + &chunk(r#"{"content":"b"}"#, Some("stop"));
        let (out, diags) = run(o, &input);
        assert_eq!(diags[0].label, Label::LimitExceeded);
        assert!(out.contains(&big));
        assert!(out.starts_with(&chunk(r#"{"content":"a"}"#, None)));
    }

    #[test]
    fn completions_chunks_and_flush_at_done() {
        let c = |text: &str| format!("data: {{\"id\":\"cmpl-7\",\"object\":\"text_completion\",\"choices\":[{{\"index\":0,\"text\":{},\"finish_reason\":null}}]}}\n\n", Value::from(text));
        let input = c("ok <tool") + &c("_call>{\"name\": \"f\", \"arguments\": {}}") + "data: [DONE]\n\n";
        let (out, diags) = run(opts("hermes"), &input);
        let events: Vec<Value> = out.split("\n\n").filter_map(|e| e.strip_prefix("data: ")).filter(|d| *d != "[DONE]").map(|d| parse(d).unwrap()).collect();
        assert_eq!(events[0]["choices"][0]["text"], "ok ");
        assert_eq!(events[1]["choices"][0]["tool_calls"][0]["function"]["name"], "f");
        assert_eq!(events[1]["choices"][0]["text"], "");
        let args: String = events[2..].iter().filter_map(|e| e["choices"][0]["tool_calls"][0]["function"]["arguments"].as_str()).collect();
        assert_eq!(args, "{}");
        assert!(out.ends_with("data: [DONE]\n\n"));
        // Flushed at [DONE] with the first chunk's envelope; the missing end tag is no problem.
        assert!(events.last().unwrap()["id"] == "cmpl-7");
        assert!(diags.is_empty(), "{diags:?}");
    }

    /// The first chunk read by the fast path gives the envelope, id and model the general
    /// path gives: a call still open at `[DONE]` is flushed with the same bytes either way.
    #[test]
    fn first_chunk_on_the_fast_path_keeps_the_envelope() {
        let c = |delta: &str| format!("data: {{\"id\":\"chatcmpl-9z\",\"object\":\"chat.completion.chunk\",\"created\":7,\"model\":\"m/x\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"logprobs\":null,\"finish_reason\":null}}],\"usage\":null}}\n\n");
        let input = c(r#"{"role":"assistant","content":"Hi <tool_call>{\"name\": \"f\", "}"#) + &c(r#"{"content":"\"arguments\": {\"a\": 1"}"#) + "data: [DONE]\n\n";
        let mut fast = SseRewriter::new(opts("hermes"));
        let mut general = SseRewriter::new(opts("hermes"));
        general.set_general_only(true);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        fast.push(input.as_bytes(), &mut a);
        general.push(input.as_bytes(), &mut b);
        fast.finish(&mut a);
        general.finish(&mut b);
        let (a, b) = (String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap());
        assert_eq!(fast.fast_events(), 2);
        assert_eq!(a, b);
        assert!(a.contains(r#""id":"call_9z_0""#), "{a}");
        // The flushed arguments' event carries the first chunk's envelope, `choices` emptied.
        let flushed = a.lines().filter(|l| l.starts_with("data: ") && l.contains("tool_calls")).last().unwrap();
        assert!(flushed.starts_with(r#"data: {"id":"chatcmpl-9z","object":"chat.completion.chunk","created":7,"model":"m/x","choices":[{"index":0"#), "{flushed}");
    }

    /// Events that the quiet-run hint does not admit (markup, a call's header and end) but
    /// that repeat the last event's bytes but for the text are read as its shape (the second
    /// text too, before the cumulative detection has decided): the output is the plain
    /// path's, event by event, and only the first two events, the finish and `[DONE]` take
    /// the plain path.
    #[test]
    fn events_of_the_same_shape_skip_the_plain_path() {
        let text = "Hi <b> there.<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"x y\", \"b\": [1, 2]}}\n</tool_call> Bye <tool";
        let mut input = chunk(r#"{"role":"assistant","content":""}"#, None);
        for piece in text.as_bytes().chunks(3) {
            input += &chunk(&format!("{{\"content\":{}}}", Value::from(core::str::from_utf8(piece).unwrap())), None);
        }
        input += &chunk("{}", Some("stop"));
        input += "data: [DONE]\n\n";
        let events: Vec<&str> = input.split_inclusive("\n\n").collect();
        let (mut plain, mut shaped) = (SseRewriter::new(opts("hermes")), SseRewriter::new(opts("hermes")));
        for (i, e) in events.iter().enumerate() {
            let (mut want, mut got) = (Vec::new(), Vec::new());
            plain.push(e.as_bytes(), &mut want);
            if shaped.push_answered(e.as_bytes(), &mut got) == Answer::Verbatim {
                got.extend_from_slice(e.as_bytes());
            }
            assert_eq!(String::from_utf8(got).unwrap(), String::from_utf8(want).unwrap(), "event {i}");
        }
        let (mut want, mut got) = (Vec::new(), Vec::new());
        plain.finish(&mut want);
        shaped.finish(&mut got);
        assert_eq!(got, want);
        // The role chunk, the first text, the finish and `[DONE]` go the plain way; quiet
        // events are answered from the hint.
        let (shape, quiet) = (shaped.shape_events(), shaped.quiet_chunks());
        assert!(shape >= 10 && shape + quiet + 4 == events.len(), "{shape} shape + {quiet} quiet of {}", events.len());
    }

    #[test]
    fn many_choices_are_bounded() {
        let mut input = String::new();
        for i in 0..(MAX_CHOICES + 2) {
            input.push_str(&format!("data: {{\"choices\":[{{\"index\":{i},\"delta\":{{\"content\":\"x\"}}}}]}}\n\n"));
        }
        let (out, diags) = run(opts("hermes"), &input);
        assert_eq!(diags.iter().filter(|d| d.label == Label::LimitExceeded).count(), 1);
        assert_eq!(out.matches("\"content\":\"x\"").count(), MAX_CHOICES + 2);
    }
}
