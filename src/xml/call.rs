//! The streaming reader for one XML-parameter call, driven by an `XmlSyntax`.
//!
//! Layout after the sequencer's opening marker: `[call_open] NAME-PART (PARAM)* CALL-CLOSE`,
//! where a PARAM is `param_open KEY-PART VALUE [param_close]`. The call starts when the name is
//! known (tag header closed, or a text name confirmed by the next marker); before that, anything
//! unexpected rejects the payload, so markers in prose stay text. Afterwards nothing is rejected:
//! text between parameters is given back as content (with one diagnostic per call) and
//! malformed parameter markup as text.
//!
//! Tolerated as vLLM does: a value without its close tag ends at the next parameter, the call
//! close or a stop marker; a call without its close ends at a stop marker; a tag name left
//! unclosed ends at the first parameter or stop marker. At the end of the output an open call is
//! truncated (closed by the sink, `repaired`).
//!
//! Held back: only a possible partial marker, and up to 64 bytes of whitespace before a
//! required marker. Names, keys and headers are consumed into bounded buffers.
//!
//! Wrapped arguments (`XmlSyntax::unwrap`, e.g. DSML `<parameter name="arguments">{...}`): a
//! first parameter with such a key is buffered (at most `max_buffer_bytes`) instead of
//! streamed. If the call closes right after it and its value is an object (JSON, a JSON string
//! holding one, or a Python dict literal) that fits the rule, its members are the arguments;
//! otherwise the parameter is written as any other.

use crate::prelude::*;
use alloc::borrow::Cow;
use alloc::rc::Rc;
use super::header::{self, Header};
use super::value::{self, ParamValue};
use super::{code, Gap, Key, Name, XmlSyntax};
use crate::reader::{CallError, Reader, Status, Step};
use crate::text::floor_char_boundary;
use crate::json::ObjectWriter;
use crate::scan::{Act, Hit, MarkerSet};
use crate::schema::Ty;
use crate::sink::Sink;

const END: u8 = 0;
const PARAM: u8 = 1;
const CLOSE: u8 = 2;
const STOP: u8 = 3;
const SOFT: u8 = 4;
const PCLOSE: u8 = 5;
const SEP: u8 = 6;
const KEYCLOSE: u8 = 7;
const TYPEOPEN: u8 = 8;
const VALOPEN: u8 = 9;
const TYPECLOSE: u8 = 10;
const OTHER: u8 = 11;

const CDATA_OPEN: &str = "<![CDATA[";
const CDATA_CLOSE: &str = "]]>";

/// Whitespace allowed before a required marker.
const MAX_WS: usize = 64;

fn set(groups: &[(&[&str], u8)]) -> MarkerSet {
    let mut s = MarkerSet::new();
    for (markers, code) in groups {
        s.add_all(markers, Act::Other(*code));
    }
    s
}

/// The marker sets of one dialect, one per reader state.
struct Sets {
    open: MarkerSet,
    header: MarkerSet,
    name: MarkerSet,
    between: MarkerSet,
    key: MarkerSet,
    after_key: MarkerSet,
    type_text: MarkerSet,
    value: MarkerSet,
    cdata_open: MarkerSet,
    cdata_close: MarkerSet,
}

impl Sets {
    /// The sets of dialect `c`, shared in the package's wasm (`SharedCache`: at most one entry
    /// per `XmlSyntax` static): building ten sets when a parser's first call opened cost about
    /// 6 µs there (a reader that is reset keeps its sets anyway).
    fn shared(c: &'static XmlSyntax) -> Rc<Sets> {
        static CACHE: crate::small::SharedCache<*const XmlSyntax, Sets> = crate::small::SharedCache::new();
        CACHE.get(c, || Sets::new(c))
    }

    fn new(c: &XmlSyntax) -> Sets {
        let (key_close, type_elem, value_open): (&[&str], _, &[&str]) = match &c.key {
            Key::Tag => (&[], None, &[]),
            Key::Element { close, type_elem, value_open } => (close, *type_elem, value_open),
        };
        let sep: &[&str] = match &c.name {
            Name::Text { sep } => sep,
            Name::Tag => &[],
        };
        let (type_open, type_close): (&[&str], &[&str]) = match &type_elem {
            Some((o, cl)) => (core::slice::from_ref(o), core::slice::from_ref(cl)),
            None => (&[], &[]),
        };
        let ends = [(c.param_open, PARAM), (c.call_close, CLOSE), (c.stops, STOP)];
        let with = |first: &[(&[&str], u8)], soft: bool| {
            let mut g: Vec<(&[&str], u8)> = first.to_vec();
            g.extend_from_slice(&ends);
            if soft {
                g.push((c.soft_stops, SOFT));
            }
            set(&g)
        };
        Sets {
            open: set(&[(c.call_open, OTHER), (c.call_type, SEP)]),
            header: with(&[(core::slice::from_ref(&c.tag_end), END)], true),
            name: with(&[(sep, SEP)], true),
            between: with(&[], true),
            key: with(&[(key_close, KEYCLOSE)], true),
            after_key: set(&[(type_open, TYPEOPEN), (value_open, VALOPEN)]),
            type_text: with(&[(type_close, TYPECLOSE)], false),
            value: with(&[(c.param_close, PCLOSE)], false),
            cdata_open: set(&[(&[CDATA_OPEN], OTHER)]),
            cdata_close: set(&[(&[CDATA_CLOSE], OTHER)]),
        }
    }
}

/// Where a text name (`Name::Text`) stands: whitespace before it, the name, whitespace after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NamePhase {
    Before,
    In,
    After,
}

/// Which part of an XML call the reader is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    CallOpen,
    /// Tag name header (`Name::Tag`).
    Header,
    /// Text name (`Name::Text`).
    Name,
    Between,
    ParamHeader,
    KeyText,
    AfterKey,
    TypeText,
    ValueStart,
    Value,
    Cdata,
    Done,
}

/// Reads one call; see the module docs.
pub struct XmlReader {
    cfg: &'static XmlSyntax,
    sets: Rc<Sets>,
    part: Part,
    /// Header, name or key text read so far.
    buf: String,
    /// Where in a text name the reader is.
    name_phase: NamePhase,
    /// Spaces or tabs after a text name's last character: inside the name if more follows on
    /// the same line (`<tool_call>get weather<arg_key>`).
    name_ws: String,
    /// The parameter's opening marker, given back as text when the parameter is malformed.
    opened: String,
    /// The key of an element-style parameter, and its type element.
    key: String,
    type_text: Option<String>,
    w: ObjectWriter,
    value: Option<ParamValue>,
    /// The last ended value, kept for its buffers (`ParamValue::begin`'s `spare`).
    spent: Option<ParamValue>,
    /// Whitespace consumed after a key element.
    ws: usize,
    gap: Gap,
    junk_reported: bool,
    /// A first parameter that may wrap the arguments (see the module docs).
    wrap: Option<Wrap>,
    /// The last `wrap`'s buffers, for the next one (no allocation per wrapping parameter).
    spare_wrap: Wrap,
    /// The call type (`XmlSyntax::call_type`) was read.
    typed: bool,
}

/// A buffered wrapping parameter: its key, the format's typing, its raw value text.
#[derive(Default)]
struct Wrap {
    key: String,
    format_string: Option<bool>,
    raw: String,
}

impl XmlReader {
    pub fn new(cfg: &'static XmlSyntax) -> XmlReader {
        XmlReader::with_sets(cfg, Sets::shared(cfg))
    }

    /// Where a call of dialect `cfg` begins.
    fn first_part(cfg: &XmlSyntax) -> Part {
        if !cfg.call_open.is_empty() {
            Part::CallOpen
        } else if matches!(cfg.name, Name::Tag) {
            Part::Header
        } else {
            Part::Name
        }
    }

    fn with_sets(cfg: &'static XmlSyntax, sets: Rc<Sets>) -> XmlReader {
        XmlReader {
            cfg,
            sets,
            part: XmlReader::first_part(cfg),
            buf: String::new(),
            name_phase: NamePhase::Before,
            name_ws: String::new(),
            opened: String::new(),
            key: String::new(),
            type_text: None,
            w: ObjectWriter::new(),
            value: None,
            spent: None,
            ws: 0,
            gap: Gap::default(),
            junk_reported: false,
            wrap: None,
            spare_wrap: Wrap::default(),
            typed: false,
        }
    }

    fn header_limit(sink: &Sink) -> usize {
        sink.limits.max_name_bytes + 256
    }

    /// The call name in the tag header read so far, if it is a valid one.
    fn tag_name<'a>(buf: &'a str, sink: &Sink) -> Option<Cow<'a, str>> {
        let name = match header::parse(buf, true)?.ident_owned()? {
            Cow::Borrowed(n) => Cow::Borrowed(n.trim()),
            Cow::Owned(n) => Cow::Owned(n.trim().to_string()),
        };
        let ok = !name.is_empty() && name.len() <= sink.limits.max_name_bytes && !name.chars().any(char::is_control);
        ok.then_some(name)
    }

    /// Appends text-name bytes. `Err(at, error)`: `s[at..]` cannot be part of a name (`error`:
    /// why, when it is a limit).
    fn name_text(&mut self, s: &str, sink: &mut Sink) -> Result<(), (usize, Option<CallError>)> {
        /// ASCII bytes a name cannot hold (besides whitespace and control characters).
        const fn bracket(b: u8) -> bool {
            matches!(b, b'<' | b'>' | b'{' | b'}' | b'[' | b']' | b'"' | b'\'' | b'(' | b')' | b',' | b';' | b'=')
        }
        /// Plain ASCII name bytes (printable, not a bracket), as a table.
        const PLAIN: [bool; 256] = {
            let mut t = [false; 256];
            let mut b = 0;
            while b < 256 {
                t[b] = b > b' ' as usize && b < 0x7F && !bracket(b as u8);
                b += 1;
            }
            t
        };
        let bytes = s.as_bytes();
        let max = sink.limits.max_name_bytes;
        let mut at = 0;
        while at < bytes.len() {
            let b = bytes[at];
            // A run of plain ASCII name bytes is taken at once (the same checks as one char at
            // a time: the limit fails at the byte that crosses it).
            let plain = |b: u8| PLAIN[b as usize];
            if plain(b) && self.name_phase != NamePhase::After {
                let run = bytes[at..].iter().take_while(|&&b| plain(b)).count();
                let room = max.saturating_sub(self.buf.len() + self.name_ws.len());
                if run > room {
                    return Err((at + room, Some(name_too_long(sink))));
                }
                self.name_phase = NamePhase::In;
                self.buf.push_str(&self.name_ws);
                self.name_ws.clear();
                self.buf.push_str(&s[at..at + run]);
                at += run;
                continue;
            }
            let Some(c) = s[at..].chars().next() else { break };
            // ASCII answers by byte tests (the same as `is_whitespace` and `is_control`).
            let (ws, bad_char) = if c.is_ascii() {
                (matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' '), b < 0x20 || b == 0x7F || bracket(b))
            } else {
                (c.is_whitespace(), c.is_control())
            };
            if ws {
                if self.name_phase == NamePhase::In {
                    if c == ' ' || c == '\t' {
                        self.name_ws.push(c);
                    } else {
                        self.name_phase = NamePhase::After;
                    }
                }
                at += c.len_utf8();
                continue;
            }
            let bad = self.name_phase == NamePhase::After || bad_char;
            if bad {
                return Err((at, None));
            }
            if self.buf.len() + self.name_ws.len() + c.len_utf8() > max {
                return Err((at, Some(name_too_long(sink))));
            }
            self.name_phase = NamePhase::In;
            self.buf.push_str(&self.name_ws);
            self.name_ws.clear();
            self.buf.push(c);
            at += c.len_utf8();
        }
        Ok(())
    }

    /// A text name with spaces (`get weather`) is a call when a parameter or separator follows
    /// it, or when the tools declare it; `<tool_call>some words</tool_call>` in prose is text.
    fn name_confirmed(&self, marker: u8, sink: &Sink) -> bool {
        marker != CLOSE || !self.buf.contains([' ', '\t']) || sink.tools.as_ref().is_some_and(|t| t.has(&self.buf))
    }

    fn start(&mut self, name: &str, sink: &mut Sink) {
        sink.start_call(name, None);
        self.buf.clear();
        self.part = Part::Between;
    }

    fn close_call(&mut self, sink: &mut Sink) {
        self.end_value(sink);
        if let Some(wrap) = self.wrap.take() {
            self.send_spent(sink);
            match self.unwrapped(&wrap, sink) {
                Some(members) => {
                    let mut s = String::new();
                    for (k, v) in members.iter() {
                        let json = sink.coerce_param_json(k, &crate::json::to_text(v));
                        self.w.key(k, &mut s);
                        self.w.raw_value(&json, &mut s);
                    }
                    sink.args(&s);
                    self.spare_wrap = wrap;
                }
                None => self.replay(wrap, true, sink),
            }
        }
        value::close_call_after(self.spent.as_mut(), &mut self.w, sink);
        self.part = Part::Done;
    }

    /// Sends the last ended value's unsent end (`ParamValue::end`): before anything but the
    /// next value or the call's close reaches the sink.
    fn send_spent(&mut self, sink: &mut Sink) {
        if let Some(v) = self.spent.as_mut() {
            v.flush(sink);
        }
    }

    /// Whether a first parameter `key` may wrap the arguments (buffered, not streamed).
    fn may_wrap(&self, key: &str, sink: &Sink) -> bool {
        if !self.w.is_empty() || !self.cfg.unwrap.contains(&key) {
            return false;
        }
        match (&sink.tools, sink.call_name()) {
            (Some(t), Some(name)) if t.has(name) => t.param(name, key).is_none(),
            _ => !self.cfg.unwrap_needs_tools,
        }
    }

    /// The members of a wrapping parameter's value, when it unwraps.
    fn unwrapped(&self, wrap: &Wrap, sink: &Sink) -> Option<crate::json::Map> {
        let text = wrap.raw.trim();
        let v = match crate::json::parse(text) {
            Ok(crate::json::Value::String(s)) => crate::json::parse(&s).ok()?,
            Ok(v) => v,
            Err(_) => crate::pythonic::literal_to_json(text, &sink.limits)?,
        };
        let crate::json::Value::Object(members) = v else { return None };
        let declared = match (&sink.tools, sink.call_name()) {
            (Some(t), Some(name)) if t.has(name) => members.iter().all(|(k, _)| t.param(name, k).is_some()),
            _ => !self.cfg.unwrap_needs_tools,
        };
        declared.then_some(members)
    }

    /// Writes a buffered wrapping parameter as an ordinary one (`end`: its value is complete);
    /// its buffers are kept for the next one.
    fn replay(&mut self, wrap: Wrap, end: bool, sink: &mut Sink) {
        let mut v = ParamValue::begin(self.spent.take(), &wrap.key, wrap.format_string, self.cfg.trim_newline, &mut self.w, sink);
        v.push(&wrap.raw, &mut self.w, sink);
        if end {
            self.spent = Some(v.end(&mut self.w, sink));
        } else {
            self.value = Some(v);
        }
        self.spare_wrap = wrap;
    }

    /// The rest of the input was consumed; at the end of the output the call is truncated.
    fn consumed(&mut self, len: usize, eof: bool, sink: &mut Sink) -> Step {
        if eof {
            self.truncated(sink);
            return Step::done(len);
        }
        Step::partial(len)
    }

    /// The output ended inside the call.
    fn truncated(&mut self, sink: &mut Sink) {
        if let Some(wrap) = self.wrap.take() {
            self.replay(wrap, false, sink);
        }
        if let Some(v) = self.value.take() {
            self.spent = Some(v);
        }
        self.send_spent(sink);
        sink.end_call_truncated();
        self.part = Part::Done;
    }

    fn end_value(&mut self, sink: &mut Sink) {
        if let Some(v) = self.value.take() {
            self.spent = Some(v.end(&mut self.w, sink));
        }
    }

    /// Text between parameters is content (reported once per call).
    fn gap(&mut self, s: &str, sink: &mut Sink) {
        if self.gap.emits(s) {
            self.send_spent(sink);
        }
        let diag = (!self.junk_reported).then_some("text inside a tool call, outside its parameters, was kept as content");
        if self.gap.push(s, sink, diag) {
            self.junk_reported = true;
        }
    }

    /// A parameter whose markup is broken: its text so far goes back as content.
    fn malformed_param(&mut self, extra: &str, sink: &mut Sink) {
        let text = format!("{}{}{}", self.opened, self.buf, extra);
        self.buf.clear();
        self.gap.end();
        self.gap(&text, sink);
        self.part = Part::Between;
    }

    /// The format's own typing of the value: DSML `string=`, Kimi `type=`, K2 `<ifm|arg_type>`.
    fn format_string(&self, h: Option<&Header>) -> Option<bool> {
        if let Some(s) = h.and_then(|h| h.attr("string")) {
            return Some(s.trim().eq_ignore_ascii_case("true"));
        }
        if let Some(t) = h.and_then(|h| h.attr("type")).or(self.type_text.as_deref()) {
            return Some(Ty::from_name(t) == Some(Ty::String));
        }
        if self.cfg.json_values {
            Some(false)
        } else {
            None
        }
    }

    fn begin_value(&mut self, key: &str, format_string: Option<bool>, sink: &mut Sink) {
        let format_string = format_string.or_else(|| (self.cfg.json_untyped && untyped(key, sink)).then_some(false));
        if self.may_wrap(key, sink) {
            let mut wrap = core::mem::take(&mut self.spare_wrap);
            wrap.key.clear();
            wrap.key.push_str(key);
            wrap.raw.clear();
            wrap.format_string = format_string;
            self.wrap = Some(wrap);
        } else {
            self.value = Some(ParamValue::begin(self.spent.take(), key, format_string, self.cfg.trim_newline, &mut self.w, sink));
        }
        self.buf.clear();
        self.part = Part::ValueStart;
    }

    fn push_value(&mut self, s: &str, sink: &mut Sink) {
        if let Some(v) = self.value.as_mut() {
            v.push(s, &mut self.w, sink);
        } else if let Some(wrap) = self.wrap.as_mut() {
            wrap.raw.push_str(s);
            if wrap.raw.len() > sink.limits.max_buffer_bytes {
                // Too big to hold: an ordinary parameter, streamed from here on.
                let wrap = self.wrap.take();
                wrap.map(|w| self.replay(w, false, sink));
            }
        }
    }
}

/// Whether the schema gives parameter `key` of the open call no type.
fn untyped(key: &str, sink: &Sink) -> bool {
    match (&sink.tools, sink.call_name()) {
        (Some(t), Some(name)) => t.param(name, key).is_none_or(|(schema, root)| crate::schema::types(schema, root).is_empty()),
        _ => true,
    }
}

/// A call's name is longer than `max_name_bytes`: the markup comes back as text.
fn name_too_long(sink: &Sink) -> CallError {
    CallError::Limit(format!("a tool name ran past the {}-byte maxNameBytes limit; released as text", sink.limits.max_name_bytes))
}

impl Reader for XmlReader {
    fn quiet(&self) -> Option<crate::quiet::Stop> {
        let streaming = self.part == Part::Value && self.wrap.is_none() && self.value.as_ref().is_some_and(ParamValue::quiet);
        streaming.then(|| self.sets.value.ascii_firsts().or(crate::quiet::Stop::JSON_STRING))
    }

    fn held_marker(&self, held: &str) -> Option<&[u8]> {
        // Each part leaves unconsumed only where its set reports `Hold` (or `Err`), but a call's
        // opening marker's leading whitespace, counted again with it.
        let s = &self.sets;
        let (set, held) = match self.part {
            Part::CallOpen => (&s.open, held.trim_start_matches(|c: char| c.is_ascii_whitespace())),
            Part::Header | Part::ParamHeader => (&s.header, held),
            Part::Name => (&s.name, held),
            Part::Between => (&s.between, held),
            Part::KeyText => (&s.key, held),
            Part::TypeText => (&s.type_text, held),
            Part::AfterKey => (&s.after_key, held),
            Part::ValueStart if self.cfg.cdata => (&s.cdata_open, held),
            Part::Value => (&s.value, held),
            Part::Cdata => (&s.cdata_close, held),
            Part::ValueStart | Part::Done => return None,
        };
        set.continuation(held)
    }

    fn held_run(&self, sink: &Sink) -> Option<(&'static [u8], crate::quiet::Stop, usize)> {
        // A tag's header (`<function=NAME>`, `<parameter=KEY>`): read into `buf` up to a byte
        // that starts a marker of the header set, within the header limit.
        match self.part {
            Part::Header | Part::ParamHeader => {
                let room = Self::header_limit(sink).checked_sub(self.buf.len())?;
                Some((b"", self.sets.header.ascii_firsts(), room))
            }
            _ => None,
        }
    }

    fn reset(&mut self, _bare: bool) -> bool {
        // Field by field as `with_sets` makes them (the pattern names them all): the marker
        // sets stay where they are and the buffers keep their memory (a value's too, `spent`).
        let part = XmlReader::first_part(self.cfg);
        let XmlReader { cfg: _, sets: _, part: p, buf, name_phase, name_ws, opened, key, type_text, w, value, spent, ws, gap, junk_reported, wrap, spare_wrap, typed } = self;
        if let Some(old) = wrap.take() {
            *spare_wrap = old;
        }
        for s in [buf, name_ws, opened, key] {
            s.clear();
        }
        if let Some(v) = value.take() {
            *spent = Some(v);
        }
        debug_assert!(spent.as_ref().is_none_or(|v| !v.has_unsent()), "a payload ended with argument text unsent");
        (*p, *name_phase, *type_text, *w, *ws, *gap, *junk_reported, *wrap, *typed) =
            (part, NamePhase::Before, None, ObjectWriter::new(), 0, Gap::default(), false, None, false);
        true
    }

    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let mut i = 0;
        loop {
            let rest = &input[i..];
            match self.part {
                Part::Done => return Step::done(i),
                Part::CallOpen => {
                    let j = rest.bytes().take_while(u8::is_ascii_whitespace).count();
                    if j > MAX_WS {
                        return Step::reject(i);
                    }
                    match self.sets.open.at_start(&rest[j..], eof) {
                        Err(()) => return Step::partial(i),
                        Ok(Some(idx)) if code(&self.sets.open, idx) == SEP => {
                            if self.typed {
                                return Step::reject(i);
                            }
                            self.typed = true;
                            i += j + self.sets.open.text(idx).len();
                        }
                        Ok(Some(idx)) => {
                            i += j + self.sets.open.text(idx).len();
                            self.part = if matches!(self.cfg.name, Name::Tag) { Part::Header } else { Part::Name };
                        }
                        Ok(None) => return Step::reject(i),
                    }
                }
                Part::Header => {
                    let hit = self.sets.header.find(rest, eof);
                    let text_end = match hit {
                        Hit::Found { at, .. } | Hit::Hold { at } => at,
                        Hit::None => rest.len(),
                    };
                    // Too long for a header: not a call; rejected at the same byte whatever the chunking.
                    let room = Self::header_limit(sink).saturating_sub(self.buf.len());
                    if text_end > room {
                        return Step::reject(i + floor_char_boundary(rest, room));
                    }
                    match hit {
                        Hit::Found { at, idx } => {
                            self.buf.push_str(&rest[..at]);
                            // The name borrows the header text (the buffer goes back after).
                            let buf = core::mem::take(&mut self.buf);
                            let Some(name) = Self::tag_name(&buf, sink) else {
                                self.buf = buf;
                                let ident = header::parse(&self.buf, true).and_then(|h| h.ident().map(|n| n.trim().len()));
                                if ident.is_some_and(|n| n > sink.limits.max_name_bytes) {
                                    return Step::reject_with(i + at, name_too_long(sink));
                                }
                                return Step::reject(i + at);
                            };
                            i += at;
                            let c = code(&self.sets.header, idx);
                            if c == END {
                                i += self.sets.header.text(idx).len();
                            }
                            self.start(&name, sink);
                            drop(name);
                            self.buf = buf;
                            self.buf.clear();
                            // Else a name left unclosed: parameters or the close follow.
                            if !matches!(c, END | PARAM | CLOSE) {
                                self.close_call(sink);
                                return Step::done(i);
                            }
                        }
                        Hit::Hold { at } => {
                            self.buf.push_str(&rest[..at]);
                            return Step::partial(i + at);
                        }
                        Hit::None => {
                            self.buf.push_str(rest);
                            if eof {
                                return Step::reject(input.len());
                            }
                            return Step::partial(input.len());
                        }
                    }
                }
                Part::Name => match self.sets.name.find(rest, eof) {
                    Hit::Found { at, idx } => {
                        if let Err((bad, error)) = self.name_text(&rest[..at], sink) {
                            return Step { used: i + bad, status: Status::Reject, error };
                        }
                        let c = code(&self.sets.name, idx);
                        if self.buf.is_empty() || !matches!(c, SEP | PARAM | CLOSE) || !self.name_confirmed(c, sink) {
                            return Step::reject(i + at);
                        }
                        i += at;
                        if c == SEP {
                            i += self.sets.name.text(idx).len();
                        }
                        let name = core::mem::take(&mut self.buf);
                        self.start(&name, sink);
                        // The buffer keeps its memory for the next name.
                        self.buf = name;
                        self.buf.clear();
                    }
                    Hit::Hold { at } => {
                        if let Err((bad, error)) = self.name_text(&rest[..at], sink) {
                            return Step { used: i + bad, status: Status::Reject, error };
                        }
                        return Step::partial(i + at);
                    }
                    Hit::None => {
                        if let Err((bad, error)) = self.name_text(rest, sink) {
                            return Step { used: i + bad, status: Status::Reject, error };
                        }
                        if eof {
                            return Step::reject(input.len());
                        }
                        return Step::partial(input.len());
                    }
                },
                Part::Between => match self.sets.between.find(rest, eof) {
                    Hit::Found { at, idx } => {
                        self.gap(&rest[..at], sink);
                        self.gap.end();
                        i += at;
                        let len = self.sets.between.text(idx).len();
                        match code(&self.sets.between, idx) {
                            PARAM => {
                                // Not the lone parameter: a buffered wrapper is an ordinary one.
                                if let Some(wrap) = self.wrap.take() {
                                    self.replay(wrap, true, sink);
                                }
                                self.opened.clear();
                                self.opened.push_str(self.sets.between.text(idx));
                                i += len;
                                self.buf.clear();
                                self.type_text = None;
                                self.part = if matches!(self.cfg.key, Key::Tag) { Part::ParamHeader } else { Part::KeyText };
                            }
                            CLOSE => {
                                self.close_call(sink);
                                return Step::done(i + len);
                            }
                            _ => {
                                self.close_call(sink);
                                return Step::done(i);
                            }
                        }
                    }
                    Hit::Hold { at } => {
                        self.gap(&rest[..at], sink);
                        return Step::partial(i + at);
                    }
                    Hit::None => {
                        self.gap(rest, sink);
                        return self.consumed(input.len(), eof, sink);
                    }
                },
                Part::ParamHeader => {
                    let limit = Self::header_limit(sink);
                    let hit = self.sets.header.find(rest, eof);
                    if let Some(at) = over_limit(&mut self.buf, rest, &hit, limit) {
                        i += at;
                        self.malformed_param("", sink);
                        continue;
                    }
                    match hit {
                        Hit::Found { at, idx } => {
                            self.buf.push_str(&rest[..at]);
                            i += at;
                            let marker = self.sets.header.text(idx);
                            if code(&self.sets.header, idx) != END {
                                self.malformed_param("", sink);
                                continue;
                            }
                            i += marker.len();
                            // The key borrows the header text (the buffer goes back after).
                            let buf = core::mem::take(&mut self.buf);
                            let h = header::parse(&buf, true);
                            let key = h.as_ref().and_then(|h| h.ident()).map(str::trim);
                            if let Some(key) = key.filter(|k| k.len() <= sink.limits.max_name_bytes) {
                                let fs = self.format_string(h.as_ref());
                                self.begin_value(key, fs, sink);
                                drop(h);
                                self.buf = buf;
                                self.buf.clear();
                            } else {
                                let too_long = key.is_some();
                                drop(h);
                                self.buf = buf;
                                if too_long {
                                    self.send_spent(sink);
                                    let msg = format!("a parameter key ran past the {}-byte maxNameBytes limit; kept as text", sink.limits.max_name_bytes);
                                    sink.call_diag(crate::event::Label::LimitExceeded, msg);
                                }
                                self.malformed_param(self.cfg.tag_end, sink);
                            }
                        }
                        Hit::Hold { at } => {
                            self.buf.push_str(&rest[..at]);
                            return Step::partial(i + at);
                        }
                        Hit::None => {
                            self.buf.push_str(rest);
                            return self.consumed(input.len(), eof, sink);
                        }
                    }
                }
                Part::KeyText | Part::TypeText => {
                    let typ = self.part == Part::TypeText;
                    let set = if typ { &self.sets.type_text } else { &self.sets.key };
                    let limit = sink.limits.max_name_bytes;
                    let hit = set.find(rest, eof);
                    if let Some(at) = over_limit(&mut self.buf, rest, &hit, limit) {
                        i += at;
                        self.malformed_param("", sink);
                        continue;
                    }
                    match hit {
                        Hit::Found { at, idx } => {
                            self.buf.push_str(&rest[..at]);
                            i += at;
                            let c = code(set, idx);
                            let len = set.text(idx).len();
                            if !matches!(c, KEYCLOSE | TYPECLOSE) {
                                self.malformed_param("", sink);
                                continue;
                            }
                            i += len;
                            // The parameter's markup so far, as written (given back if it breaks).
                            self.opened.push_str(&self.buf);
                            self.opened.push_str(set.text(idx));
                            let text = self.buf.trim();
                            if typ {
                                self.type_text = Some(text.to_string());
                            } else {
                                self.key.clear();
                                self.key.push_str(text);
                            }
                            self.buf.clear();
                            self.ws = 0;
                            self.part = Part::AfterKey;
                        }
                        Hit::Hold { at } => {
                            self.buf.push_str(&rest[..at]);
                            return Step::partial(i + at);
                        }
                        Hit::None => {
                            self.buf.push_str(rest);
                            return self.consumed(input.len(), eof, sink);
                        }
                    }
                }
                Part::AfterKey => {
                    let j = rest.bytes().take_while(u8::is_ascii_whitespace).count();
                    if self.ws + j > MAX_WS {
                        // Too far from a value: the key was not a parameter (decided at the
                        // same byte whatever the chunking).
                        self.opened.push_str(&rest[..MAX_WS - self.ws]);
                        i += MAX_WS - self.ws;
                        self.ws = 0;
                        self.key.clear();
                        self.malformed_param("", sink);
                        continue;
                    }
                    self.ws += j;
                    self.opened.push_str(&rest[..j]);
                    match self.sets.after_key.at_start(&rest[j..], eof) {
                        Err(()) => return Step::partial(i + j),
                        Ok(Some(idx)) => {
                            i += j + self.sets.after_key.text(idx).len();
                            if code(&self.sets.after_key, idx) == TYPEOPEN {
                                self.opened.push_str(self.sets.after_key.text(idx));
                                self.part = Part::TypeText;
                            } else {
                                let key = core::mem::take(&mut self.key);
                                let fs = self.format_string(None);
                                self.begin_value(&key, fs, sink);
                                // The buffer keeps its memory for the next key.
                                self.key = key;
                                self.key.clear();
                            }
                        }
                        Ok(None) if rest[j..].is_empty() && eof => {
                            self.truncated(sink);
                            return Step::done(input.len());
                        }
                        Ok(None) => {
                            // A key without a value.
                            self.key.clear();
                            self.ws = 0;
                            self.malformed_param("", sink);
                            i += j;
                        }
                    }
                }
                Part::ValueStart => {
                    self.part = Part::Value;
                    if self.cfg.cdata {
                        match self.sets.cdata_open.at_start(rest, eof) {
                            Err(()) => {
                                self.part = Part::ValueStart;
                                return Step::partial(i);
                            }
                            Ok(Some(_)) => {
                                i += CDATA_OPEN.len();
                                self.part = Part::Cdata;
                            }
                            Ok(None) => {}
                        }
                    }
                }
                Part::Value | Part::Cdata => {
                    let cdata = self.part == Part::Cdata;
                    let set = if cdata { &self.sets.cdata_close } else { &self.sets.value };
                    match set.find(rest, eof) {
                        Hit::Found { at, idx } => {
                            let c = code(set, idx);
                            let len = set.text(idx).len();
                            self.push_value(&rest[..at], sink);
                            i += at;
                            if cdata {
                                i += len;
                                self.part = Part::Value;
                                continue;
                            }
                            if c == PCLOSE {
                                i += len;
                            }
                            self.end_value(sink);
                            self.part = Part::Between;
                        }
                        Hit::Hold { at } => {
                            self.push_value(&rest[..at], sink);
                            return Step::partial(i + at);
                        }
                        Hit::None => {
                            self.push_value(rest, sink);
                            return self.consumed(input.len(), eof, sink);
                        }
                    }
                }
            }
        }
    }
}

/// A parameter's markup text over `limit` fails at the byte that crosses it, whatever the
/// chunking: `Some(at)` when `buf` and `rest` up to the `hit` go over, `rest[..at]` taken into `buf`.
fn over_limit(buf: &mut String, rest: &str, hit: &crate::scan::Hit, limit: usize) -> Option<usize> {
    use crate::scan::Hit;
    let end = match *hit {
        Hit::Found { at, .. } | Hit::Hold { at } => at,
        Hit::None => rest.len(),
    };
    let at = crate::limits::crossing(rest, 0, end, buf.len(), limit)?;
    buf.push_str(&rest[..at]);
    Some(at)
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use crate::{parse, Label, Limits, Options};
    use crate::json::{json, Value};

    fn opts(parser: &str, limits: Limits, tools: Option<Value>) -> Options {
        let mut o = Options::new(parser);
        o.limits = limits;
        o.tools = tools;
        o
    }

    fn tools() -> Value {
        json!([{"type": "function", "function": {"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}}])
    }

    #[test]
    fn oversized_typed_value_streams_as_a_string() {
        let limits = Limits { max_buffer_bytes: 64, ..Limits::default() };
        let big = "1".repeat(100);
        let input = format!("<tool_call>\n<function=f>\n<parameter=n>\n{big}\n</parameter>\n</function>\n</tool_call>");
        let r = parse(&input, &opts("qwen3_coder", limits, Some(tools()))).unwrap();
        assert_eq!(r.tool_calls[0].arguments, format!("{{\"n\": \"{big}\"}}"));
        assert!(r.diagnostics.iter().any(|d| d.label == Label::LimitExceeded));
    }

    #[test]
    fn oversized_arguments_are_cut_and_repaired() {
        let limits = Limits { max_args_bytes: 32, ..Limits::default() };
        let input = format!("<tool_call>f<arg_key>a</arg_key><arg_value>{}</arg_value></tool_call>", "x".repeat(100));
        let mut o = opts("glm47", limits, None);
        o.recover = Some(true);
        let r = parse(&input, &o).unwrap();
        let args: Value = crate::json::parse(&r.tool_calls[0].arguments).unwrap();
        assert!(args["a"].as_str().is_some_and(|s| s.len() < 32));
        assert!(r.diagnostics.iter().any(|d| d.label == Label::LimitExceeded));
    }

    #[test]
    fn deep_json_value_stays_bounded() {
        let limits = Limits { max_depth: 8, ..Limits::default() };
        let deep = format!("{}{}", "[".repeat(20), "]".repeat(20));
        let input = format!("<｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\" string=\"false\">{deep}</｜DSML｜parameter></｜DSML｜invoke>");
        let r = parse(&input, &opts("deepseek_v32", limits, None)).unwrap();
        // Too deep to be read as JSON: kept as the raw string.
        assert_eq!(r.tool_calls[0].arguments, format!("{{\"a\": \"{deep}\"}}"));
    }

    #[test]
    fn long_keys_are_markup_errors_not_parameters() {
        let limits = Limits { max_name_bytes: 8, ..Limits::default() };
        let input = "<tool_call>f<arg_key>averyveryverylongkey</arg_key><arg_value>1</arg_value></tool_call>";
        let r = parse(input, &opts("glm47", limits, None)).unwrap();
        assert_eq!(r.tool_calls[0].arguments, "{}");
        assert_eq!(r.content.as_deref(), Some("<arg_key>averyveryverylongkey</arg_key><arg_value>1</arg_value>"));
    }
}
