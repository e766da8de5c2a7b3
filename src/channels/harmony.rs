//! Harmony messages (gpt-oss, vLLM `openai`):
//!
//! ```text
//! [<|start|>ROLE][ to=RECIPIENT]<|channel|>CHANNEL[ to=RECIPIENT][ <|constrain|>FORMAT]<|message|>BODY
//! ```
//!
//! ending at `<|end|>`, `<|call|>` or `<|return|>` (left to the sequencer, which consumes them
//! as end markers) or at the next `<|start|>`/`<|channel|>`. One reader reads one message:
//!
//! - a recipient other than a role (`to=functions.NAME`, on any channel) makes a call named NAME
//!   (the `functions.` prefix dropped); its body must be a JSON object, streamed raw as argument
//!   deltas; an empty body is `{}`; a body that is not JSON is content, with `malformed_json`;
//! - otherwise the `analysis` channel is reasoning and every other channel is content.
//!
//! A header that does not reach `<|message|>` is not a message: its bytes are text (past
//! `max_name_bytes` + 128 bytes, with `limit_exceeded`).

use crate::prelude::*;
use crate::reader::{CallError, Reader, Step};
use crate::event::Label;
use crate::json::named::RawArgs;
use crate::json::call::skip_ws;
use crate::scan::{Act, Hit, MarkerSet};
use crate::sink::Sink;

/// Opening markers (bare: they are part of the header).
pub const OPEN: &[&str] = &["<|start|>", "<|channel|>"];
/// Message terminators.
pub const END: &[&str] = &["<|end|>", "<|call|>", "<|return|>"];

/// A header may hold a recipient name (`max_name_bytes`) plus this much framing.
const HEADER_SLACK: usize = 128;

const MESSAGE: Act = Act::Other(0);
const BREAK: Act = Act::Other(1);

/// Which part of a Harmony message the reader is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Header,
    Reasoning,
    Text,
    CallOpen,
    Args,
}

/// Reads one Harmony message. See the module docs.
pub struct HarmonyReader {
    part: Part,
    header: String,
    header_set: MarkerSet,
    body_end: MarkerSet,
    emitted: bool,
    name: String,
    args: RawArgs,
}

impl Default for HarmonyReader {
    fn default() -> Self {
        Self::new()
    }
}

impl HarmonyReader {
    pub fn new() -> Self {
        let mut header_set = MarkerSet::new();
        header_set.add("<|message|>", MESSAGE).add_all(END, BREAK).add("<|start|>", BREAK);
        let mut body_end = MarkerSet::new();
        body_end.add_all(END, BREAK).add_all(OPEN, BREAK);
        HarmonyReader {
            part: Part::Header,
            header: String::new(),
            header_set,
            body_end,
            emitted: false,
            name: String::new(),
            args: RawArgs::default(),
        }
    }

    /// For `Payload::Custom`.
    pub fn boxed(_bare: bool) -> Box<dyn Reader> {
        Box::new(Self::new())
    }

    /// The word after `key` in `header` (up to whitespace or `<`).
    fn word_after<'h>(header: &'h str, key: &str) -> Option<&'h str> {
        let at = header.find(key)? + key.len();
        let rest = header.get(at..)?.trim_start();
        let end = rest.find(|c: char| c.is_whitespace() || c == '<').unwrap_or(rest.len());
        Some(&rest[..end]).filter(|w| !w.is_empty())
    }

    /// Decides what the body is from the header.
    fn decide(&mut self) -> Part {
        let h = self.header.as_str();
        let recipient = h.match_indices("to=").find(|(at, _)| {
            let before = h[..*at].chars().next_back();
            before.is_none_or(|c| c.is_whitespace() || c == '>')
        });
        if let Some((at, _)) = recipient {
            let to = Self::word_after(&h[at..], "to=").unwrap_or("");
            if !to.is_empty() && !matches!(to, "assistant" | "user" | "system" | "developer" | "all") {
                self.name = to.strip_prefix("functions.").unwrap_or(to).to_string();
                return Part::CallOpen;
            }
        }
        match Self::word_after(h, "<|channel|>") {
            Some("analysis") => Part::Reasoning,
            _ => Part::Text,
        }
    }

    /// Emits a body chunk on the current channel.
    fn emit(&mut self, s: &str, sink: &mut Sink) {
        if self.part == Part::Reasoning { sink.reasoning(s) } else { sink.text(s) }
    }
}

impl Reader for HarmonyReader {
    fn committed(&self) -> bool {
        self.emitted
    }

    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let bytes = input.as_bytes();
        let mut i = 0;
        loop {
            match self.part {
                Part::Header => {
                    if self.header.is_empty() {
                        // The opening marker (the engine found it at the start of the input).
                        let Some(open) = OPEN.iter().find(|m| input.starts_with(**m)) else { return Step::reject(0) };
                        self.header.push_str(open);
                        i = open.len();
                    }
                    let rest = &input[i..];
                    let (take, found) = match self.header_set.find(rest, eof) {
                        Hit::Found { at, idx } => (at, Some(idx)),
                        Hit::Hold { at } => (at, None),
                        Hit::None => (rest.len(), None),
                    };
                    self.header.push_str(&rest[..take]);
                    i += take;
                    let max = sink.limits.max_name_bytes + HEADER_SLACK;
                    if self.header.len() > max {
                        return Step::reject_with(i, CallError::Limit(format!("a Harmony message header ran past {max} bytes; released as text")));
                    }
                    match found {
                        Some(idx) if self.header_set.act(idx) == MESSAGE => {
                            i += self.header_set.text(idx).len();
                            self.part = self.decide();
                            self.emitted = true;
                        }
                        Some(_) => return Step::reject(i),
                        None if eof => return Step::reject(i),
                        None => return Step::partial(i),
                    }
                }
                Part::Reasoning | Part::Text => {
                    let rest = &input[i..];
                    return match self.body_end.find(rest, eof) {
                        Hit::Found { at, .. } => {
                            self.emit(&rest[..at], sink);
                            Step::done(i + at)
                        }
                        Hit::Hold { at } => {
                            self.emit(&rest[..at], sink);
                            Step::partial(i + at)
                        }
                        Hit::None => {
                            self.emit(rest, sink);
                            if eof { Step::done(input.len()) } else { Step::partial(input.len()) }
                        }
                    };
                }
                Part::CallOpen => {
                    let j = skip_ws(input, i);
                    // Whitespace before the body is framing.
                    i = j;
                    if j == bytes.len() && !eof {
                        return Step::partial(i);
                    }
                    if j < bytes.len() && bytes[j] == b'{' {
                        sink.start_call(&self.name, None);
                        self.args.begin(sink);
                        i = j;
                        self.part = Part::Args;
                        continue;
                    }
                    let at_end = match self.body_end.at_start(&input[j..], eof) {
                        Err(()) => return Step::partial(i),
                        Ok(found) => found.is_some() || j == bytes.len(),
                    };
                    if at_end {
                        sink.start_call(&self.name, None);
                        if j < bytes.len() {
                            // An empty body: a call without arguments.
                            sink.args("{}");
                            sink.end_call();
                        } else {
                            sink.end_call_truncated();
                        }
                        return Step::done(j);
                    }
                    // Not JSON: the body is content.
                    let msg = format!("the message to `{}` is not a JSON object; kept as text", self.name);
                    sink.diag(Label::MalformedJson, msg, None);
                    self.part = Part::Text;
                }
                Part::Args => {
                    let (used, ended) = self.args.feed(&input[i..], eof, sink);
                    i += used;
                    return if ended { Step::done(i) } else { Step::partial(i) };
                }
            }
        }
    }
}
