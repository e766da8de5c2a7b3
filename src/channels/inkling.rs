//! Inkling message blocks: `<|message_model|>[NAME]<|content_KIND|>…<|end_message|>`.
//!
//! The content markers are the family's `Syntax` (thinking is its reasoning, text/tool-text/tool
//! errors are content framing). This reader only handles what the markers cannot:
//!
//! - opened at `<|message_model|>` (bare): the optional name header up to the next
//!   `<|content_…|>` marker is framing, like vLLM's message-header state. When no content marker
//!   follows on the same short line (64 bytes), only `<|message_model|>` is consumed and the rest is
//!   text. A `<|content_invoke_tool_json|>` right after the header opens the call;
//! - opened at `<|content_invoke_tool_json|>`: the call object `{"name": …, "args": {…}}`.

use crate::prelude::*;
use crate::reader::{Reader, Step};
use crate::json::call::CallsReader;
use crate::sink::Sink;
use crate::json::call::{JsonShape, Wrapper};

pub const MESSAGE: &str = "<|message_model|>";
pub const INVOKE_JSON: &str = "<|content_invoke_tool_json|>";
const CONTENT: &str = "<|content_";
/// The longest name header read as framing.
const MAX_HEADER: usize = 64;

pub struct InklingReader {
    header: bool,
    call: Option<CallsReader>,
}

impl InklingReader {
    /// For `Payload::Custom`: `bare` when opened at `<|message_model|>`.
    pub fn boxed(bare: bool) -> Box<dyn Reader> {
        Box::new(InklingReader { header: bare, call: (!bare).then(Self::call) })
    }

    fn call() -> CallsReader {
        CallsReader::new(JsonShape::Object, Wrapper::STANDARD, false)
    }
}

impl Reader for InklingReader {
    fn reset(&mut self, bare: bool) -> bool {
        self.header = bare;
        let mut call = self.call.take().filter(|_| !bare);
        if call.as_mut().is_some_and(|c| !c.reset(false)) || (call.is_none() && !bare) {
            call = Some(Self::call());
        }
        self.call = call;
        true
    }

    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        if let Some(call) = self.call.as_mut() {
            return call.feed(input, eof, sink);
        }
        if !self.header {
            return Step::reject(0);
        }
        // `input` starts with `<|message_model|>` (the bare opening marker).
        let Some(rest) = input.get(MESSAGE.len()..) else { return if eof { Step::done(input.len()) } else { Step::partial(0) } };
        let window = &rest[..crate::text::floor_char_boundary(rest, MAX_HEADER + CONTENT.len())];
        let at = crate::text::find(window, "<|");
        let decided = match at {
            // A name header is one short line.
            Some(p) if p <= MAX_HEADER && !rest[..p].contains('\n') => {
                let tail = &rest[p..];
                if tail.len() < CONTENT.len() && CONTENT.starts_with(tail) && !eof {
                    None
                } else if tail.starts_with(CONTENT) {
                    Some(Some(p))
                } else {
                    Some(None)
                }
            }
            _ if !eof && rest.len() <= MAX_HEADER + 1 && !rest.contains('\n') => None,
            _ => Some(None),
        };
        match decided {
            None => Step::partial(0),
            // Not a header: the marker alone is framing.
            Some(None) => Step::done(MESSAGE.len()),
            Some(Some(p)) => {
                let used = MESSAGE.len() + p;
                let tail = &rest[p..];
                if tail.starts_with(INVOKE_JSON) {
                    let mut call = Self::call();
                    let step = call.feed(&tail[INVOKE_JSON.len()..], eof, sink);
                    self.call = Some(call);
                    // Offsets as if the call had been fed on its own later (split invariance).
                    return step.shifted(used + INVOKE_JSON.len());
                }
                if INVOKE_JSON.starts_with(tail) && !eof {
                    return Step::partial(0);
                }
                Step::done(used)
            }
        }
    }
}
