//! Events a parser emits, and the one-shot result built from them.

use crate::prelude::*;
use crate::json::push_json_string;

/// Diagnostic labels: one stable vocabulary (their JS names are API: never renamed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Label {
    MalformedJson,
    Truncation,
    EscapingError,
    WrongTool,
    HallucinatedParam,
    MissingRequired,
    TypeCoercion,
    SchemaViolation,
    ParallelCollapse,
    /// A configured limit (size, depth, hold-back) was hit; the parser continued safely.
    LimitExceeded,
}

impl Label {
    pub const ALL: [Label; 10] = [
        Label::MalformedJson,
        Label::Truncation,
        Label::EscapingError,
        Label::WrongTool,
        Label::HallucinatedParam,
        Label::MissingRequired,
        Label::TypeCoercion,
        Label::SchemaViolation,
        Label::ParallelCollapse,
        Label::LimitExceeded,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Label::MalformedJson => "malformed_json",
            Label::Truncation => "truncation",
            Label::EscapingError => "escaping_error",
            Label::WrongTool => "wrong_tool",
            Label::HallucinatedParam => "hallucinated_param",
            Label::MissingRequired => "missing_required",
            Label::TypeCoercion => "type_coercion",
            Label::SchemaViolation => "schema_violation",
            Label::ParallelCollapse => "parallel_collapse",
            Label::LimitExceeded => "limit_exceeded",
        }
    }
}

/// One parser event; `to_json` writes its JS shape (README, Events).
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Content for the user.
    Text(String),
    /// Reasoning text (only with a reasoning parser, or families that carry channels).
    Reasoning(String),
    /// A call began; `index` counts calls from 0 in this stream.
    ToolCallStart { index: usize, id: String, name: String },
    /// The next fragment of the arguments JSON text.
    ToolCallDelta { index: usize, arguments_delta: String },
    /// The call is complete; `arguments` is the concatenation of its deltas. `repaired` is
    /// true when the parser had to close the arguments itself (truncation, malformed JSON, a
    /// size limit): such a call is reported with a diagnostic. `kept` says whether `parse()`
    /// lists the call (false only for a repaired call the recovery policy leaves out); a
    /// left-out call's markup, exactly as written, is `text`: content at the call's place
    /// (empty for kept calls, and under `keepMalformed: false`). The merge rule: a consumer
    /// merging events keeps a call iff its end event says `kept`, and otherwise takes its
    /// `text` as content; that is `ParseResult::from_events`, i.e. `parse()`.
    ToolCallEnd { index: usize, id: String, name: String, arguments: String, repaired: bool, kept: bool, text: String },
    /// Something was wrong; the parser continued.
    Diagnostic { label: Label, message: String, index: Option<usize> },
}

/// A borrowed view of one event: what `ToolCallParser::push_with` hands its callback (no
/// string of it is allocated; the views live until the callback returns). `to_event` makes
/// the `Event`, `Event::as_ref` the view; both write the same JSON.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EventRef<'a> {
    Text(&'a str),
    Reasoning(&'a str),
    ToolCallStart { index: usize, id: &'a str, name: &'a str },
    ToolCallDelta { index: usize, arguments_delta: &'a str },
    ToolCallEnd { index: usize, id: &'a str, name: &'a str, arguments: &'a str, repaired: bool, kept: bool, text: &'a str },
    Diagnostic { label: Label, message: &'a str, index: Option<usize> },
}

impl Event {
    /// The borrowed view of this event.
    pub fn as_ref(&self) -> EventRef<'_> {
        match self {
            Event::Text(t) => EventRef::Text(t),
            Event::Reasoning(t) => EventRef::Reasoning(t),
            Event::ToolCallStart { index, id, name } => EventRef::ToolCallStart { index: *index, id, name },
            Event::ToolCallDelta { index, arguments_delta } => EventRef::ToolCallDelta { index: *index, arguments_delta },
            Event::ToolCallEnd { index, id, name, arguments, repaired, kept, text } => {
                EventRef::ToolCallEnd { index: *index, id, name, arguments, repaired: *repaired, kept: *kept, text }
            }
            Event::Diagnostic { label, message, index } => EventRef::Diagnostic { label: *label, message, index: *index },
        }
    }

    /// Appends the JS/JSON shape of this event to `out`.
    pub fn write_json(&self, out: &mut String) {
        self.as_ref().write_json(out)
    }
}

impl EventRef<'_> {
    /// The owned event.
    pub fn to_event(self) -> Event {
        match self {
            EventRef::Text(t) => Event::Text(t.to_string()),
            EventRef::Reasoning(t) => Event::Reasoning(t.to_string()),
            EventRef::ToolCallStart { index, id, name } => Event::ToolCallStart { index, id: id.to_string(), name: name.to_string() },
            EventRef::ToolCallDelta { index, arguments_delta } => Event::ToolCallDelta { index, arguments_delta: arguments_delta.to_string() },
            EventRef::ToolCallEnd { index, id, name, arguments, repaired, kept, text } => Event::ToolCallEnd {
                index,
                id: id.to_string(),
                name: name.to_string(),
                arguments: arguments.to_string(),
                repaired,
                kept,
                text: text.to_string(),
            },
            EventRef::Diagnostic { label, message, index } => Event::Diagnostic { label, message: message.to_string(), index },
        }
    }

    /// Appends the JS/JSON shape of this event to `out`.
    pub fn write_json(self, out: &mut String) {
        match self {
            EventRef::Text(t) => {
                out.push_str("{\"type\":\"text\",\"text\":");
                push_json_string(out, t);
            }
            EventRef::Reasoning(t) => {
                out.push_str("{\"type\":\"reasoning\",\"text\":");
                push_json_string(out, t);
            }
            EventRef::ToolCallStart { index, id, name } => {
                out.push_str("{\"type\":\"tool-call-start\",\"index\":");
                push_usize(out, index);
                push_call(out, ",", id, name, None);
            }
            EventRef::ToolCallDelta { index, arguments_delta } => {
                out.push_str("{\"type\":\"tool-call-delta\",\"index\":");
                push_usize(out, index);
                out.push_str(",\"argumentsDelta\":");
                push_json_string(out, arguments_delta);
            }
            EventRef::ToolCallEnd { index, id, name, arguments, repaired, kept, text } => {
                out.push_str("{\"type\":\"tool-call-end\",\"index\":");
                push_usize(out, index);
                push_call(out, ",", id, name, Some(arguments));
                if repaired {
                    out.push_str(",\"repaired\":true");
                }
                out.push_str(if kept { ",\"kept\":true" } else { ",\"kept\":false" });
                if !text.is_empty() {
                    out.push_str(",\"text\":");
                    push_json_string(out, text);
                }
            }
            EventRef::Diagnostic { label, message, index } => push_diagnostic(out, label, message, index),
        }
        out.push('}');
    }
}

/// `{sep}"id":…,"name":…[,"arguments":…]` (no closing brace).
fn push_call(out: &mut String, sep: &str, id: &str, name: &str, arguments: Option<&str>) {
    out.push_str(sep);
    out.push_str("\"id\":");
    push_json_string(out, id);
    out.push_str(",\"name\":");
    push_json_string(out, name);
    if let Some(a) = arguments {
        out.push_str(",\"arguments\":");
        push_json_string(out, a);
    }
}

/// A diagnostic event's JSON, but for the closing brace.
fn push_diagnostic(out: &mut String, label: Label, message: &str, index: Option<usize>) {
    out.push_str("{\"type\":\"diagnostic\",\"label\":\"");
    out.push_str(label.as_str());
    out.push_str("\",\"message\":");
    push_json_string(out, message);
    if let Some(i) = index {
        out.push_str(",\"index\":");
        push_usize(out, i);
    }
}

pub(crate) fn push_usize(out: &mut String, n: usize) {
    push_u64(out, n as u64)
}

pub(crate) fn push_u64(out: &mut String, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Digits are ASCII.
    out.push_str(core::str::from_utf8(&buf[i..]).unwrap_or("0"));
}

/// A finished tool call.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments JSON object text.
    pub arguments: String,
}

/// A diagnostic in a one-shot result.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub label: Label,
    pub message: String,
    pub index: Option<usize>,
}

/// Which repaired calls a one-shot result keeps (see `policy.rs`); the sink applies it to each
/// ending call (`kept` on its end event).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Keep {
    /// Every call whose arguments the parser had to close.
    pub repaired: bool,
    /// Calls cut off by the end of the output (a `truncation` diagnostic with their index).
    pub truncated: bool,
}

impl From<bool> for Keep {
    fn from(b: bool) -> Keep {
        Keep { repaired: b, truncated: b }
    }
}

/// The one-shot result: `parse()` in JS.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParseResult {
    /// Concatenated `text` events; `None` when there were none.
    pub content: Option<String>,
    /// Concatenated `reasoning` events; `None` when there were none.
    pub reasoning: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    pub diagnostics: Vec<Diagnostic>,
}

impl ParseResult {
    /// Folds an event sequence into a result: the merge rule (contract invariant 3). Text and
    /// reasoning events concatenate; a call is listed iff its end event says `kept`, and a
    /// left-out call's `text` is content at its place; diagnostics are all kept. `parse()` and
    /// a streamed parse use this one function, so they agree by construction.
    pub fn from_events<'a>(events: impl IntoIterator<Item = &'a Event>) -> ParseResult {
        let mut r = ParseResult::default();
        for e in events {
            r.add(e.as_ref());
        }
        r
    }

    /// Folds one more event into the result (`from_events`, one event at a time: `parse()`
    /// folds the parser's borrowed views as they are drained, no owned event in between).
    pub fn add(&mut self, e: EventRef<'_>) {
        match e {
            EventRef::Text(t) => self.content.get_or_insert_with(String::new).push_str(t),
            EventRef::Reasoning(t) => self.reasoning.get_or_insert_with(String::new).push_str(t),
            EventRef::ToolCallEnd { id, name, arguments, kept: true, .. } => {
                self.tool_calls.push(ToolCall { id: id.to_string(), name: name.to_string(), arguments: arguments.to_string() })
            }
            EventRef::ToolCallEnd { text, .. } => {
                if !text.is_empty() {
                    self.content.get_or_insert_with(String::new).push_str(text)
                }
            }
            EventRef::Diagnostic { label, message, index } => {
                self.diagnostics.push(Diagnostic { label, message: message.to_string(), index })
            }
            EventRef::ToolCallStart { .. } | EventRef::ToolCallDelta { .. } => {}
        }
    }

    pub fn to_json(&self) -> String {
        let mut out = String::new();
        out.push_str("{\"content\":");
        push_opt_string(&mut out, self.content.as_deref());
        out.push_str(",\"reasoning\":");
        push_opt_string(&mut out, self.reasoning.as_deref());
        out.push_str(",\"toolCalls\":[");
        for (i, c) in self.tool_calls.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_call(&mut out, "{", &c.id, &c.name, Some(&c.arguments));
            out.push('}');
        }
        out.push_str("],\"diagnostics\":[");
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_diagnostic(&mut out, d.label, &d.message, d.index);
            out.push('}');
        }
        out.push_str("]}");
        out
    }
}

pub(crate) fn push_opt_string(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => push_json_string(out, s),
        None => out.push_str("null"),
    }
}
