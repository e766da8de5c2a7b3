//! The sequencer: one pass over the text, the same for every family.
//!
//! ```text
//!            start/bare marker               Done
//!   Text ───────────────────────► Payload ─────────► After ──end marker──► Text / Section
//!    │  ▲                           │ Reject (not a call after all: marker + bytes -> text)
//!    │  └───────────────────────────┘
//!    │ section marker      start marker
//!    └───────────────► Section ◄──────► Payload ...
//! ```
//!
//! - `Text` scans for the family's markers (and reasoning markers) with minimal hold-back.
//! - `Payload` hands the bytes to a reader (JSON, named JSON, XML, pythonic, ...; the previous
//!   payload's reader when it can reset itself, else a new one). Until the
//!   reader starts a call, the bytes it consumed are kept: if it rejects (e.g. `<tool_call>`
//!   mentioned in prose), marker and bytes come back as text, so nothing is lost.
//! - `After` consumes an optional closing marker after a payload.
//! - `Section` sits between payloads inside a section; whitespace there is framing.
//!
//! Input that a stage cannot decide yet stays in `buf` (bounded by the longest marker, or by the
//! reader's own limits); nothing already consumed is read again.
//!
//! Text and reasoning the engine emits carry the input offset of their bytes
//! (`Sink::text_at`, `Sink::reasoning_at`), in input order; the emitter derives where every byte
//! went from that (`spans.rs`). Besides emitting, the engine tells the sink only what it drops
//! (`Sink::dropped`) and where the input ended (`Sink::end_input`).

use crate::prelude::*;
use alloc::rc::Rc;
use crate::event::Label;
use crate::reader::{reuse, CallError, Reader, Status, READER_LOOKAHEAD};
use crate::scan::{Act, Hit, MarkerSet};
use crate::text::floor_char_boundary;
use crate::sink::Sink;
use crate::syntax::{Payload, Reasoning, Syntax};
use crate::quiet::{Quiet, QuietKind, Stop};

struct SectionState {
    /// The opening marker and the whitespace after it, re-emitted if the section holds no call.
    held: String,
    calls_at_open: usize,
    /// Inside text between calls (whitespace there is text, not framing).
    text: bool,
    /// Offset of the opening marker.
    at: usize,
    /// `held` went into the markup of a call that was then left out: the section's framing
    /// and closing marker are text too.
    given_back: bool,
}

/// The open payload's bookkeeping (`Mode::Payload`; its reader is `Engine::reader`). Kept in
/// the engine from payload to payload, with its buffer's memory.
#[derive(Default)]
struct PayloadState {
    /// The opening marker (consumed) and the bytes consumed while no call was started.
    held: String,
    calls_at_start: usize,
    /// Length of a bare opening marker (0 for consumed markers).
    bare_len: usize,
    /// The family's payload (not the `bareJson` one): its reader may be reused.
    main: bool,
    /// Offset of `held` (of the payload's first byte when `held` is empty).
    at: usize,
}

impl PayloadState {
    /// A call of this payload started, or its reader committed to one: the hold limit no
    /// longer applies.
    fn committed(&self, reader: &dyn Reader, sink: &Sink) -> bool {
        sink.calls_started() > self.calls_at_start || reader.committed()
    }

    /// How many more bytes `reader` may see while the payload is not committed (the hold
    /// limit, as `feed` caps it); `None` once it is.
    fn room(&self, reader: &dyn Reader, sink: &Sink) -> Option<usize> {
        (!self.committed(reader, sink)).then(|| sink.limits.max_buffer_bytes.saturating_sub(self.held.len()))
    }
}

enum Mode {
    Text { reasoning: bool },
    Section,
    /// Reading a payload: `Engine::payload_state` and `Engine::reader`.
    Payload,
    /// `held`: whitespace after the payload, from offset `at`.
    After { held: String, at: usize },
    /// Dropping the rest of a malformed payload (`keepMalformed: false`) up to its closing
    /// marker, or up to the next opening marker.
    Skip,
}

/// Whitespace held after a payload while looking for its closing marker.
const MAX_AFTER_WS: usize = 256;

/// The content marker that opens `Engine::bare_payload` (the `bareJson` policy).
const BARE_PAYLOAD: Act = Act::Other(0);

/// See the module docs.
pub struct Engine {
    payload: Payload,
    /// Read after the `BARE_PAYLOAD` marker (see `set_recovery`).
    bare_payload: Payload,
    /// The open payload's reader in `Mode::Payload`; otherwise the last payload's reader of the
    /// family (`reader_bare`: whether it was opened bare), reused for the next payload when it
    /// can reset itself (`Reader::reset`: its marker sets are built once per parser, not once
    /// per payload).
    reader: Option<Box<dyn Reader>>,
    reader_bare: bool,
    /// See `PayloadState`.
    payload_state: PayloadState,
    has_end: bool,
    /// The marker sets, read only (shared by the parsers of one registered family: `Sets::shared`).
    sets: Rc<Sets>,
    mode: Mode,
    section: Option<SectionState>,
    buf: String,
    /// Policy `keepMalformed` off: malformed markup is dropped instead of becoming text.
    drop_malformed: bool,
    /// Offset of `buf[0]` in the whole input.
    base: usize,
    /// The markup of the current call, for when it is left out.
    markup: CallMarkup,
    /// See `whole_payload`.
    #[cfg(not(target_arch = "wasm32"))]
    whole_tries: WholeTries,
    /// See `push_pausing`: `consume` may stop at a call boundary (`pause`), and did (`paused`).
    #[cfg(not(target_arch = "wasm32"))]
    pause: bool,
    #[cfg(not(target_arch = "wasm32"))]
    paused: bool,
}

/// `Engine::push_pausing` stops once this many events are queued at a call boundary.
#[cfg(not(target_arch = "wasm32"))]
const PAUSE_EVENTS: usize = 256;

/// When `Engine::whole_payload` tries `Reader::whole`: after a payload it could not read, the
/// next `skip` payloads open without trying (1, 2, 4, then 8 after each failure in a row; a
/// success starts over), so a family whose payloads are seldom plain (escaped strings, nested
/// values) pays for a failed attempt in at most one payload of nine. The events are the same
/// either way.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Default)]
struct WholeTries {
    skip: u8,
    misses: u8,
}

/// A left-out call's markup comes back as content, exactly as written (`ToolCallEnd::text`):
/// the bytes from the call's opening marker (or the end of the previous call of its payload)
/// through the reader step in which it ended (which ends at the call's last byte,
/// `Reader::feed`), and its closing marker. A call read as a nested payload after text
/// (`reader::Nested`, Muse invokes) starts at its own opening (`Sink::call_opens`).
#[derive(Default)]
struct CallMarkup {
    /// Some call may be left out (the recovery policy does not keep every repaired call) and
    /// `keepMalformed` is on. Only then are call ends taken (`settle_markup`) before `finish`.
    on: bool,
    text: String,
    /// Offset of `text` in the input.
    at: usize,
    /// The payload's latest call was left out: its closing marker is text too.
    left_out: bool,
}

/// The engine's marker sets, one per stage.
struct Sets {
    content: MarkerSet,
    thinking: MarkerSet,
    section_set: MarkerSet,
    end_set: MarkerSet,
    /// `end_set` plus the section's closing markers: after a payload read outside any section,
    /// a section close is the close of a section the chat template opened (Qwen3-Coder output
    /// prefilled with `<tool_call>`: `<function=…>…</function></tool_call>`), consumed as markup.
    orphan_end_set: MarkerSet,
    /// Closing markers (`End`) and opening markers (`Start`) for `Mode::Skip`.
    skip_set: MarkerSet,
    /// `content` holds the `bareJson` marker (`BARE_PAYLOAD`).
    bare: bool,
}

impl Sets {
    fn new(syntax: &Syntax, reasoning: Option<&Reasoning>, bare: bool) -> Sets {
        let mut content = MarkerSet::new();
        let mut thinking = MarkerSet::new();
        let mut section_set = MarkerSet::new();
        let mut end_set = MarkerSet::new();
        let mut orphan_end_set = MarkerSet::new();
        let mut skip_set = MarkerSet::new();
        let calls = !matches!(syntax.payload, Payload::None);
        if calls {
            content.add_all(syntax.section, Act::Section).add_all(syntax.start, Act::Start).add_all(syntax.bare, Act::Bare);
            if reasoning.is_none_or(|r| r.calls_end) {
                thinking.add_all(syntax.section, Act::Section).add_all(syntax.start, Act::Start);
            }
            section_set
                .add_all(syntax.start, Act::Start)
                .add_all(syntax.bare, Act::Bare)
                .add_all(syntax.section_bare, Act::Bare)
                .add_all(syntax.section_end, Act::SectionEnd)
                .add_all(syntax.section, Act::Ignore)
                .add_all(syntax.ignore, Act::Ignore);
            end_set.add_all(syntax.end, Act::End);
            orphan_end_set.add_all(syntax.end, Act::End).add_all(syntax.section_end, Act::End);
            skip_set.add_all(syntax.end, Act::End).add_all(syntax.section_end, Act::End).add_all(syntax.section, Act::Start).add_all(syntax.start, Act::Start);
        }
        content.add_all(syntax.ignore, Act::Ignore);
        if let Some(r) = reasoning {
            content.add_all(r.start, Act::ThinkStart).add_all(r.end, Act::Ignore).add_all(r.ignore, Act::Ignore);
            thinking.add_all(r.end, Act::ThinkEnd).add_all(r.start, Act::Ignore);
        }
        if bare {
            content.add("{", BARE_PAYLOAD);
        }
        Sets { content, thinking, section_set, end_set, orphan_end_set, skip_set, bare }
    }

    /// The sets of a registered family's `syntax` with reasoning markers `reasoning` (both
    /// statics), shared in the package's wasm (`SharedCache`): building six sets was about a
    /// fifth of a new parser's cost there. At most one entry per family and reasoning parser
    /// pair used, twice (`bare`).
    fn shared(syntax: &'static Syntax<'static>, reasoning: Option<&'static Reasoning<'static>>, bare: bool) -> Rc<Sets> {
        type Key = (*const Syntax<'static>, *const Reasoning<'static>, bool);
        static CACHE: crate::small::SharedCache<Key, Sets> = crate::small::SharedCache::new();
        let key: Key = (syntax, reasoning.map_or(core::ptr::null(), |r| r as *const _), bare);
        CACHE.get(key, || Sets::new(syntax, reasoning, bare))
    }
}

impl Engine {
    /// Takes over `old`'s buffers, cleared (`ToolCallParser::recycle`; this engine is new), and
    /// when both read the same payload (`same_payload`: the caller knows) its spare payload
    /// reader (the family's, kept after a payload ended: `after_payload`): what a payload
    /// after the first finds (`open_payload` resets it). A reader in a payload (a call left
    /// open) is not taken.
    pub fn recycle(&mut self, old: &mut Engine, same_payload: bool) {
        use crate::small::Spare;
        self.buf.spare(&mut old.buf);
        self.markup.text.spare(&mut old.markup.text);
        self.payload_state.held.spare(&mut old.payload_state.held);
        if same_payload && self.reader.is_none() && old.payload_state.main && !matches!(old.mode, Mode::Payload) {
            self.reader = old.reader.take();
            self.reader_bare = old.reader_bare;
        }
    }

    /// `reasoning` (a reasoning parser) takes precedence over the format's own `syntax.reasoning`;
    /// `thinking` is the option that, with the chosen markers' [`Thinking`], sets the start state.
    pub fn new(syntax: &Syntax, reasoning: Option<&Reasoning>, thinking: Option<bool>) -> Engine {
        let reasoning = reasoning.or(syntax.reasoning);
        Engine::with_sets(syntax, reasoning, thinking, Rc::new(Sets::new(syntax, reasoning, false)))
    }

    /// `new` for a registered family's static `syntax`, with the `bareJson` marker already in
    /// (`bare`; `set_recovery` must then be given the bare payload): its marker sets are shared
    /// (`Sets::shared`).
    pub fn for_family(syntax: &'static Syntax<'static>, reasoning: Option<&'static Reasoning<'static>>, thinking: Option<bool>, bare: bool) -> Engine {
        let reasoning = reasoning.or(syntax.reasoning);
        Engine::with_sets(syntax, reasoning, thinking, Sets::shared(syntax, reasoning, bare))
    }

    fn with_sets(syntax: &Syntax, reasoning: Option<&Reasoning>, thinking: Option<bool>, sets: Rc<Sets>) -> Engine {
        let start_in_reasoning = reasoning.is_some_and(|r| r.thinking.starts_inside(thinking));
        Engine {
            payload: syntax.payload,
            bare_payload: Payload::None,
            reader: None,
            reader_bare: false,
            payload_state: PayloadState::default(),
            has_end: !syntax.end.is_empty(),
            sets,
            mode: Mode::Text { reasoning: reasoning.is_some() && start_in_reasoning },
            section: None,
            buf: String::new(),
            drop_malformed: false,
            base: 0,
            markup: CallMarkup::default(),
            #[cfg(not(target_arch = "wasm32"))]
            whole_tries: WholeTries::default(),
            #[cfg(not(target_arch = "wasm32"))]
            pause: false,
            #[cfg(not(target_arch = "wasm32"))]
            paused: false,
        }
    }

    /// Applies the recovery policy (`policy.rs`): `drop_malformed` (`keepMalformed` off) drops
    /// malformed markup instead of turning it into text; `bare_payload` is read after a bare `{`
    /// in content (`bareJson`).
    pub fn set_recovery(&mut self, drop_malformed: bool, bare_payload: Option<Payload>) {
        self.drop_malformed = drop_malformed;
        if let Some(payload) = bare_payload {
            self.bare_payload = payload;
            // An engine's own sets (`new`) take the marker here; shared ones had it built in
            // (`for_family` with `bare`).
            if let Some(sets) = Rc::get_mut(&mut self.sets).filter(|s| !s.bare) {
                sets.content.add("{", BARE_PAYLOAD);
                sets.bare = true;
            }
            debug_assert!(self.sets.bare);
        }
    }

    /// Bytes held undecided right now.
    pub fn held_len(&self) -> usize {
        self.buf.len()
    }

    /// The most `held_len` can be (text is held only while it may start a marker): the longest
    /// marker, plus the bounded
    /// look-ahead readers use between parts of a payload (`READER_LOOKAHEAD`).
    pub fn hold_bound(&self) -> usize {
        [&self.sets.content, &self.sets.thinking, &self.sets.section_set, &self.sets.orphan_end_set].iter().map(|s| s.longest()).max().unwrap_or(0)
            + READER_LOOKAHEAD
    }

    /// The quiet-run hint (`crate::quiet`): nothing held, and the next bytes are text, reasoning
    /// or a forwarded arguments string. `None` whenever anything else could happen.
    pub fn quiet(&self, sink: &Sink) -> Option<Quiet> {
        if !self.buf.is_empty() || sink.held_reasoning_ws() > 0 {
            return None;
        }
        // `utf8`: non-ASCII characters are quiet too (no marker starts with one).
        let (reasoning, stop, utf8) = match &self.mode {
            Mode::Text { reasoning: false } => (false, self.sets.content.ascii_firsts(), self.sets.content.ascii_starts()),
            Mode::Text { reasoning: true } => (true, self.sets.thinking.ascii_firsts(), self.sets.thinking.ascii_starts()),
            Mode::Payload => {
                let (p, reader) = (&self.payload_state, self.reader.as_ref()?);
                // Or the `\\` of an escape held in such a string (`Reader::quiet_backslash`).
                let (stop, backslash) = match reader.quiet() {
                    Some(stop) => (stop, false),
                    None if reader.quiet_backslash() => (Stop::JSON_STRING_ESCAPES, true),
                    None => return None,
                };
                if sink.calls_started() > p.calls_at_start {
                    // A JSON string forwarded raw (`Stop::ESCAPES`) forwards any character.
                    let budget = sink.args_room()?.saturating_sub(usize::from(backslash));
                    return Some(Quiet { kind: QuietKind::Args(sink.call_index()), stop, budget, utf8: stop.escapes(), backslash });
                }
                // (A held `\\` is in arguments: a call started, `Reader::quiet_backslash`.)
                // The reader's own text or reasoning: emitted as it comes once it committed (no
                // call follows it in the payload, so it is never held: `Reader::quiet`).
                if !reader.committed() {
                    return None;
                }
                (stop.0 & Stop::REASONING.0 != 0, stop, false)
            }
            _ => return None,
        };
        if self.section.is_some() || sink.in_call() {
            return None;
        }
        // Trailing reasoning whitespace is held back where the sink strips it.
        let strips = reasoning && sink.strips_reasoning_tail();
        let ws = if strips { Stop::ASCII_WS } else { Stop::default() };
        let kind = if reasoning { QuietKind::Reasoning } else { QuietKind::Text };
        Some(Quiet { kind, stop: stop.or(ws), budget: usize::MAX, utf8: utf8 && !strips, backslash: false })
    }

    /// When all the engine holds is a proper prefix of a marker it waits for (in text or
    /// reasoning, in a section, for the closing marker after a payload, or in a payload as its
    /// reader says: `Reader::held_marker`), the rest of that marker but its
    /// last byte: a chunk whose bytes begin it gives no event, and is held with the rest
    /// (the marker is neither complete nor broken). `None` otherwise.
    pub fn held_marker(&self, sink: &Sink) -> Option<&[u8]> {
        let set = match &self.mode {
            Mode::Text { reasoning: false } => &self.sets.content,
            Mode::Text { reasoning: true } => &self.sets.thinking,
            Mode::Section if self.section.is_some() => &self.sets.section_set,
            Mode::After { .. } if self.section.is_some() => &self.sets.end_set,
            Mode::After { .. } => &self.sets.orphan_end_set,
            Mode::Payload => return self.payload_held_marker(sink),
            _ => return None,
        };
        set.continuation(&self.buf)
    }

    /// `held_marker` in a payload: the reader's (`Reader::held_marker`), cut to the bytes the
    /// reader may still see while no call started (the hold limit, as `feed` caps it).
    fn payload_held_marker(&self, sink: &Sink) -> Option<&[u8]> {
        let reader = self.reader.as_deref()?;
        let rest = reader.held_marker(&self.buf)?;
        let room = self.payload_state.room(reader, sink).map_or(rest.len(), |r| r.saturating_sub(self.buf.len()));
        Some(&rest[..rest.len().min(room)]).filter(|r| !r.is_empty())
    }

    /// In a payload with nothing held, the reader's `Reader::held_run`: its lead, the bytes
    /// that end the run and how many may come after the lead, cut to the bytes the reader may
    /// still see while no call started (the lead first).
    pub fn held_run(&self, sink: &Sink) -> Option<(&'static [u8], Stop, usize)> {
        if !matches!(self.mode, Mode::Payload) || !self.buf.is_empty() {
            return None;
        }
        let reader = self.reader.as_deref()?;
        let (lead, stop, budget) = reader.held_run(sink)?;
        let room = self.payload_state.room(reader, sink).unwrap_or(usize::MAX);
        let lead = &lead[..lead.len().min(room)];
        Some((lead, stop, budget.min(room - lead.len()))).filter(|&(l, _, b)| l.len() + b > 0)
    }

    /// The reader holds the `\\` of an escape in an arguments string (`Reader::quiet_backslash`).
    pub fn quiet_backslash(&self) -> bool {
        matches!(self.mode, Mode::Payload) && self.reader.as_ref().is_some_and(|r| r.quiet_backslash())
    }

    /// Consumes `run`, input the quiet hint admits (`quiet`) of kind `Args`, through the
    /// reader's `Reader::take_quiet` (no event, the arguments not scanned again); false, with
    /// nothing changed, when the reader cannot (then `push` it).
    pub fn take_quiet(&mut self, run: &str, sink: &mut Sink) -> bool {
        if !self.buf.is_empty() || !matches!(self.mode, Mode::Payload) || sink.calls_started() <= self.payload_state.calls_at_start {
            return false;
        }
        if !self.reader.as_mut().is_some_and(|r| r.take_quiet(run, sink)) {
            return false;
        }
        // As `consume` keeps the bytes of a step that ends no call (markup of the open call).
        if self.markup.on {
            self.markup.text.push_str(run);
        }
        self.base += run.len();
        true
    }

    /// Feeds a chunk.
    pub fn push(&mut self, chunk: &str, sink: &mut Sink) {
        if self.buf.is_empty() {
            // Nothing held: read the chunk in place and keep only what is left undecided.
            let pos = self.consume(chunk, false, sink);
            self.buf.push_str(&chunk[pos..]);
        } else {
            self.buf.push_str(chunk);
            self.run(false, sink);
        }
    }

    /// Like `push`, but stops when `PAUSE_EVENTS` events are queued and the latest is a call's
    /// end that nothing refers to any more (`Sink::at_call_boundary`) where the engine may
    /// stop (`pausable`): returns the rest of `chunk`, to push after the caller drained the
    /// events (a call's end event takes no merge, so the events are `push`'s). A large chunk
    /// with many calls then never queues more than about `PAUSE_EVENTS` events (natively,
    /// `ToolCallParser::push_with`: a 1 MiB push of small calls queued 30 MB of events, most
    /// of its time spent on that memory).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn push_pausing<'a>(&mut self, chunk: &'a str, sink: &mut Sink) -> Option<&'a str> {
        if !self.buf.is_empty() {
            self.push(chunk, sink);
            return None;
        }
        self.pause = true;
        let pos = self.consume(chunk, false, sink);
        self.pause = false;
        if core::mem::take(&mut self.paused) {
            return Some(&chunk[pos..]);
        }
        self.buf.push_str(&chunk[pos..]);
        None
    }

    /// Whether `consume` may stop here at a call boundary (`push_pausing`): in text, or right
    /// after a payload with nothing held yet (`Mode::After` of a family with a closing marker:
    /// what comes next is read the same from the rest of the chunk).
    #[cfg(not(target_arch = "wasm32"))]
    fn pausable(&self) -> bool {
        match &self.mode {
            Mode::Text { .. } => true,
            Mode::After { held, .. } => held.is_empty(),
            _ => false,
        }
    }

    /// Ends the input: flushes held text, ends or rejects an open payload.
    pub fn finish(&mut self, sink: &mut Sink) {
        self.run(true, sink);
        if sink.in_call() {
            sink.end_call_truncated();
            self.settle_markup(self.base, "", sink);
        }
        sink.settle_held(true);
        sink.hold_text(false);
        // What was consumed and never emitted (trailing reasoning whitespace included) was markup.
        sink.end_input(self.base);
    }

    fn run(&mut self, eof: bool, sink: &mut Sink) {
        let buf = core::mem::take(&mut self.buf);
        let pos = self.consume(&buf, eof, sink);
        self.buf = buf;
        self.buf.drain(..pos);
    }

    /// Steps through `input` (which follows everything consumed so far) until stuck; returns
    /// the bytes consumed.
    fn consume(&mut self, input: &str, eof: bool, sink: &mut Sink) -> usize {
        let mut pos = 0;
        // The current call's markup is `markup.text` then `input[from..pos]` (copied only when
        // it is needed: a left-out call, or the end of this input).
        let mut from = 0;
        loop {
            let capture = self.markup.on && matches!(self.mode, Mode::Payload);
            sink.hold_text(capture);
            let Some(used) = self.step(&input[pos..], self.base + pos, eof, sink) else { break };
            let end = pos + used;
            if capture {
                if sink.take_markup_restart() {
                    // A nested call after text: its markup starts with this step.
                    self.markup.text.clear();
                    self.markup.at = self.base + pos;
                    from = pos;
                }
                if self.settle_markup(self.base + end, &input[from..end], sink) {
                    from = end;
                }
            } else {
                from = end;
            }
            pos = end;
            #[cfg(not(target_arch = "wasm32"))]
            if sink.queued() >= PAUSE_EVENTS && self.pause && self.pausable() && sink.at_call_boundary(self.markup.on) {
                self.paused = true;
                break;
            }
        }
        self.markup.text.push_str(&input[from..pos]);
        self.base += pos;
        pos
    }

    /// One step in the current mode. Returns bytes consumed when progress was made (consumed
    /// input or changed mode), `None` when stuck until more input arrives (or done at eof).
    /// `off` is the offset of `input` in the whole input (what the engine emits carries it).
    fn step(&mut self, input: &str, off: usize, eof: bool, sink: &mut Sink) -> Option<usize> {
        self.step_mode(input, off, eof, sink)
    }

    /// After a payload step that consumed input up to offset `end`, `pending` being the
    /// markup bytes before `end` not in `markup.text` yet: a call that ended in it and is left
    /// out gets its markup as `text`; the next call's markup starts at `end`. Returns true when
    /// `pending` was settled (else it is still the current call's markup).
    #[inline(never)]
    fn settle_markup(&mut self, end: usize, pending: &str, sink: &mut Sink) -> bool {
        let m = &mut self.markup;
        let mut settled = false;
        if let Some((pos, kept)) = sink.take_ended() {
            settled = true;
            m.left_out = !kept;
            if kept {
                sink.settle_held(true);
                m.text.clear();
                if let Some(sec) = self.section.as_mut() {
                    sec.given_back = false;
                }
            } else {
                m.text.push_str(pending);
                sink.leave_out(pos, core::mem::take(&mut m.text), m.at);
            }
            m.at = end;
        }
        if !matches!(self.mode, Mode::Payload) {
            let give_back = m.left_out && !(settled || m.text.is_empty() && pending.is_empty());
            // Held text after a left-out last call is in its markup.
            sink.settle_held(!give_back);
            sink.hold_text(false);
            if give_back {
                // What the payload consumed after its left-out last call (a list's `]`).
                m.text.push_str(pending);
                sink.text_at(m.at, &m.text);
            }
            m.text.clear();
            settled = true;
        }
        settled
    }

    fn step_mode(&mut self, input: &str, off: usize, eof: bool, sink: &mut Sink) -> Option<usize> {
        match &mut self.mode {
            Mode::Text { reasoning } => {
                let reasoning = *reasoning;
                if input.is_empty() {
                    return None;
                }
                let set = if reasoning { &self.sets.thinking } else { &self.sets.content };
                let emit = |sink: &mut Sink, s: &str| {
                    if reasoning { sink.reasoning_at(off, s) } else { sink.text_at(off, s) }
                };
                match set.find(input, eof) {
                    Hit::None => {
                        emit(sink, input);
                        Some(input.len())
                    }
                    Hit::Hold { at } => {
                        emit(sink, &input[..at]);
                        if at == 0 { None } else { Some(at) }
                    }
                    Hit::Found { at, idx } => {
                        emit(sink, &input[..at]);
                        let (act, len) = (set.act(idx), set.text(idx).len());
                        if reasoning && act == Act::Ignore && sink.held_reasoning_ws() > 0 {
                            // Swallowed inside reasoning after whitespace the sink holds back:
                            // that whitespace is reasoning.
                            sink.flush_reasoning_ws();
                        }
                        #[cfg(not(target_arch = "wasm32"))]
                        if matches!(act, Act::Start | Act::Bare) {
                            let from = if act == Act::Bare { at } else { at + len };
                            if let Some(used) = self.whole_payload(&input[from..], len, act == Act::Bare, sink) {
                                return Some(from + used);
                            }
                        }
                        let set = if reasoning { &self.sets.thinking } else { &self.sets.content };
                        let marker = set.text(idx);
                        match act {
                            Act::ThinkStart => self.mode = Mode::Text { reasoning: true },
                            Act::ThinkEnd => self.mode = Mode::Text { reasoning: false },
                            Act::Section => {
                                self.section = Some(SectionState { held: marker.to_string(), calls_at_open: sink.calls_started(), text: false, at: off + at, given_back: false });
                                self.mode = Mode::Section;
                            }
                            Act::Start => {
                                self.payload_state.held.clear();
                                self.payload_state.held.push_str(marker);
                                self.open_payload(true, 0, off + at, sink);
                            }
                            Act::Bare => {
                                self.payload_state.held.clear();
                                self.open_payload(true, len, off + at, sink);
                                return Some(at);
                            }
                            BARE_PAYLOAD => {
                                self.payload_state.held.clear();
                                self.open_payload(false, len, off + at, sink);
                                return Some(at);
                            }
                            _ => {}
                        }
                        Some(at + len)
                    }
                }
            }
            Mode::Section => {
                let Some(sec) = self.section.as_mut() else {
                    self.mode = Mode::Text { reasoning: false };
                    return Some(0);
                };
                let ws = input.bytes().take_while(|b| b.is_ascii_whitespace()).count();
                let open = sec.calls_at_open == sink.calls_started();
                if ws > 0 {
                    // Kept only while the section holds no call (it may still turn out to be text).
                    if sec.text || (sec.given_back && self.markup.left_out) {
                        sink.text_at(off, &input[..ws]);
                    } else if open {
                        if sec.held.len() + ws > MAX_AFTER_WS {
                            self.close_section(sink);
                            return Some(0);
                        }
                        sec.held.push_str(&input[..ws]);
                    }
                    // Else framing (markup).
                    return Some(ws);
                }
                if input.is_empty() {
                    if eof {
                        self.close_section(sink);
                        return Some(0);
                    }
                    return None;
                }
                if eof && sec.calls_at_open != sink.calls_started() && self.sets.section_set.at_start(input, false).is_err() {
                    // The output ends inside a marker after the section's calls: markup, cut off.
                    self.section = None;
                    self.mode = Mode::Text { reasoning: false };
                    return Some(input.len());
                }
                match self.sets.section_set.at_start(input, eof) {
                    Err(()) => None,
                    Ok(Some(idx)) => {
                        let len = self.sets.section_set.text(idx).len();
                        sec.text = false;
                        match self.sets.section_set.act(idx) {
                            Act::SectionEnd if sec.given_back && self.markup.left_out => {
                                // The section of a left-out call closes as text, as it opened.
                                sink.text_at(off, self.sets.section_set.text(idx));
                            }
                            Act::SectionEnd => {}
                            act => {
                                if act != Act::Bare && act != Act::Start && open {
                                    // A swallowed marker (a repeated opening) is held with the
                                    // section: text if the section turns out to be prose, part of
                                    // the markup of its first call if that call is left out.
                                    sec.held.push_str(self.sets.section_set.text(idx));
                                }
                            }
                        }
                        match self.sets.section_set.act(idx) {
                            Act::Start => {
                                self.payload_state.held.clear();
                                self.payload_state.held.push_str(self.sets.section_set.text(idx));
                                self.open_payload(true, 0, off, sink);
                            }
                            Act::Bare => {
                                self.payload_state.held.clear();
                                self.open_payload(true, len, off, sink);
                                return Some(0);
                            }
                            Act::SectionEnd => {
                                // An empty section is framing too.
                                self.section = None;
                                self.mode = Mode::Text { reasoning: false };
                            }
                            _ => {}
                        }
                        Some(len)
                    }
                    Ok(None) if sec.calls_at_open < sink.calls_started() => {
                        // Text between the calls of a section is content; the section (and its
                        // closing marker) goes on.
                        let at = match self.sets.section_set.find(input, eof) {
                            Hit::Found { at, .. } | Hit::Hold { at } => at,
                            Hit::None => input.len(),
                        };
                        sink.text_at(off, &input[..at]);
                        sec.text = true;
                        if at == 0 { None } else { Some(at) }
                    }
                    Ok(None) => {
                        // Text inside a section that holds no call: it was prose.
                        self.close_section(sink);
                        Some(0)
                    }
                }
            }
            Mode::Payload => {
                let (p, Some(reader)) = (&mut self.payload_state, self.reader.as_mut()) else {
                    self.mode = Mode::Text { reasoning: false };
                    return Some(0);
                };
                // While no call started, the reader may see at most `room` more bytes, so that
                // the hold limit is hit at the same byte whatever the chunking.
                let (visible, capped) = match p.room(&**reader, sink) {
                    Some(room) if input.len() > room => (&input[..floor_char_boundary(input, room)], true),
                    _ => (input, false),
                };
                let ends_before = sink.calls_ended();
                let step = reader.feed(visible, eof && !capped, sink);
                // Contract breaches (see `Reader::feed`) trip the harness and the fuzzers; a
                // release build survives them without a panic.
                debug_assert!(step.used <= visible.len(), "a reader consumed {} of {} bytes", step.used, visible.len());
                // A step that ends a call stops at the call's last byte: one end, nothing after it.
                let ended = sink.calls_ended() > ends_before;
                debug_assert!(sink.calls_ended() <= ends_before + 1, "a reader ended several calls in one step");
                debug_assert!(!ended || !sink.output_since_end(), "a reader went on after ending a call in the same step");
                let used = step.used.min(visible.len());
                let committed = p.committed(&**reader, sink);
                if !committed {
                    p.held.push_str(&input[..used]);
                    if capped && step.status == Status::Partial {
                        sink.diag(
                            Label::LimitExceeded,
                            format!(
                                "a possible tool call stayed undecided for {} bytes; released as text",
                                sink.limits.max_buffer_bytes
                            ),
                            None,
                        );
                        self.reject_payload(off + used, sink, false);
                        return Some(used);
                    }
                }
                // A payload that failed is malformed markup: dropped under `keepMalformed: false`.
                let malformed = self.drop_malformed && step.error.is_some();
                match step.status {
                    // At eof a reader may still stop after ending a call, with input left.
                    // Ending a call is progress even when the byte that ended it is not consumed.
                    Status::Partial if !eof || ended || (used > 0 && used < input.len()) => {
                        if used == 0 && !ended { None } else { Some(used) }
                    }
                    Status::Partial => {
                        debug_assert!(false, "a reader returned Partial at eof");
                        if !committed {
                            self.reject_payload(off + used, sink, malformed);
                            return Some(used);
                        }
                        if sink.in_call() {
                            sink.end_call_truncated();
                        }
                        self.after_payload();
                        Some(used)
                    }
                    Status::Done => {
                        // A payload that ended without a call (e.g. an empty call list) was markup.
                        if sink.in_call() {
                            sink.end_call();
                        }
                        self.after_payload();
                        // The rest of a broken payload, up to its closing marker, is dropped too.
                        if malformed && matches!(step.error, Some(CallError::Malformed(_))) && self.has_end {
                            self.mode = Mode::Skip;
                        }
                        Some(used)
                    }
                    Status::Reject if committed => {
                        debug_assert!(false, "a reader rejected a payload after committing it");
                        if sink.in_call() {
                            sink.end_call();
                        }
                        self.after_payload();
                        Some(used)
                    }
                    Status::Reject => {
                        if let Some(e) = &step.error {
                            sink.diag(e.label(), e.message(), None);
                        }
                        let bare_len = p.bare_len;
                        let nothing = p.held.is_empty();
                        self.reject_payload(off + used, sink, malformed);
                        if malformed && self.has_end {
                            self.mode = Mode::Skip;
                        }
                        if nothing && bare_len > 0 {
                            // A bare marker that opened nothing is text.
                            let n = bare_len.min(input.len());
                            sink.text_at(off, &input[..n]);
                            return Some(n);
                        }
                        Some(used)
                    }
                }
            }
            Mode::Skip => {
                let (at, next) = match self.sets.skip_set.find(input, eof) {
                    Hit::None => (input.len(), None),
                    Hit::Hold { at } => (at, None),
                    Hit::Found { at, idx } => (at, Some(idx)),
                };
                sink.dropped(off, off + if next.is_none() && eof { input.len() } else { at });
                match next {
                    Some(idx) => {
                        let after = if self.section.is_some() { Mode::Section } else { Mode::Text { reasoning: false } };
                        self.mode = after;
                        match self.sets.skip_set.act(idx) {
                            Act::End => Some(at + self.sets.skip_set.text(idx).len()),
                            _ => Some(at),
                        }
                    }
                    // At eof everything left is dropped; otherwise up to a possible marker.
                    None if eof && !input.is_empty() => Some(input.len()),
                    None if at == 0 => None,
                    None => Some(at),
                }
            }
            Mode::After { held, at: held_at } => {
                let ends = if self.section.is_some() { &self.sets.end_set } else { &self.sets.orphan_end_set };
                let ws = input.bytes().take_while(|b| b.is_ascii_whitespace()).count();
                if held.is_empty() {
                    *held_at = off;
                }
                if ws > 0 && held.len() + ws <= MAX_AFTER_WS {
                    held.push_str(&input[..ws]);
                    return Some(ws);
                }
                let found = if ws > 0 || (input.is_empty() && eof) {
                    Ok(None)
                } else if input.is_empty() {
                    return None;
                } else if eof && ends.at_start(input, false).is_err() {
                    // The output ends inside the closing marker: markup, cut off (vLLM strips it).
                    self.mode = if self.section.is_some() { Mode::Section } else { Mode::Text { reasoning: false } };
                    return Some(input.len());
                } else {
                    ends.at_start(input, eof)
                };
                match found {
                    Err(()) => None,
                    Ok(Some(idx)) => {
                        let len = ends.text(idx).len();
                        if core::mem::take(&mut self.markup.left_out) {
                            // The closing marker of a left-out call is text, as its markup is.
                            held.push_str(ends.text(idx));
                            sink.text_at(*held_at, held);
                        }
                        let held = core::mem::take(held);
                        self.mode = if self.section.is_some() { Mode::Section } else { Mode::Text { reasoning: false } };
                        self.keep_held(held);
                        Some(len)
                    }
                    Ok(None) => {
                        self.markup.left_out = false;
                        let held = core::mem::take(held);
                        if let Some(sec) = self.section.as_mut() {
                            // Framing, unless the section has no call yet (then it may be text).
                            sec.held.push_str(&held);
                            self.mode = Mode::Section;
                        } else {
                            sink.text_at(*held_at, &held);
                            self.mode = Mode::Text { reasoning: false };
                        }
                        self.keep_held(held);
                        Some(0)
                    }
                }
            }
        }
    }

    /// Starts reading a payload: `payload_state.held` holds its consumed opening marker (empty
    /// for none), `bare_len` is the length of an opening marker that belongs to the payload (0
    /// for none). Opens the family's payload (`main`) or the `bareJson` one; `at` is the offset
    /// of its opening marker.
    fn open_payload(&mut self, main: bool, bare_len: usize, at: usize, sink: &Sink) {
        let payload = if main { self.payload } else { self.bare_payload };
        // A custom factory may make a different reader for a bare payload than for one after
        // a consumed marker: its spare is reused only for the same kind of opening.
        let bare = bare_len > 0;
        let custom = matches!(payload, Payload::Custom(_));
        let spare = self.reader.take().filter(|_| main && (!custom || self.reader_bare == bare));
        self.reader = Some(reuse(spare, bare, || payload.reader(bare)));
        self.reader_bare = bare;
        let p = &mut self.payload_state;
        (p.calls_at_start, p.bare_len, p.main, p.at) = (sink.calls_started(), bare_len, main, at);
        let m = &mut self.markup;
        m.on = !self.drop_malformed && !(sink.keep.repaired && sink.keep.truncated);
        m.at = at;
        m.left_out = false;
        m.text.clear();
        if m.on {
            if let Some(sec) = self.section.as_mut().filter(|s| s.calls_at_open == sink.calls_started()) {
                // The first call of a section: the section's opening is its markup too.
                m.text.push_str(&sec.held);
                m.at = sec.at;
                sec.given_back = true;
            }
            m.text.push_str(&p.held);
        }
        self.mode = Mode::Payload;
    }

    /// A native fast path (not in the wasm: size): the family's payload that starts `input`
    /// (after its consumed opening marker of `len` bytes, or at its `bare` one), read whole by
    /// the family's spare reader when it can (`Reader::whole`), without opening it: the calls
    /// are complete and kept, so no markup is kept for them. Returns the bytes it took, the
    /// mode being what follows a payload (`after_payload`); `None` when it could not (nothing
    /// was emitted).
    #[cfg(not(target_arch = "wasm32"))]
    fn whole_payload(&mut self, input: &str, len: usize, bare: bool, sink: &mut Sink) -> Option<usize> {
        // A custom factory's spare serves only the same kind of opening (`open_payload`).
        if self.section.is_some() || (self.reader.is_some() && matches!(self.payload, Payload::Custom(_)) && self.reader_bare != bare) {
            return None;
        }
        if self.reader.is_none() {
            // The first payload: its reader is made now (`open_payload` reuses it).
            self.reader = Some(self.payload.reader(bare));
            self.reader_bare = bare;
        }
        let tries = &mut self.whole_tries;
        if tries.skip > 0 {
            tries.skip -= 1;
            return None;
        }
        let room = sink.limits.max_buffer_bytes.saturating_sub(if bare { 0 } else { len });
        let Some(used) = self.reader.as_mut()?.whole(input, room, sink) else {
            let tries = &mut self.whole_tries;
            tries.skip = 1 << tries.misses;
            tries.misses = (tries.misses + 1).min(3);
            return None;
        };
        self.whole_tries.misses = 0;
        let ended = sink.take_ended();
        debug_assert!(ended.is_some_and(|(_, kept)| kept), "a whole payload ended without a kept call");
        self.markup.left_out = false;
        self.payload_state.main = true;
        self.after_payload();
        Some(used)
    }

    /// The payload ended: its reader stays as the spare when it is the family's.
    #[cfg_attr(not(target_arch = "wasm32"), inline)]
    fn after_payload(&mut self) {
        if !self.payload_state.main {
            self.reader = None;
        }
        let orphan_end = self.section.is_none() && !self.sets.orphan_end_set.is_empty();
        self.mode = if self.has_end || orphan_end {
            // The payload's buffer, emptied (`keep_held` gives it back): a payload and the
            // whitespace after it are never held at once.
            let mut held = core::mem::take(&mut self.payload_state.held);
            held.clear();
            Mode::After { held, at: 0 }
        } else if self.section.is_some() {
            Mode::Section
        } else {
            Mode::Text { reasoning: false }
        };
    }

    /// The payload was not a call: its marker and the bytes it consumed, up to offset `end`,
    /// become text (or are dropped: `drop`, malformed markup under `keepMalformed: false`).
    fn reject_payload(&mut self, end: usize, sink: &mut Sink, drop: bool) {
        if !matches!(self.mode, Mode::Payload) {
            return;
        }
        self.mode = Mode::Text { reasoning: false };
        let p = &self.payload_state;
        let mut start = p.at;
        if let Some(sec) = &self.section {
            if sec.calls_at_open == sink.calls_started() {
                // The enclosing section held no call either: it was text too.
                let sec = self.section.take().unwrap_or(SectionState { held: String::new(), calls_at_open: 0, text: false, at: 0, given_back: false });
                start = sec.at;
                if !drop {
                    sink.text_at(sec.at, &sec.held);
                }
            } else {
                self.mode = Mode::Section;
            }
        }
        if drop {
            sink.dropped(start, end);
        } else {
            sink.text_at(p.at, &p.held);
        }
        if !p.main {
            self.reader = None;
        }
    }

    /// Gives `Mode::After`'s buffer back as the payloads' (`PayloadState::held`; cleared when a
    /// payload opens).
    fn keep_held(&mut self, held: String) {
        self.payload_state.held = held;
    }

    /// Leaves a section; when it held no call, its marker and whitespace are text (else they
    /// were framing: markup).
    fn close_section(&mut self, sink: &mut Sink) {
        if let Some(sec) = self.section.take() {
            if sec.calls_at_open == sink.calls_started() {
                sink.text_at(sec.at, &sec.held);
            }
        }
        self.mode = Mode::Text { reasoning: false };
    }
}
