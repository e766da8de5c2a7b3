//! The binding layer, in wasm under Node (wasm-bindgen-test): every fixture goes through the JS
//! API whole and split at every character, and must equal the core's result.
#![cfg(target_arch = "wasm32")]

use serde_json::{json, Value};
use toolwire::wasm::{parse_js, JsToolCallParser};
use wasm_bindgen::{JsCast, JsValue};

fn rs(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}
use wasm_bindgen_test::wasm_bindgen_test;

/// Every file in tests/fixtures (a native test checks this list is complete).
const FIXTURES: &[(&str, &str)] = &[
    ("json_families.json", include_str!("fixtures/json_families.json")),
    ("json_tags.json", include_str!("fixtures/json_tags.json")),
    ("pythonic.json", include_str!("fixtures/pythonic.json")),
    ("xml.json", include_str!("fixtures/xml.json")),
    ("reasoning.json", include_str!("fixtures/reasoning.json")),
    ("tools.json", include_str!("fixtures/tools.json")),
];
const CORPUS: &str = include_str!("corpus/vllm-sample.json");

fn error_message(e: JsValue) -> String {
    e.dyn_into::<js_sys::Error>().map(|e| String::from(e.message())).unwrap_or_default()
}

/// Merges adjacent text/reasoning and same-index deltas of a JSON event list.
fn merge(events: &[Value]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for e in events {
        let t = e["type"].as_str().unwrap_or("");
        if let Some(last) = out.last_mut() {
            let lt = last["type"].as_str().unwrap_or("").to_string();
            if lt == t && (t == "text" || t == "reasoning") {
                let joined = format!("{}{}", last["text"].as_str().unwrap(), e["text"].as_str().unwrap());
                last["text"] = json!(joined);
                continue;
            }
            if lt == t && t == "tool-call-delta" && last["index"] == e["index"] {
                let joined = format!("{}{}", last["argumentsDelta"].as_str().unwrap(), e["argumentsDelta"].as_str().unwrap());
                last["argumentsDelta"] = json!(joined);
                continue;
            }
        }
        out.push(e.clone());
    }
    out
}

/// (options, input) for every fixture and every corpus vector of a registered family.
fn cases() -> Vec<(Value, String)> {
    let mut out = Vec::new();
    for (_, text) in FIXTURES {
        let list: Value = serde_json::from_str(text).unwrap();
        for f in list.as_array().unwrap() {
            let mut o = if f["options"].is_object() { f["options"].clone() } else { json!({}) };
            o["parser"] = f["parser"].clone();
            for k in ["tools", "reasoning", "recover", "template"] {
                if !f[k].is_null() {
                    o[k] = f[k].clone();
                }
            }
            out.push((o, f["input"].as_str().unwrap().to_string()));
        }
    }
    let corpus: Value = serde_json::from_str(CORPUS).unwrap();
    for v in corpus.as_array().unwrap() {
        let parser = v["parser"].as_str().unwrap();
        if toolwire::families::find(parser).is_none() {
            continue;
        }
        let mut o = json!({"parser": parser});
        if !v["tools"].is_null() {
            o["tools"] = v["tools"].clone();
        }
        out.push((o, v["model_output"].as_str().unwrap().to_string()));
    }
    out
}

fn stream(opts: &Value, chunks: &[&str]) -> Vec<Value> {
    let mut p = JsToolCallParser::new(&opts.to_string()).unwrap();
    let mut events = Vec::new();
    for c in chunks {
        events.extend(rs(&p.push(c)).as_array().unwrap().iter().cloned());
    }
    events.extend(rs(&p.finish()).as_array().unwrap().iter().cloned());
    events
}

#[wasm_bindgen_test]
fn parse_through_the_binding_equals_the_core() {
    for (opts, input) in cases() {
        let via_js = rs(&parse_js(&input, &opts.to_string()).unwrap_or_else(|e| panic!("{}", error_message(e.into()))));
        let o = toolwire::Options::from_json(&toolwire::json::parse(&opts.to_string()).unwrap()).unwrap();
        let core: Value = serde_json::from_str(&toolwire::parse(&input, &o).unwrap().to_json()).unwrap();
        assert_eq!(via_js, core, "{opts} {input:?}");
    }
}

#[wasm_bindgen_test]
fn streaming_through_the_binding_at_every_split() {
    for (opts, input) in cases() {
        let whole = merge(&stream(&opts, &[&input]));
        for (cut, _) in input.char_indices().skip(1) {
            let split = merge(&stream(&opts, &[&input[..cut], &input[cut..]]));
            assert_eq!(split, whole, "{opts} split at {cut} of {input:?}");
        }
        // Bytes, one at a time.
        let mut p = JsToolCallParser::new(&opts.to_string()).unwrap();
        let mut events = Vec::new();
        for b in input.as_bytes() {
            events.extend(rs(&p.push_bytes(&[*b])).as_array().unwrap().iter().cloned());
        }
        events.extend(rs(&p.finish()).as_array().unwrap().iter().cloned());
        assert_eq!(merge(&events), whole, "{opts} byte by byte {input:?}");
    }
}

#[wasm_bindgen_test]
fn unknown_parser_error_lists_valid_ids() {
    let err = JsToolCallParser::new(&json!({"parser": "nope"}).to_string()).err().unwrap();
    let msg = error_message(err.into());
    assert!(msg.contains("unknown parser `nope`") && msg.contains("hermes"), "{msg}");
    let err = parse_js("x", &json!({"parser": "hermes", "reasoning": "nope"}).to_string()).err().unwrap();
    assert!(error_message(err.into()).contains("qwen3"));
}

