//! Muse Spark / Glimmer: Harmony-like messages, `<|start|>assistant to=RECIPIENT<|message|>BODY`
//! ended by `<|eom|>` / `<|eot|>` (or the next `<|start|>`), with ATEM calls in tool messages:
//! `<atem:function_calls><atem:invoke name="N"><atem:parameter name="K">V</atem:parameter></atem:invoke></atem:function_calls>`.
//!
//! The reader opens at a bare `<|start|>` or `to=` (the output may begin mid-header, right after
//! the prompt's `<|start|>assistant`). A header that does not reach `<|message|>` on one line is
//! rejected (prose). Recipients: `self` is reasoning (as is a message without a recipient, for
//! Muse; Glimmer reads it as content), and so is `developer` (vLLM drops it; it is not the
//! answer, and nothing is lost); `user`, `commentary`, `all` and other roles are content; anything else is a tool: its body's ATEM invokes are calls (read by
//! `call::XmlReader`), other body text is content. Reasoning and content bodies are emitted as
//! they arrive, so the reader commits at the end of a valid header.

use crate::prelude::*;
use super::call::XmlReader;
use super::{code, Gap, XmlSyntax};
use crate::reader::{Reader, Status, Step};
use crate::scan::{Act, Hit, MarkerSet};
use crate::sink::Sink;

/// Message and ATEM markup of one Muse variant.
#[derive(Debug)]
pub struct MuseSyntax {
    /// The ATEM call dialect (`<atem:invoke name=` opens a call).
    pub atem: &'static XmlSyntax,
    /// A message without a recipient is reasoning (Muse) rather than content (Glimmer).
    pub bare_is_reasoning: bool,
}

const START: &str = "<|start|>";
const MESSAGE: &str = "<|message|>";
const INVOKE: &str = "<atem:invoke name=";
/// End a message (consumed).
const ENDS: &[&str] = &["<|eom|>", "<|eot|>", "<|end|>", "<|call|>", "<|return|>"];
/// Framing inside tool messages (consumed).
const WRAPPERS: &[&str] = &["<atem:function_calls>", "</atem:function_calls>"];

const MSG: u8 = 0;
const END: u8 = 1;
const NEXT: u8 = 2;
const CALL: u8 = 3;
const WRAP: u8 = 4;

const MAX_HEADER: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Body {
    Reasoning,
    Content,
    Tool,
}

/// Where a header is: `ROLE`, whitespace, `to=`, `RECIPIENT`, whitespace, then `<|…|>` tags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    #[default]
    Role,
    AfterRole,
    /// Matched this many bytes of `to=`.
    To(u8),
    Recipient,
    AfterRecipient,
    Rest,
}

/// Checks a header as it arrives, so that prose is rejected at its first impossible byte.
#[derive(Default)]
struct HeaderScan {
    begun: bool,
    phase: Phase,
    len: usize,
    role: String,
    recipient: Option<String>,
}

impl HeaderScan {
    /// False when `c` cannot continue a header.
    fn push(&mut self, c: char) -> bool {
        self.len += c.len_utf8();
        if self.len > MAX_HEADER || c == '\n' || c == '\r' {
            return false;
        }
        let ws = c.is_whitespace();
        match self.phase {
            Phase::Role if ws && self.role.is_empty() => {}
            Phase::Role if ws => self.phase = Phase::AfterRole,
            Phase::Role if c == '<' => self.phase = Phase::Rest,
            Phase::Role => self.role.push(c),
            Phase::AfterRole | Phase::AfterRecipient if ws => {}
            Phase::AfterRole | Phase::AfterRecipient if c == '<' => self.phase = Phase::Rest,
            Phase::AfterRole if c == 't' => self.phase = Phase::To(1),
            Phase::To(k) if "to=".as_bytes().get(k as usize) == Some(&(c as u8)) && c.is_ascii() => {
                self.phase = if k == 2 { Phase::Recipient } else { Phase::To(k + 1) };
                if k == 2 {
                    self.recipient = Some(String::new());
                }
            }
            Phase::Recipient if ws => self.phase = Phase::AfterRecipient,
            Phase::Recipient if c == '<' => self.phase = Phase::Rest,
            Phase::Recipient => {
                if let Some(r) = self.recipient.as_mut() {
                    r.push(c);
                }
            }
            Phase::Rest => {}
            _ => return false,
        }
        true
    }
}

/// Which part of a Muse message the reader is in.
enum Part {
    Header,
    Body(Body),
    Call,
    Done,
}

/// Reads one message; see the module docs.
pub struct MuseReader {
    cfg: &'static MuseSyntax,
    part: Part,
    scan: HeaderScan,
    header_set: MarkerSet,
    body_set: MarkerSet,
    tool_set: MarkerSet,
    call: Option<XmlReader>,
    /// Bytes given to the current invoke before its call started (text if it rejects).
    call_raw: String,
    calls_before: usize,
    committed: bool,
    gap: Gap,
}

impl MuseReader {
    pub fn new(cfg: &'static MuseSyntax) -> MuseReader {
        let mut header_set = MarkerSet::new();
        header_set.add(MESSAGE, Act::Other(MSG)).add(START, Act::Other(NEXT)).add_all(ENDS, Act::Other(END));
        let mut body_set = MarkerSet::new();
        body_set.add_all(ENDS, Act::Other(END)).add(START, Act::Other(NEXT));
        let mut tool_set = body_set.clone();
        tool_set.add(INVOKE, Act::Other(CALL)).add_all(WRAPPERS, Act::Other(WRAP));
        MuseReader {
            cfg,
            part: Part::Header,
            scan: HeaderScan::default(),
            header_set,
            body_set,
            tool_set,
            call: None,
            call_raw: String::new(),
            calls_before: 0,
            committed: false,
            gap: Gap::default(),
        }
    }

    /// What a complete header opens.
    fn classify(&self) -> Option<Body> {
        let h = &self.scan;
        if matches!(h.phase, Phase::To(_)) || h.role.is_empty() {
            return None;
        }
        let role = h.role.as_str();
        Some(match h.recipient.as_deref() {
            _ if role != "assistant" => Body::Content,
            None => {
                if self.cfg.bare_is_reasoning {
                    Body::Reasoning
                } else {
                    Body::Content
                }
            }
            Some("") => return None,
            // vLLM drops messages to the developer; they are not the answer, so not content.
            Some("self" | "developer") => Body::Reasoning,
            Some("user" | "commentary" | "all") => Body::Content,
            Some(_) => Body::Tool,
        })
    }

    /// Tool-body text outside invokes: leading whitespace is framing, the rest content.
    fn gap(&mut self, s: &str, sink: &mut Sink) {
        self.gap.push(s, sink, None);
    }
}

impl Reader for MuseReader {
    fn committed(&self) -> bool {
        self.committed
    }

    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let mut i = 0;
        loop {
            let rest = &input[i..];
            match self.part {
                Part::Done => return Step::done(i),
                Part::Header => {
                    if rest.is_empty() {
                        return if eof { Step::reject(i) } else { Step::partial(i) };
                    }
                    if !self.scan.begun {
                        self.scan.begun = true;
                        if rest.starts_with(START) {
                            i += START.len();
                        } else {
                            // Opened by `to=`, right after the prompt's `<|start|>assistant`.
                            self.scan.role = "assistant".to_string();
                            self.scan.phase = Phase::To(0);
                        }
                        continue;
                    }
                    let hit = self.header_set.find(rest, eof);
                    let end = match hit {
                        Hit::Found { at, .. } | Hit::Hold { at } => at,
                        Hit::None => rest.len(),
                    };
                    for (at, c) in rest[..end].char_indices() {
                        if !self.scan.push(c) {
                            return Step::reject(i + at);
                        }
                    }
                    match hit {
                        Hit::Found { at, idx } => {
                            let body = (code(&self.header_set, idx) == MSG).then(|| self.classify()).flatten();
                            let Some(body) = body else { return Step::reject(i + at) };
                            i += at + MESSAGE.len();
                            self.committed = true;
                            self.part = Part::Body(body);
                        }
                        Hit::Hold { at } => return Step::partial(i + at),
                        Hit::None if eof => return Step::reject(input.len()),
                        Hit::None => return Step::partial(input.len()),
                    }
                }
                Part::Body(body) => {
                    let set = if body == Body::Tool { &self.tool_set } else { &self.body_set };
                    match set.find(rest, eof) {
                        Hit::Found { at, idx } => {
                            let c = code(set, idx);
                            let len = set.text(idx).len();
                            let text = &rest[..at];
                            match body {
                                Body::Reasoning => sink.reasoning(text),
                                Body::Content => sink.text(text),
                                Body::Tool => self.gap(text, sink),
                            }
                            self.gap.end();
                            i += at;
                            match c {
                                END => {
                                    self.part = Part::Done;
                                    return Step::done(i + len);
                                }
                                NEXT => {
                                    self.part = Part::Done;
                                    return Step::done(i);
                                }
                                CALL => {
                                    i += len;
                                    self.call = Some(XmlReader::new(self.cfg.atem));
                                    self.call_raw = INVOKE.to_string();
                                    self.calls_before = sink.calls_started();
                                    self.part = Part::Call;
                                }
                                _ => i += len,
                            }
                        }
                        Hit::Hold { at } => {
                            let text = &rest[..at];
                            match body {
                                Body::Reasoning => sink.reasoning(text),
                                Body::Content => sink.text(text),
                                Body::Tool => self.gap(text, sink),
                            }
                            return Step::partial(i + at);
                        }
                        Hit::None => {
                            match body {
                                Body::Reasoning => sink.reasoning(rest),
                                Body::Content => sink.text(rest),
                                Body::Tool => self.gap(rest, sink),
                            }
                            if eof {
                                self.part = Part::Done;
                            }
                            return if eof { Step::done(input.len()) } else { Step::partial(input.len()) };
                        }
                    }
                }
                Part::Call => {
                    let Some(call) = self.call.as_mut() else {
                        self.part = Part::Body(Body::Tool);
                        continue;
                    };
                    let step = call.feed(rest, eof, sink);
                    let used = step.used.min(rest.len());
                    let started = sink.calls_started() > self.calls_before;
                    if !started {
                        self.call_raw.push_str(&rest[..used]);
                    }
                    i += used;
                    match step.status {
                        Status::Partial if !eof => return Step::partial(i),
                        Status::Reject if !started => {
                            // Not a call after all: its markup is text.
                            let raw = core::mem::take(&mut self.call_raw);
                            self.gap(&raw, sink);
                            self.call = None;
                            self.part = Part::Body(Body::Tool);
                        }
                        _ => {
                            if sink.in_call() {
                                if eof && step.status == Status::Partial {
                                    sink.end_call_truncated();
                                } else {
                                    sink.end_call();
                                }
                            }
                            self.call = None;
                            self.part = Part::Body(Body::Tool);
                        }
                    }
                }
            }
        }
    }
}
