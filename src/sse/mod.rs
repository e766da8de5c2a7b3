//! The OpenAI wire format: an SSE rewriter for `chat.completion.chunk` (and `/v1/completions`)
//! streams, and the same rewrite for non-streaming bodies.
//!
//! - `decoder.rs`: a spec-correct SSE decoder with a bounded event buffer.
//! - `rewriter.rs`: `SseRewriter`, upstream SSE bytes in, rewritten SSE bytes out, one pass;
//!   `rewriter/answered.rs`: its answered path (`push_answered`: events answered from the
//!   quiet-run hint's bytes, events of the last event's shape).
//! - `completion.rs`: `rewrite_completion` for a whole `chat.completion` / `text_completion` body.
//!
//! Diagnostics go two ways: as values (`WireDiagnostic`, for the JS `onDiagnostic` callback)
//! and, in a stream, as SSE comment lines `: toolwire <label> {"choice":0,"index":1,"message":"…"}`
//! placed where they happened. Clients ignore comments; `comments: false` turns them off.

use crate::prelude::*;
pub mod completion;
pub mod decoder;
mod fast;
pub mod rewriter;

pub use completion::{rewrite_completion, Rewritten};
pub use decoder::Decoder;
pub use rewriter::{Answer, SseRewriter};

use crate::event::{push_u64, push_usize, Label};
use crate::json::push_json_string;
use crate::json::Value;
use crate::parser::{Error, Options};

/// How to read upstream text fields that may repeat the whole text so far in every chunk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cumulative {
    /// Decide per choice from the first texts: cumulative when the second text extends the first
    /// and the third extends the second (the second waits one chunk for the third); else deltas.
    #[default]
    Auto,
    /// Every text is the whole text so far.
    Always,
    /// Every text is a delta (what OpenAI-compatible servers send).
    Never,
}

/// The keys the rewriter reads beside the parser options.
pub const SSE_KEYS: &[&str] = &["cumulative", "comments", "maxEventBytes"];

/// Rewriter options (JS: the parser options plus `cumulative`, `comments`, `maxEventBytes`).
#[derive(Clone, Debug)]
pub struct SseOptions {
    /// The parser options used for every choice. `model` defaults to the upstream's `model`
    /// field (for `parser: "auto"`); `idPrefix` defaults to one derived from the upstream `id`.
    pub parser: Options,
    pub cumulative: Cumulative,
    /// Write diagnostics into the stream as SSE comments. Default true.
    pub comments: bool,
    /// Bytes of one SSE event the decoder holds (default 1 MiB); a longer event is passed
    /// through unparsed with a `limit_exceeded` diagnostic.
    pub max_event_bytes: usize,
    /// Every event through the general path (serde_json), none through the fast path
    /// (`fast.rs`): for tests and benchmarks that compare the two. Default false.
    pub general_only: bool,
}

impl SseOptions {
    pub fn new(parser: Options) -> SseOptions {
        SseOptions { parser, cumulative: Cumulative::Auto, comments: true, max_event_bytes: 1 << 20, general_only: false }
    }

    /// Reads the JS options object (see `Options::from_json`) and checks that a parser can be
    /// built from it (unknown ids fail here, not mid-stream).
    pub fn from_json(v: &Value) -> Result<SseOptions, Error> {
        let mut o = SseOptions::new(Options::from_json_with(v, SSE_KEYS)?);
        if let Some(obj) = v.as_object() {
            o.cumulative = match obj.get("cumulative") {
                None | Some(Value::Null) => Cumulative::Auto,
                Some(Value::Bool(true)) => Cumulative::Always,
                Some(Value::Bool(false)) => Cumulative::Never,
                Some(Value::String(s)) if s == "auto" => Cumulative::Auto,
                Some(_) => return Err(Error("option `cumulative` must be \"auto\", true or false".into())),
            };
            o.comments = match obj.get("comments") {
                None | Some(Value::Null) => true,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(Error("option `comments` must be a boolean".into())),
            };
            if let Some(n) = obj.get("maxEventBytes").filter(|n| !n.is_null()) {
                o.max_event_bytes = crate::json::as_u64(n)
                    .filter(|n| *n > 0)
                    .map(|n| n as usize)
                    .ok_or_else(|| Error("option `maxEventBytes` must be a positive integer".into()))?;
            }
        }
        o.check()?;
        Ok(o)
    }

    /// Fails when no parser can be built from these options (without building one).
    pub fn check(&self) -> Result<(), Error> {
        crate::parser::ToolCallParser::check(&self.parser)
    }

    /// The parser options for one choice: `model` from upstream when not given, and call ids
    /// unique per completion (`call_<id>_<n>`, `call_<id>_<choice>_<n>` for choices after 0).
    pub(crate) fn for_choice(&self, upstream_id: Option<&str>, upstream_model: Option<&str>, choice: u64) -> Options {
        let mut o = self.parser.clone();
        if o.model.is_none() {
            o.model = upstream_model.map(str::to_string);
        }
        let mut prefix = match o.id_prefix.take() {
            Some(p) => p,
            None => {
                let mut p = String::from("call_");
                if let Some(tail) = upstream_id.map(id_tail).filter(|t| !t.is_empty()) {
                    p.push_str(&tail);
                    p.push('_');
                }
                p
            }
        };
        if choice > 0 {
            push_u64(&mut prefix, choice);
            prefix.push('_');
        }
        o.id_prefix = Some(prefix);
        o
    }
}

/// The distinctive part of an upstream completion id: the ASCII letters and digits after the
/// first `-` (`chatcmpl-3f2a…` -> `3f2a…`), at most 24.
fn id_tail(id: &str) -> String {
    let rest = crate::text::split_once_byte(id, b'-').map_or(id, |(_, r)| r);
    // As bytes (an ASCII byte of UTF-8 is that character), in a loop.
    let mut alnum = String::new();
    for b in rest.bytes() {
        if b.is_ascii_alphanumeric() {
            alnum.push(b as char);
        }
    }
    alnum[alnum.len().saturating_sub(24)..].to_string()
}

/// A diagnostic from the rewrite: a parser diagnostic of one choice (`choice`, and `index`
/// the call's index on the wire), or a stream-level one (`choice` none).
#[derive(Clone, Debug, PartialEq)]
pub struct WireDiagnostic {
    pub choice: Option<u64>,
    pub label: Label,
    pub message: String,
    pub index: Option<usize>,
}

impl WireDiagnostic {
    /// `{"label":…,"message":…,"index":…,"choice":…}` (JS shape of a diagnostic plus `choice`).
    pub fn write_json(&self, out: &mut String) {
        out.push_str("{\"label\":\"");
        out.push_str(self.label.as_str());
        out.push_str("\",\"message\":");
        push_json_string(out, &self.message);
        if let Some(i) = self.index {
            out.push_str(",\"index\":");
            push_usize(out, i);
        }
        if let Some(c) = self.choice {
            out.push_str(",\"choice\":");
            push_u64(out, c);
        }
        out.push('}');
    }

    /// The SSE comment line (with its `\n`): `: toolwire <label> {"choice":…,"index":…,"message":…}`.
    pub fn comment(&self) -> String {
        let mut out = String::from(": toolwire ");
        out.push_str(self.label.as_str());
        out.push_str(" {");
        if let Some(c) = self.choice {
            out.push_str("\"choice\":");
            push_u64(&mut out, c);
            out.push(',');
        }
        if let Some(i) = self.index {
            out.push_str("\"index\":");
            push_usize(&mut out, i);
            out.push(',');
        }
        out.push_str("\"message\":");
        push_json_string(&mut out, &self.message);
        out.push_str("}\n");
        out
    }
}

/// Diagnostics as a JSON array.
pub fn diagnostics_to_json(list: &[WireDiagnostic]) -> String {
    let mut out = String::from("[");
    for (i, d) in list.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        d.write_json(&mut out);
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;

    #[test]
    fn ids_are_unique_per_completion_and_choice() {
        let o = SseOptions::new(Options::new("hermes"));
        let id = |up: Option<&str>, c| o.for_choice(up, None, c).id_prefix.unwrap();
        assert_eq!(id(Some("chatcmpl-3f2a9c"), 0), "call_3f2a9c_");
        assert_eq!(id(Some("chatcmpl-3f2a9c"), 2), "call_3f2a9c_2_");
        assert_eq!(id(Some("cmpl-0123456789abcdef0123456789abcdef"), 0), "call_89abcdef0123456789abcdef_");
        assert_eq!(id(None, 0), "call_");
        assert_eq!(id(Some("---"), 1), "call_1_");
        let mut user = o.clone();
        user.parser.id_prefix = Some("t_".into());
        assert_eq!(user.for_choice(Some("chatcmpl-x"), None, 1).id_prefix.unwrap(), "t_1_");
    }

    #[test]
    fn options_from_json() {
        let v = crate::json::parse(r#"{"parser":"hermes","cumulative":true,"comments":false,"maxEventBytes":64}"#).unwrap();
        let o = SseOptions::from_json(&v).unwrap();
        assert_eq!((o.cumulative, o.comments, o.max_event_bytes), (Cumulative::Always, false, 64));
        let bad = crate::json::parse(r#"{"parser":"nope"}"#).unwrap();
        assert!(SseOptions::from_json(&bad).unwrap_err().0.contains("unknown parser `nope`"));
        let bad = crate::json::parse(r#"{"cumulative":"yes"}"#).unwrap();
        assert!(SseOptions::from_json(&bad).is_err());
    }

    #[test]
    fn diagnostic_comment_is_one_line() {
        let d = WireDiagnostic { choice: Some(0), label: Label::WrongTool, message: "a\nb".into(), index: Some(1) };
        assert_eq!(d.comment(), ": toolwire wrong_tool {\"choice\":0,\"index\":1,\"message\":\"a\\nb\"}\n");
    }
}
