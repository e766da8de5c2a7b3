//! The vocabulary in which families are described as data.
//!
//! A family is a `Syntax`: which markers open and close the tool region, and which payload
//! reader reads what comes after an opening marker. The sequencer (`engine.rs`) is the same for
//! every family; payload readers are a handful of reusable grammar pieces.

use crate::prelude::*;
use crate::reader::Reader;
use crate::sink::IdStyle;
pub use crate::json::call::{JsonShape, Wrapper};
pub use crate::json::named::NamedJson;

/// What follows an opening marker.
#[derive(Clone, Copy)]
pub enum Payload {
    /// No tool calls: everything is content (the `openai` passthrough).
    None,
    /// JSON call objects (keys per `Wrapper`).
    Json(JsonShape, Wrapper),
    /// A name, then raw JSON arguments.
    Named(&'static NamedJson),
    /// XML parameters (see `crate::xml`).
    Xml(&'static crate::xml::XmlSyntax),
    /// Pythonic calls or key-value arguments (see `crate::pythonic`).
    Pythonic(&'static crate::pythonic::PySyntax),
    /// Messages with headers (see `crate::channels::message`).
    Message(&'static crate::channels::message::MessageSyntax),
    /// A family-specific reader, made fresh for each payload; `bare` is true when the opening
    /// marker belongs to the payload.
    Custom(fn(bare: bool) -> Box<dyn Reader>),
}

impl Payload {
    /// A call object `{"name": ..., "arguments": ...}` opened by a bare `{` in content (the
    /// `bareJson` policy).
    pub const BARE_JSON_CALL: Payload = Payload::Json(JsonShape::Object, Wrapper::STANDARD);

    /// A fresh reader for one payload of this kind; `bare` is true when the opening marker
    /// belongs to the payload (it is the payload's first bytes).
    pub fn reader(self, bare: bool) -> Box<dyn Reader> {
        match self {
            Payload::None => Box::new(crate::json::call::NoCalls),
            Payload::Json(shape, wrapper) => Box::new(crate::json::call::CallsReader::new(shape, wrapper, bare)),
            Payload::Named(cfg) => Box::new(crate::json::named::NamedReader::new(cfg)),
            Payload::Xml(cfg) => crate::xml::reader(cfg, bare),
            Payload::Pythonic(cfg) => crate::pythonic::reader(cfg, bare),
            Payload::Message(cfg) => cfg.reader(),
            Payload::Custom(make) => make(bare),
        }
    }
}

/// A family's wire format. Empty marker lists mean "none". Families are `Syntax<'static>`; a
/// runtime format (a response template, `crate::template`) borrows its markers from owned
/// strings for as long as it takes to build the engine.
#[derive(Clone, Copy)]
pub struct Syntax<'a> {
    /// Open a section that holds one or more payloads (e.g. `<|tool_calls_section_begin|>`).
    pub section: &'a [&'a str],
    /// Close a section.
    pub section_end: &'a [&'a str],
    /// Open a payload; consumed (e.g. `<tool_call>`). Recognised in content and in sections.
    pub start: &'a [&'a str],
    /// Open a payload and belong to it (e.g. `{` for bare JSON).
    pub bare: &'a [&'a str],
    /// Like `bare`, but only inside a section (dots' JSON fallback `{` in its call block).
    pub section_bare: &'a [&'a str],
    /// Close a payload; consumed after it, optional.
    pub end: &'a [&'a str],
    /// Swallowed in content (role and turn tokens that are not text).
    pub ignore: &'a [&'a str],
    /// Reasoning markers that are part of the format (channel formats such as Cohere's
    /// `<|START_THINKING|>`); used when no reasoning parser is chosen.
    pub reasoning: Option<&'a Reasoning<'a>>,
    pub payload: Payload,
    /// `parse()` keeps calls whose arguments the parser had to close (vLLM recovers them for
    /// some families, e.g. Gemma 4). Overridden by the `recover` option.
    pub keep_repaired: bool,
}

impl Syntax<'static> {
    /// The family syntax of a message dialect: its opening markers belong to the message
    /// (bare), its end markers close it and are swallowed in content.
    pub const fn message(cfg: &'static crate::channels::message::MessageSyntax) -> Syntax<'static> {
        Syntax { bare: cfg.opens, end: cfg.ends, ignore: cfg.ends, payload: Payload::Message(cfg), ..Syntax::NONE }
    }
}

impl Syntax<'_> {
    pub const NONE: Syntax<'static> = Syntax {
        section: &[],
        section_end: &[],
        start: &[],
        bare: &[],
        section_bare: &[],
        end: &[],
        ignore: &[],
        reasoning: None,
        payload: Payload::None,
        keep_repaired: false,
    };
}

/// One parser family: a vLLM `--tool-call-parser` name and its aliases.
#[derive(Clone, Copy)]
pub struct Family {
    pub id: &'static str,
    pub aliases: &'static [&'static str],
    /// Public model names this family reads (for `parsers()` and detection).
    pub models: &'static [&'static str],
    pub description: &'static str,
    pub syntax: Syntax<'static>,
    pub id_style: IdStyle,
}

/// How the `thinking` option (vLLM's `thinking`/`enable_thinking` chat-template switch) sets
/// where the output starts. Starting inside reasoning means text before an end marker is
/// reasoning with no start marker (the prompt opened it; a duplicate start is swallowed). In
/// every case a start marker the model writes opens reasoning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Thinking {
    /// The model writes its own start marker: the output starts in content whatever the switch.
    #[default]
    Opened,
    /// Starts inside reasoning unless `thinking: false`.
    DefaultOn,
    /// Starts in content unless `thinking: true` (vLLM's `deepseek_v3`, `deepseek_v41`).
    DefaultOff,
    /// Always starts inside reasoning: the template pre-fills the start and ignores the switch.
    Always,
}

impl Thinking {
    /// Whether the output starts inside reasoning, given the `thinking` option (`None`: unset).
    pub const fn starts_inside(self, option: Option<bool>) -> bool {
        match self {
            Thinking::Opened => false,
            Thinking::DefaultOn => !matches!(option, Some(false)),
            Thinking::DefaultOff => matches!(option, Some(true)),
            Thinking::Always => true,
        }
    }
}

/// Reasoning markers (a vLLM `--reasoning-parser`, or a format's own channel markers).
#[derive(Clone, Copy, Debug)]
pub struct Reasoning<'a> {
    pub id: &'a str,
    pub aliases: &'a [&'a str],
    pub start: &'a [&'a str],
    pub end: &'a [&'a str],
    /// Answer framing swallowed in content (e.g. `<answer>`, `<response>`).
    pub ignore: &'a [&'a str],
    /// Where the output starts for each value of the `thinking` option.
    pub thinking: Thinking,
    /// A tool-call marker inside reasoning ends it and opens the call; otherwise it is reasoning.
    pub calls_end: bool,
    /// Whitespace at the end of a reasoning block is dropped (Step-3.5).
    pub strip_tail: bool,
    pub description: &'a str,
}
