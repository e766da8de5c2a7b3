//! Template-driven families (`hf`, `beam`): the wire format comes from a response template
//! given at run time (option `template`), the way vLLM reads a checkpoint's `response_template`.
//!
//! The template is a small JSON object; every key is optional and marker keys take a string or
//! an array of strings:
//!
//! ```json
//! {
//!   "tool_call_start": "<call>",        "tool_call_end": "</call>",
//!   "tool_section_start": "<calls>",    "tool_section_end": "</calls>",
//!   "payload": "json",
//!   "reasoning_start": "<think>",       "reasoning_end": "</think>",  "reasoning_implicit": false,
//!   "ignore": ["<turn|>"]
//! }
//! ```
//!
//! - `payload` says what follows a call marker: `"json"` (default: `{"name", "arguments"}` objects
//!   or an array of them), `"json_array"` (an array), or the id of a registered family whose
//!   payload reader reads each call (`"gemma4"` for `call:NAME{k:v}`, `"qwen3_coder"` for XML
//!   parameters, `"mistral"`, `"kimi_k2"`, `"openai"` for Harmony messages, ...). With a family,
//!   the marker keys the template omits default to that family's markers.
//! - `reasoning_*` give the template's reasoning markers (used when no reasoning parser is chosen);
//!   `reasoning_implicit` means the output starts inside reasoning unless `thinking: false`.
//!
//! Without a template, `hf` and `beam` read the formats of the response templates vLLM tests
//! them with, plus Hermes: Gemma 4 `<|tool_call>call:…<tool_call|>` (through the `gemma4`
//! family's reader, when registered) with `<|channel>thought…<channel|>` reasoning, Harmony
//! messages (as `openai`), and Hermes `<tool_call>{json}</tool_call>` (as `hermes`).
//!
//! The engine copies the markers when it is built, so the template's strings live only as long
//! as that (no leaks); payload readers are the registered families' static ones.

use crate::prelude::*;
use crate::engine::Engine;
use crate::reader::{Reader, Step};
use crate::sink::Sink;
use crate::syntax::JsonShape::{Array, ObjectOrArray};
use crate::syntax::{Family, Payload, Reasoning, Syntax, Thinking, Wrapper};
use crate::json::Value;

/// Families that take a template.
pub const TEMPLATE_FAMILIES: &[&str] = &["hf", "beam"];

/// Families read without a template, in order of preference when markers coincide.
const DEFAULT_UNION: &[&str] = &["gemma4", "hermes", "openai"];

/// Gemma 4 reasoning channel and turn marker, for the default.
const GEMMA_THOUGHT: &[&str] = &["<|channel>thought\n", "<|channel>thought", "<|channel>"];
const GEMMA_THOUGHT_END: &[&str] = &["<channel|>"];
const GEMMA_IGNORE: &[&str] = &["<turn|>"];

/// A format read from a template, with owned markers.
#[derive(Clone, Default)]
pub struct Template {
    section: Vec<String>,
    section_end: Vec<String>,
    start: Vec<String>,
    bare: Vec<String>,
    end: Vec<String>,
    ignore: Vec<String>,
    reasoning_start: Vec<String>,
    reasoning_end: Vec<String>,
    reasoning_thinking: Thinking,
    payload: Option<Payload>,
}

/// A string or an array of non-empty strings under `key`.
fn strings(obj: &crate::json::Map, key: &str) -> Result<Option<Vec<String>>, String> {
    let bad = || format!("template key `{key}` must be a non-empty string or an array of them");
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(vec![s.clone()])),
        Some(Value::Array(a)) => {
            // A loop: a `collect` into a `Result` is a copy of its adapters in the wasm.
            let mut list = Vec::with_capacity(a.len());
            for v in a {
                list.push(v.as_str().filter(|s| !s.is_empty()).ok_or_else(bad)?.to_string());
            }
            Ok(Some(list))
        }
        Some(_) => Err(bad()),
    }
}

fn owned(v: &[&str]) -> Vec<String> {
    let mut list = Vec::with_capacity(v.len());
    for s in v {
        list.push(s.to_string());
    }
    list
}

fn push_new(to: &mut Vec<String>, from: &[&str]) {
    for m in from {
        if !to.iter().any(|t| t == m) {
            to.push(m.to_string());
        }
    }
}

/// A registered family usable as a payload (not a template family itself).
fn payload_family(id: &str) -> Option<&'static Family> {
    crate::families::find(id).filter(|f| !TEMPLATE_FAMILIES.contains(&f.id))
}

impl Template {
    /// Reads a template object (see the module docs).
    pub fn from_json(v: &Value) -> Result<Template, String> {
        let obj = v.as_object().ok_or("option `template` must be an object like {\"tool_call_start\": \"<call>\"}")?;
        let mut t = Template::default();
        let family = match obj.get("payload") {
            None | Some(Value::Null) => None,
            Some(Value::String(p)) => match p.as_str() {
                "json" => None,
                "json_array" => {
                    t.payload = Some(Payload::Json(Array, Wrapper::STANDARD));
                    None
                }
                id => {
                    let f = payload_family(id).ok_or_else(|| {
                        format!("template payload `{id}` is not \"json\", \"json_array\" or a registered parser id")
                    })?;
                    t.payload = Some(f.syntax.payload);
                    Some(f)
                }
            },
            Some(_) => return Err("template key `payload` must be a string".into()),
        };
        let pick = |key: &str, default: &[&str]| -> Result<Vec<String>, String> {
            Ok(strings(obj, key)?.unwrap_or_else(|| owned(if family.is_some() { default } else { &[] })))
        };
        let fs = family.map_or(Syntax::NONE, |f| f.syntax);
        t.section = pick("tool_section_start", fs.section)?;
        t.section_end = pick("tool_section_end", fs.section_end)?;
        t.start = pick("tool_call_start", fs.start)?;
        t.end = pick("tool_call_end", fs.end)?;
        t.ignore = pick("ignore", fs.ignore)?;
        if family.is_some() && strings(obj, "tool_call_start")?.is_none() {
            t.bare = owned(fs.bare);
        }
        let r = fs.reasoning;
        t.reasoning_start = pick("reasoning_start", r.map_or(&[], |r| r.start))?;
        t.reasoning_end = pick("reasoning_end", r.map_or(&[], |r| r.end))?;
        t.reasoning_thinking = match obj.get("reasoning_implicit") {
            None | Some(Value::Null) => r.map_or(Thinking::Opened, |r| r.thinking),
            Some(Value::Bool(true)) => Thinking::DefaultOn,
            Some(Value::Bool(false)) => Thinking::Opened,
            Some(_) => return Err("template key `reasoning_implicit` must be a boolean".into()),
        };
        if t.start.is_empty() && t.bare.is_empty() && t.reasoning_start.is_empty() {
            return Err("the template gives no tool_call_start (nor a payload family with markers)".into());
        }
        Ok(t)
    }

    /// The format read without a template (see the module docs).
    pub fn default_union() -> Template {
        let mut t = Template { payload: Some(Payload::Custom(UnionReader::boxed)), ..Template::default() };
        for f in DEFAULT_UNION.iter().filter_map(|id| payload_family(id)) {
            // Every opening marker is bare: the union reader sees it and picks the family.
            push_new(&mut t.bare, f.syntax.start);
            push_new(&mut t.bare, f.syntax.bare);
            push_new(&mut t.end, f.syntax.end);
            push_new(&mut t.ignore, f.syntax.ignore);
        }
        push_new(&mut t.ignore, GEMMA_IGNORE);
        t.reasoning_start = owned(GEMMA_THOUGHT);
        t.reasoning_end = owned(GEMMA_THOUGHT_END);
        t
    }

    /// Builds the engine. `reasoning` (a reasoning parser) takes precedence over the template's.
    pub fn engine(&self, reasoning: Option<&Reasoning>, thinking: Option<bool>) -> Engine {
        fn view(v: &[String]) -> Vec<&str> {
            v.iter().map(String::as_str).collect()
        }
        let (section, section_end, start, bare, end, ignore) =
            (view(&self.section), view(&self.section_end), view(&self.start), view(&self.bare), view(&self.end), view(&self.ignore));
        let (rs, re) = (view(&self.reasoning_start), view(&self.reasoning_end));
        let own = Reasoning {
            id: "template",
            aliases: &[],
            start: &rs,
            end: &re,
            ignore: &[],
            thinking: self.reasoning_thinking,
            calls_end: true,
            strip_tail: false,
            description: "the template's reasoning markers",
        };
        let syntax = Syntax {
            section: &section,
            section_end: &section_end,
            start: &start,
            bare: &bare,
            section_bare: &[],
            end: &end,
            ignore: &ignore,
            reasoning: (!rs.is_empty()).then_some(&own),
            payload: self.payload.unwrap_or(Payload::Json(ObjectOrArray, Wrapper::STANDARD)),
            keep_repaired: false,
        };
        Engine::new(&syntax, reasoning, thinking)
    }
}

/// The engine for `family` when it is template-driven (`None` otherwise): from `template`, or
/// the default union without one.
pub fn engine(family: &Family, template: Option<&Value>, reasoning: Option<&Reasoning>, thinking: Option<bool>) -> Result<Option<Engine>, String> {
    if !TEMPLATE_FAMILIES.contains(&family.id) {
        return Ok(None);
    }
    let t = match template {
        Some(v) if !v.is_null() => Template::from_json(v)?,
        _ => Template::default_union(),
    };
    Ok(Some(t.engine(reasoning, thinking)))
}

/// The default format's payload: picks the family whose opening marker starts the input and
/// hands the payload to that family's reader.
struct UnionReader {
    /// `DEFAULT_UNION`'s families, looked up once.
    families: Vec<&'static Family>,
    /// The picked family (index in `families`), whether its marker was consumed, its reader.
    inner: Option<(usize, bool, Box<dyn Reader>)>,
    /// The last payload's reader, reset for the next payload of the same family and opening.
    spare: Option<(usize, bool, Box<dyn Reader>)>,
}

impl UnionReader {
    fn boxed(_bare: bool) -> Box<dyn Reader> {
        let mut families = Vec::with_capacity(DEFAULT_UNION.len());
        for id in DEFAULT_UNION {
            families.extend(payload_family(id));
        }
        Box::new(UnionReader { families, inner: None, spare: None })
    }

    /// (family index, marker length, consumed) of the longest family marker at the start of
    /// `input`.
    fn pick(&self, input: &str) -> Option<(usize, usize, bool)> {
        let mut best: Option<(usize, usize, bool)> = None;
        for (fi, f) in self.families.iter().enumerate() {
            let s = f.syntax;
            for (list, consumed) in [(s.start, true), (s.bare, false)] {
                for m in list {
                    if input.starts_with(m) && best.is_none_or(|(_, len, _)| m.len() > len) {
                        best = Some((fi, m.len(), consumed));
                    }
                }
            }
        }
        best
    }
}

impl Reader for UnionReader {
    fn committed(&self) -> bool {
        self.inner.as_ref().is_some_and(|(.., r)| r.committed())
    }

    fn reset(&mut self, _bare: bool) -> bool {
        if let Some(inner) = self.inner.take() {
            self.spare = Some(inner);
        }
        true
    }

    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let mut i = 0;
        if self.inner.is_none() {
            let Some((fi, len, consumed)) = self.pick(input) else { return Step::reject(0) };
            if consumed {
                i = len;
            }
            let spare = self.spare.take().filter(|(sf, sc, _)| *sf == fi && *sc == consumed).map(|(.., r)| r);
            let payload = self.families[fi].syntax.payload;
            self.inner = Some((fi, consumed, crate::reader::reuse(spare, !consumed, || payload.reader(!consumed))));
        }
        let Some((.., inner)) = self.inner.as_mut() else { return Step::reject(i) };
        let step = inner.feed(&input[i..], eof, sink);
        step.shifted(i)
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;
    use crate::json::json;

    #[test]
    fn reads_a_template_and_reports_bad_ones() {
        assert!(Template::from_json(&json!({"tool_call_start": ["<a>", "<b>"], "payload": "json_array"})).is_ok());
        assert!(Template::from_json(&json!({"payload": "mistral"})).is_ok());
        let err = |v| Template::from_json(&v).err().unwrap_or_default();
        assert!(err(json!("x")).contains("must be an object"));
        assert!(err(json!({})).contains("no tool_call_start"));
        assert!(err(json!({"tool_call_start": ""})).contains("non-empty string"));
        assert!(err(json!({"tool_call_start": "<a>", "payload": "nope"})).contains("registered parser id"));
        assert!(err(json!({"tool_call_start": "<a>", "payload": "hf"})).contains("registered parser id"));
        assert!(err(json!({"tool_call_start": "<a>", "reasoning_implicit": 1})).contains("boolean"));
    }

    #[test]
    fn bad_template_is_an_options_error() {
        let mut o = crate::Options::new("hf");
        o.template = Some(json!({"payload": 5}));
        assert!(crate::ToolCallParser::new(&o).is_err());
        // Other families ignore the option.
        o.parser = "hermes".into();
        assert!(crate::ToolCallParser::new(&o).is_ok());
    }
}
