//! The SSE rewriter on recorded upstream streams (`tests/sse/*.sse`, expectations in
//! `tests/sse/cases.json`): each stream is rewritten whole, split in two (see `cuts`), and byte
//! by byte (the outputs must be identical), then read back the way an OpenAI client does
//! (an independent SSE reader and tool-call reassembly by `index`), and compared with the
//! expected content, calls and finish reasons.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use std::collections::BTreeMap;
use toolwire::sse::{Answer, SseOptions, SseRewriter};
use toolwire::testing::merged_deltas as merged;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sse/");

fn rewriter(options: &Value) -> SseRewriter {
    let o = toolwire::json::parse(&options.to_string()).unwrap();
    SseRewriter::new(SseOptions::from_json(&o).unwrap())
}

fn rewrite(options: &Value, chunks: &[&[u8]]) -> Vec<u8> {
    let mut r = rewriter(options);
    let mut out = Vec::new();
    for c in chunks {
        r.push(c, &mut out);
    }
    r.finish(&mut out);
    out
}

#[derive(Debug, Default)]
struct Call {
    index: u64,
    id: String,
    name: String,
    arguments: String,
}

#[derive(Debug, Default)]
struct Choice {
    content: String,
    reasoning: String,
    calls: Vec<Call>,
    finish: Option<String>,
}

/// What an OpenAI client reads from a stream.
#[derive(Debug, Default)]
struct Client {
    choices: BTreeMap<u64, Choice>,
    /// Labels of `: toolwire <label> …` comments, in order.
    diagnostics: Vec<String>,
    comments: Vec<String>,
    /// (event type, data) of every dispatched event.
    events: Vec<(Option<String>, String)>,
    done: bool,
}

/// An SSE reader written from the spec, separately from the crate's decoder.
fn read_events(bytes: &[u8]) -> (Vec<(Option<String>, String)>, Vec<String>) {
    let text = String::from_utf8_lossy(bytes).replace("\r\n", "\n").replace('\r', "\n");
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(&text).to_string();
    let (mut events, mut comments) = (Vec::new(), Vec::new());
    let (mut kind, mut data): (Option<String>, Option<String>) = (None, None);
    for line in text.split('\n') {
        if line.is_empty() {
            if let Some(d) = data.take() {
                events.push((kind.take(), d));
            }
            kind = None;
        } else if let Some(c) = line.strip_prefix(':') {
            comments.push(c.to_string());
        } else {
            let (name, value) = line.split_once(':').map_or((line, ""), |(n, v)| (n, v.strip_prefix(' ').unwrap_or(v)));
            match name {
                "data" => match &mut data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    None => data = Some(value.to_string()),
                },
                "event" => kind = Some(value.to_string()),
                _ => {}
            }
        }
    }
    (events, comments)
}

impl Client {
    fn read(bytes: &[u8]) -> Client {
        let (events, comments) = read_events(bytes);
        let mut c = Client { comments: comments.clone(), ..Default::default() };
        for line in &comments {
            if let Some(rest) = line.strip_prefix(" toolwire ") {
                c.diagnostics.push(rest.split(' ').next().unwrap().to_string());
            }
        }
        for (kind, data) in &events {
            c.events.push((kind.clone(), data.clone()));
            if kind.is_some() {
                continue;
            }
            assert!(!c.done, "data after [DONE]: {data}");
            if data == "[DONE]" {
                c.done = true;
                continue;
            }
            let chunk: Value = serde_json::from_str(data).unwrap_or_else(|e| panic!("not JSON ({e}): {data}"));
            for ch in chunk["choices"].as_array().unwrap() {
                c.choice(ch);
            }
        }
        c
    }

    fn choice(&mut self, ch: &Value) {
        let index = ch["index"].as_u64().unwrap();
        let st = self.choices.entry(index).or_default();
        let delta = if ch["delta"].is_object() { &ch["delta"] } else { ch };
        let text_key = if ch["delta"].is_object() { "content" } else { "text" };
        if let Some(t) = delta[text_key].as_str() {
            st.content.push_str(t);
        }
        if let Some(t) = delta["reasoning_content"].as_str() {
            st.reasoning.push_str(t);
        }
        for tc in delta["tool_calls"].as_array().into_iter().flatten() {
            let i = tc["index"].as_u64().expect("every tool-call delta has an index");
            if let Some(id) = tc["id"].as_str() {
                assert!(st.calls.iter().all(|c| c.index != i), "index {i} reused by a second call");
                assert_eq!(tc["type"], "function");
                assert_eq!(tc["function"]["arguments"], "", "the first delta of a call has arguments \"\"");
                let name = tc["function"]["name"].as_str().expect("the first delta names the call");
                st.calls.push(Call { index: i, id: id.to_string(), name: name.to_string(), arguments: String::new() });
            } else {
                assert!(tc["function"].get("name").is_none(), "the name comes only once");
                let call = st.calls.iter_mut().find(|c| c.index == i).expect("arguments of a started call");
                call.arguments.push_str(tc["function"]["arguments"].as_str().unwrap());
            }
        }
        if let Some(f) = ch["finish_reason"].as_str() {
            assert!(st.finish.is_none(), "one finish per choice");
            st.finish = Some(f.to_string());
        }
    }
}

/// Where to split a stream in two: every byte near a line end (where the decoder decides) and
/// every 11th byte inside lines (inside a line every cut is alike: the line is buffered until
/// its end). The JS suite splits the same streams at every byte.
fn cuts(input: &[u8]) -> Vec<usize> {
    let near_eol = |i: usize| (i.saturating_sub(2)..(i + 2).min(input.len())).any(|j| input[j] == b'\n' || input[j] == b'\r');
    (0..=input.len()).filter(|&i| i % 11 == 0 || near_eol(i)).collect()
}

#[test]
fn recorded_streams() {
    let cases: Value = serde_json::from_str(&std::fs::read_to_string(format!("{DIR}cases.json")).unwrap()).unwrap();
    let mut ids = Vec::new();
    for case in cases.as_array().unwrap() {
        let file = case["file"].as_str().unwrap();
        let input = std::fs::read(format!("{DIR}{file}")).unwrap();
        let opts = &case["options"];
        let whole = rewrite(opts, &[&input]);
        for cut in cuts(&input) {
            let split = rewrite(opts, &[&input[..cut], &input[cut..]]);
            assert!(split == whole, "{file}: split at {cut} differs");
        }
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert!(rewrite(opts, &bytes) == whole, "{file}: byte by byte differs");
        if case["identical"] == true {
            assert_eq!(String::from_utf8_lossy(&whole), String::from_utf8_lossy(&input), "{file}: output is not the input");
        }
        let got = Client::read(&whole);
        let upstream = Client::read(&input);
        let expected = case["choices"].as_array().unwrap();
        assert_eq!(got.choices.len(), expected.len(), "{file}: choices");
        for (i, want) in expected.iter().enumerate() {
            let st = &got.choices[&(i as u64)];
            assert_eq!(st.content, want["content"].as_str().unwrap_or(""), "{file}: content of choice {i}");
            assert_eq!(st.reasoning, want["reasoning"].as_str().unwrap_or(""), "{file}: reasoning of choice {i}");
            assert_eq!(st.finish.as_deref(), want["finish_reason"].as_str(), "{file}: finish of choice {i}");
            let calls = want["calls"].as_array().unwrap();
            assert_eq!(st.calls.len(), calls.len(), "{file}: calls of choice {i}: {:?}", st.calls);
            for (c, w) in st.calls.iter().zip(calls) {
                assert_eq!(c.name, w["name"].as_str().unwrap(), "{file}");
                let args: Value = serde_json::from_str(&c.arguments).unwrap_or_else(|e| panic!("{file}: arguments {:?}: {e}", c.arguments));
                assert_eq!(args, w["arguments"], "{file}: arguments of {}", c.name);
                if let Some(id) = w["id"].as_str() {
                    assert_eq!(c.id, id, "{file}");
                }
                ids.push(c.id.clone());
            }
        }
        let want_diags: Vec<String> = case["comments"].as_array().map(|a| a.iter().map(|v| v.as_str().unwrap().to_string()).collect()).unwrap_or_default();
        assert_eq!(got.diagnostics, want_diags, "{file}: toolwire comments");
        // Passed through: [DONE], comments, events of other types, usage chunks.
        assert_eq!(got.done, upstream.done, "{file}: [DONE]");
        for c in &upstream.comments {
            assert!(got.comments.contains(c), "{file}: comment {c:?} lost");
        }
        for (kind, data) in &upstream.events {
            let usage = kind.is_none() && serde_json::from_str::<Value>(data).is_ok_and(|v| v["choices"] == json!([]));
            if kind.is_some() || usage {
                assert!(got.events.contains(&(kind.clone(), data.clone())), "{file}: event {kind:?} {data} lost");
            }
        }
    }
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "call ids are unique across completions: {ids:?}");
}

/// The rewrite of `input` through the fast path (`src/sse/fast.rs`) where it applies, and
/// through the general path only.
fn both_paths(options: &Value, input: &[u8]) -> (String, String) {
    let run = |general_only: bool| {
        let mut r = rewriter(options);
        r.set_general_only(general_only);
        let mut out = Vec::new();
        r.push(input, &mut out);
        r.finish(&mut out);
        FAST.with(|n| n.set(n.get() + r.fast_events()));
        String::from_utf8(out).unwrap()
    };
    (run(false), run(true))
}

thread_local! {
    /// Events the fast path took in `both_paths`.
    static FAST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// An upstream stream of one chat chunk per 4-character piece of `text`: `data` writes an
/// event's data from the JSON string of the piece and the event's number.
fn stream(text: &str, data: &dyn Fn(&str, usize) -> String) -> String {
    stream_by(text, 4, data)
}

/// `stream` with `size` characters an event.
fn stream_by(text: &str, size: usize, data: &dyn Fn(&str, usize) -> String) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = format!("data: {}\n\n", r#"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#);
    for (n, piece) in chars.chunks(size).enumerate() {
        let piece: String = piece.iter().collect();
        out.push_str(&format!("data: {}\n\n", data(&serde_json::to_string(&piece).unwrap(), n)));
    }
    out + "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
}

/// The fast path gives byte for byte what the general path gives: on the recorded streams and
/// on chunks written every way the fast path reads or refuses (escapes, whitespace, repeated
/// keys, other fields, several choices, completions, reasoning, cumulative texts).
#[test]
fn fast_path_equals_general_path() {
    let cases: Value = serde_json::from_str(&std::fs::read_to_string(format!("{DIR}cases.json")).unwrap()).unwrap();
    for case in cases.as_array().unwrap() {
        let file = case["file"].as_str().unwrap();
        let input = std::fs::read(format!("{DIR}{file}")).unwrap();
        let (fast, general) = both_paths(&case["options"], &input);
        assert_eq!(fast, general, "{file}");
    }
    let texts = [
        "Hello <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par\\\"is\\n\"}}</tool_call> done <tool",
        "<think>hmm, a < b\n</think>Sure: é😀 <tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
        "plain text only, with a < and a \\ and a \u{1}",
    ];
    let go = |p: &str| p.replace('<', "\\u003c").replace('>', "\\u003e");
    let styles: Vec<(&str, Box<dyn Fn(&str, usize) -> String>)> = vec![
        ("vllm", Box::new(|p, _| format!(r#"{{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{{"content":{p}}},"logprobs":null,"finish_reason":null}}]}}"#))),
        ("go escapes", Box::new(move |p, _| format!(r#"{{"id":"c1","choices":[{{"index":0,"delta":{{"content":{}}},"finish_reason":null}}]}}"#, go(p)))),
        ("spaces", Box::new(|p, _| format!(r#"{{"id": "c1", "choices": [{{"index": 0, "delta": {{"content": {p}}}, "finish_reason": null}}]}}"#))),
        ("escaped id", Box::new(|p, _| format!(r#"{{"id":"c\u0031","choices":[{{"index":0,"delta":{{"content":{p}}}}}]}}"#))),
        ("repeated key", Box::new(|p, n| if n % 3 == 0 { format!(r#"{{"id":"c1","choices":[{{"index":0,"delta":{{"content":"x","content":{p}}}}}]}}"#) } else { format!(r#"{{"id":"c1","choices":[{{"index":0,"delta":{{"content":{p}}}}}],"x":{{"a":1,"a":[2]}}}}"#) })),
        ("more fields", Box::new(|p, n| format!(r#"{{"choices":[{{"delta":{{"reasoning_content":null,"content":{p},"role":"assistant"}},"logprobs":{{"content":[{{"token":"x","logprob":-0.5E-3}}]}},"finish_reason":null,"stop_reason":null}}],"id":"c1","usage":{{"n":{n}}}}}"#))),
        ("fields around the delta", Box::new(|p, n| if n % 2 == 0 { format!(r#"{{"usage":{{"n":{n}}},"choices":[{{"finish_reason":null,"logprobs":{{"t":[1]}},"index":0,"stop_reason":"x","delta":{{"role":"assistant","content":{p},"x":[1]}}}}],"id":"c1"}}"#) } else { format!(r#"{{"id":"c1","usage":null,"choices":[{{"logprobs":null,"delta":{{"x":{{}},"content":{p}}},"stop_reason":null}}],"created":{n}}}"#) })),
        ("null content", Box::new(|p, n| if n % 2 == 0 { r#"{"id":"c1","choices":[{"index":0,"delta":{"content":null},"finish_reason":null}]}"#.to_string() } else { format!(r#"{{"id":"c1","choices":[{{"index":0,"delta":{{"content":{p}}},"finish_reason":null}}]}}"#) })),
        ("odd index", Box::new(|p, n| format!(r#"{{"id":"c1","choices":[{{"index":{},"delta":{{"content":{p}}}}}]}}"#, ["0", "\"0\"", "1", "-1", "0.0"][n % 5]))),
        ("two choices", Box::new(|p, _| format!(r#"{{"id":"c1","choices":[{{"index":0,"delta":{{"content":{p}}}}},{{"index":1,"delta":{{"content":{p}}}}}]}}"#))),
        ("completions", Box::new(|p, _| format!(r#"{{"id":"c1","object":"text_completion","choices":[{{"index":0,"text":{p},"finish_reason":null}}]}}"#))),
        ("lone surrogate", Box::new(|p, n| if n == 2 { r#"{"id":"c1","choices":[{"index":0,"delta":{"content":"\ud800"}}]}"#.to_string() } else { format!(r#"{{"id":"c1","choices":[{{"index":0,"delta":{{"content":{p}}}}}]}}"#) })),
        ("finish early", Box::new(|p, n| format!(r#"{{"id":"c1","choices":[{{"index":0,"delta":{{"content":{p}}},"finish_reason":{}}}]}}"#, if n == 5 { "\"length\"" } else { "null" }))),
        ("native calls", Box::new(|p, n| if n == 3 { r#"{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"n","type":"function","function":{"name":"g","arguments":"{}"}}]}}]}"#.to_string() } else { format!(r#"{{"id":"c1","choices":[{{"index":0,"delta":{{"content":{p}}}}}]}}"#) })),
    ];
    let cumulative = |text: &str| {
        let chars: Vec<char> = text.chars().collect();
        let mut out = String::new();
        for end in (4..chars.len()).step_by(4) {
            let so_far: String = chars[..end].iter().collect();
            out.push_str(&format!("data: {{\"id\":\"c1\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{}}}}}]}}\n\n", serde_json::to_string(&so_far).unwrap()));
        }
        out
    };
    for text in texts {
        for (name, data) in &styles {
            let input = stream(text, data.as_ref());
            for options in [json!({"parser": "hermes"}), json!({"parser": "hermes", "reasoning": "qwen3"}), json!({"parser": "hermes", "comments": false})] {
                let (fast, general) = both_paths(&options, input.as_bytes());
                assert_eq!(fast, general, "{name}, {options}: {text:?}");
            }
        }
        let (fast, general) = both_paths(&json!({"parser": "hermes"}), cumulative(text).as_bytes());
        assert_eq!(fast, general, "cumulative: {text:?}");
    }
    // Finish events after a call, of every envelope (the fast path writes one whose delta is
    // `{}` and whose output is its finish alone as the event with `finish_reason` replaced):
    // fields around the delta, `logprobs`, `stop_reason`, `usage`, an `id:` line, a delta that
    // is not empty.
    let finishes = [
        r#"{"id":"c1","choices":[{"index":0,"delta":{},"logprobs":{"t":[1]},"finish_reason":"stop","stop_reason":"x"}],"usage":{"n":1}}"#,
        r#"{"usage":null,"choices":[{"finish_reason":"stop","delta":{},"index":0}],"id":"c1"}"#,
        r#"{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#,
        r#"{"id":"c1","choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}"#,
    ];
    let last = "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
    for text in &texts[..2] {
        let body = stream(text, styles[0].1.as_ref());
        let head = &body[..body.rfind(last).unwrap()];
        for finish in finishes {
            for extra in ["", "id: 7\n"] {
                let input = format!("{head}{extra}data: {finish}\n\ndata: [DONE]\n\n");
                let (fast, general) = both_paths(&json!({"parser": "hermes"}), input.as_bytes());
                assert_eq!(fast, general, "{finish} {extra:?}: {text:?}");
                assert!(fast.contains("tool_calls"), "{fast}");
            }
        }
    }
    // Most of these events are ones the fast path takes.
    let taken = FAST.with(|n| n.get());
    assert!(taken > 1000, "the fast path took {taken} events");
}

#[test]
fn every_case_file_is_listed() {
    let cases = std::fs::read_to_string(format!("{DIR}cases.json")).unwrap();
    for entry in std::fs::read_dir(DIR).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".sse") {
            assert!(cases.contains(&format!("\"{name}\"")), "{name} has no case in cases.json");
        }
    }
}

/// `SSE_SHOW=file.sse cargo test --test sse show -- --ignored --nocapture` prints a rewrite.
#[test]
#[ignore]
fn show() {
    let file = std::env::var("SSE_SHOW").unwrap();
    let cases: Value = serde_json::from_str(&std::fs::read_to_string(format!("{DIR}cases.json")).unwrap()).unwrap();
    let case = cases.as_array().unwrap().iter().find(|c| c["file"] == file.as_str()).unwrap();
    let input = std::fs::read(format!("{DIR}{file}")).unwrap();
    print!("{}", String::from_utf8_lossy(&rewrite(&case["options"], &[&input])));
}

#[test]
fn merged_joins_runs_of_one_delta_text() {
    let ev = |delta: &str| format!("data: {{\"id\":\"c\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":null}}]}}\n\n");
    let args = |t: &str| ev(&format!(r#"{{"tool_calls":[{{"index":0,"function":{{"arguments":{}}}}}]}}"#, serde_json::to_string(t).unwrap()));
    let input = [args("{\"a\""), args(": \"x\n"), args("y\"}"), ev(r#"{"content":"hi"}"#), ev(r#"{"content":" there"}"#), ev(r#"{"reasoning_content":"r"}"#), args("z"), "data: [DONE]\n\n".into()].concat();
    let want = [args("{\"a\": \"x\ny\"}"), ev(r#"{"content":"hi there"}"#), ev(r#"{"reasoning_content":"r"}"#), args("z"), "data: [DONE]\n\n".into()].concat();
    assert_eq!(merged(input.as_bytes()), want);
    // A call's first delta (id, name), another call, another envelope: not merged.
    let first = ev(r#"{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}"#);
    let other = ev(r#"{"tool_calls":[{"index":1,"function":{"arguments":"b"}}]}"#);
    let finish = ev(r#"{"content":"x"}"#).replace("null", "\"stop\"");
    let input = [first.clone(), args("a"), other.clone(), ev(r#"{"content":"x"}"#), finish.clone()].concat();
    assert_eq!(merged(input.as_bytes()), input);
}

#[test]
fn a_quiet_run_within_a_chunk_goes_out_as_one_event() {
    // A long argument, one 4-character piece an event, 8 events a network chunk.
    let value = "lorem ipsum dolor sit amet, ".repeat(40);
    let text = format!("Sure. <tool_call>\n{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a.md\", \"content\": \"{value}\"}}}}\n</tool_call>");
    let data = |piece: &str, _: usize| format!(r#"{{"id":"c1","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"content":{piece}}},"finish_reason":null}}]}}"#);
    let input = stream(&text, &data);
    let events: Vec<&str> = input.split_inclusive("\n\n").collect();
    let mut r = rewriter(&json!({"parser": "hermes"}));
    let mut plain = rewriter(&json!({"parser": "hermes"}));
    let (mut one, mut chunks) = (0, 0);
    for chunk in events.chunks(8) {
        let chunk = chunk.concat();
        let mut out = Vec::new();
        r.push_answered(chunk.as_bytes(), &mut out);
        let mut want = Vec::new();
        plain.push(chunk.as_bytes(), &mut want);
        assert_eq!(merged(&out), merged(&want));
        chunks += 1;
        if out.windows(2).filter(|w| w == b"\n\n").count() == 1 && want.windows(2).filter(|w| w == b"\n\n").count() == 8 {
            one += 1;
        }
    }
    // Every chunk inside the argument: 8 argument deltas in, one out.
    assert!(one * 10 > chunks * 8, "{one} of {chunks} chunks came out as one event");
}

/// The quiet-run path for SSE (`SseRewriter::push_answered`, the package's `pushInput`): a
/// network chunk made of whole events that the quiet-run hint admits is answered from the
/// hint's bytes, the events' texts going to the parser before the next input. Asserts that
/// every chunk's output (and the finish's) is what a plain rewriter writes for it once runs of
/// one delta text are merged (`merged`: the answered path sends such a run within a chunk as
/// one event); returns how many chunks were answered.
fn check_quiet(options: &Value, chunks: &[&[u8]], what: &str) -> usize {
    let mut plain = rewriter(options);
    let mut fast = rewriter(options);
    // `push_answered_over` (the package's `pushInput`) into one reused buffer, its bytes
    // left from earlier chunks (junk at first).
    let mut over = rewriter(options);
    let mut scratch = vec![0xAA; 300];
    for (n, chunk) in chunks.iter().enumerate() {
        let mut want = Vec::new();
        plain.push(chunk, &mut want);
        // Appended after bytes already there.
        let mut got = b"before".to_vec();
        if fast.push_answered(chunk, &mut got) == Answer::Verbatim {
            assert!(got == b"before", "{what}: chunk {n}: a verbatim answer appended bytes");
            got.extend_from_slice(chunk);
        }
        assert!(got[..6] == *b"before", "{what}: chunk {n}: the bytes before the answer changed");
        let (got, want) = (merged(&got[6..]), merged(&want));
        assert!(got == want, "{what}: chunk {n}: quiet path wrote\n{got}\nnot\n{want}");
        let (answer, len) = over.push_answered_over(chunk, &mut scratch);
        let got = merged(if answer == Answer::Verbatim { &chunk[..] } else { &scratch[..len] });
        assert!(got == want, "{what}: chunk {n}: quiet path into a reused buffer wrote\n{got}\nnot\n{want}");
    }
    let (mut got, mut want, mut got_over) = (Vec::new(), Vec::new(), Vec::new());
    fast.finish(&mut got);
    plain.finish(&mut want);
    over.finish(&mut got_over);
    assert!(got == want, "{what}: finish differs");
    assert!(got_over == want, "{what}: finish after answers into a reused buffer differs");
    assert!(over.quiet_chunks() == fast.quiet_chunks(), "{what}: both quiet paths answer the same chunks");
    fast.quiet_chunks()
}

/// Every event as its own network chunk, 8 events a chunk, every byte split near line ends.
fn quiet_chunkings(options: &Value, input: &[u8], what: &str) -> usize {
    let mut events: Vec<&[u8]> = Vec::new();
    let mut at = 0;
    while let Some(i) = input[at..].windows(2).position(|w| w == b"\n\n") {
        events.push(&input[at..at + i + 2]);
        at += i + 2;
    }
    if at < input.len() {
        events.push(&input[at..]);
    }
    let mut answered = check_quiet(options, &events, &format!("{what}, one event a chunk"));
    let eights: Vec<Vec<u8>> = events.chunks(8).map(|c| c.concat()).collect();
    answered += check_quiet(options, &eights.iter().map(Vec::as_slice).collect::<Vec<_>>(), &format!("{what}, 8 events a chunk"));
    for cut in cuts(input).into_iter().step_by(7) {
        check_quiet(options, &[&input[..cut], &input[cut..]], &format!("{what}, split at {cut}"));
    }
    answered
}

#[test]
fn quiet_path_writes_what_the_rewriter_writes() {
    let cases: Value = serde_json::from_str(&std::fs::read_to_string(format!("{DIR}cases.json")).unwrap()).unwrap();
    for case in cases.as_array().unwrap() {
        let file = case["file"].as_str().unwrap();
        let input = std::fs::read(format!("{DIR}{file}")).unwrap();
        quiet_chunkings(&case["options"], &input, file);
    }
    // Text, reasoning and a long argument, one event per 4-character piece: mostly answered.
    let value = "lorem ipsum dolor sit amet, ".repeat(40);
    let text = format!("<think>Let me think about it.</think>Sure. <tool_call>\n{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a.md\", \"content\": \"{value}\"}}}}\n</tool_call> Done.");
    let data = |piece: &str, _: usize| format!(r#"{{"id":"c1","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"content":{piece}}},"finish_reason":null}}]}}"#);
    let input = stream(&text, &data);
    for options in [json!({"parser": "hermes"}), json!({"parser": "hermes", "reasoning": "qwen3"}), json!({"parser": "hermes", "limits": {"maxArgsBytes": 300}})] {
        let answered = quiet_chunkings(&options, input.as_bytes(), &options.to_string());
        let events = input.matches("\n\n").count();
        assert!(options["limits"].is_object() || answered > events / 2, "{options}: {answered} chunks answered of {events} events");
    }
    // Envelopes around the delta that the shape's events keep or change: `usage` (null, an
    // object: only the last of several events keeps it), `logprobs` (kept on the first of
    // several events), `stop_reason` (null, or not: written null), a `finish_reason` that is
    // not a string (written null); events of several parts (a call's end and text, a call's
    // start and arguments).
    let text = format!("Sure. <tool_call>\n{{\"name\": \"f\", \"arguments\": {{\"a\": \"{}\"}}}}\n</tool_call> Done. <tool_call>{{\"name\": \"g\", \"arguments\": {{}}}}</tool_call>!", "lorem ipsum ".repeat(5));
    let envelopes: [&dyn Fn(&str, usize) -> String; 4] = [
        &|p, _| format!(r#"{{"id":"c1","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"content":{p}}},"logprobs":null,"finish_reason":null,"stop_reason":null}}],"usage":null}}"#),
        &|p, _| format!(r#"{{"id":"c1","choices":[{{"index":0,"delta":{{"content":{p}}},"logprobs":{{"t":[1]}},"finish_reason":null}}]}}"#),
        &|p, _| format!(r#"{{"id":"c1","choices":[{{"index":0,"delta":{{"content":{p}}},"finish_reason":null,"stop_reason":7}}],"usage":{{"n":1}}}}"#),
        &|p, _| format!(r#"{{"id":"c1","choices":[{{"index":0,"delta":{{"content":{p}}},"finish_reason":0}}]}}"#),
    ];
    for (i, data) in envelopes.into_iter().enumerate() {
        for size in [4, 9] {
            quiet_chunkings(&json!({"parser": "hermes"}), stream_by(&text, size, data).as_bytes(), &format!("envelope {i}, {size} characters an event"));
        }
    }
    // Escapes in the texts: newlines, quotes, backslashes, tabs, control characters and
    // `\uXXXX` (ASCII and not) in prose and reasoning, escaped quotes and newlines in an
    // argument (the model's own JSON escapes), `\/` and `\u0041`-style escapes of plain
    // bytes: each event's text is read as the plain path decodes it.
    let prose = "Line one\n\tsays \"hi\" to C:\\dir/file, A\u{1}B caf\u{e9} <b>\n\n";
    let value = "fn main() {\\n    println!(\\\"A/B\\\");\\n}\\n".repeat(20);
    let text = format!("<think>Think \"twice\":\n- a/b\n- \\x\n</think>{prose}<tool_call>\n{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"src/a.rs\", \"content\": \"{value}\", \"note\": \"{}\"}}}}\n</tool_call> Done.\n", "A/B plain ".repeat(20));
    // Some events write `/` as `\/` and `A` as `\u0041`, `e` as `\u0065` (as upstreams may).
    let data = |piece: &str, n: usize| {
        let piece = match n % 3 {
            0 => piece.replace('/', "\\/"),
            1 => piece.replace('A', "\\u0041").replace('e', "\\u0065"),
            _ => piece.to_string(),
        };
        format!(r#"{{"id":"c1","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"content":{piece}}},"finish_reason":null}}]}}"#)
    };
    let input = stream(&text, &data);
    assert!(input.contains("\\\\n") && input.contains("\\\"") && input.contains("\\u0041") && input.contains("\\/") && input.contains("\\u0001"));
    for options in [json!({"parser": "hermes"}), json!({"parser": "hermes", "reasoning": "qwen3"}), json!({"parser": "hermes", "limits": {"maxArgsBytes": 300}})] {
        let answered = quiet_chunkings(&options, input.as_bytes(), &format!("escapes, {options}"));
        let events = input.matches("\n\n").count();
        // Chunks answered (one event a chunk, then eight): 147 (`hermes`) before an escape
        // cut between two events was answered, 246 after, 309 since a text may end inside an
        // escape.
        assert!(options["limits"].is_object() || answered * 10 > events * 9, "escapes, {options}: {answered} chunks answered of {events} events");
    }
    // A code argument's escapes (`\\`, `\n`, `\"`, `\t`, `\/`) cut every way between events of
    // 1 to 5 characters: a text may end with the `\` of an escape (answered, its `\` written with
    // the next text; a text that is only that `\` goes the plain way: 8 of every 21 events at one
    // character an event).
    let value = "a\\\\b\\n\\\"q\\\" \\t\\/x\\\\\\n".repeat(12);
    let text = format!("Sure. <tool_call>\n{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a.rs\", \"content\": \"{value}\"}}}}\n</tool_call> Done.");
    let data = |piece: &str, _: usize| format!(r#"{{"id":"c1","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"content":{piece}}},"finish_reason":null}}]}}"#);
    for size in 1..=5 {
        let input = stream_by(&text, size, &data);
        let answered = quiet_chunkings(&json!({"parser": "hermes"}), input.as_bytes(), &format!("escapes cut, {size} characters an event"));
        let events = input.matches("\n\n").count();
        let floor = if size == 1 { events / 4 } else { events * 7 / 10 };
        assert!(answered > floor, "escapes cut, {size} characters an event: {answered} chunks answered of {events} events");
    }
    // Non-ASCII characters (accents, CJK, emoji) in prose, reasoning and an argument, raw and
    // (some) as `\uXXXX` escapes, which the quiet path leaves to the plain way.
    let text = format!("<think>Réfléchissons… 考えてみる — “quoted”</think>東京は日本の首都です。Ça coûte 5 €. 🙂 <tool_call>\n{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"notes/東京.md\", \"content\": \"{}\"}}}}\n</tool_call> 完了。", "東京タワー 🗼 café ".repeat(30));
    let data = |piece: &str, n: usize| {
        let piece = if n % 5 == 0 { piece.replace('é', "\\u00e9") } else { piece.to_string() };
        format!(r#"{{"id":"c1","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"content":{piece}}},"finish_reason":null}}]}}"#)
    };
    let input = stream(&text, &data);
    assert!(input.contains("\\u00e9") && input.contains('é'));
    // Bytes that are not UTF-8 in an argument's text (an upstream's fault): such an event goes
    // the plain way (the quiet path took them as characters, and lost the texts after them).
    let mut bad = input.clone().into_bytes();
    // (Past half of the stream: in the argument.)
    for at in [bad.len() / 2, bad.len() * 2 / 3] {
        let at = at + input[at..].find('é').unwrap();
        bad[at] = 0xff;
    }
    quiet_chunkings(&json!({"parser": "hermes"}), &bad, "bytes that are not UTF-8 in an argument");
    for options in [json!({"parser": "hermes"}), json!({"parser": "hermes", "reasoning": "qwen3"}), json!({"parser": "hermes", "limits": {"maxArgsBytes": 300}})] {
        let answered = quiet_chunkings(&options, input.as_bytes(), &format!("non-ASCII, {options}"));
        let events = input.matches("\n\n").count();
        assert!(options["limits"].is_object() || answered > events / 2, "non-ASCII, {options}: {answered} chunks answered of {events} events");
    }
    // Long texts (the plain runs are read eight bytes at a time): a marker's first byte, escapes
    // and non-ASCII characters at every offset of a word, in prose, reasoning and an argument.
    let value = "plain text of some length \\n then <b> and \\\"q\\\" é… ".repeat(8);
    let text = format!("<think>Plain reasoning, long enough; a < b and c > d. Then more.</think>Prose of 9 to 40 characters an event; a <b> tag, x < y, café. <tool_call>\n{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a.md\", \"content\": \"{value}\"}}}}\n</tool_call> Done, at last, with < and >.");
    let data = |piece: &str, _: usize| format!(r#"{{"id":"c1","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"content":{piece}}},"finish_reason":null}}]}}"#);
    for size in [9, 13, 17, 40] {
        let input = stream_by(&text, size, &data);
        for options in [json!({"parser": "hermes"}), json!({"parser": "hermes", "reasoning": "qwen3"}), json!({"parser": "hermes", "limits": {"maxArgsBytes": 300}})] {
            let answered = quiet_chunkings(&options, input.as_bytes(), &format!("long texts of {size} characters, {options}"));
            let events = input.matches("\n\n").count();
            assert!(options["limits"].is_object() || answered > events / 2, "long texts of {size} characters, {options}: {answered} chunks answered of {events} events");
        }
    }
}
