//! The binding layer, in wasm under Node (wasm-bindgen-test): every fixture goes through the JS
//! API whole and split at every character, and must equal the core's result.
#![cfg(target_arch = "wasm32")]

use serde_json::{json, Value};
use toolwire::wasm::{parse_js, rewrite_completion_js, JsSseRewriter, JsToolCallParser};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

fn rs(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}
use wasm_bindgen_test::wasm_bindgen_test;

#[path = "common/data.rs"]
mod data;

/// tests/data and tests/corpus, read at run time through Node's fs (the runner is Node).
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests");

/// `op` on `path` through Node's fs: `list` (names, sorted), `dir` (`"1"` or `""`) or `read`
/// (UTF-8 text); `None` when it fails.
fn node_fs(op: &str, path: &str) -> Option<String> {
    thread_local! {
        static FS: js_sys::Function = js_sys::Function::new_with_args(
            "op, p",
            "const fs = globalThis.process?.getBuiltinModule?.('node:fs');
             if (!fs) throw new Error('the wasm suite reads tests/data through Node >= 20.16 (process.getBuiltinModule)');
             try {
               if (op === 'list') return fs.readdirSync(p).sort().join('\\n');
               if (op === 'dir') return fs.statSync(p).isDirectory() ? '1' : '';
               return fs.readFileSync(p, 'utf8');
             } catch { return null; }",
        );
    }
    FS.with(|f| f.call2(&JsValue::NULL, &JsValue::from_str(op), &JsValue::from_str(path)).unwrap().as_string())
}

struct NodeFs(String);

impl data::DataFs for NodeFs {
    fn list(&self, dir: &str) -> Vec<String> {
        node_fs("list", &format!("{}/{dir}", self.0)).map(|s| s.split('\n').filter(|n| !n.is_empty()).map(str::to_string).collect()).unwrap_or_default()
    }
    fn is_dir(&self, path: &str) -> bool {
        node_fs("dir", &format!("{}/{path}", self.0)).is_some_and(|s| s == "1")
    }
    fn read(&self, path: &str) -> Option<String> {
        node_fs("read", &format!("{}/{path}", self.0))
    }
}

#[wasm_bindgen(module = "/pkg-template/events.js")]
extern "C" {
    /// The package's own decoder of `push`/`finish` results (the only one there is).
    #[wasm_bindgen(js_name = decodeEvents)]
    fn decode_events(s: &str) -> JsValue;
}

/// The events of a `push`/`finish` result, decoded by pkg-template/events.js as the package does.
fn decode(s: &str) -> Vec<Value> {
    let json = js_sys::JSON::stringify(&decode_events(s)).unwrap();
    rs(&String::from(json)).as_array().unwrap().clone()
}

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

/// (options, input) for every case of tests/data and every corpus vector of a registered family.
fn cases() -> Vec<(Value, String)> {
    let (cases, problems) = data::load_cases(&NodeFs(format!("{ROOT}/data")));
    assert!(problems.is_empty(), "{problems:?}");
    assert!(cases.len() > 500, "only {} cases read from {ROOT}/data", cases.len());
    let mut out: Vec<(Value, String)> =
        cases.into_iter().map(|c| (c.options.unwrap_or_else(|e| panic!("{}: {e}", c.name)), c.input)).collect();
    let corpus: Value = serde_json::from_str(&node_fs("read", &format!("{ROOT}/corpus/vllm-sample.json")).unwrap()).unwrap();
    for v in corpus.as_array().unwrap() {
        let parser = v["parser"].as_str().unwrap();
        if toolwire::registry::find(parser).is_none() {
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
        events.extend(decode(&p.push(c)));
    }
    events.extend(decode(&p.finish()));
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
            events.extend(decode(&p.push_bytes(&[*b])));
        }
        events.extend(decode(&p.finish()));
        assert_eq!(merge(&events), whole, "{opts} byte by byte {input:?}");
    }
}

/// The word scan's wasm SIMD path (sixteen bytes a step) against a byte loop.
#[wasm_bindgen_test]
fn scan_until_simd_is_a_byte_loop() {
    toolwire::testing::check_scan_until(300).unwrap();
}

#[wasm_bindgen_test]
fn unknown_parser_error_lists_valid_ids() {
    let err = JsToolCallParser::new(&json!({"parser": "nope"}).to_string()).err().unwrap();
    let msg = error_message(err.into());
    assert!(msg.contains("unknown parser `nope`") && msg.contains("hermes"), "{msg}");
    let err = parse_js("x", &json!({"parser": "hermes", "reasoning": "nope"}).to_string()).err().unwrap();
    assert!(error_message(err.into()).contains("qwen3"));
}

/// Recorded upstream streams (tests/sse) and their options.
const SSE_CASES: &str = include_str!("sse/cases.json");
const SSE_STREAMS: &[(&str, &[u8])] = &[
    ("hermes-qwen25.sse", include_bytes!("sse/hermes-qwen25.sse")),
    ("qwen3-coder.sse", include_bytes!("sse/qwen3-coder.sse")),
    ("n2.sse", include_bytes!("sse/n2.sse")),
    ("crlf-comments.sse", include_bytes!("sse/crlf-comments.sse")),
    ("truncated.sse", include_bytes!("sse/truncated.sse")),
];

fn sse_options(file: &str) -> Value {
    let cases: Value = serde_json::from_str(SSE_CASES).unwrap();
    cases.as_array().unwrap().iter().find(|c| c["file"] == file).unwrap()["options"].clone()
}

#[wasm_bindgen_test]
fn sse_rewriter_binding_equals_the_core_split_every_97_bytes() {
    for (file, input) in SSE_STREAMS {
        let opts = sse_options(file);
        let core = {
            let o = toolwire::sse::SseOptions::from_json(&toolwire::json::parse(&opts.to_string()).unwrap()).unwrap();
            let mut r = toolwire::sse::SseRewriter::new(o);
            let mut out = Vec::new();
            r.push(input, &mut out);
            r.finish(&mut out);
            out
        };
        for cut in (0..=input.len()).step_by(97).chain([input.len()]) {
            let mut r = JsSseRewriter::new(&opts.to_string()).unwrap();
            let mut out = r.push(&input[..cut]);
            out.extend(r.push(&input[cut..]));
            out.extend(r.finish());
            assert!(out == core, "{file}: split at {cut} differs from the core");
        }
    }
}

#[wasm_bindgen_test]
fn sse_rewriter_diagnostics_and_errors() {
    let (file, input) = SSE_STREAMS.iter().find(|(f, _)| *f == "truncated.sse").unwrap();
    let mut opts = sse_options(file);
    opts["comments"] = json!(false);
    let mut r = JsSseRewriter::new(&opts.to_string()).unwrap();
    let out = r.push(input);
    assert!(rs(&r.take_diagnostics()).as_array().unwrap().is_empty());
    let tail = r.finish();
    assert!(!String::from_utf8_lossy(&[out, tail].concat()).contains("toolwire"));
    let diags = rs(&r.take_diagnostics());
    assert_eq!(diags, json!([{"label": "truncation", "message": "`write_file`: the output ended inside the arguments", "index": 0, "choice": 0}]));
    assert_eq!(rs(&r.take_diagnostics()), json!([]));
    let err = JsSseRewriter::new(&json!({"parser": "nope"}).to_string()).err().unwrap();
    assert!(error_message(err.into()).contains("unknown parser `nope`"));
    let err = JsSseRewriter::new(&json!({"maxEventBytes": 0}).to_string()).err().unwrap();
    assert!(error_message(err.into()).contains("maxEventBytes"));
}

#[wasm_bindgen_test]
fn rewrite_completion_binding() {
    let body = json!({"id": "chatcmpl-5", "choices": [{"index": 0, "message": {"role": "assistant", "content": "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"}, "finish_reason": "stop"}]});
    let r = rs(&rewrite_completion_js(&body.to_string(), "\"hermes\"").unwrap());
    let out: Value = serde_json::from_str(r["body"].as_str().unwrap()).unwrap();
    assert_eq!(out["choices"][0]["message"]["tool_calls"], json!([{"id": "call_5_0", "type": "function", "function": {"name": "f", "arguments": "{}"}}]));
    assert_eq!(out["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(r["diagnostics"], json!([]));
    let unchanged = rs(&rewrite_completion_js("{\"choices\": []}", "").unwrap());
    assert_eq!(unchanged, json!({"body": null, "diagnostics": []}));
}
