//! Message formats: one header syntax for every dialect whose output is a sequence of messages
//! (Harmony for gpt-oss, Muse Spark / Glimmer), and one reader for one message.
//!
//! ```text
//! [OPEN] HEADER <|message|> BODY            ended by an end marker or the next message
//! HEADER = items in any order, separated by optional whitespace:
//!          ROLE (first word after <|start|>)   to=RECIPIENT   <|channel|>CHANNEL
//!          <|constrain|>TYPE   one bare word (a content type written without <|constrain|>)
//! ```
//!
//! A dialect is a [`MessageSyntax`] table entry: its markers, where a message goes by recipient
//! and by channel ([`Route`]), and what a call body holds ([`CallBody`]). The family's `Syntax`
//! comes from it (`Syntax::message`): the opening markers are bare (part of the header),
//! the end markers are consumed by the sequencer after the message.
//!
//! Opening markers: `<|start|>` (a role comes first), `<|channel|>`, `<|message|>` (a message
//! without header) and the recipient key, `to=` or ` to=` (the output begins mid-header, right
//! after the prompt's `<|start|>assistant`; the space is header framing). A header opened by
//! markup takes any words and whitespace and breaks only at a message break (`<|start|>`, an
//! end marker): its bytes are text. A header opened by the recipient key may be prose, so it is
//! read strictly: a newline, a second bare word or an empty recipient make it text at that
//! byte. Every header is at most `max_name_bytes` + 128 bytes; the byte past that ends it
//! as text (with `limit_exceeded` when it was opened by markup). Every decision is taken at one
//! byte of the header, so chunking never moves it.
//!
//! Routing, in order: a role other than `assistant` is content; a recipient listed in
//! `recipients` goes where the table says; any other recipient is a tool (a call); no recipient
//! goes to `no_recipient`; `Route::ByChannel` looks the channel up in `channels` (unlisted or
//! absent: content). Reasoning and content bodies are emitted as they arrive (the reader commits
//! at the end of its header).

use crate::prelude::*;
use core::ops::Range;
use crate::event::Label;
use crate::json::call::skip_ws;
use crate::json::named::RawArgs;
use crate::reader::{reuse, CallError, Nest, Nested, Reader, Step};
use crate::scan::{Act, Hit, MarkerSet};
use crate::sink::Sink;
use crate::xml::call::XmlReader;
use crate::xml::{code, Gap, XmlSyntax};

/// Where a message goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Reasoning,
    Content,
    /// A tool message: its body holds calls (`CallBody`).
    Call,
    /// Decided by the channel (`MessageSyntax::channels`).
    ByChannel,
}

/// What the body of a message to a tool holds.
#[derive(Clone, Copy, Debug)]
pub enum CallBody {
    /// One call named by the recipient (less `MessageSyntax::tool_prefix`); the body is its JSON
    /// arguments object, streamed raw. An empty body is `{}`; a body that is not a JSON object
    /// is content, with `malformed_json` (Harmony).
    Json,
    /// XML invokes, each opened by `open` (bare) and read by `XmlReader` in `xml`; `framing`
    /// markers around them are dropped, other text is content (Muse ATEM).
    Invokes { open: &'static str, framing: &'static [&'static str], xml: &'static XmlSyntax },
}

/// One message dialect. See the module docs.
#[derive(Debug)]
pub struct MessageSyntax {
    /// Opens a message with a role (`<|start|>`); also ends the message before it.
    pub start: &'static str,
    /// The channel tag (`<|channel|>`), or empty.
    pub channel: &'static str,
    /// The content-type tag (`<|constrain|>`), or empty.
    pub constrain: &'static str,
    /// Ends the header (`<|message|>`).
    pub message: &'static str,
    /// Introduces the recipient (`to=`).
    pub recipient_key: &'static str,
    /// The opening markers (the family's bare markers): `start`, `channel`, `message` as the
    /// dialect has them, and the recipient key with and without a space before it (a header
    /// that begins mid-way; the space is part of the header).
    pub opens: &'static [&'static str],
    /// End a message (consumed by the sequencer after it).
    pub ends: &'static [&'static str],
    /// Recipients that are not tools, and where a message to them goes.
    pub recipients: &'static [(&'static str, Route)],
    /// Where a message without a recipient goes.
    pub no_recipient: Route,
    /// Channels for `Route::ByChannel`; any other channel, or none, is content.
    pub channels: &'static [(&'static str, Route)],
    /// Dropped from a tool recipient to name its call (`functions.`).
    pub tool_prefix: &'static str,
    pub calls: CallBody,
}

impl MessageSyntax {

    /// A fresh reader for one message.
    pub fn reader(&'static self) -> Box<dyn Reader> {
        Box::new(MessageReader::new(self))
    }

    fn route(&self, h: &Header) -> Route {
        if h.role().is_some_and(|r| r != "assistant") {
            return Route::Content;
        }
        let by_recipient = match h.recipient() {
            None => self.no_recipient,
            Some(r) => self.recipients.iter().find(|(name, _)| *name == r).map_or(Route::Call, |(_, to)| *to),
        };
        if by_recipient != Route::ByChannel {
            return by_recipient;
        }
        let channel = h.channel().unwrap_or("");
        self.channels.iter().find(|(name, _)| *name == channel).map_or(Route::Content, |(_, to)| *to)
    }
}

/// A header may hold a recipient name (`max_name_bytes`) plus this much framing.
const HEADER_SLACK: usize = 128;

// Header marker codes.
const MSG: u8 = 0;
const CHANNEL: u8 = 1;
const CONSTRAIN: u8 = 2;
const BREAK: u8 = 3;
// Body marker codes.
const STOP: u8 = 4;
const INVOKE: u8 = 5;
const FRAMING: u8 = 6;

/// What the next word of a header fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Role,
    Channel,
    Type,
    /// A word of its own: the recipient item or a bare word.
    Free,
}

/// Where the header scan is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Between items; the next word fills `slot`.
    Gap,
    /// A free word that so far matches this many bytes of the recipient key.
    Key(usize),
    /// Inside a word filling the slot.
    Word(Slot),
    Recipient,
}

/// A header, read one char at a time (see the module docs).
#[derive(Debug)]
struct Header {
    /// Opened by the recipient key: read strictly (may be prose).
    strict: bool,
    phase: Phase,
    slot: Slot,
    /// Bytes of the header so far (opening marker and tags included).
    len: usize,
    bare_words: usize,
    /// The role, recipient and channel words: ranges of `words`.
    role: Option<Range<usize>>,
    recipient: Option<Range<usize>>,
    channel: Option<Range<usize>>,
    /// The words kept so far, then the word in progress (from `word_at`): one buffer, kept
    /// from header to header.
    words: String,
    word_at: usize,
}

impl Header {
    /// A header reading into `words` (cleared; passed on to keep its memory).
    fn new(strict: bool, slot: Slot, mut words: String) -> Header {
        words.clear();
        Header { strict, phase: Phase::Gap, slot, len: 0, bare_words: 0, role: None, recipient: None, channel: None, words, word_at: 0 }
    }

    fn word(&self, range: &Option<Range<usize>>) -> Option<&str> {
        range.clone().map(|r| &self.words[r])
    }

    fn role(&self) -> Option<&str> {
        self.word(&self.role)
    }

    fn recipient(&self) -> Option<&str> {
        self.word(&self.recipient)
    }

    fn channel(&self) -> Option<&str> {
        self.word(&self.channel)
    }

    /// Ends the word in progress.
    fn end_word(&mut self, key: &str) -> bool {
        if let Phase::Key(k) = self.phase {
            // A word that is a prefix of the key (`t`, `to`): a word of its own.
            if !self.free_word(&key[..k]) {
                return false;
            }
        }
        let word = Some(self.word_at..self.words.len());
        match self.phase {
            Phase::Word(Slot::Role) => self.role = word,
            Phase::Word(Slot::Channel) => self.channel = word,
            Phase::Recipient => self.recipient = word,
            _ => self.words.truncate(self.word_at),
        }
        self.word_at = self.words.len();
        self.phase = Phase::Gap;
        true
    }

    /// A word that is not the recipient item: the role if one is expected, else a bare word
    /// (false when a strict header gets a second one).
    fn free_word(&mut self, start: &str) -> bool {
        if self.slot == Slot::Role {
            self.words.push_str(start);
            self.phase = Phase::Word(Slot::Role);
            return true;
        }
        self.bare_words += 1;
        self.phase = Phase::Word(Slot::Free);
        !(self.strict && self.bare_words > 1)
    }

    /// Inside a word (`push` appends any char but whitespace to it): the length of the run of
    /// ASCII graphic bytes `bytes` starts with, which `push` would append one by one; else 0.
    fn word_run(&self, bytes: &[u8]) -> usize {
        match self.phase {
            Phase::Word(_) | Phase::Recipient => bytes.iter().take_while(|b| b.is_ascii_graphic()).count(),
            _ => 0,
        }
    }

    /// Reads one char of the header; false when it cannot be part of one.
    fn push(&mut self, c: char, key: &str) -> bool {
        if self.strict && (c == '\n' || c == '\r') {
            return false;
        }
        if c.is_whitespace() {
            if self.phase != Phase::Gap {
                if !self.end_word(key) {
                    return false;
                }
                self.slot = Slot::Free;
            }
            return true;
        }
        match self.phase {
            Phase::Gap => {
                let mut buf = [0; 4];
                if self.slot == Slot::Free || self.slot == Slot::Role {
                    if self.recipient.is_none() && key.starts_with(c.encode_utf8(&mut buf) as &str) {
                        self.phase = Phase::Key(c.len_utf8());
                        if c.len_utf8() == key.len() {
                            self.phase = Phase::Recipient;
                        }
                        return true;
                    }
                    if !self.free_word("") {
                        return false;
                    }
                } else {
                    self.phase = Phase::Word(self.slot);
                }
                self.words.push(c);
            }
            Phase::Key(k) => {
                let next = k + c.len_utf8();
                if key.get(k..next).is_some_and(|s| s.starts_with(c)) {
                    self.phase = if next == key.len() { Phase::Recipient } else { Phase::Key(next) };
                } else {
                    if !self.free_word(&key[..k]) {
                        return false;
                    }
                    self.words.push(c);
                }
            }
            Phase::Word(_) | Phase::Recipient => self.words.push(c),
        }
        true
    }

    /// The header ended at `<|message|>`; false when it is not a header after all.
    fn finish(&mut self, key: &str) -> bool {
        if !self.end_word(key) {
            return false;
        }
        if self.recipient().is_some_and(str::is_empty) {
            if self.strict {
                return false;
            }
            self.recipient = None;
        }
        true
    }
}

/// Where the message reader is.
enum Part {
    Header(Header),
    Body(Route),
    /// A JSON call body: before its `{`.
    JsonOpen,
    JsonArgs,
    /// An invoke in a tool message.
    Invoke(Nested),
    /// A tool message's body where the last feed found an invoke marker at the input's first
    /// byte (it returned there, for the call to open at the first byte of a step): the marker
    /// is checked there, not searched for again.
    InvokeNext,
}

/// Reads one message; see the module docs.
pub struct MessageReader {
    cfg: &'static MessageSyntax,
    part: Part,
    header_set: MarkerSet,
    /// Ends a body: an end marker or the next message.
    body_set: MarkerSet,
    /// `body_set` and the invoke and framing markers of a tool message.
    tool_set: MarkerSet,
    committed: bool,
    name: String,
    args: RawArgs,
    gap: Gap,
    /// The last invoke's reader, reset for the next one, and its held buffer (`Nested`).
    spare_invoke: Option<Box<dyn Reader>>,
    spare_invoke_held: String,
    /// The last header's `words` buffer, for the next header.
    spare_words: String,
}

impl MessageReader {
    pub fn new(cfg: &'static MessageSyntax) -> MessageReader {
        let mut header_set = MarkerSet::new();
        header_set
            .add(cfg.message, Act::Other(MSG))
            .add(cfg.channel, Act::Other(CHANNEL))
            .add(cfg.constrain, Act::Other(CONSTRAIN))
            .add(cfg.start, Act::Other(BREAK))
            .add_all(cfg.ends, Act::Other(BREAK));
        let mut body_set = MarkerSet::new();
        body_set.add_all(cfg.ends, Act::Other(STOP)).add(cfg.start, Act::Other(STOP)).add(cfg.channel, Act::Other(STOP)).add(cfg.message, Act::Other(STOP));
        let mut tool_set = body_set.clone();
        if let CallBody::Invokes { open, framing, .. } = cfg.calls {
            tool_set.add(open, Act::Other(INVOKE)).add_all(framing, Act::Other(FRAMING));
        }
        MessageReader {
            cfg,
            part: Part::Header(Header::new(false, Slot::Free, String::new())),
            header_set,
            body_set,
            tool_set,
            committed: false,
            name: String::new(),
            args: RawArgs::default(),
            gap: Gap::default(),
            spare_invoke: None,
            spare_invoke_held: String::new(),
            spare_words: String::new(),
        }
    }

    /// Opens an invoke (its marker consumed); false when this family's messages hold none.
    fn open_invoke(&mut self, sink: &mut Sink) -> bool {
        let CallBody::Invokes { open, xml, .. } = self.cfg.calls else { return false };
        let reader = reuse(self.spare_invoke.take(), false, || Box::new(XmlReader::new(xml)));
        let held = core::mem::take(&mut self.spare_invoke_held);
        self.part = Part::Invoke(Nested::new(reader, open, held, sink));
        true
    }

    fn emit(&mut self, route: Route, s: &str, sink: &mut Sink) {
        match route {
            Route::Reasoning => sink.reasoning(s),
            Route::Call => {
                self.gap.push(s, sink, None);
            }
            _ => {
                // A body of text holds no call: its text cannot be a left-out call's markup, so
                // it is not held while the engine keeps the payload's markup (`Reader::quiet`).
                sink.hold_text(false);
                sink.text(s)
            }
        }
    }

    /// Reads the header; `Ok(used)` once it ended at `<|message|>` (the part is then the body),
    /// `Err(step)` to return.
    fn header(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Result<usize, Step> {
        let cfg = self.cfg;
        let Part::Header(h) = &mut self.part else { return Ok(0) };
        let mut i = 0;
        if h.len == 0 {
            // The opening marker (at the start of the input).
            let opened = [cfg.start, cfg.channel, cfg.message].into_iter().find(|m| !m.is_empty() && input.starts_with(m));
            match opened {
                // Mid-header (`to=`, ` to=`): read from its first byte.
                None => *h = Header::new(true, Slot::Free, core::mem::take(&mut h.words)),
                Some(m) => {
                    let slot = if m == cfg.start { Slot::Role } else if m == cfg.channel { Slot::Channel } else { Slot::Free };
                    *h = Header::new(false, slot, core::mem::take(&mut h.words));
                    h.len = m.len();
                    if m != cfg.message {
                        i = m.len();
                    }
                }
            }
        }
        let max = sink.limits.max_name_bytes + HEADER_SLACK;
        loop {
            let rest = &input[i..];
            let hit = self.header_set.find(rest, eof);
            let end = match hit {
                Hit::Found { at, .. } | Hit::Hold { at } => at,
                Hit::None => rest.len(),
            };
            let text = &rest[..end];
            let mut at = 0;
            while at < text.len() {
                // Inside a word, a run of ASCII graphic bytes extends it at once (what `push`
                // does char by char) when the run stays within the limit.
                let run = h.word_run(&text.as_bytes()[at..]);
                if run > 0 && h.len + run <= max {
                    h.len += run;
                    h.words.push_str(&text[at..at + run]);
                    at += run;
                    continue;
                }
                let c = match text.as_bytes()[at] {
                    b if b.is_ascii() => b as char,
                    _ => match text[at..].chars().next() {
                        Some(c) => c,
                        None => break,
                    },
                };
                h.len += c.len_utf8();
                if h.len > max {
                    return Err(over_limit(h, i + at, max));
                }
                if !h.push(c, cfg.recipient_key) {
                    return Err(Step::reject(i + at));
                }
                at += c.len_utf8();
            }
            match hit {
                Hit::Found { at, idx } => {
                    let marker = self.header_set.text(idx);
                    match code(&self.header_set, idx) {
                        MSG => {
                            if !h.finish(cfg.recipient_key) {
                                return Err(Step::reject(i + at));
                            }
                            let route = cfg.route(h);
                            if route == Route::Call {
                                let to = h.recipient().unwrap_or("");
                                self.name.clear();
                                self.name.push_str(to.strip_prefix(cfg.tool_prefix).unwrap_or(to));
                            }
                            self.spare_words = core::mem::take(&mut h.words);
                            let skip = i + at + marker.len();
                            self.part = match (route, cfg.calls) {
                                (Route::Call, CallBody::Json) => Part::JsonOpen,
                                _ => Part::Body(route),
                            };
                            self.committed = true;
                            return Ok(skip);
                        }
                        BREAK => return Err(Step::reject(i + at)),
                        tag => {
                            h.len += marker.len();
                            if h.len > max {
                                return Err(over_limit(h, i + at, max));
                            }
                            if !h.end_word(cfg.recipient_key) {
                                return Err(Step::reject(i + at));
                            }
                            h.slot = if tag == CHANNEL { Slot::Channel } else { Slot::Type };
                            i += at + marker.len();
                        }
                    }
                }
                Hit::Hold { at } => return Err(Step::partial(i + at)),
                Hit::None if eof => return Err(Step::reject(input.len())),
                Hit::None => return Err(Step::partial(input.len())),
            }
        }
    }
}

/// A header ran past `max` bytes at `at`: text from there (with a diagnostic unless it may be prose).
fn over_limit(h: &Header, at: usize, max: usize) -> Step {
    if h.strict {
        return Step::reject(at);
    }
    Step::reject_with(at, CallError::Limit(format!("a message header ran past {max} bytes; released as text")))
}

impl Reader for MessageReader {
    fn committed(&self) -> bool {
        self.committed
    }

    /// Inside a JSON call body's string, and in a reasoning or content body: the body ends
    /// only at a marker of `body_set` (its first bytes stop the run).
    fn quiet(&self) -> Option<crate::quiet::Stop> {
        use crate::quiet::Stop;
        match self.part {
            Part::JsonArgs => self.args.quiet(),
            Part::Body(Route::Reasoning) => Some(self.body_set.ascii_firsts().or(Stop::REASONING)),
            Part::Body(Route::Content) => Some(self.body_set.ascii_firsts()),
            _ => None,
        }
    }

    fn reset(&mut self, _bare: bool) -> bool {
        let words = match &mut self.part {
            Part::Header(h) => core::mem::take(&mut h.words),
            _ => core::mem::take(&mut self.spare_words),
        };
        self.part = Part::Header(Header::new(false, Slot::Free, words));
        self.committed = false;
        self.name.clear();
        self.args.reset();
        self.gap = Gap::default();
        true
    }

    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let mut i = 0;
        loop {
            let rest = &input[i..];
            match &mut self.part {
                Part::Header(_) => match self.header(rest, eof, sink) {
                    Ok(used) => i += used,
                    Err(step) => return step.shifted(i),
                },
                Part::InvokeNext => {
                    self.part = Part::Body(Route::Call);
                    match self.tool_set.at_start(rest, eof) {
                        Ok(Some(idx)) if code(&self.tool_set, idx) == INVOKE => {
                            let len = self.tool_set.text(idx).len();
                            self.gap.end();
                            i += len;
                            if !self.open_invoke(sink) {
                                return Step::done(i - len);
                            }
                        }
                        // Not where it was (cannot happen: the input resumes at the marker).
                        _ => {}
                    }
                }
                Part::Body(route) => {
                    let route = *route;
                    let set = if route == Route::Call { &self.tool_set } else { &self.body_set };
                    let (at, found) = match set.find(rest, eof) {
                        Hit::Found { at, idx } => (at, Some(idx)),
                        Hit::Hold { at } => (at, None),
                        Hit::None => (rest.len(), None),
                    };
                    let found = found.map(|idx| (code(set, idx), set.text(idx).len()));
                    self.emit(route, &rest[..at], sink);
                    i += at;
                    if i > 0 && found.is_some_and(|(marker, _)| marker == INVOKE) {
                        // An invoke opens at the first byte of a step (`Sink::call_opens`).
                        self.part = Part::InvokeNext;
                        return Step::partial(i);
                    }
                    let Some((marker, len)) = found else {
                        return if eof { Step::done(i) } else { Step::partial(i) };
                    };
                    self.gap.end();
                    match marker {
                        INVOKE => {
                            if !self.open_invoke(sink) {
                                return Step::done(i);
                            }
                            i += len;
                        }
                        FRAMING => i += len,
                        // The end of the message (an end marker, consumed by the sequencer, or
                        // the next message).
                        _ => return Step::done(i),
                    }
                }
                Part::JsonOpen => {
                    // Whitespace before the body is framing.
                    let j = skip_ws(input, i);
                    i = j;
                    let rest = &input[j..];
                    if rest.is_empty() && !eof {
                        return Step::partial(i);
                    }
                    if rest.starts_with('{') {
                        sink.start_call(&self.name, None);
                        self.args.begin(sink);
                        self.part = Part::JsonArgs;
                        continue;
                    }
                    let at_end = match self.body_set.at_start(rest, eof) {
                        Err(()) => return Step::partial(i),
                        Ok(found) => found.is_some() || rest.is_empty(),
                    };
                    if at_end {
                        sink.start_call(&self.name, None);
                        if rest.is_empty() {
                            sink.end_call_truncated();
                        } else {
                            // An empty body: a call without arguments.
                            sink.args("{}");
                            sink.end_call();
                        }
                        return Step::done(i);
                    }
                    let msg = format!("the message to `{}` is not a JSON object; kept as text", self.name);
                    sink.diag(Label::MalformedJson, msg, None);
                    self.part = Part::Body(Route::Content);
                }
                Part::JsonArgs => {
                    let (used, ended) = self.args.feed(rest, eof, sink);
                    i += used;
                    return match self.args.failure.take() {
                        Some(error) if ended => Step::done_with(i, error),
                        _ if ended => Step::done(i),
                        _ => Step::partial(i),
                    };
                }
                Part::Invoke(call) => {
                    let (used, nest) = call.feed(rest, eof, sink);
                    i += used;
                    if nest == Nest::More {
                        return Step::partial(i);
                    }
                    if let Part::Invoke(call) = core::mem::replace(&mut self.part, Part::Body(Route::Call)) {
                        let (reader, held) = call.into_parts();
                        self.spare_invoke = Some(reader);
                        self.spare_invoke_held = held;
                    }
                    match nest {
                        // Not a call after all: its markup is text.
                        Nest::Text(raw) => {
                            self.gap.push(&raw, sink, None);
                        }
                        // Stop at the call's end (`Reader::feed`).
                        _ if eof && i == input.len() => return Step::done(i),
                        _ => return Step::partial(i),
                    }
                }
            }
        }
    }
}
