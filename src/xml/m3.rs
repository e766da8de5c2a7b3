//! MiniMax-M3: every tag carries the prefix `]<]minimax[>[` (`P` below). A call is
//! `P<invoke name="N">` then one element per parameter, named after its key, then `P</invoke>`:
//! `P<city>Paris P</city>`, or nested: `P<shipping>P<zip>018956P</zip>P</shipping>`.
//!
//! - A parameter whose content is text is a scalar: a string streams as it arrives (typed
//!   values are written coerced at the close tag), via `value::ParamValue`. Markup inside a
//!   string is kept as text.
//! - A parameter whose content is elements (or whose schema is an object or array) is read into
//!   a tree and written, coerced by the schema, when it closes: children become an object (a
//!   repeated child name collects into a list; text beside children goes under `$text`), or an
//!   array when the schema says array (item names, usually `<item>`, are dropped). An empty
//!   element is `[]`/`{}` when the schema says array/object.
//! - Element names are at most 128 bytes; the arguments nest at most `Limits::depth` levels
//!   (`limit_exceeded`, the call ends); a tree at most `max_buffer_bytes`. Broken nesting ends
//!   the call (`malformed_json`).

use crate::prelude::*;
use super::value::{self, ParamValue};
use super::{code, header, Gap};
use crate::reader::{CallError, Reader, Status, Step};
use crate::text::floor_char_boundary;
use crate::event::Label;
use crate::json::scanner::nests_within;
use crate::json::ObjectWriter;
use crate::scan::{Act, Hit, MarkerSet};
use crate::schema::{self, Ty};
use crate::sink::Sink;
use crate::json::{Map, Value};

/// The namespace prefix of every MiniMax-M3 tag.
pub const PREFIX: &str = "]<]minimax[>[";
const MAX_ELEMENT_NAME: usize = 128;

const END: u8 = 0;
const CLOSE: u8 = 1;
const STOP: u8 = 2;
const ENDTAG: u8 = 3;
const OPENTAG: u8 = 4;
const PCLOSE: u8 = 5;

struct Frame {
    name: String,
    schema: Option<Value>,
    text: String,
    children: Vec<(String, Value)>,
}

/// Which part of a MiniMax-M3 call the reader is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Header,
    Between,
    /// Reading an element name up to `>`.
    TagName { closing: bool },
    /// After a parameter's opening tag: text or elements?
    Peek,
    Leaf,
    Tree,
    Done,
}

/// Reads one MiniMax-M3 call; see the module docs.
pub struct M3Reader {
    part: Part,
    /// Markers between parameters and inside trees.
    tags: MarkerSet,
    /// The header's end plus `tags`.
    header_set: MarkerSet,
    /// Ends the current string parameter: `P</KEY>` plus the call's ends.
    leaf_set: MarkerSet,
    buf: String,
    key: String,
    w: ObjectWriter,
    value: Option<ParamValue>,
    frames: Vec<Frame>,
    /// The tool's parameters schema, for `$ref`s of tree parameters.
    root: Value,
    tree_bytes: usize,
    /// Every element of the current tree matched its schema.
    coerced_ok: bool,
    gap: Gap,
    /// What broke the call (reported when it ended), for the `Done` step.
    failure: Option<CallError>,
}

fn add_tags(s: &mut MarkerSet) {
    s.add(&format!("{PREFIX}</invoke>"), Act::Other(CLOSE))
        .add(&format!("{PREFIX}</tool_call>"), Act::Other(STOP))
        .add(&format!("{PREFIX}<invoke name="), Act::Other(STOP))
        .add(&format!("{PREFIX}</"), Act::Other(ENDTAG))
        .add(&format!("{PREFIX}<"), Act::Other(OPENTAG));
}

impl M3Reader {
    pub fn new() -> M3Reader {
        let mut tags = MarkerSet::new();
        add_tags(&mut tags);
        let mut header_set = MarkerSet::new();
        header_set.add(">", Act::Other(END));
        add_tags(&mut header_set);
        M3Reader::with_sets(tags, header_set)
    }

    /// A fresh reader with marker sets built before (`new`, `Reader::reset`).
    fn with_sets(tags: MarkerSet, header_set: MarkerSet) -> M3Reader {
        M3Reader {
            part: Part::Header,
            tags,
            header_set,
            leaf_set: MarkerSet::new(),
            buf: String::new(),
            key: String::new(),
            w: ObjectWriter::new(),
            value: None,
            frames: Vec::new(),
            root: Value::Null,
            tree_bytes: 0,
            coerced_ok: true,
            gap: Gap::default(),
            failure: None,
        }
    }

    fn close_call(&mut self, sink: &mut Sink) {
        value::close_call(&mut self.w, sink);
        self.part = Part::Done;
    }

    fn truncated(&mut self, sink: &mut Sink) {
        self.value = None;
        sink.end_call_truncated();
        self.part = Part::Done;
    }

    fn malformed(&mut self, sink: &mut Sink, msg: &str) {
        self.fail(sink, CallError::Malformed(msg.into()));
    }

    /// Elements nest the arguments past `Limits::depth`: the call is ended.
    fn too_deep(&mut self, sink: &mut Sink) {
        self.fail(sink, CallError::Limit(format!("elements nested deeper than the maxDepth limit ({}); closed", sink.limits.depth())));
    }

    fn fail(&mut self, sink: &mut Sink, error: CallError) {
        self.value = None;
        sink.end_call_incomplete(error.label(), error.message());
        self.failure = Some(error);
        self.part = Part::Done;
    }

    /// The declared schema of parameter `key` of the open call (and its root).
    fn param_schema(sink: &Sink, key: &str) -> Option<(Value, Value)> {
        let (tools, name) = (sink.tools.as_ref()?, sink.call_name()?);
        tools.param(name, key).map(|(s, r)| (s.clone(), r.clone()))
    }

    /// A parameter element opened: decide between a tree and a scalar.
    fn open_param(&mut self, key: String, sink: &mut Sink) {
        let schema = Self::param_schema(sink, &key);
        let structured = schema.as_ref().is_some_and(|(s, r)| {
            let t = schema::types(s, r);
            (t.has(Ty::Object) || t.has(Ty::Array)) && !t.has(Ty::String)
        });
        let (schema, root) = schema.map_or((None, Value::Null), |(s, r)| (Some(s), r));
        self.root = root;
        self.key = key;
        self.frames = vec![Frame { name: self.key.clone(), schema, text: String::new(), children: Vec::new() }];
        self.tree_bytes = 0;
        self.coerced_ok = true;
        self.part = if structured { Part::Tree } else { Part::Peek };
    }

    fn begin_leaf(&mut self, sink: &mut Sink) {
        let key = core::mem::take(&mut self.key);
        let mut set = MarkerSet::new();
        set.add(&format!("{PREFIX}</{key}>"), Act::Other(PCLOSE));
        set.add(&format!("{PREFIX}</invoke>"), Act::Other(CLOSE)).add(&format!("{PREFIX}</tool_call>"), Act::Other(STOP));
        self.leaf_set = set;
        let text = self.frames.pop().map(|f| f.text).unwrap_or_default();
        self.frames.clear();
        let mut v = ParamValue::begin(None, &key, None, false, &mut self.w, sink);
        v.push(&text, &mut self.w, sink);
        v.flush(sink);
        self.value = Some(v);
        self.part = Part::Leaf;
    }

    /// The element on top of the stack closed.
    fn close_frame(&mut self, sink: &mut Sink) {
        let Some(f) = self.frames.pop() else { return };
        let name = f.name.clone();
        let schema = f.schema.clone();
        // Scalars are coerced with their own schema (which may come from an `anyOf` branch the
        // root's coercion does not follow); containers once, at the root: linear work.
        let leaf = f.children.is_empty();
        let mut v = frame_value(f, &self.root);
        if let Some(s) = schema.as_ref().filter(|_| leaf || self.frames.is_empty()) {
            let c = crate::schema::coerce::coerce_value(&v, s, &self.root);
            self.coerced_ok &= c.ok;
            v = c.value;
        }
        match self.frames.last_mut() {
            Some(parent) => parent.children.push((name, v)),
            None => {
                if !self.coerced_ok {
                    let call = sink.call_name().unwrap_or_default().to_string();
                    sink.call_diag(Label::TypeCoercion, format!("`{call}`.`{name}`: value does not match the declared type; kept as given"));
                }
                // Repeated children (a list) and coerced values can nest deeper than the elements.
                let json = crate::json::to_text(&v);
                if !nests_within(&json, sink.limits.value_depth()) {
                    return self.too_deep(sink);
                }
                let mut s = String::new();
                self.w.key(&name, &mut s);
                self.w.raw_value(&json, &mut s);
                sink.args(&s);
                self.part = Part::Between;
            }
        }
    }

    /// Appends tree text within the buffer limit. `Err(at)`: the limit is crossed at `s[at]`;
    /// the call was ended.
    fn tree_text(&mut self, s: &str, sink: &mut Sink) -> Result<(), usize> {
        let room = sink.limits.max_buffer_bytes.saturating_sub(self.tree_bytes);
        if s.len() > room {
            let key = self.frames.first().map(|f| f.name.clone()).unwrap_or_default();
            sink.call_diag(Label::LimitExceeded, format!("parameter `{key}` exceeds the {}-byte buffer", sink.limits.max_buffer_bytes));
            self.malformed(sink, "closed at the buffer limit");
            return Err(floor_char_boundary(s, room));
        }
        self.tree_bytes += s.len();
        if let Some(f) = self.frames.last_mut() {
            f.text.push_str(s);
        }
        Ok(())
    }

    /// An element name was read (`closing`: `P</NAME>`).
    fn tag(&mut self, closing: bool, sink: &mut Sink) {
        let name = core::mem::take(&mut self.buf);
        let in_tree = !self.frames.is_empty();
        match (closing, in_tree) {
            (false, false) => self.open_param(name, sink),
            (false, true) => {
                // Frame k is a value at level k + 2 once it has children (the arguments object is
                // level 1, the parameter's value level 2): a child of the top frame makes it one.
                if self.frames.len() >= sink.limits.depth() {
                    return self.too_deep(sink);
                }
                let (ps, root) = (self.frames.last().and_then(|f| f.schema.as_ref()), &self.root);
                let schema = ps.and_then(|s| {
                    let t = schema::types(s, root);
                    if t.has(Ty::Array) && !t.has(Ty::Object) {
                        items_of(s, root, 0)
                    } else {
                        schema::property(s, &name, root)
                    }
                });
                let schema = schema.cloned();
                self.frames.push(Frame { name, schema, text: String::new(), children: Vec::new() });
                self.part = Part::Tree;
            }
            (true, true) if self.frames.last().is_some_and(|f| f.name == name) => {
                self.part = Part::Tree;
                self.close_frame(sink);
            }
            (true, _) => self.malformed(sink, &format!("closing tag `{name}` does not match; closed")),
        }
    }
}

impl Default for M3Reader {
    fn default() -> Self {
        Self::new()
    }
}

/// Where the text before a marker search result ends.
fn header_end(hit: Hit, rest: &str) -> usize {
    match hit {
        Hit::Found { at, .. } | Hit::Hold { at } => at,
        Hit::None => rest.len(),
    }
}

/// The schema of array items, also inside `anyOf`/`oneOf`/`allOf` branches.
fn items_of<'a>(s: &'a Value, root: &'a Value, depth: usize) -> Option<&'a Value> {
    if depth > 16 {
        return None;
    }
    schema::items(s, root).or_else(|| {
        let s = schema::resolve(s, root)?;
        ["anyOf", "oneOf", "allOf"].iter().find_map(|k| s.get(*k)?.as_array()?.iter().find_map(|b| items_of(b, root, depth + 1)))
    })
}

/// An element's JSON (before schema coercion of its scalars).
fn frame_value(f: Frame, root: &Value) -> Value {
    let types = f.schema.as_ref().map(|s| schema::types(s, root)).unwrap_or_default();
    if f.children.is_empty() {
        if f.text.trim().is_empty() && !types.has(Ty::String) {
            if types.has(Ty::Array) {
                return Value::Array(Vec::new());
            }
            if types.has(Ty::Object) {
                return Value::Object(Map::new());
            }
        }
        return Value::String(f.text);
    }
    if types.has(Ty::Array) && !types.has(Ty::Object) {
        let mut list = Vec::with_capacity(f.children.len());
        for (_, v) in f.children {
            list.push(v);
        }
        return Value::Array(list);
    }
    // Children grouped by name, in document order; a repeated name stays a list.
    let mut m = Map::new();
    for (k, v) in f.children {
        if let Value::Array(a) = m.entry(k).or_insert_with(|| Value::Array(Vec::new())) {
            a.push(v);
        }
    }
    for v in m.values_mut() {
        if matches!(v, Value::Array(a) if a.len() == 1) {
            if let Value::Array(a) = v.take() {
                *v = a.into_iter().next().unwrap_or(Value::Null);
            }
        }
    }
    let text = f.text.trim();
    if !text.is_empty() {
        m.insert("$text".to_string(), Value::String(text.to_string()));
    }
    Value::Object(m)
}

impl Reader for M3Reader {
    fn reset(&mut self, _bare: bool) -> bool {
        let (tags, header_set) = (core::mem::take(&mut self.tags), core::mem::take(&mut self.header_set));
        *self = M3Reader::with_sets(tags, header_set);
        true
    }

    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let mut step = self.feed_call(input, eof, sink);
        if step.status == Status::Done && step.error.is_none() {
            step.error = self.failure.take();
        }
        step
    }
}

impl M3Reader {
    fn feed_call(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let mut i = 0;
        loop {
            let rest = &input[i..];
            match self.part {
                Part::Done => return Step::done(i),
                Part::Header => match self.header_set.find(rest, eof) {
                    hit if header_end(hit, rest) > (sink.limits.max_name_bytes + 256).saturating_sub(self.buf.len()) => {
                        let room = (sink.limits.max_name_bytes + 256).saturating_sub(self.buf.len());
                        return Step::reject(i + floor_char_boundary(rest, room));
                    }
                    Hit::Found { at, idx } => {
                        self.buf.push_str(&rest[..at]);
                        let name = header::parse(&self.buf, false).and_then(|h| h.ident().map(str::to_string));
                        let Some(name) = name.filter(|n| !n.is_empty() && n.len() <= sink.limits.max_name_bytes) else {
                            return Step::reject(i + at);
                        };
                        i += at;
                        sink.start_call(&name, None);
                        self.buf.clear();
                        self.part = Part::Between;
                        match code(&self.header_set, idx) {
                            END => i += 1,
                            STOP => {
                                self.close_call(sink);
                                return Step::done(i);
                            }
                            _ => {}
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
                },
                Part::Between | Part::Tree => {
                    let tree = self.part == Part::Tree;
                    match self.tags.find(rest, eof) {
                        Hit::Found { at, idx } => {
                            let (c, len) = (code(&self.tags, idx), self.tags.text(idx).len());
                            if tree {
                                if let Err(cut) = self.tree_text(&rest[..at], sink) {
                                    return Step::done(i + cut);
                                }
                            } else {
                                self.gap.push(&rest[..at], sink, None);
                                self.gap.end();
                            }
                            i += at;
                            match c {
                                ENDTAG | OPENTAG => {
                                    i += len;
                                    self.part = Part::TagName { closing: c == ENDTAG };
                                }
                                _ if tree => {
                                    self.malformed(sink, "the call ended inside a parameter; closed");
                                    return Step::done(i);
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
                            if tree {
                                if let Err(cut) = self.tree_text(&rest[..at], sink) {
                                    return Step::done(i + cut);
                                }
                            } else {
                                self.gap.push(&rest[..at], sink, None);
                            }
                            return Step::partial(i + at);
                        }
                        Hit::None => {
                            if tree {
                                if let Err(cut) = self.tree_text(rest, sink) {
                                    return Step::done(i + cut);
                                }
                            } else {
                                self.gap.push(rest, sink, None);
                            }
                            if eof {
                                self.truncated(sink);
                                return Step::done(input.len());
                            }
                            return Step::partial(input.len());
                        }
                    }
                }
                Part::TagName { closing } => {
                    let n = rest.bytes().position(|b| b == b'>' || b == b'<' || b.is_ascii_whitespace());
                    let end = n.unwrap_or(rest.len());
                    let room = MAX_ELEMENT_NAME - self.buf.len();
                    if end > room {
                        self.malformed(sink, "element name too long; closed");
                        return Step::done(i + floor_char_boundary(rest, room));
                    }
                    self.buf.push_str(&rest[..end]);
                    i += end;
                    if n.is_some_and(|k| rest.as_bytes()[k] != b'>') || (n.is_some() && self.buf.is_empty()) {
                        self.malformed(sink, "malformed element tag; closed");
                        return Step::done(i);
                    }
                    match n {
                        Some(_) => {
                            i += 1;
                            self.tag(closing, sink);
                        }
                        None if eof => {
                            self.truncated(sink);
                            return Step::done(input.len());
                        }
                        None => return Step::partial(input.len()),
                    }
                }
                Part::Peek => {
                    let j = rest.bytes().take_while(u8::is_ascii_whitespace).count();
                    if self.tree_bytes + j > 64 || (j < rest.len() && !rest[j..].starts_with(']')) {
                        self.begin_leaf(sink);
                        continue;
                    }
                    match self.tags.at_start(&rest[j..], eof) {
                        Err(()) => {
                            // Whitespace so far is the element's text either way.
                            if let Err(cut) = self.tree_text(&rest[..j], sink) {
                                return Step::done(i + cut);
                            }
                            return Step::partial(i + j);
                        }
                        Ok(Some(idx)) if code(&self.tags, idx) == OPENTAG => {
                            self.part = Part::Tree;
                        }
                        _ => self.begin_leaf(sink),
                    }
                }
                Part::Leaf => match self.leaf_set.find(rest, eof) {
                    Hit::Found { at, idx } => {
                        let (c, len) = (code(&self.leaf_set, idx), self.leaf_set.text(idx).len());
                        if let Some(v) = self.value.as_mut() {
                            v.push(&rest[..at], &mut self.w, sink);
                        }
                        i += at;
                        if c == PCLOSE {
                            i += len;
                        }
                        if let Some(v) = self.value.take() {
                            v.end(&mut self.w, sink).flush(sink);
                        }
                        self.part = Part::Between;
                    }
                    Hit::Hold { at } => {
                        if let Some(v) = self.value.as_mut() {
                            v.push(&rest[..at], &mut self.w, sink);
                        }
                        return Step::partial(i + at);
                    }
                    Hit::None => {
                        if let Some(v) = self.value.as_mut() {
                            v.push(rest, &mut self.w, sink);
                        }
                        if eof {
                            self.truncated(sink);
                            return Step::done(input.len());
                        }
                        return Step::partial(input.len());
                    }
                },
            }
        }
    }
}
