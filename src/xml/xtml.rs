//! Kimi K3 XTML: elements `<|open|>TAG attrs<|sep|>` … `<|close|>TAG<|sep|>`.
//!
//! The reader opens at a bare `<|open|>` and reads the tag:
//! - `think`: reasoning, emitted as it arrives, up to `<|close|>think<|sep|>` (or the next
//!   `<|open|>`);
//! - `response`, `tools`: framing; their content is read by the sequencer (content, calls) and
//!   their closing tags are `ignore` markers of the family;
//! - `call`: one call, read by `call::XmlReader` in the `XmlSyntax` given (` tool="N" index="i"<|sep|>`
//!   then `<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>` … `<|close|>call<|sep|>`);
//! - anything else is not XTML: rejected (text).

use crate::prelude::*;
use super::call::XmlReader;
use super::XmlSyntax;
use crate::reader::{Reader, Step};
use crate::scan::{Act, Hit, MarkerSet};
use crate::sink::Sink;

const OPEN: &str = "<|open|>";
const SEP: &str = "<|sep|>";
const THINK_END: &str = "<|close|>think<|sep|>";
const MAX_TAG: usize = 32;

/// Which part of an XTML message the reader is in.
enum Part {
    Tag,
    Think,
    Call(Box<XmlReader>),
    Done,
}

/// Reads one XTML element; see the module docs.
pub struct XtmlReader {
    call: &'static XmlSyntax,
    part: Part,
    /// The opening `<|open|>` was skipped.
    opened: bool,
    tag: String,
    committed: bool,
    think_set: MarkerSet,
    sep_set: MarkerSet,
    /// The last call's reader, reset for the next call (building one builds its marker sets).
    spare_call: Option<Box<XmlReader>>,
}

impl XtmlReader {
    pub fn new(call: &'static XmlSyntax) -> XtmlReader {
        let mut think_set = MarkerSet::new();
        think_set.add(THINK_END, Act::End).add(OPEN, Act::Start);
        let mut sep_set = MarkerSet::new();
        sep_set.add(SEP, Act::End);
        XtmlReader { call, part: Part::Tag, opened: false, tag: String::new(), committed: false, think_set, sep_set, spare_call: None }
    }
}

impl Reader for XtmlReader {
    fn reset(&mut self, _bare: bool) -> bool {
        if let Part::Call(call) = core::mem::replace(&mut self.part, Part::Tag) {
            self.spare_call = Some(call);
        }
        self.opened = false;
        self.tag.clear();
        self.committed = false;
        true
    }

    fn committed(&self) -> bool {
        self.committed
    }

    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let mut i = 0;
        loop {
            let rest = &input[i..];
            match &mut self.part {
                Part::Done => return Step::done(i),
                Part::Tag => {
                    if !self.opened {
                        if !rest.starts_with(OPEN) {
                            return Step::reject(i);
                        }
                        self.opened = true;
                        i += OPEN.len();
                        continue;
                    }
                    let n = rest.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
                    self.tag.push_str(&rest[..n]);
                    i += n;
                    if self.tag.len() > MAX_TAG || self.tag.is_empty() && n < rest.len() {
                        return Step::reject(i);
                    }
                    if n == rest.len() {
                        return if eof { Step::reject(i) } else { Step::partial(i) };
                    }
                    let after = &input[i..];
                    if self.tag == "call" {
                        if !after.starts_with(|c: char| c.is_ascii_whitespace()) && !after.starts_with('<') {
                            return Step::reject(i);
                        }
                        let cfg = self.call;
                        self.part = Part::Call(crate::reader::reuse(self.spare_call.take(), false, || Box::new(XmlReader::new(cfg))));
                        continue;
                    }
                    match self.sep_set.at_start(after, eof) {
                        Err(()) => return Step::partial(i),
                        Ok(None) => return Step::reject(i),
                        Ok(Some(_)) => {
                            i += SEP.len();
                            match self.tag.as_str() {
                                "think" => {
                                    self.committed = true;
                                    self.part = Part::Think;
                                }
                                "response" | "tools" => {
                                    self.part = Part::Done;
                                    return Step::done(i);
                                }
                                _ => return Step::reject(i),
                            }
                        }
                    }
                }
                Part::Think => match self.think_set.find(rest, eof) {
                    Hit::Found { at, idx } => {
                        sink.reasoning(&rest[..at]);
                        i += at;
                        if self.think_set.act(idx) == Act::End {
                            i += THINK_END.len();
                        }
                        self.part = Part::Done;
                        return Step::done(i);
                    }
                    Hit::Hold { at } => {
                        sink.reasoning(&rest[..at]);
                        return Step::partial(i + at);
                    }
                    Hit::None => {
                        sink.reasoning(rest);
                        if eof {
                            self.part = Part::Done;
                            return Step::done(input.len());
                        }
                        return Step::partial(input.len());
                    }
                },
                Part::Call(call) => {
                    let step = call.feed(rest, eof, sink);
                    return step.shifted(i);
                }
            }
        }
    }
}
