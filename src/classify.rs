//! `classify`: how every registered family reads one text (the playground's comparison view).
//!
//! Each family parses the text on its own (`parse`, the family's defaults plus the caller's
//! tools, reasoning and policy). The verdict sums up its reading:
//!
//! 1. `calls` (with their count) when `parse` kept at least one call; diagnostics about those
//!    calls (wrong_tool, type_coercion, …) stay in `result.diagnostics`;
//! 2. otherwise the label of the most telling diagnostic, by `PRECEDENCE`: the problems that
//!    explain why no call came out (malformed_json, truncation, …) before the validation labels
//!    of calls that were dropped as repaired;
//! 3. otherwise `no_call`.

use crate::prelude::*;
use crate::event::{Label, ParseResult};
use crate::parser::{parse, Error, Options};
use crate::json::push_json_string;

/// What one family made of the text.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// This many calls.
    Calls(usize),
    /// No call and no diagnostic: plain text to this family.
    NoCall,
    /// No call; this was wrong.
    Problem(Label),
}

impl Verdict {
    /// `"calls"`, `"no_call"`, or the label.
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Calls(_) => "calls",
            Verdict::NoCall => "no_call",
            Verdict::Problem(l) => l.as_str(),
        }
    }
}

/// One family's reading.
#[derive(Clone, Debug, PartialEq)]
pub struct Classification {
    pub parser: &'static str,
    pub verdict: Verdict,
    /// Content, reasoning, tool calls and diagnostics, as `parse` returns them.
    pub result: ParseResult,
}

/// Order in which diagnostics explain a reading without calls.
pub const PRECEDENCE: [Label; 10] = [
    Label::MalformedJson,
    Label::Truncation,
    Label::EscapingError,
    Label::ParallelCollapse,
    Label::LimitExceeded,
    Label::WrongTool,
    Label::MissingRequired,
    Label::HallucinatedParam,
    Label::TypeCoercion,
    Label::SchemaViolation,
];

/// Every registered family's reading of `text`, with the request's `tools` (OpenAI definitions)
/// when given. Errors only on malformed `tools`.
pub fn classify(text: &str, tools: Option<&crate::json::Value>) -> Result<Vec<Classification>, Error> {
    classify_with(text, &Options { tools: tools.cloned(), ..Options::default() })
}

/// Like `classify`, with every option but `parser`/`model` taken from `base`.
pub fn classify_with(text: &str, base: &Options) -> Result<Vec<Classification>, Error> {
    let mut out = Vec::new();
    for f in crate::families::all() {
        let mut opts = base.clone();
        opts.parser = f.id.to_string();
        opts.model = None;
        let result = parse(text, &opts)?;
        out.push(Classification { parser: f.id, verdict: verdict(&result), result });
    }
    Ok(out)
}

/// The verdict for one result (see the module docs).
pub fn verdict(r: &ParseResult) -> Verdict {
    if !r.tool_calls.is_empty() {
        return Verdict::Calls(r.tool_calls.len());
    }
    PRECEDENCE
        .iter()
        .find(|l| r.diagnostics.iter().any(|d| d.label == **l))
        .map_or(Verdict::NoCall, |l| Verdict::Problem(*l))
}

/// The JS shape: `[{parser, verdict, count?, content, reasoning, toolCalls, diagnostics}]`
/// (`count` only with `verdict: "calls"`).
#[cfg_attr(not(all(target_arch = "wasm32", feature = "std")), allow(dead_code))] // the binding's (wasm.rs)
pub fn to_json(list: &[Classification]) -> String {
    let mut out = String::from("[");
    for (i, c) in list.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"parser\":");
        push_json_string(&mut out, c.parser);
        out.push_str(",\"verdict\":\"");
        out.push_str(c.verdict.as_str());
        out.push('"');
        if let Verdict::Calls(n) = c.verdict {
            out.push_str(",\"count\":");
            crate::event::push_usize(&mut out, n);
        }
        // The result's own object, spliced in: `{"content":…}` minus its `{`.
        let r = c.result.to_json();
        out.push(',');
        out.push_str(r.strip_prefix('{').unwrap_or(&r));
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;
    use crate::json::{json, Value};

    fn find<'a>(list: &'a [Classification], id: &str) -> &'a Classification {
        list.iter().find(|c| c.parser == id).unwrap()
    }

    #[test]
    fn verdicts() {
        let tools = json!([{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]);
        let text = "Sure.<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"x\": 1}}</tool_call>";
        let list = classify(text, Some(&tools)).unwrap();
        assert_eq!(list.len(), crate::families::all().count());
        let h = find(&list, "hermes");
        assert_eq!(h.verdict, Verdict::Calls(1));
        assert_eq!(h.result.diagnostics.iter().map(|d| d.label).collect::<Vec<_>>(), vec![Label::HallucinatedParam]);
        assert_eq!(find(&list, "openai").verdict, Verdict::NoCall);
        assert_eq!(find(&list, "longcat").verdict, Verdict::NoCall);

        let list = classify("<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": ", None).unwrap();
        assert_eq!(find(&list, "hermes").verdict, Verdict::Problem(Label::Truncation));
        let list = classify("<tool_call>{\"name\": 5}</tool_call>", None).unwrap();
        assert_eq!(find(&list, "hermes").verdict, Verdict::Problem(Label::MalformedJson));
        assert!(classify("x", Some(&json!(5))).is_err());
    }

    #[test]
    fn json_shape() {
        let list = classify("<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>", None).unwrap();
        let v: Value = crate::json::parse(&to_json(&list)).unwrap();
        let h = v.as_array().unwrap().iter().find(|c| c["parser"] == "hermes").unwrap();
        assert_eq!(h["verdict"], "calls");
        assert_eq!(h["count"], 1);
        assert_eq!(h["toolCalls"][0]["name"], "f");
        assert_eq!(h["content"], Value::Null);
        let o = v.as_array().unwrap().iter().find(|c| c["parser"] == "openai").unwrap();
        assert_eq!(o["verdict"], "no_call");
        assert!(o.get("count").is_none());
    }

    /// 100 KB through every family. Asserts correctness only; prints the time (see the report).
    #[test]
    fn large_text_through_every_family() {
        let call = "<tool_call>{\"name\": \"f\", \"arguments\": {\"s\": \"some text with <b>tags</b> and {braces}\"}}</tool_call>\n";
        let prose = "Plain prose with a { brace, a [bracket], `code` and <html> tags. ";
        let mut text = String::new();
        while text.len() < 100_000 {
            text.push_str(prose);
            text.push_str(call);
        }
        let t = std::time::Instant::now();
        let list = classify(&text, None).unwrap();
        let ms = t.elapsed().as_millis();
        eprintln!("classify: {} bytes x {} families in {ms} ms", text.len(), list.len());
        let n = text.matches("<tool_call>").count();
        assert_eq!(find(&list, "hermes").verdict, Verdict::Calls(n));
    }
}
