//! Reader for `NAME<sep>{json}` payloads (Mistral v11, Kimi K2, DeepSeek V3/V3.1, PLaMo 3).
//!
//! Layout, each part per `NamedJson`: `[TYPE type_sep] [name_open] NAME (name_close | name_stop)
//! [args_open] {json} [args_close]`. The call starts at the arguments' `{` and the JSON is
//! forwarded raw. A name region without a valid name, or a name not followed by an object, is
//! rejected (its bytes become text).

use crate::prelude::*;
use crate::reader::{CallError, Reader, Status, Step};
use crate::event::Label;
use crate::json::scanner::{is_ws, Expect, JsonScanner, Progress};
use crate::scan::{Act, Hit, MarkerSet};
use crate::sink::Sink;
use crate::json::call::{skip_ws, CallsReader};
use crate::json::call::{JsonShape, Wrapper};

/// Which part of a `NamedJson` call the reader is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Type,
    NameOpen,
    Name,
    ArgsOpen,
    Args,
    ArgsClose,
    Done,
}

/// A name then raw JSON arguments: `NAME<sep>{...}` (Mistral v11, Kimi K2, DeepSeek V3.1, ...).
#[derive(Clone, Copy, Debug)]
pub struct NamedJson {
    /// Skipped (after optional whitespace) before the name, when present.
    pub name_open: &'static [&'static str],
    /// Markers that end the name (consumed). Text before the first of them is the name.
    pub name_close: &'static [&'static str],
    /// Characters that end the name and start the arguments (not consumed), e.g. `{`.
    pub name_stop: &'static [u8],
    /// Skipped (after optional whitespace) between the name and the JSON, when present.
    pub args_open: &'static [&'static str],
    /// Skipped (after optional whitespace) after the JSON, when present.
    pub args_close: &'static [&'static str],
    /// Markers that may stand where the arguments JSON is expected: the arguments are empty
    /// (`{}`, as vLLM reads an empty body). Not consumed here.
    pub empty_at: &'static [&'static str],
    /// A `TYPE<sep>` prefix before the name (DeepSeek V3 `function<｜tool▁sep｜>`).
    pub type_sep: Option<&'static str>,
    /// The header is an id like `functions.NAME:IDX`: the id is kept and the name extracted.
    pub kimi_header: bool,
}

impl NamedJson {
    pub const NONE: NamedJson = NamedJson {
        name_open: &[],
        name_close: &[],
        name_stop: &[],
        args_open: &[],
        args_close: &[],
        empty_at: &[],
        type_sep: None,
        kimi_header: false,
    };
}

/// Streams one call's raw JSON arguments object, byte for byte, and ends the call when the
/// object closes, the input ends (`truncation`) or the JSON breaks (`malformed_json`).
pub struct RawArgs {
    sc: JsonScanner,
    scratch: String,
    /// What broke the arguments (reported when the call ended), for the payload's `Done`.
    pub failure: Option<CallError>,
}

impl Default for RawArgs {
    fn default() -> Self {
        RawArgs { sc: JsonScanner::repairing(Expect::Object, 1), scratch: String::new(), failure: None }
    }
}

impl RawArgs {
    /// Makes these what `default()` makes, keeping the scratch buffer's memory (a reader's
    /// `reset` between payloads).
    pub fn reset(&mut self) {
        let RawArgs { sc, scratch, failure } = self;
        *sc = JsonScanner::repairing(Expect::Object, 1);
        scratch.clear();
        *failure = None;
    }

    /// Call right after `sink.start_call`, at the arguments' `{`.
    pub fn begin(&mut self, sink: &Sink) {
        self.sc = JsonScanner::repairing(Expect::Object, sink.limits.depth());
        self.failure = None;
    }

    /// Inside a string of the arguments with no escape pending (`Reader::quiet`).
    pub fn quiet(&self) -> Option<crate::quiet::Stop> {
        self.sc.in_plain_string().then_some(crate::quiet::Stop::JSON_STRING_ESCAPES)
    }

    /// In a string of the arguments, the `\\` of an escape held (`Reader::quiet_backslash`).
    pub fn quiet_backslash(&self) -> bool {
        self.sc.held_backslash()
    }

    /// Returns the bytes used and whether the call ended.
    pub fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> (usize, bool) {
        self.scratch.clear();
        let (used, r) = self.sc.feed(input, Some(&mut self.scratch));
        if r.is_ok() {
            sink.args_read(&self.scratch, &self.sc);
        } else {
            sink.args(&self.scratch);
        }
        match r {
            Ok(Progress::Done) => {
                if self.sc.repairs() > 0 {
                    sink.call_diag(Label::EscapingError, "raw control characters or invalid escapes in argument strings were repaired");
                }
                sink.end_call();
                (used, true)
            }
            Ok(Progress::More) if eof => {
                sink.end_call_truncated();
                (used, true)
            }
            Ok(Progress::More) => (used, false),
            Err(e) => {
                let error = crate::json::call::describe(e).map(|m| format!("malformed arguments ({m}); closed"));
                sink.end_call_incomplete(error.label(), error.message());
                self.failure = Some(error);
                (used, true)
            }
        }
    }
}

pub struct NamedReader {
    cfg: &'static NamedJson,
    part: Part,
    type_set: MarkerSet,
    open_set: MarkerSet,
    name_set: MarkerSet,
    args_open_set: MarkerSet,
    args_close_set: MarkerSet,
    empty_set: MarkerSet,
    name: String,
    args: RawArgs,
}

fn set(markers: &[&str]) -> MarkerSet {
    let mut s = MarkerSet::new();
    s.add_all(markers, Act::Other(0));
    s
}

impl NamedReader {
    /// Not a call after all: a payload-level error when a name was read, plain text otherwise.
    fn not_a_call(&self, used: usize, message: String) -> Step {
        if self.name.trim().is_empty() {
            return Step::reject(used);
        }
        Step::reject_with(used, CallError::Malformed(message))
    }

    pub fn new(cfg: &'static NamedJson) -> Self {
        NamedReader {
            cfg,
            part: if cfg.type_sep.is_some() { Part::Type } else { Part::NameOpen },
            type_set: set(cfg.type_sep.as_slice()),
            open_set: set(cfg.name_open),
            name_set: set(cfg.name_close),
            args_open_set: set(cfg.args_open),
            args_close_set: set(cfg.args_close),
            empty_set: set(cfg.empty_at),
            name: String::new(),
            args: RawArgs::default(),
        }
    }

    /// Splits a Kimi header `functions.NAME:IDX` into (name, id).
    fn kimi(header: &str) -> Option<(&str, &str)> {
        let header = header.trim();
        // `:` found as bytes (no reverse char searcher in the wasm).
        let last = crate::text::rfind_byte(header, b':')?;
        let (head, idx) = (&header[..last], &header[last + 1..]);
        if idx.is_empty() || !idx.bytes().all(|b| b.is_ascii_digit()) || head.is_empty() {
            return None;
        }
        // The name is what precedes the first `:` (vLLM), without the `functions.` prefix.
        let head = &head[..crate::text::find_byte(head, b':').unwrap_or(head.len())];
        let name = head.strip_prefix("functions.").unwrap_or(head);
        if name.is_empty() {
            return None;
        }
        Some((name, header))
    }

    fn begin_args(&mut self, sink: &mut Sink) -> bool {
        let (name, id) = if self.cfg.kimi_header {
            match Self::kimi(&self.name) {
                Some(x) => x,
                None => return false,
            }
        } else {
            (self.name.trim(), "")
        };
        if name.is_empty() && !self.cfg.name_close.is_empty() && self.cfg.name_stop.is_empty() {
            return false;
        }
        sink.start_call(name, Some(id));
        self.args.begin(sink);
        true
    }

    /// Skips optional whitespace and an optional marker from `set`. Returns the new position,
    /// or `None` when more input is needed to decide.
    fn skip_optional(set: &MarkerSet, input: &str, i: usize, eof: bool) -> Option<usize> {
        if set.is_empty() {
            return Some(i);
        }
        let b = input.as_bytes();
        let mut j = i;
        while j < b.len() && is_ws(b[j]) {
            j += 1;
        }
        if j - i > 64 {
            // Too much whitespace for framing: the optional marker is absent.
            return Some(i);
        }
        if j == b.len() && !eof {
            return None;
        }
        match set.at_start(&input[j..], eof) {
            Err(()) => None,
            Ok(Some(idx)) => Some(j + set.text(idx).len()),
            Ok(None) => Some(i),
        }
    }
}

/// After `rest[..added]` was appended to `name`: when the name is now over `max_name_bytes`,
/// the reject step: at the byte of `rest` (offset by `at`) where it crossed the limit, the same
/// byte whatever the chunking.
fn name_overflow(name: &str, rest: &str, at: usize, added: usize, sink: &Sink) -> Option<Step> {
    let max = sink.limits.max_name_bytes;
    let over = name.len().checked_sub(max).filter(|&o| o > 0)?;
    let msg = format!("a tool name ran past the {max}-byte maxNameBytes limit; released as text");
    Some(Step::reject_with(at + crate::text::floor_char_boundary(rest, added.saturating_sub(over)), CallError::Limit(msg)))
}

/// Bytes of the call type before the type separator (DeepSeek V3's `function`).
const MAX_TYPE: usize = 64;

impl Reader for NamedReader {
    fn quiet(&self) -> Option<crate::quiet::Stop> {
        if self.part == Part::Args { self.args.quiet() } else { None }
    }

    fn quiet_backslash(&self) -> bool {
        self.part == Part::Args && self.args.quiet_backslash()
    }

    fn take_quiet(&mut self, run: &str, sink: &mut Sink) -> bool {
        self.part == Part::Args && sink.args_quiet(run, &mut self.args.sc)
    }

    fn reset(&mut self, _bare: bool) -> bool {
        self.part = if self.cfg.type_sep.is_some() { Part::Type } else { Part::NameOpen };
        self.name.clear();
        self.args.reset();
        true
    }

    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let step = self.feed_call(input, eof, sink);
        with_failure(step, &mut self.args)
    }
}

/// `step`, carrying what broke the arguments when it ends the payload.
fn with_failure(mut step: Step, args: &mut RawArgs) -> Step {
    if step.status == Status::Done && step.error.is_none() {
        step.error = args.failure.take();
    }
    step
}

impl NamedReader {
    fn feed_call(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let bytes = input.as_bytes();
        let mut i = 0;
        loop {
            match self.part {
                Part::Done => return Step::done(i),
                // The call type (`function`) is held unconsumed while undecided: at most
                // `MAX_TYPE` bytes (within the hold-back bound), decided at the same byte
                // whatever the chunking.
                Part::Type => match self.type_set.find(&input[i..], eof) {
                    Hit::Found { at, idx } if at <= MAX_TYPE => {
                        i += at + self.type_set.text(idx).len();
                        self.part = Part::NameOpen;
                    }
                    Hit::Hold { at } if at <= MAX_TYPE && !eof => return Step::partial(i),
                    Hit::None if input.len() - i <= MAX_TYPE && !eof => return Step::partial(i),
                    _ => return Step::reject(i),
                },
                Part::NameOpen => match Self::skip_optional(&self.open_set, input, i, eof) {
                    Some(j) => {
                        i = j;
                        self.part = Part::Name;
                    }
                    None => return Step::partial(i),
                },
                Part::Name => {
                    let rest = &input[i..];
                    // The name ends at a closing marker or a stop byte, whichever comes first:
                    // stop bytes are looked for only before the marker (searching the whole rest
                    // for each call made one push of many calls quadratic).
                    let hit = self.name_set.find(rest, eof);
                    let before = match hit {
                        Hit::Found { at, .. } | Hit::Hold { at } => at,
                        Hit::None => rest.len(),
                    };
                    let stop = rest.as_bytes()[..before].iter().position(|b| self.cfg.name_stop.contains(b));
                    let (text_end, next) = match (hit, stop) {
                        (Hit::Found { at, idx }, s) if s.is_none_or(|s| at <= s) => (at, Some(at + self.name_set.text(idx).len())),
                        (Hit::Hold { at }, s) if s.is_none_or(|s| at <= s) => (at, None),
                        (_, Some(s)) => (s, Some(s)),
                        (Hit::Hold { at }, None) => (at, None),
                        (_, None) => (rest.len(), None),
                    };
                    self.name.push_str(&rest[..text_end]);
                    if let Some(step) = name_overflow(&self.name, rest, i, text_end, sink) {
                        return step;
                    }
                    match next {
                        Some(n) => {
                            i += n;
                            self.part = Part::ArgsOpen;
                        }
                        None => {
                            if eof {
                                // A name with no arguments at the end of the output.
                                if !self.name.trim().is_empty() {
                                    let error = CallError::Truncated(format!("the output ended after tool name `{}`", self.name.trim()));
                                    return Step::reject_with(i + text_end, error);
                                }
                                return Step::reject(i + text_end);
                            }
                            return Step::partial(i + text_end);
                        }
                    }
                }
                Part::ArgsOpen => {
                    let Some(j) = Self::skip_optional(&self.args_open_set, input, i, eof) else { return Step::partial(i) };
                    let mut k = j;
                    while k < bytes.len() && is_ws(bytes[k]) {
                        k += 1;
                    }
                    if k == bytes.len() {
                        if eof {
                            return Step::reject(k);
                        }
                        return Step::partial(i);
                    }
                    let empty = if bytes[k] == b'{' {
                        false
                    } else {
                        match self.empty_set.at_start(&input[k..], eof) {
                            Err(()) => return Step::partial(i),
                            Ok(found) => found.is_some(),
                        }
                    };
                    if bytes[k] != b'{' && !empty {
                        return self.not_a_call(j, format!("tool `{}` is not followed by a JSON object", self.name.trim()));
                    }
                    if !self.begin_args(sink) {
                        return self.not_a_call(j, format!("`{}` is not a valid call header; the call is text", self.name.trim()));
                    }
                    i = k;
                    if empty {
                        // The arguments' closing marker right away: no arguments.
                        sink.args("{}");
                        sink.end_call();
                        self.part = Part::ArgsClose;
                        return Step::partial(i);
                    }
                    self.part = Part::Args;
                }
                Part::Args => {
                    let (used, ended) = self.args.feed(&input[i..], eof, sink);
                    i += used;
                    if !ended {
                        return Step::partial(i);
                    }
                    if eof {
                        self.part = Part::Done;
                        return Step::done(i);
                    }
                    // Stop at the call's last byte (`Reader::feed`): the optional closing marker
                    // is read by the next step.
                    self.part = Part::ArgsClose;
                    return Step::partial(i);
                }
                Part::ArgsClose => match Self::skip_optional(&self.args_close_set, input, i, eof) {
                    Some(j) => {
                        i = j;
                        self.part = Part::Done;
                    }
                    None => return Step::partial(i),
                },
            }
        }
    }
}

/// Mistral's `[TOOL_CALLS]` payload; the layout is decided by what follows the marker:
///
/// - `[` (not `[ARGS]`): pre-v11 array of `{"name", "arguments"}` objects;
/// - `{` whose first key is a name or arguments key: one pre-v11 call object (what follows it is
///   text);
/// - otherwise v11+: `NAME[ARGS]{json}` or `NAME{json}`, the JSON forwarded raw; Magistral and
///   Devstral write the call's id between them, `NAME[CALL_ID]ID[ARGS]{json}`, and that id is the
///   call's id (an id past `maxNameBytes` or not followed by the arguments rejects the call
///   like a bad name, at the same byte whatever the chunking). An empty name
///   (`[ARGS]{...}`, or `{` with other keys) is still a call, reported as `malformed_json`.
///   A name at the end of the output is a call without arguments (`{}`).
///
/// Repeated `[TOOL_CALLS]` markers before the payload count as one. Without a marker, a bare
/// `[{"name": …, "arguments"|"parameters": …}, …]` array is read too (see `boxed`).
pub struct MistralReader {
    part: MistralPart,
    markers: MarkerSet,
    /// The tool name: name characters only (`name_len`), so never with whitespace to trim.
    name: String,
    /// The model's call id (`[CALL_ID]ID`), when it wrote one.
    id: String,
    inner: Option<crate::json::call::CallsReader>,
    args: RawArgs,
}

/// Which part of a Mistral `[TOOL_CALLS]` call the reader is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MistralPart {
    Begin,
    Name,
    /// After the name: optional whitespace, then `[ARGS]`, `{` or the end.
    NameWs,
    /// After `[CALL_ID]`: the id, then optional whitespace and `[ARGS]` or `{`.
    Id,
    /// After `[ARGS]` (or at a `{` ending the name): the arguments object.
    ArgsOpen,
    Args,
    Inner,
}

/// The ASCII name characters of a Mistral tool name or call id (`MistralReader::name_len`),
/// by byte: letters, digits and `_-.:/@`.
static NAME_ASCII: [bool; 128] = {
    let mut set = [false; 128];
    let mut c = 0u8;
    while c < 128 {
        set[c as usize] = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':' | b'/' | b'@');
        c += 1;
    }
    set
};

const TOOL_CALLS: Act = Act::Other(0);
const ARGS: Act = Act::Other(1);
const CALL_ID: Act = Act::Other(2);

impl Default for MistralReader {
    fn default() -> Self {
        Self::new()
    }
}

impl MistralReader {
    pub fn new() -> Self {
        let mut markers = MarkerSet::new();
        markers.add("[TOOL_CALLS]", TOOL_CALLS).add("[ARGS]", ARGS).add("[CALL_ID]", CALL_ID);
        MistralReader::with_markers(markers)
    }

    /// A fresh reader with the marker set built before (`new`, `Reader::reset`).
    fn with_markers(markers: MarkerSet) -> Self {
        MistralReader {
            part: MistralPart::Begin,
            markers,
            name: String::new(),
            id: String::new(),
            inner: None,
            args: RawArgs::default(),
        }
    }

    /// For `Payload::Custom`.
    /// `bare`: opened by a `[` in content, the marker-less array that guided decoding
    /// (`tool_choice` required or named) produces; read like bare JSON in prose (the first key
    /// must be a call key, or the bracket is text).
    pub fn boxed(bare: bool) -> Box<dyn Reader> {
        if bare {
            return Box::new(CallsReader::new(JsonShape::Array, Wrapper::STANDARD, true));
        }
        Box::new(Self::new())
    }

    /// Length of the run of name characters `rest` starts with: ASCII letters, digits and
    /// `_-.:/@`, or any non-ASCII character but whitespace (names in other scripts; no Unicode
    /// property tables in the wasm). ASCII bytes are told by their byte, without decoding.
    fn name_len(rest: &str) -> usize {
        let b = rest.as_bytes();
        let mut i = 0;
        while let Some(&c) = b.get(i) {
            if c.is_ascii() {
                if !NAME_ASCII[c as usize] {
                    return i;
                }
                i += 1;
                continue;
            }
            match rest.get(i..).and_then(|r| r.chars().next()) {
                Some(ch) if !ch.is_whitespace() => i += ch.len_utf8(),
                _ => return i,
            }
        }
        i
    }

    /// The first key of the object at `input[0] == '{'`: `Ok(Some(key))`, `Ok(None)` when there is
    /// none (`{}`, not a string, or longer than `max` bytes), `Err(())` when more input is needed.
    /// Looks at most 64 bytes of whitespace and `max` bytes of key ahead (the bytes stay unread).
    fn first_key(input: &str, eof: bool, max: usize) -> Result<Option<String>, ()> {
        let b = input.as_bytes();
        // At most 64 bytes of whitespace, decided at the same byte whatever the chunking.
        let mut i = 1;
        while i < b.len() && i <= 64 && is_ws(b[i]) {
            i += 1;
        }
        if i > 64 {
            return Ok(None);
        }
        if i >= b.len() {
            return if eof { Ok(None) } else { Err(()) };
        }
        if b[i] != b'"' {
            return Ok(None);
        }
        let start = i + 1;
        let mut j = start;
        while j < b.len() && b[j] != b'"' && j - start <= max {
            j += if b[j] == b'\\' { 2 } else { 1 };
        }
        if j >= b.len() {
            return if eof { Ok(None) } else { Err(()) };
        }
        if j - start > max {
            return Ok(None);
        }
        Ok(input.get(start..j).and_then(crate::json::unescape))
    }

    fn start(&mut self, sink: &mut Sink) {
        let name = self.name.as_str();
        if name.is_empty() {
            sink.call_diag(Label::MalformedJson, "a [TOOL_CALLS] call without a tool name");
        }
        sink.start_call(name, Some(&self.id));
        self.args.begin(sink);
    }
}

impl Reader for MistralReader {
    /// The usual v11 payload `NAME[ARGS]{json}` (or `NAME{json}`) read in one pass when its
    /// object ends in `input`: a name of name characters within `maxNameBytes`, right after
    /// it `[ARGS]` and optional whitespace or the `{` itself, and arguments that a strict
    /// scanner reads whole (no repair, no error, within `maxDepth`) and that fit in
    /// `maxArgsBytes`. Those are the bytes `feed` would forward (its repairing scanner writes
    /// its input unchanged when it repairs nothing), so the events are `feed`'s. Anything else
    /// (an id, whitespace after the name, the pre-v11 layouts) is `feed`'s.
    #[cfg(not(target_arch = "wasm32"))]
    fn whole(&mut self, input: &str, room: usize, sink: &mut Sink) -> Option<usize> {
        let name_end = Self::name_len(input);
        if name_end == 0 || name_end > sink.limits.max_name_bytes {
            return None;
        }
        let mut i = name_end;
        if input[i..].starts_with("[ARGS]") {
            i = skip_ws(input, i + "[ARGS]".len());
        }
        // The call must start within the hold limit.
        if input.as_bytes().get(i) != Some(&b'{') || i >= room {
            return None;
        }
        let used = JsonScanner::whole_object(&input[i..], sink.limits.depth()).filter(|&n| n <= sink.limits.max_args_bytes)?;
        sink.whole_call(&input[..name_end], &input[i..i + used]);
        Some(i + used)
    }

    fn quiet(&self) -> Option<crate::quiet::Stop> {
        match self.part {
            MistralPart::Args => self.args.quiet(),
            MistralPart::Inner => self.inner.as_ref()?.quiet(),
            _ => None,
        }
    }

    fn quiet_backslash(&self) -> bool {
        match self.part {
            MistralPart::Args => self.args.quiet_backslash(),
            MistralPart::Inner => self.inner.as_ref().is_some_and(|r| r.quiet_backslash()),
            _ => false,
        }
    }

    fn take_quiet(&mut self, run: &str, sink: &mut Sink) -> bool {
        match self.part {
            MistralPart::Args => sink.args_quiet(run, &mut self.args.sc),
            MistralPart::Inner => self.inner.as_mut().is_some_and(|r| r.take_quiet(run, sink)),
            _ => false,
        }
    }

    fn reset(&mut self, _bare: bool) -> bool {
        // Field by field as `with_markers` makes them, keeping the marker set and the buffers'
        // memory (no allocation per payload).
        let MistralReader { part, markers: _, name, id, inner, args } = self;
        *part = MistralPart::Begin;
        name.clear();
        id.clear();
        *inner = None;
        args.reset();
        true
    }

    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let step = self.feed_call(input, eof, sink);
        with_failure(step, &mut self.args)
    }
}

impl MistralReader {
    fn feed_call(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let bytes = input.as_bytes();
        let mut i = 0;
        loop {
            match self.part {
                MistralPart::Begin => {
                    i = skip_ws(input, i);
                    if i == bytes.len() {
                        return if eof { Step::reject(i) } else { Step::partial(i) };
                    }
                    match self.markers.at_start(&input[i..], eof) {
                        Err(()) => return Step::partial(i),
                        Ok(Some(idx)) => {
                            i += self.markers.text(idx).len();
                            if self.markers.act(idx) == ARGS {
                                self.part = MistralPart::ArgsOpen;
                            }
                            continue;
                        }
                        Ok(None) => {}
                    }
                    match bytes[i] {
                        b'[' => {
                            self.inner = Some(CallsReader::new(JsonShape::Array, Wrapper::STANDARD, false).without_collapse().keep_nameless());
                            self.part = MistralPart::Inner;
                        }
                        b'{' => match Self::first_key(&input[i..], eof, 64) {
                            Err(()) => return Step::partial(i),
                            Ok(Some(k)) if Wrapper::STANDARD.name_keys.contains(&k.as_str()) || Wrapper::STANDARD.args_keys.contains(&k.as_str()) => {
                                self.inner = Some(CallsReader::new(JsonShape::Object, Wrapper::STANDARD, false).without_collapse().keep_nameless());
                                self.part = MistralPart::Inner;
                            }
                            Ok(_) => self.part = MistralPart::ArgsOpen,
                        },
                        _ => self.part = MistralPart::Name,
                    }
                }
                MistralPart::Name => {
                    let rest = &input[i..];
                    let end = Self::name_len(rest);
                    self.name.push_str(&rest[..end]);
                    if let Some(step) = name_overflow(&self.name, rest, i, end, sink) {
                        return step;
                    }
                    i += end;
                    if i == bytes.len() && !eof {
                        return Step::partial(i);
                    }
                    self.part = MistralPart::NameWs;
                }
                MistralPart::NameWs => {
                    let j = skip_ws(input, i);
                    if j - i > 64 {
                        return Step::reject(i);
                    }
                    if j == bytes.len() {
                        if !eof {
                            return Step::partial(i);
                        }
                        if self.name.is_empty() {
                            return Step::reject(i);
                        }
                        // `[TOOL_CALLS]name` at the end: a call without arguments.
                        self.start(sink);
                        sink.args("{}");
                        sink.end_call();
                        return Step::done(j);
                    }
                    if bytes[j] == b'{' {
                        i = j;
                        self.part = MistralPart::ArgsOpen;
                        continue;
                    }
                    match self.markers.at_start(&input[j..], eof) {
                        Err(()) => return Step::partial(i),
                        Ok(Some(idx)) if self.markers.act(idx) == ARGS => {
                            i = j + self.markers.text(idx).len();
                            self.part = MistralPart::ArgsOpen;
                        }
                        Ok(Some(idx)) if self.markers.act(idx) == CALL_ID && self.id.is_empty() && !self.name.is_empty() => {
                            i = j + self.markers.text(idx).len();
                            self.part = MistralPart::Id;
                        }
                        _ => return Step::reject(i),
                    }
                }
                MistralPart::Id => {
                    // Id characters are name characters (ids are 9 alphanumerics in practice),
                    // after at most 64 bytes of whitespace.
                    if self.id.is_empty() {
                        let j = skip_ws(input, i);
                        if j - i > 64 {
                            return Step::reject(i);
                        }
                        if j == bytes.len() && !eof {
                            return Step::partial(i);
                        }
                        i = j;
                    }
                    let rest = &input[i..];
                    let end = Self::name_len(rest);
                    self.id.push_str(&rest[..end]);
                    let max = sink.limits.max_name_bytes;
                    if let Some(over) = self.id.len().checked_sub(max).filter(|&o| o > 0) {
                        let msg = format!("a [CALL_ID] id ran past the {max}-byte maxNameBytes limit; released as text");
                        return Step::reject_with(i + crate::text::floor_char_boundary(rest, end - over), CallError::Limit(msg));
                    }
                    i += end;
                    if i == bytes.len() && !eof {
                        return Step::partial(i);
                    }
                    if self.id.is_empty() {
                        return Step::reject(i);
                    }
                    // The id is followed by `[ARGS]` or `{` exactly as a name is.
                    self.part = MistralPart::NameWs;
                }
                MistralPart::ArgsOpen => {
                    i = skip_ws(input, i);
                    if i == bytes.len() {
                        if !eof {
                            return Step::partial(i);
                        }
                        if self.name.is_empty() {
                            return Step::reject(i);
                        }
                        // `name[ARGS]` at the end: cut off before the arguments.
                        self.start(sink);
                        sink.end_call_truncated();
                        return Step::done(i);
                    }
                    if bytes[i] != b'{' {
                        if self.name.is_empty() {
                            return Step::reject(i);
                        }
                        return Step::reject_with(i, CallError::Malformed(format!("tool `{}` is not followed by a JSON object", self.name.as_str())));
                    }
                    self.start(sink);
                    self.part = MistralPart::Args;
                }
                MistralPart::Args => {
                    let (used, ended) = self.args.feed(&input[i..], eof, sink);
                    i += used;
                    return if ended { Step::done(i) } else { Step::partial(i) };
                }
                MistralPart::Inner => {
                    let Some(inner) = self.inner.as_mut() else { return Step::reject(i) };
                    let step = inner.feed(&input[i..], eof, sink);
                    return step.shifted(i);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::{MistralReader, NamedReader};

    #[test]
    fn mistral_name_characters() {
        let n = MistralReader::name_len;
        assert_eq!(n("get_weather[ARGS]{}"), 11);
        assert_eq!(n("fs.read:v2/x@y-z {"), 16);
        assert_eq!(n("天気{"), 6);
        assert_eq!(n("é\u{3000}x"), 2);
        assert_eq!(n("a\u{a0}b"), 1);
        assert_eq!(n("ab"), 2);
        assert_eq!(n(""), 0);
    }

    #[test]
    fn kimi_header_id_and_name() {
        let h = NamedReader::kimi;
        assert_eq!(h(" functions.get_weather:0 "), Some(("get_weather", "functions.get_weather:0")));
        assert_eq!(h("functions.fs.read:3"), Some(("fs.read", "functions.fs.read:3")));
        // The name is what precedes the first `:`; the id is the whole header.
        assert_eq!(h("functions.search:web:2"), Some(("search", "functions.search:web:2")));
        assert_eq!(h("get_weather:1"), Some(("get_weather", "get_weather:1")));
        assert_eq!(h("functions.get_weather"), None);
        assert_eq!(h("functions.get_weather:x"), None);
        assert_eq!(h("functions.:2"), None);
    }
}
