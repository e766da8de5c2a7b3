//! The arguments of one call, read incrementally and written as one JSON object.
//!
//! Python dialect: `k=v, ...` with Python literals (strings in every quote style, numbers,
//! constants, lists, tuples, sets, dicts). Key-value dialect: `k:v, ...` where `v` is a quoted
//! text (`<|"|>...<|"|>`), a bare text up to the next `,`/closer, or a nested `{k:v}` / `[v]`.
//!
//! Output contract (`feed`): JSON fragments go to the sink as soon as they are final:
//! `{"k": ` at the key's `=`/`:`, strings character by character, containers as their
//! structure appears, scalars when their token ends. What cannot be final yet is deferred in
//! `pend`, bounded by `max_buffer_bytes` of input (see `held_in`):
//! - the first member of `{...}` until `:` or `,` says dict or set, of `(...)` until `,` or `)`
//!   says tuple or parenthesised value, and Python dict keys until their `:` (non-string keys
//!   become JSON strings);
//! - a key-value parameter declared with a non-string type, until its value ends (then it is
//!   coerced by the schema).
//!
//! Key-value texts are strings unless the schema types them (`Untyped` says what an untyped
//! text is). Positional Python arguments are read and dropped, with a diagnostic. A single
//! quote closes a Python string only when what follows can follow a value (`,)]}:`), so
//! `'it's'` keeps its inner quote (LFM2's repair). Look-ahead kept unconsumed is bounded: a
//! quote token, an escape, three quotes, or up to `WS_AHEAD` bytes of whitespace and one
//! character.

use crate::prelude::*;
use super::lex::{self, Escape, StrFlags};
use super::{PySyntax, Style, Untyped};
use crate::event::Label;
use crate::json::{push_escaped, push_json_string};
use crate::scan::{Act, MarkerSet};
use crate::sink::Sink;
use crate::reader::CallError;
use crate::text::skip_ascii_ws as skip_ws;

/// Whitespace read ahead (unconsumed) while deciding what the next character means.
pub const WS_AHEAD: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The call's arguments.
    Args,
    /// A JSON array: a list, a decided tuple or a decided set (`close` tells which).
    List,
    /// `(` before its first `,`: a tuple or a parenthesised value.
    Paren,
    /// `{` before its first `:` or `,`: a dict or a set.
    Brace,
    /// A Python dict.
    Dict,
    /// A key-value nested object.
    Obj,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    /// A key (or the closer).
    Key,
    /// A key-value key was read: `:` comes next.
    Colon,
    /// A value (or the closer, where the container may end here).
    Value,
    /// A value was read: a separator or the closer.
    After,
}

#[derive(Clone, Debug)]
struct Frame {
    kind: Kind,
    close: u8,
    /// Members started (keys for objects).
    n: usize,
    at: At,
    /// Start in `pend` of this frame's deferred output.
    cap: Option<usize>,
    /// Dict: the value being read is a key.
    key_phase: bool,
}

impl Frame {
    fn new(kind: Kind, close: u8, at: At) -> Frame {
        Frame { kind, close, n: 0, at, cap: None, key_phase: false }
    }
}

/// How a key-value text finishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FinishAs {
    /// A JSON string.
    Str,
    /// Coerced by the parameter's schema.
    Coerce,
    /// Parsed as JSON when it is JSON, else a string.
    JsonOrStr,
    /// The JSON scalar it spells (number, `true`, `false`, `null`), else a string.
    Scalar,
}

/// Where a key-value text goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TextMode {
    /// Streamed as a JSON string.
    Stream,
    /// Collected in `text`, written when it ends.
    Collect(FinishAs),
    /// Leading whitespace collected; the first other character picks `Stream` or JSON.
    Decide,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    /// Between tokens.
    None,
    /// A Python identifier in `buf`; `arg`: at a keyword-argument position.
    Ident { arg: bool },
    /// A Python number in `buf`.
    Num,
    /// Inside a Python string.
    Str { q: u8, triple: bool, flags: StrFlags },
    /// Inside a key-value quoted text.
    Quoted,
    /// A key-value bare text, collected in `text`.
    Bare,
    /// A key-value key, collected in `buf`.
    Key { quoted: bool },
}

/// How `feed` stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// All input was used (or the rest is look-ahead); more is needed.
    More,
    /// The arguments closed; the closer was consumed.
    Closed,
    /// A stop marker (the family's end marker) came before the arguments closed; not consumed.
    Stopped,
    /// The input is not valid here (the byte at `used` was not consumed).
    Failed(CallError),
}

/// See the module docs.
pub struct Values {
    cfg: &'static PySyntax,
    stack: Vec<Frame>,
    tok: Tok,
    /// Identifier, number or key being read.
    buf: String,
    /// Key-value text being collected.
    text: String,
    mode: TextMode,
    /// Deferred output (see the module docs) and how many frames defer.
    pend: String,
    caps: usize,
    /// Reading a positional argument: output is dropped.
    discard: bool,
    positional_reported: bool,
    /// The current top-level key (key-value dialect: typing by the tool's schema).
    key: String,
    /// Pending high surrogate from a `\uD8xx` escape.
    high: Option<u32>,
    /// Quote token (`Act::Other(0)`) and stop markers (`Act::Other(1)`).
    marks: MarkerSet,
    /// Input bytes consumed while output was deferred or a text collected (`holding`): at
    /// most `max_buffer_bytes`. The limit fails at the input byte that would cross it, so at
    /// the same byte whatever the chunking (`pend` and `text` stay within a small multiple of
    /// it: escaping at most sextuples a byte).
    held_in: usize,
    /// Consumed input of a token that failed (given back as text by the reader).
    unread: String,
    /// Arguments text written since the sink last got some: sent as one fragment when `feed`
    /// returns or before anything else reaches the sink (a diagnostic, a coercion).
    unsent: String,
    /// The most frames open at once in this call (the JSON written is at most this deep).
    deepest: usize,
}

const QUOTE: Act = Act::Other(0);
const STOP: Act = Act::Other(1);

impl Values {
    /// Arguments that end at `close` (the opener was consumed by the caller). Their `{` goes
    /// to the sink with the first `feed`'s output (one fragment, not two).
    pub fn new(cfg: &'static PySyntax, close: u8) -> Values {
        let mut marks = MarkerSet::new();
        marks.add(cfg.quote, QUOTE).add_all(cfg.stop, STOP);
        let mut v = Values::with_marks(cfg, close, marks);
        v.out("{");
        v
    }

    /// Makes these values what `new(self.cfg, close)` would, keeping the marker set.
    pub fn restart(&mut self, close: u8) {
        // Every field as `with_marks` makes it (the pattern names them all); the marker set
        // and the buffers' memory are kept.
        let Values { cfg: _, stack, tok, buf, text, mode, pend, caps, discard, positional_reported, key, high, marks: _, held_in, unread, unsent, deepest } = self;
        stack.clear();
        stack.push(Frame::new(Kind::Args, close, At::Key));
        (*tok, *mode, *caps, *discard, *positional_reported, *high, *held_in, *deepest) = (Tok::None, TextMode::Stream, 0, false, false, None, 0, 1);
        for s in [buf, text, pend, key, unread, unsent] {
            s.clear();
        }
        self.out("{");
    }

    fn with_marks(cfg: &'static PySyntax, close: u8, marks: MarkerSet) -> Values {
        Values {
            cfg,
            stack: vec![Frame::new(Kind::Args, close, At::Key)],
            tok: Tok::None,
            buf: String::new(),
            text: String::new(),
            mode: TextMode::Stream,
            pend: String::new(),
            caps: 0,
            discard: false,
            positional_reported: false,
            key: String::new(),
            high: None,
            marks,
            held_in: 0,
            unread: String::new(),
            unsent: String::new(),
            deepest: 1,
        }
    }

    fn python(&self) -> bool {
        self.cfg.style == Style::Python
    }

    // ---- output -------------------------------------------------------------------------

    /// Writes the JSON of the number literal in `buf` (see `lex::number`); false when it is
    /// not one.
    fn out_number(&mut self) -> bool {
        let buf = core::mem::take(&mut self.buf);
        let json = lex::number(&buf);
        let ok = json.is_some();
        if let Some(n) = json {
            self.out(&n);
        }
        self.buf = buf;
        ok
    }

    /// Writes JSON text for the sink (`unsent`), or to `pend` while some frame defers.
    fn out(&mut self, s: &str) {
        if let Some(t) = self.target() {
            t.push_str(s);
        }
    }

    /// Where JSON text is written now (see `out`): `None` while discarding.
    fn target(&mut self) -> Option<&mut String> {
        if self.discard {
            None
        } else if self.caps > 0 {
            Some(&mut self.pend)
        } else {
            Some(&mut self.unsent)
        }
    }

    /// Sends the arguments text written so far to the sink, as one fragment (a few small
    /// fragments cost more than one: each is checked and merged on its own).
    /// Once the object closed, the text goes as whole arguments (`Sink::args_whole`): the
    /// guard takes it without scanning it again when nothing went to the call before, and
    /// scans it as any fragment otherwise.
    fn send(&mut self, sink: &mut Sink) {
        if !self.unsent.is_empty() {
            if self.stack.is_empty() {
                sink.args_whole(&self.unsent, self.deepest);
            } else {
                sink.args(&self.unsent);
            }
            self.unsent.clear();
        }
    }

    /// Writes `s` as the body of an open JSON string.
    fn out_text(&mut self, s: &str, sink: &mut Sink) {
        if s.is_empty() {
            return;
        }
        self.flush_high(sink);
        if let Some(t) = self.target() {
            push_escaped(t, s);
        }
    }

    fn out_json_string(&mut self, s: &str) {
        if let Some(t) = self.target() {
            push_json_string(t, s);
        }
    }

    /// Writes a decoded code point into an open string, pairing surrogate halves.
    fn out_code(&mut self, cp: u32, sink: &mut Sink) {
        let c = if (0xD800..0xDC00).contains(&cp) {
            self.flush_high(sink);
            self.high = Some(cp);
            return;
        } else if (0xDC00..0xE000).contains(&cp) {
            match self.high.take() {
                Some(h) => char::from_u32(0x10000 + ((h - 0xD800) << 10) + (cp - 0xDC00)),
                None => None,
            }
        } else {
            char::from_u32(cp)
        };
        let mut tmp = [0u8; 4];
        self.out_text(c.unwrap_or('\u{FFFD}').encode_utf8(&mut tmp), sink);
    }

    /// A high surrogate not followed by a low one is U+FFFD.
    fn flush_high(&mut self, sink: &mut Sink) {
        if self.high.take().is_some() {
            self.out_text("\u{FFFD}", sink);
        }
    }

    /// Starts deferring this frame's output.
    fn capture(&mut self) -> usize {
        self.caps += 1;
        self.pend.len()
    }

    /// Takes the deferred output from `at` (empty while discarding).
    fn split_pend(&mut self, at: usize) -> String {
        if at <= self.pend.len() && self.pend.is_char_boundary(at) {
            self.pend.split_off(at)
        } else {
            String::new()
        }
    }

    /// Ends one frame's deferral; writes `pend` out once nothing defers.
    fn release(&mut self) {
        self.caps = self.caps.saturating_sub(1);
        if self.caps == 0 && !self.pend.is_empty() {
            let p = core::mem::take(&mut self.pend);
            if !self.discard {
                self.unsent.push_str(&p);
            }
        }
    }

    // ---- structure ----------------------------------------------------------------------

    /// The innermost frame. The stack is not empty while a call is read (Args is popped last
    /// and `feed` stops there); a closed frame stands in otherwise, so this never panics.
    fn top(&mut self) -> &mut Frame {
        if self.stack.is_empty() {
            self.stack.push(Frame::new(Kind::Args, b')', At::After));
        }
        let n = self.stack.len();
        &mut self.stack[n - 1]
    }

    fn push(&mut self, kind: Kind, close: u8, sink: &mut Sink) -> Result<(), Status> {
        // The stack holds the arguments object's frame, so its length is the depth in all.
        if self.stack.len() >= sink.limits.depth() {
            return Err(Status::Failed(CallError::Limit(format!("nesting deeper than {}", sink.limits.depth()))));
        }
        let mut f = Frame::new(kind, close, if kind == Kind::Obj { At::Key } else { At::Value });
        match kind {
            Kind::Paren | Kind::Brace => f.cap = Some(self.capture()),
            Kind::Obj => self.out("{"),
            _ => self.out("["),
        }
        self.stack.push(f);
        self.deepest = self.deepest.max(self.stack.len());
        Ok(())
    }

    /// A member (value, or key of an object) begins in the top frame: separator and bookkeeping.
    fn begin_member(&mut self) {
        let f = self.top();
        let (kind, n) = (f.kind, f.n);
        match kind {
            Kind::List => {
                f.n += 1;
                if n > 0 {
                    self.out(", ");
                }
            }
            Kind::Paren | Kind::Brace => f.n += 1,
            Kind::Dict if f.key_phase => {
                f.n += 1;
                if n > 0 {
                    self.out(", ");
                }
                let cap = self.capture();
                self.top().cap = Some(cap);
            }
            _ => {}
        }
    }

    /// Writes `"key": ` in the top frame (Args or Obj).
    fn write_key(&mut self, key: &str) {
        let f = self.top();
        let (n, args) = (f.n, f.kind == Kind::Args);
        f.n += 1;
        f.at = At::Value;
        if let Some(t) = self.target() {
            if n > 0 {
                t.push_str(", ");
            }
            push_json_string(t, key);
            t.push_str(": ");
        }
        if args {
            self.key.clear();
            self.key.push_str(key);
        }
    }

    /// The value in the top frame is complete.
    fn value_done(&mut self, sink: &mut Sink) {
        let f = self.top();
        f.at = At::After;
        if f.kind != Kind::Args {
            return;
        }
        let cap = f.cap.take();
        if self.discard {
            self.discard = false;
            return;
        }
        if let Some(cap) = cap {
            // A typed key-value container: coerce it whole.
            let json = self.split_pend(cap);
            self.release();
            self.send(sink);
            let coerced = typed_json(sink, &self.key, &json);
            self.out(&coerced);
        }
    }

    /// Closes the top frame (its closer was consumed). Returns true when the arguments closed.
    fn close_top(&mut self, sink: &mut Sink) -> bool {
        let Some(f) = self.stack.pop() else { return true };
        match f.kind {
            Kind::Args | Kind::Obj | Kind::Dict => self.out("}"),
            Kind::List => self.out("]"),
            Kind::Paren if f.n == 0 => {
                self.release();
                self.out("[]");
            }
            // `(x)` is just `x`.
            Kind::Paren => self.release(),
            Kind::Brace if f.n == 0 => {
                self.release();
                self.out("{}");
            }
            Kind::Brace => {
                let item = self.split_pend(f.cap.unwrap_or(usize::MAX));
                self.release();
                self.out("[");
                self.out(&item);
                self.out("]");
            }
        }
        if self.stack.is_empty() {
            return true;
        }
        self.value_done(sink);
        false
    }

    /// `:` after the first member of `{` (a dict) or after a dict key.
    fn dict_colon(&mut self) {
        let f = self.top();
        let opener = f.kind == Kind::Brace;
        f.kind = Kind::Dict;
        f.key_phase = false;
        f.at = At::Value;
        let cap = f.cap.take().unwrap_or(usize::MAX);
        let key = self.split_pend(cap);
        if !self.discard {
            if opener {
                self.pend.push('{');
            }
            if key.starts_with('"') {
                self.pend.push_str(&key);
            } else {
                // json.dumps writes non-string keys as strings.
                push_json_string(&mut self.pend, &key);
            }
            self.pend.push_str(": ");
        }
        self.release();
    }

    /// `,` after the first member of `(` or `{`: a tuple or a set, i.e. a JSON array.
    fn decide_array(&mut self) {
        let f = self.top();
        f.kind = Kind::List;
        let cap = f.cap.take().unwrap_or(usize::MAX);
        let item = self.split_pend(cap);
        if !self.discard {
            self.pend.push('[');
            self.pend.push_str(&item);
        }
        self.release();
    }

    fn positional(&mut self, sink: &mut Sink) {
        self.discard = true;
        self.top().at = At::Value;
        if !self.positional_reported {
            self.positional_reported = true;
            self.send(sink);
            sink.call_diag(Label::MalformedJson, "positional arguments are not supported; ignored");
        }
    }

    // ---- key-value texts ----------------------------------------------------------------

    /// How a text value starting now (quoted or bare) is written.
    fn text_mode(&self, quoted: bool, sink: &Sink) -> TextMode {
        let top_level = self.stack.len() == 1;
        let declared = if top_level { param_type(sink, &self.key) } else { ParamType::Unknown };
        match (declared, self.cfg.untyped) {
            (ParamType::Typed, _) => TextMode::Collect(FinishAs::Coerce),
            (ParamType::String, _) | (ParamType::Unknown, Untyped::String) if quoted => TextMode::Stream,
            (ParamType::String, _) | (ParamType::Unknown, Untyped::String) => TextMode::Collect(FinishAs::Str),
            (ParamType::Unknown, Untyped::JsonOrString) if quoted => TextMode::Decide,
            (ParamType::Unknown, Untyped::JsonOrString) => TextMode::Collect(FinishAs::JsonOrStr),
            (ParamType::Unknown, Untyped::Spelled) if quoted => TextMode::Stream,
            (ParamType::Unknown, Untyped::Spelled) => TextMode::Collect(FinishAs::Scalar),
        }
    }

    fn begin_text(&mut self, quoted: bool, sink: &mut Sink) {
        self.mode = self.text_mode(quoted, sink);
        self.text.clear();
        if self.mode == TextMode::Stream {
            self.out("\"");
        }
    }

    fn text_chunk(&mut self, s: &str, sink: &mut Sink) {
        match self.mode {
            TextMode::Stream => self.out_text(s, sink),
            TextMode::Collect(_) => self.collect(s, sink),
            TextMode::Decide => match s.bytes().position(|b| !b.is_ascii_whitespace()) {
                None => self.collect(s, sink),
                Some(k) if could_start_json(s.as_bytes()[k]) => {
                    self.mode = TextMode::Collect(FinishAs::JsonOrStr);
                    self.collect(s, sink);
                }
                Some(_) => {
                    self.mode = TextMode::Stream;
                    let lead = core::mem::take(&mut self.text);
                    self.out("\"");
                    self.out_text(&lead, sink);
                    self.out_text(s, sink);
                }
            },
        }
    }

    fn collect(&mut self, s: &str, _sink: &Sink) {
        self.text.push_str(s);
    }

    /// Output is deferred or a text collected: consumed input is held (`held_in`).
    fn holding(&self) -> bool {
        self.caps > 0 || (matches!(self.tok, Tok::Bare | Tok::Quoted) && self.mode != TextMode::Stream)
    }

    /// The text value ended; `trim` for bare values.
    fn end_text(&mut self, trim: bool, sink: &mut Sink) {
        let text = core::mem::take(&mut self.text);
        let t = if trim { text.trim() } else { text.as_str() };
        match self.mode {
            TextMode::Stream => self.out("\""),
            TextMode::Decide | TextMode::Collect(FinishAs::Str) => self.out_json_string(t),
            TextMode::Collect(FinishAs::Coerce) => {
                let key = core::mem::take(&mut self.key);
                self.send(sink);
                let json = sink.coerce_param(&key, t);
                self.key = key;
                self.out(&json);
            }
            TextMode::Collect(how @ (FinishAs::JsonOrStr | FinishAs::Scalar)) => match plain_json(t) {
                Some(true) => self.out(t),
                Some(false) => self.out_json_string(t),
                None => match (crate::json::parse(t), how) {
                    (Ok(v), FinishAs::JsonOrStr) => self.out(&crate::json::to_text(&v)),
                    // Written as spelled (`1e3` stays `1e3`): it is valid JSON.
                    (Ok(v), _) if !v.is_object() && !v.is_array() && !v.is_string() => self.out(t),
                    _ => self.out_json_string(t),
                },
            },
        }
        self.text = text;
        self.text.clear();
        self.tok = Tok::None;
        self.value_done(sink);
    }

    // ---- reading ------------------------------------------------------------------------

    /// Reads argument text; see the module docs and `Status`. The call must be open.
    pub fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> (usize, Status) {
        // Natively only: the package's wasm keeps to its size budget with the general machine.
        let i = if cfg!(not(target_arch = "wasm32")) && self.python() { self.plain_members(input, sink) } else { 0 };
        let r = self.feed_values(input, i, eof, sink);
        self.send(sink);
        r
    }

    /// A native fast path (not in the wasm: size): `plain_scan` while the arguments frame is
    /// between members, its closer consumed when the scan reaches it. Writes what the general
    /// machine (`feed_values`) writes for those members, without its per-token steps. Returns
    /// the bytes read: the general machine reads on from the first member the scan left, from
    /// its first byte, so nothing depends on where a chunk ends.
    fn plain_members(&mut self, input: &str, sink: &mut Sink) -> usize {
        if self.tok != Tok::None || self.caps > 0 || self.discard || self.high.is_some() || self.stack.len() != 1 {
            return 0;
        }
        let f = &mut self.stack[0];
        let (mut at, mut n) = (f.at, f.n);
        let r = plain_scan(input, 0, f.close, sink.limits.max_name_bytes, &mut at, &mut n, &mut self.unsent);
        let f = &mut self.stack[0];
        (f.at, f.n) = (at, n);
        match r {
            Ok(k) => self.closed(k, sink),
            Err(i) => i,
        }
    }

    fn feed_values(&mut self, input: &str, mut i: usize, eof: bool, sink: &mut Sink) -> (usize, Status) {
        loop {
            if self.stack.is_empty() {
                return (i, Status::Closed);
            }
            // While holding, the token sees the input only up to the byte that would cross
            // `max_buffer_bytes`; needing more than that fails there.
            let holding = self.holding();
            if !holding {
                self.held_in = 0;
            }
            let max = sink.limits.max_buffer_bytes;
            let cap = if holding { crate::limits::crossing(input, i, input.len(), self.held_in, max) } else { None };
            let (view, view_eof) = match cap {
                Some(at) => (&input[..at], false),
                None => (input, eof),
            };
            let r = match self.tok {
                Tok::None => self.between(view, i, view_eof, sink),
                Tok::Ident { arg } => self.ident(view, i, view_eof, arg, sink),
                Tok::Num => self.num(view, i, view_eof, sink),
                Tok::Str { q, triple, flags } => self.py_str(view, i, view_eof, q, triple, flags, sink),
                Tok::Quoted => self.quoted(view, i, view_eof, sink),
                Tok::Bare => self.bare(view, i, view_eof, sink),
                Tok::Key { quoted } => self.kv_key(view, i, view_eof, quoted, sink),
            };
            let used = match &r {
                Ok(j) | Err(Halt::More(j)) | Err(Halt::Stop(j, _)) => *j,
            };
            if holding {
                self.held_in += used - i;
            }
            match r {
                Ok(j) => i = j,
                // Cut off by the cap while still held: the value needs more buffer than allowed.
                Err(Halt::More(j)) if cap.is_some() && self.holding() => {
                    return (j, Status::Failed(CallError::Limit(format!("a value needed more than {max} bytes of buffer"))));
                }
                // The token stopped holding within the capped view (a text decided to stream):
                // read on past the cap, as a chunk that ended there would.
                Err(Halt::More(j)) if cap.is_some() => i = j,
                Err(Halt::More(j)) => return (j, Status::More),
                Err(Halt::Stop(j, s)) => return (j, s),
            }
        }
    }

    /// After `Status::Failed`: the consumed text of the failed token, if any.
    pub fn take_unread(&mut self) -> String {
        core::mem::take(&mut self.unread)
    }

    /// At the end of the output: writes a value whose token was still open (a number, a
    /// constant, a collected text). Strings and containers are closed by the sink.
    pub fn finish(&mut self, sink: &mut Sink) {
        match self.tok {
            Tok::Ident { arg: false } => {
                if let Some(c) = lex::constant(&self.buf) {
                    self.out(c);
                }
            }
            Tok::Num => {
                self.out_number();
            }
            Tok::Str { .. } => self.flush_high(sink),
            Tok::Quoted if self.mode != TextMode::Stream => self.end_text(false, sink),
            Tok::Bare => self.end_text(true, sink),
            _ => {}
        }
        self.tok = Tok::None;
        self.send(sink);
    }

    /// Between tokens: separators, closers, and the start of keys and values.
    fn between(&mut self, input: &str, i: usize, eof: bool, sink: &mut Sink) -> Advance {
        let bytes = input.as_bytes();
        let i = skip_ws(bytes, i);
        let Some(&c) = bytes.get(i) else { return Err(Halt::More(i)) };
        let python = self.python();
        let f = self.top();
        let (kind, at, close, n, key_phase) = (f.kind, f.at, f.close, f.n, f.key_phase);
        if !python && c == b'<' {
            match self.marks.at_start(&input[i..], eof) {
                Err(()) => return Err(Halt::More(i)),
                Ok(Some(idx)) if self.marks.act(idx) == STOP => return Err(Halt::Stop(i, Status::Stopped)),
                _ => {}
            }
        }
        match at {
            At::After => {
                if c == close && !key_phase {
                    return Ok(self.closed(i, sink));
                }
                match (c, kind) {
                    (b',', Kind::Args | Kind::Obj | Kind::Dict) if !key_phase => self.top().at = At::Key,
                    (b',', Kind::List) => self.top().at = At::Value,
                    (b',', Kind::Paren | Kind::Brace) => {
                        self.decide_array();
                        self.top().at = At::Value;
                    }
                    (b':', Kind::Brace | Kind::Dict) if python && (kind == Kind::Brace || key_phase) => self.dict_colon(),
                    _ => return Err(fail(i, format!("expected `,` or `{}`", close as char))),
                }
                Ok(i + 1)
            }
            At::Colon => {
                if c != b':' {
                    return Err(fail(i, "expected `:` after a key".into()));
                }
                let key = core::mem::take(&mut self.buf);
                self.write_key(key.trim());
                self.buf = key;
                self.buf.clear();
                Ok(i + 1)
            }
            At::Key => {
                if c == close {
                    return Ok(self.closed(i, sink));
                }
                if python {
                    if kind == Kind::Dict {
                        self.top().key_phase = true;
                        self.top().at = At::Value;
                        return self.start_value(input, i, eof, sink);
                    }
                    if lex::is_ident_start(c) {
                        self.buf.clear();
                        self.tok = Tok::Ident { arg: true };
                        return Ok(i);
                    }
                    self.positional(sink);
                    return self.start_value(input, i, eof, sink);
                }
                // Key-value key: quoted or bare.
                self.buf.clear();
                match self.marks.at_start(&input[i..], eof) {
                    Err(()) => Err(Halt::More(i)),
                    Ok(Some(idx)) if self.marks.act(idx) == QUOTE => {
                        self.tok = Tok::Key { quoted: true };
                        Ok(i + self.marks.text(idx).len())
                    }
                    _ if matches!(c, b',' | b':' | b'{' | b'}' | b'[' | b']' | b'(' | b')') => Err(fail(i, "expected a key".into())),
                    _ => {
                        self.tok = Tok::Key { quoted: false };
                        Ok(i)
                    }
                }
            }
            At::Value => {
                let may_close = matches!(kind, Kind::List | Kind::Paren | Kind::Brace) && (n == 0 || kind == Kind::List);
                if c == close && may_close {
                    return Ok(self.closed(i, sink));
                }
                self.start_value(input, i, eof, sink)
            }
        }
    }

    fn closed(&mut self, i: usize, sink: &mut Sink) -> usize {
        self.close_top(sink);
        i + 1
    }

    /// Starts the value at `input[i]` (not whitespace) in the top frame.
    fn start_value(&mut self, input: &str, i: usize, eof: bool, sink: &mut Sink) -> Advance {
        let bytes = input.as_bytes();
        let c = bytes[i];
        if self.python() {
            // Decide first (look-ahead may be needed), then do the bookkeeping once.
            let triple = if c == b'\'' || c == b'"' {
                match triple_at(bytes, i, eof) {
                    None => return Err(Halt::More(i)),
                    Some(t) => Some(t),
                }
            } else {
                None
            };
            let start = matches!(c, b'\'' | b'"' | b'[' | b'(' | b'{' | b'-' | b'+' | b'.') || c.is_ascii_digit() || lex::is_ident_start(c);
            if !start {
                return Err(fail(i, format!("unexpected `{}`", printable(input, i))));
            }
            self.begin_member();
            match c {
                b'\'' | b'"' => {
                    let triple = triple.unwrap_or(false);
                    self.out("\"");
                    self.tok = Tok::Str { q: c, triple, flags: StrFlags::default() };
                    Ok(i + if triple { 3 } else { 1 })
                }
                b'[' => self.push(Kind::List, b']', sink).map(|_| i + 1).map_err(|s| Halt::Stop(i, s)),
                b'(' => self.push(Kind::Paren, b')', sink).map(|_| i + 1).map_err(|s| Halt::Stop(i, s)),
                b'{' => self.push(Kind::Brace, b'}', sink).map(|_| i + 1).map_err(|s| Halt::Stop(i, s)),
                _ if lex::is_ident_start(c) => {
                    self.buf.clear();
                    self.tok = Tok::Ident { arg: false };
                    Ok(i)
                }
                _ => {
                    self.buf.clear();
                    self.tok = Tok::Num;
                    Ok(i)
                }
            }
        } else {
            let quote = match self.marks.at_start(&input[i..], eof) {
                Err(()) => return Err(Halt::More(i)),
                Ok(Some(idx)) if self.marks.act(idx) == QUOTE => Some(self.marks.text(idx).len()),
                _ => None,
            };
            self.begin_member();
            let top_level = self.stack.len() == 1;
            if top_level && matches!(c, b'{' | b'[') && param_type(sink, &self.key) == ParamType::Typed {
                let cap = self.capture();
                self.top().cap = Some(cap);
            }
            match (quote, c) {
                (Some(len), _) => {
                    self.begin_text(true, sink);
                    self.tok = Tok::Quoted;
                    Ok(i + len)
                }
                (None, b'{') => self.push(Kind::Obj, b'}', sink).map(|_| i + 1).map_err(|s| Halt::Stop(i, s)),
                (None, b'[') => self.push(Kind::List, b']', sink).map(|_| i + 1).map_err(|s| Halt::Stop(i, s)),
                _ => {
                    self.begin_text(false, sink);
                    self.tok = Tok::Bare;
                    Ok(i)
                }
            }
        }
    }

    /// A Python identifier: a keyword-argument name, a constant, a string prefix or a
    /// (positional) name.
    fn ident(&mut self, input: &str, mut i: usize, eof: bool, arg: bool, sink: &mut Sink) -> Advance {
        let bytes = input.as_bytes();
        let start = i;
        while i < bytes.len() && lex::is_ident_byte(bytes[i]) {
            i += 1;
        }
        if let Some(at) = crate::limits::crossing(input, start, i, self.buf.len(), sink.limits.max_name_bytes) {
            return Err(Halt::Stop(at, Status::Failed(CallError::Limit("identifier too long".into()))));
        }
        self.buf.push_str(&input[start..i]);
        if i == bytes.len() && !eof {
            return Err(Halt::More(i));
        }
        if arg {
            let j = skip_ws(bytes, i);
            if j == bytes.len() && eof {
                // Cut off: a name that may have become a keyword.
                return Err(Halt::More(i));
            }
            if j - i > WS_AHEAD || bytes.get(j).is_some_and(|&b| b != b'=') {
                // Not `name=`: a positional value.
                self.tok = Tok::Ident { arg: false };
                self.positional(sink);
                self.begin_member();
            } else if j == bytes.len() {
                return Err(Halt::More(i));
            } else {
                let key = core::mem::take(&mut self.buf);
                self.write_key(&key);
                self.buf = key;
                self.tok = Tok::None;
                return Ok(j + 1);
            }
        }
        let c = bytes.get(i).copied();
        if let (Some(q @ (b'\'' | b'"')), Some(flags)) = (c, lex::str_prefix(&self.buf)) {
            let Some(triple) = triple_at(bytes, i, eof) else { return Err(Halt::More(i)) };
            self.out("\"");
            self.tok = Tok::Str { q, triple, flags };
            return Ok(i + if triple { 3 } else { 1 });
        }
        if let Some(json) = lex::constant(&self.buf) {
            self.out(json);
        } else if !self.discard || c == Some(b'(') {
            // The identifier was consumed: it goes back as text with what follows.
            let msg = if self.discard { "a call is not a literal".into() } else { format!("`{}` is not a literal", self.buf) };
            self.unread = core::mem::take(&mut self.buf);
            return Err(fail(i, msg));
        }
        self.tok = Tok::None;
        self.value_done(sink);
        Ok(i)
    }

    fn num(&mut self, input: &str, mut i: usize, eof: bool, sink: &mut Sink) -> Advance {
        let bytes = input.as_bytes();
        while i < bytes.len() {
            let b = bytes[i];
            let hex = {
                let t = self.buf.trim_start_matches(['-', '+']).as_bytes();
                t.len() > 1 && (t[1] | 0x20) == b'x'
            };
            if !self.buf.bytes().last().is_none_or(|prev| lex::is_num_byte(b, prev, hex)) {
                break;
            }
            // Decided at the byte that crosses the limit, whatever the chunking.
            if self.buf.len() >= sink.limits.max_name_bytes {
                return Err(Halt::Stop(i, Status::Failed(CallError::Limit("number too long".into()))));
            }
            // Number bytes are ASCII (the first was checked by `start_value`).
            self.buf.push(b as char);
            i += 1;
        }
        if i == bytes.len() && !eof {
            return Err(Halt::More(i));
        }
        if !self.out_number() {
            return Err(fail(i, format!("`{}` is not a number", self.buf)));
        }
        self.tok = Tok::None;
        self.value_done(sink);
        Ok(i)
    }

    /// Inside a Python string: runs stream out; escapes, braces and quotes are decided here.
    #[allow(clippy::too_many_arguments)]
    fn py_str(&mut self, input: &str, mut i: usize, eof: bool, q: u8, triple: bool, flags: StrFlags, sink: &mut Sink) -> Advance {
        let bytes = input.as_bytes();
        loop {
            let start = i;
            while i < bytes.len() && !(bytes[i] == q || bytes[i] == b'\\' || (flags.fmt && matches!(bytes[i], b'{' | b'}'))) {
                i += 1;
            }
            self.out_text(&input[start..i], sink);
            let Some(&c) = bytes.get(i) else { return Err(Halt::More(i)) };
            let next = bytes.get(i + 1).copied();
            if c == b'\\' {
                let rest = &bytes[i + 1..];
                if flags.raw {
                    // The backslash and the next character are both literal.
                    let Some(ch) = input[i + 1..].chars().next() else {
                        if eof {
                            self.out_text("\\", sink);
                            return Err(Halt::More(i + 1));
                        }
                        return Err(Halt::More(i));
                    };
                    self.out_text(&input[i..i + 1 + ch.len_utf8()], sink);
                    i += 1 + ch.len_utf8();
                    continue;
                }
                let Some((used, e)) = lex::escape(rest, eof) else { return Err(Halt::More(i)) };
                match e {
                    Escape::Code(cp) => self.out_code(cp, sink),
                    Escape::Nothing => {}
                    Escape::Literal => self.out_text("\\", sink),
                }
                i += 1 + used;
                continue;
            }
            if c != q {
                // `{{` / `}}` in an f-string; a lone brace is kept as written.
                match next {
                    None if !eof => return Err(Halt::More(i)),
                    Some(n) if n == c => {
                        self.out_text(&input[i..i + 1], sink);
                        i += 2;
                    }
                    _ => {
                        self.out_text(&input[i..i + 1], sink);
                        i += 1;
                    }
                }
                continue;
            }
            if triple {
                match (next, bytes.get(i + 2)) {
                    (Some(a), Some(&b)) if a == q && b == q => return Ok(self.str_closed(i + 3, sink)),
                    (None, _) | (Some(_), None) if !eof && next.is_none_or(|a| a == q) => return Err(Halt::More(i)),
                    _ => {
                        self.out_text(&input[i..i + 1], sink);
                        i += 1;
                        continue;
                    }
                }
            }
            // A single quote closes the string when what follows can follow a value; else it
            // is a nested quote of the same style (LFM2 repair).
            let j = skip_ws(bytes, i + 1);
            if j == bytes.len() && !eof && j - i - 1 <= WS_AHEAD {
                return Err(Halt::More(i));
            }
            if j - i - 1 > WS_AHEAD || j == bytes.len() || matches!(bytes[j], b',' | b')' | b']' | b'}' | b':') {
                return Ok(self.str_closed(i + 1, sink));
            }
            self.out_text(&input[i..i + 1], sink);
            i += 1;
        }
    }

    fn str_closed(&mut self, i: usize, sink: &mut Sink) -> usize {
        self.flush_high(sink);
        self.out("\"");
        self.tok = Tok::None;
        self.value_done(sink);
        i
    }

    /// Inside a key-value quoted text: up to the quote token (a stop marker ends the call).
    fn quoted(&mut self, input: &str, i: usize, eof: bool, sink: &mut Sink) -> Advance {
        use crate::scan::Hit;
        match self.marks.find(&input[i..], eof) {
            Hit::Found { at, idx } => {
                self.text_chunk(&input[i..i + at], sink);
                if self.marks.act(idx) == STOP {
                    return Err(Halt::Stop(i + at, Status::Stopped));
                }
                self.end_text(false, sink);
                Ok(i + at + self.marks.text(idx).len())
            }
            Hit::Hold { at } => {
                self.text_chunk(&input[i..i + at], sink);
                Err(Halt::More(i + at))
            }
            Hit::None => {
                self.text_chunk(&input[i..], sink);
                Err(Halt::More(input.len()))
            }
        }
    }

    /// A key-value bare text: up to `,`, the frame's closer, or a stop marker.
    fn bare(&mut self, input: &str, mut i: usize, eof: bool, sink: &mut Sink) -> Advance {
        let bytes = input.as_bytes();
        let close = self.top().close;
        loop {
            let start = i;
            while i < bytes.len() && !matches!(bytes[i], b',' | b'<') && bytes[i] != close {
                i += 1;
            }
            self.collect(&input[start..i], sink);
            let Some(&c) = bytes.get(i) else { return Err(Halt::More(i)) };
            if c == b'<' {
                match self.marks.at_start(&input[i..], eof) {
                    Err(()) => return Err(Halt::More(i)),
                    Ok(Some(idx)) if self.marks.act(idx) == STOP => return Err(Halt::Stop(i, Status::Stopped)),
                    _ => {
                        self.collect("<", sink);
                        i += 1;
                        continue;
                    }
                }
            }
            self.end_text(true, sink);
            return Ok(i);
        }
    }

    /// A key-value key: bare up to `:`, or quoted up to the quote token.
    fn kv_key(&mut self, input: &str, mut i: usize, eof: bool, quoted: bool, sink: &mut Sink) -> Advance {
        use crate::scan::Hit;
        let bytes = input.as_bytes();
        // Over `maxNameBytes` once `n` more bytes from `start` join the key.
        let (start, held, max) = (i, self.buf.len(), sink.limits.max_name_bytes);
        let too_long = |n: usize| match crate::limits::crossing(input, start, start + n, held, max) {
            Some(at) => Err(Halt::Stop(at, Status::Failed(CallError::Limit("key too long".into())))),
            None => Ok(()),
        };
        let done = if quoted {
            match self.marks.find(&input[i..], eof) {
                Hit::Found { at, idx } if self.marks.act(idx) == QUOTE => {
                    too_long(at)?;
                    self.buf.push_str(&input[i..i + at]);
                    i += at + self.marks.text(idx).len();
                    true
                }
                Hit::Found { at, .. } => {
                    too_long(at)?;
                    return Err(Halt::Stop(i + at, Status::Stopped));
                }
                Hit::Hold { at } => {
                    too_long(at)?;
                    self.buf.push_str(&input[i..i + at]);
                    i += at;
                    false
                }
                Hit::None => {
                    too_long(input.len() - i)?;
                    self.buf.push_str(&input[i..]);
                    i = input.len();
                    false
                }
            }
        } else {
            while i < bytes.len() && !matches!(bytes[i], b':' | b',' | b'{' | b'}' | b'[' | b']' | b'(' | b')' | b'<') {
                i += 1;
            }
            too_long(i - start)?;
            self.buf.push_str(&input[start..i]);
            match bytes.get(i) {
                None => false,
                Some(b':') => true,
                Some(b'<') => match self.marks.at_start(&input[i..], eof) {
                    Err(()) => return Err(Halt::More(i)),
                    Ok(Some(idx)) if self.marks.act(idx) == STOP => return Err(Halt::Stop(i, Status::Stopped)),
                    _ => return Err(fail(i, "unexpected `<` in a key".into())),
                },
                Some(_) => return Err(fail(i, "expected `:` after a key".into())),
            }
        };
        if !done {
            return Err(Halt::More(i));
        }
        self.tok = Tok::None;
        self.top().at = At::Colon;
        Ok(i)
    }
}

/// Python keyword arguments whose values are plain tokens (a decimal integer without a
/// leading zero, a string without backslashes, a named constant), each followed by `,` or the
/// closer `close`, read whole from `input[i..]` in an arguments frame that stands at `at`
/// with `n` members written (both kept up to date), their JSON (`"key": value`, as
/// `write_key` and the token readers write it) appended to `out`. `Ok(k)`: the closer is at
/// `k`, unread and unwritten, where the frame may close; `Err(j)`: read up to `j`, before the
/// first member it cannot read whole here (anything else, or one that reaches the end of
/// `input`). `max` is `maxNameBytes` (keys and numbers at or over it are left).
#[inline]
fn plain_scan(input: &str, mut i: usize, close: u8, max: usize, at: &mut At, n: &mut usize, out: &mut String) -> Result<usize, usize> {
    let bytes = input.as_bytes();
    loop {
        let k = skip_ws(bytes, i);
        let Some(&c) = bytes.get(k) else { return Err(i) };
        if c == close && matches!(*at, At::Key | At::After) {
            return Ok(k);
        }
        if *at == At::After && c == b',' {
            *at = At::Key;
            i = k + 1;
            continue;
        }
        if *at != At::Key || !lex::is_ident_start(c) {
            return Err(i);
        }
        let key_end = run_end(bytes, k, lex::is_ident_byte);
        if key_end - k >= max || bytes.get(key_end) != Some(&b'=') {
            return Err(i);
        }
        let v = skip_ws(bytes, key_end + 1);
        let Some(&b) = bytes.get(v) else { return Err(i) };
        // The value's token ends at `end`; `quoted`: a string (its body is `v + 1..end - 1`).
        let (end, quoted) = match b {
            b'0'..=b'9' => {
                let len = run_end(bytes, v, |x| x.is_ascii_digit()) - v;
                let next = bytes.get(v + len).copied().unwrap_or(b' ');
                if len >= max || (b == b'0' && len > 1) || lex::is_num_byte(next, b'0', false) {
                    return Err(i);
                }
                (v + len, false)
            }
            b'\'' | b'"' => {
                let body = v + 1;
                // Eight bytes at a time: a long string is the usual large argument.
                let len = crate::text::scan_until(bytes, body, crate::text::Stops::bytes(b, b'\\')) - body;
                // Triple quotes, an escape, or no closing quote in sight.
                if bytes.get(body + len) != Some(&b) || (len == 0 && bytes.get(body + 1) == Some(&b)) {
                    return Err(i);
                }
                (body + len + 1, true)
            }
            _ if lex::is_ident_start(b) => {
                let len = run_end(bytes, v, lex::is_ident_byte) - v;
                if lex::constant(&input[v..v + len]).is_none() {
                    return Err(i);
                }
                (v + len, false)
            }
            _ => return Err(i),
        };
        // A separator or the closer must follow (a quote closes a string only there, within
        // `WS_AHEAD` bytes of whitespace).
        let after = skip_ws(bytes, end);
        let sep = bytes.get(after).copied();
        if !(sep == Some(b',') || sep == Some(close)) || (quoted && after - end > WS_AHEAD) {
            return Err(i);
        }
        // `"key": value` (identifier bytes need no escape).
        let value = &input[v..end];
        out.reserve(key_end - k + value.len() + 8);
        push_short(out, if *n == 0 { "\"" } else { ", \"" });
        push_short(out, &input[k..key_end]);
        push_short(out, "\": ");
        match (quoted, lex::constant(value)) {
            (true, _) => {
                out.push('"');
                push_escaped(out, &value[1..value.len() - 1]);
                out.push('"');
            }
            (false, Some(json)) => push_short(out, json),
            (false, None) => push_short(out, value),
        }
        *n += 1;
        if sep == Some(b',') {
            *at = At::Key;
            i = after + 1;
        } else {
            *at = At::After;
            i = after;
        }
    }
}

/// Appends `s` to `out`, a few ASCII bytes one by one: `push_str` costs a `memcpy` call, more
/// than the copy of a short key or number.
#[inline(always)]
fn push_short(out: &mut String, s: &str) {
    if s.len() <= 8 && s.is_ascii() {
        for b in s.bytes() {
            out.push(char::from(b));
        }
    } else {
        out.push_str(s);
    }
}

/// The arguments of a call whose `(` was just read, when they are plain keyword members
/// (`plain_scan`) and the closer `)`: their JSON object appended to `out`, and the index of
/// the `)` in `input` (`from` is the first byte after the `(`). `None` when they are not
/// (what was appended is then left in `out`).
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn plain_call_args(input: &str, from: usize, max: usize, out: &mut String) -> Option<usize> {
    let (mut at, mut n) = (At::Key, 0);
    out.push('{');
    let k = plain_scan(input, from, b')', max, &mut at, &mut n, out).ok()?;
    out.push('}');
    Some(k)
}

/// A reading step: `Ok(next position)` to go on, or stop.
type Advance = Result<usize, Halt>;

/// Why a reading step stopped.
enum Halt {
    /// Need more input; consumed up to here.
    More(usize),
    /// Stop here with a status.
    Stop(usize, Status),
}

fn fail(i: usize, msg: String) -> Halt {
    Halt::Stop(i, Status::Failed(CallError::Malformed(msg)))
}

/// The end of the run of bytes from `i` for which `f` holds.
pub(super) fn run_end(bytes: &[u8], mut i: usize, f: impl Fn(u8) -> bool) -> usize {
    while i < bytes.len() && f(bytes[i]) {
        i += 1;
    }
    i
}


/// Whether the quote at `bytes[i]` opens a triple-quoted string; `None` when undecidable yet.
fn triple_at(bytes: &[u8], i: usize, eof: bool) -> Option<bool> {
    let q = bytes[i];
    match (bytes.get(i + 1), bytes.get(i + 2)) {
        (Some(&a), Some(&b)) => Some(a == q && b == q),
        (Some(&a), None) if a != q => Some(false),
        _ if eof => Some(false),
        _ => None,
    }
}

fn printable(input: &str, i: usize) -> &str {
    let end = (i + 1..=input.len()).find(|&k| input.is_char_boundary(k)).unwrap_or(input.len());
    input.get(i..end).unwrap_or("?")
}

/// What `json::parse` makes of `t` when that is plain to see, without parsing it:
/// `Some(true)` for a scalar it writes back as `t` (`true`, `false`, `null`, an integer
/// without a leading zero), `Some(false)` when `t` cannot start JSON (no JSON: a string);
/// `None` otherwise.
fn plain_json(t: &str) -> Option<bool> {
    let b = t.as_bytes();
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    let integer = !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) && (digits[0] != b'0' || b.len() == 1);
    if integer || matches!(t, "true" | "false" | "null") {
        return Some(true);
    }
    match b.first() {
        Some(&c) if !could_start_json(c) && !crate::json::scanner::is_ws(c) => Some(false),
        _ => None,
    }
}

fn could_start_json(b: u8) -> bool {
    matches!(b, b'{' | b'[' | b'"' | b'-' | b't' | b'f' | b'n') || b.is_ascii_digit()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ParamType {
    /// No tools, undeclared, or no type information.
    Unknown,
    /// Declared as a string only.
    String,
    /// Declared with some other type.
    Typed,
}

/// What the open call's tool declares for parameter `key`.
fn param_type(sink: &Sink, key: &str) -> ParamType {
    let (Some(tools), Some(name)) = (&sink.tools, sink.call_name()) else { return ParamType::Unknown };
    let Some((schema, root)) = tools.param(name, key) else { return ParamType::Unknown };
    let t = crate::schema::types(schema, root);
    if t.is_empty() {
        ParamType::Unknown
    } else if t.only_string() {
        ParamType::String
    } else {
        ParamType::Typed
    }
}

/// A container value of a typed parameter, coerced by its schema (reports `type_coercion`).
fn typed_json(sink: &mut Sink, key: &str, json: &str) -> String {
    sink.coerce_param_json(key, json)
}

#[cfg(test)]
mod tests {
    use super::plain_json;

    /// `plain_json` decides as `json::parse` does where it decides.
    #[test]
    fn plain_json_is_what_parse_makes() {
        for t in ["0", "7", "-12", "123456789012345678901234567890", "true", "false", "null", "01", "-0", "-", "", "1e3", "1.5", "Paris", " 3", "3 ", "nul", "truex", "\"a\"", "[1]", "{}", "x1", "+1", "é", "\u{a0}1"] {
            match plain_json(t) {
                Some(true) => assert_eq!(crate::json::parse(t).map(|v| crate::json::to_text(&v)).as_deref(), Ok(t), "{t:?}"),
                Some(false) => assert!(crate::json::parse(t).is_err(), "{t:?}"),
                None => {}
            }
        }
        assert_eq!(plain_json("3"), Some(true));
        assert_eq!(plain_json("Paris"), Some(false));
        assert_eq!(plain_json("1e3"), None);
    }
}
