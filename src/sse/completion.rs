//! The non-streaming rewrite: a whole `chat.completion` (or `text_completion`) body.
//!
//! Each choice's `message.content` (or `text`) is parsed as `parse()` does (same calls, same
//! recovery policy): `content` keeps the text (`null` when only calls remain), calls are
//! appended to `message.tool_calls` after any native ones (`{id, type:"function",
//! function:{name, arguments}}`), reasoning goes to `reasoning_content` when a reasoning parser
//! is set, and `finish_reason` `"stop"` becomes `"tool_calls"` when calls were found.
//! Completions bodies get `text`, `tool_calls` and `reasoning_content` on the choice. A body
//! that is not a JSON object with `choices`, or that the rewrite does not change, comes back
//! unchanged (byte for byte).

use crate::prelude::*;
use super::{SseOptions, WireDiagnostic};
use crate::event::{Label, ParseResult};
use crate::json::{Map, Value};

/// The rewritten body (`None` when unchanged) and the diagnostics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rewritten {
    pub body: Option<String>,
    pub diagnostics: Vec<WireDiagnostic>,
}

impl Rewritten {
    /// The body to send: the rewritten one, or `original`.
    pub fn body_or<'a>(&'a self, original: &'a str) -> &'a str {
        self.body.as_deref().unwrap_or(original)
    }
}

/// Rewrites a non-streaming completion body (see the module docs).
pub fn rewrite_completion(body: &str, opts: &SseOptions) -> Rewritten {
    let mut r = Rewritten::default();
    let mut doc = match crate::json::parse(body) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return r,
        Err(e) => {
            r.diagnostics.push(WireDiagnostic { choice: None, label: Label::MalformedJson, message: format!("the body is not JSON ({e}); passed through"), index: None });
            return r;
        }
    };
    let id = doc.get("id").and_then(Value::as_str).map(str::to_string);
    let model = doc.get("model").and_then(Value::as_str).map(str::to_string);
    let Some(Value::Array(choices)) = doc.get_mut("choices") else { return r };
    let mut changed = false;
    for (pos, choice) in choices.iter_mut().enumerate() {
        let Some(choice) = choice.as_object_mut() else { continue };
        let index = choice.get("index").and_then(crate::json::as_u64).unwrap_or(pos as u64);
        let chat = choice.get("message").is_some_and(Value::is_object);
        let text = if chat { choice.get("message").and_then(|m| m.get("content")) } else { choice.get("text") };
        let text = text.and_then(Value::as_str);
        let Some(text) = text.filter(|t| !t.is_empty()).map(str::to_string) else { continue };
        let o = opts.for_choice(id.as_deref(), model.as_deref(), index);
        let Ok(result) = crate::parser::parse(&text, &o) else { continue };
        for d in &result.diagnostics {
            r.diagnostics.push(WireDiagnostic { choice: Some(index), label: d.label, message: d.message.clone(), index: d.index });
        }
        if result.tool_calls.is_empty() && result.reasoning.is_none() && result.content.as_deref() == Some(text.as_str()) {
            continue;
        }
        changed = true;
        apply(choice, chat, result);
    }
    if changed {
        r.body = Some(crate::json::to_text(&Value::Object(doc)));
    }
    r
}

/// Writes a parse result into a choice.
fn apply(choice: &mut Map, chat: bool, result: ParseResult) {
    let calls = result.tool_calls.len();
    let target: &mut Map = match choice.get_mut("message") {
        Some(Value::Object(m)) if chat => m,
        _ => choice,
    };
    let content = match result.content {
        Some(c) => Value::String(c),
        None if chat => Value::Null,
        None => Value::String(String::new()),
    };
    target.insert(if chat { "content" } else { "text" }.into(), content);
    if let Some(r) = result.reasoning {
        let joined = match target.get("reasoning_content").and_then(Value::as_str) {
            Some(up) => format!("{up}{r}"),
            None => r,
        };
        target.insert("reasoning_content".into(), Value::String(joined));
    }
    if calls > 0 {
        let list = target.entry("tool_calls").or_insert_with(|| Value::Array(Vec::new()));
        if !list.is_array() {
            *list = Value::Array(Vec::new());
        }
        if let Value::Array(list) = list {
            for c in result.tool_calls {
                let mut f = Map::new();
                f.insert("name".into(), Value::String(c.name));
                f.insert("arguments".into(), Value::String(c.arguments));
                let mut call = Map::new();
                call.insert("id".into(), Value::String(c.id));
                call.insert("type".into(), Value::from("function"));
                call.insert("function".into(), Value::Object(f));
                list.push(Value::Object(call));
            }
        }
        if choice.get("finish_reason").and_then(Value::as_str) == Some("stop") {
            choice.insert("finish_reason".into(), Value::from("tool_calls"));
        }
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;
    use crate::parser::Options;

    fn opts(parser: &str) -> SseOptions {
        SseOptions::new(Options::new(parser))
    }

    #[test]
    fn chat_body_gets_tool_calls() {
        let body = r#"{"id":"chatcmpl-ab12","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Sure.<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>"},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":20,"total_tokens":25}}"#;
        let r = rewrite_completion(body, &opts("hermes"));
        let v = crate::json::parse(r.body.as_deref().unwrap()).unwrap();
        let c = &v["choices"][0];
        assert_eq!(c["message"]["content"], "Sure.");
        assert_eq!(c["finish_reason"], "tool_calls");
        let call = &c["message"]["tool_calls"][0];
        assert_eq!(call["id"], "call_ab12_0");
        assert_eq!(call["type"], "function");
        assert_eq!(call["function"]["name"], "get_weather");
        assert_eq!(call["function"]["arguments"], "{\"city\": \"Paris\"}");
        assert_eq!(v["usage"]["total_tokens"], 25);
    }

    #[test]
    fn unchanged_and_non_json_bodies_pass_through() {
        let body = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Hello."},"finish_reason":"stop"}]}"#;
        assert_eq!(rewrite_completion(body, &opts("hermes")), Rewritten::default());
        assert_eq!(rewrite_completion(r#"{"error":{"message":"bad"}}"#, &opts("hermes")).body, None);
        let r = rewrite_completion("<html>", &opts("hermes"));
        assert_eq!((r.body, r.diagnostics[0].label), (None, Label::MalformedJson));
    }

    #[test]
    fn only_calls_gives_null_content_and_native_calls_stay_first() {
        let body = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>","tool_calls":[{"id":"n1","type":"function","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#;
        let r = rewrite_completion(body, &opts("hermes"));
        let v = crate::json::parse(r.body.as_deref().unwrap()).unwrap();
        let m = &v["choices"][0]["message"];
        assert!(m["content"].is_null());
        assert_eq!(m["tool_calls"][0]["id"], "n1");
        assert_eq!(m["tool_calls"][1]["function"]["name"], "f");
    }

    #[test]
    fn a_left_out_call_stays_content_exactly_as_written() {
        // Invalid JSON in a llama3_json call: the call is left out and nothing is lost, so the
        // body comes back unchanged; beside a good call, the bad one is content at its place.
        let text = r#"Hi {\"name\": \"f\", \"parameters\": {invalid json}} bye"#;
        let body = format!(r#"{{"choices":[{{"index":0,"message":{{"role":"assistant","content":"{text}"}},"finish_reason":"stop"}}]}}"#);
        let r = rewrite_completion(&body, &opts("llama3_json"));
        assert_eq!((r.body, r.diagnostics[0].label), (None, Label::MalformedJson));
        let body = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": x}}</tool_call> then <tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>"},"finish_reason":"stop"}]}"#;
        let r = rewrite_completion(body, &opts("hermes"));
        let v = crate::json::parse(r.body.as_deref().unwrap()).unwrap();
        let m = &v["choices"][0]["message"];
        assert_eq!(m["content"], r#"<tool_call>{"name": "f", "arguments": {"a": x}}</tool_call> then "#);
        assert_eq!(m["tool_calls"][0]["function"]["name"], "g");
        assert_eq!(m["tool_calls"].as_array().map(Vec::len), Some(1));
    }

    #[test]
    fn text_completion_and_reasoning() {
        let body = r#"{"id":"cmpl-9","object":"text_completion","choices":[{"index":0,"text":"<think>hm</think>ok<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>","finish_reason":"stop"}]}"#;
        let mut o = opts("hermes");
        o.parser.reasoning = Some("qwen3".into());
        let r = rewrite_completion(body, &o);
        let v = crate::json::parse(r.body.as_deref().unwrap()).unwrap();
        let c = &v["choices"][0];
        assert_eq!(c["text"], "ok");
        assert_eq!(c["reasoning_content"], "hm");
        assert_eq!(c["tool_calls"][0]["id"], "call_9_0");
        assert_eq!(c["finish_reason"], "tool_calls");
    }
}
