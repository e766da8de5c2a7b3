//! The fixture harness: every fixture runs whole, split at every byte, and in random chunkings,
//! and every run is checked against the invariants of contract §3.
//!
//! Fixtures are data: `tests/fixtures/*.json` (ours) and `tests/corpus/vllm-sample.json`
//! (vLLM's vectors). See `Fixture` for the format.

#![allow(dead_code)]

use serde_json::Value;
use std::path::Path;
use toolwire::event::Event;
use toolwire::json::scanner::{is_valid_json, Expect};
use toolwire::spans::Span;
use toolwire::{Options, ParseResult, ToolCallParser};

/// One fixture.
///
/// Own fixtures (`tests/fixtures/*.json`, each an array):
/// `{name, parser, input, tools?, reasoning?, recover?, template?, options?, calls?, content?, reasoning_text?, diagnostics?}`
/// - `options`: more JS options (e.g. `{"policy": "strict", "bareJson": true}`), read by
///   `Options::from_json`; the fixture's own keys win.
/// - `calls`: the exact list of `{name, arguments}` (`arguments` compared as JSON values; a
///   `null` name or arguments is not checked).
/// - `content` / `reasoning_text`: exact strings (`null` = none emitted).
/// - `diagnostics`: the exact list of labels, in order.
#[derive(Clone, Debug)]
pub struct Fixture {
    pub name: String,
    pub parser: String,
    pub input: String,
    pub tools: Option<Value>,
    pub reasoning: Option<String>,
    pub recover: Option<bool>,
    /// The `template` option (template-driven families).
    pub template: Option<Value>,
    pub extra: Option<Value>,
    pub calls: Option<Vec<(Option<String>, Option<Value>)>>,
    /// The calls listed are a subsequence of those found (count not asserted).
    pub calls_subset: bool,
    pub content: Option<Option<String>>,
    /// Compare content after trimming both sides (vLLM vectors).
    pub content_trimmed: bool,
    pub reasoning_text: Option<Option<String>>,
    pub diagnostics: Option<Vec<String>>,
}

/// serde_json's value (the harness reads fixtures with it) as toolwire's.
pub fn tw(v: &Value) -> toolwire::json::Value {
    toolwire::json::parse(&v.to_string()).unwrap()
}

impl Fixture {
    pub fn options(&self) -> Options {
        let mut o = match &self.extra {
            Some(v) => Options::from_json(&tw(v)).unwrap_or_else(|e| panic!("{}: options: {e}", self.name)),
            None => Options::default(),
        };
        o.parser = self.parser.clone();
        if let Some(t) = &self.tools {
            o.tools = Some(tw(t));
        }
        if self.reasoning.is_some() {
            o.reasoning = self.reasoning.clone();
        }
        if self.recover.is_some() {
            o.recover = self.recover;
        }
        if let Some(t) = &self.template {
            o.template = Some(tw(t));
        }
        o
    }
}

fn opt_str(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

fn parse_calls(v: &Value) -> Option<Vec<(Option<String>, Option<Value>)>> {
    let arr = v.as_array()?;
    Some(
        arr.iter()
            .map(|c| {
                let name = c.get("name").and_then(Value::as_str).map(str::to_string);
                let args = c.get("arguments").filter(|a| !a.is_null()).cloned();
                (name, args)
            })
            .collect(),
    )
}

fn nullable_string(v: Option<&Value>) -> Option<Option<String>> {
    match v {
        None => None,
        Some(Value::Null) => Some(None),
        Some(Value::String(s)) => Some(Some(s.clone())),
        Some(_) => None,
    }
}

/// Loads our own fixtures from `tests/fixtures/*.json`.
pub fn own_fixtures() -> Vec<Fixture> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        if f.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for (i, c) in v.as_array().expect("fixture file is an array").iter().enumerate() {
            out.push(Fixture {
                name: format!("{}#{i} {}", f.file_name().unwrap().to_string_lossy(), opt_str(c, "name").unwrap_or_default()),
                parser: opt_str(c, "parser").expect("fixture needs a parser"),
                input: opt_str(c, "input").expect("fixture needs an input"),
                tools: c.get("tools").filter(|t| !t.is_null()).cloned(),
                reasoning: opt_str(c, "reasoning"),
                recover: c.get("recover").and_then(Value::as_bool),
                template: c.get("template").filter(|t| !t.is_null()).cloned(),
                extra: c.get("options").filter(|o| o.is_object()).cloned(),
                calls: c.get("calls").and_then(parse_calls),
                calls_subset: false,
                content: nullable_string(c.get("content")),
                content_trimmed: false,
                reasoning_text: nullable_string(c.get("reasoning_text")),
                diagnostics: c.get("diagnostics").and_then(Value::as_array).map(|a| {
                    a.iter().filter_map(Value::as_str).map(str::to_string).collect()
                }),
            });
        }
    }
    out
}

/// Loads vLLM's vectors. Content is compared trimmed (vLLM strips it for most families), and
/// only where the vector asserts it.
pub fn corpus_fixtures() -> Vec<Fixture> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/vllm-sample.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let deviations = deviations();
    v.as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let notes = opt_str(c, "notes").unwrap_or_default();
            let parser = opt_str(c, "parser").unwrap();
            let input = opt_str(c, "model_output").unwrap();
            let key = format!("{parser}#{i}");
            let dev = deviations.get(&key);
            // vLLM's shared `ToolParserTestConfig` tests assert call counts only, unless they say
            // the content is returned unchanged.
            let shared_test = notes.contains("ToolParserTestConfig") && !notes.contains("content returned unchanged");
            let content = if notes.contains("content not asserted") || shared_test || dev.is_some_and(|d| d.get("content").is_some()) {
                None
            } else {
                Some(opt_str(c, "expected_content").map(|s| s.trim().to_string()).filter(|s| !s.is_empty()))
            };
            let calls = if dev.is_some_and(|d| d.get("calls").is_some()) {
                dev.and_then(|d| d.get("calls")).and_then(parse_calls)
            } else {
                c.get("expected_calls").and_then(parse_calls)
            };
            Fixture {
                name: format!("corpus {key} ({notes})"),
                parser,
                input,
                tools: c.get("tools").filter(|t| !t.is_null()).cloned(),
                reasoning: None,
                recover: None,
                template: None,
                extra: None,
                calls,
                calls_subset: notes.contains("call count not asserted"),
                content,
                content_trimmed: true,
                reasoning_text: None,
                diagnostics: None,
            }
        })
        .collect()
}

/// Where we deliberately differ from a vLLM vector: `tests/corpus/deviations.json`,
/// `{"parser#index": {"why": "...", "content"?: true, "calls"?: [...]}}`.
fn deviations() -> serde_json::Map<String, Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/deviations.json");
    match std::fs::read_to_string(path) {
        Ok(t) => serde_json::from_str::<Value>(&t).unwrap().as_object().cloned().unwrap_or_default(),
        Err(_) => Default::default(),
    }
}

/// Merges adjacent text, reasoning, and same-index deltas (the comparison form of invariant 1).
pub fn merge(events: &[Event]) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::with_capacity(events.len());
    for e in events {
        match (out.last_mut(), e) {
            (Some(Event::Text(a)), Event::Text(b)) => a.push_str(b),
            (Some(Event::Reasoning(a)), Event::Reasoning(b)) => a.push_str(b),
            (
                Some(Event::ToolCallDelta { index: i, arguments_delta: a }),
                Event::ToolCallDelta { index: j, arguments_delta: b },
            ) if i == j => a.push_str(b),
            _ => {
                if !matches!(e, Event::Text(t) | Event::Reasoning(t) if t.is_empty()) {
                    out.push(e.clone())
                }
            }
        }
    }
    out
}

/// Streams `chunks` (as text) and returns all events; checks the hold-back bound after each push.
pub fn stream_str(f: &Fixture, chunks: &[&str], hold_bound: usize) -> Vec<Event> {
    let mut p = ToolCallParser::new(&f.options()).unwrap_or_else(|e| panic!("{}: {e}", f.name));
    p.record_spans();
    let mut ev = Vec::new();
    for c in chunks {
        p.push_into(c, &mut ev);
        assert!(
            p.held_len() <= hold_bound,
            "{}: held {} bytes > bound {hold_bound} after chunk {c:?}",
            f.name,
            p.held_len()
        );
    }
    p.finish_into(&mut ev);
    check_spans(f, &ev, p.spans());
    ev
}

/// Streams byte chunks through the byte API.
pub fn stream_bytes(f: &Fixture, chunks: &[&[u8]]) -> Vec<Event> {
    let mut p = ToolCallParser::new(&f.options()).unwrap();
    p.record_spans();
    let mut ev = Vec::new();
    for c in chunks {
        p.push_bytes(c, &mut ev);
    }
    p.finish_into(&mut ev);
    check_spans(f, &ev, p.spans());
    ev
}

/// Conservation (contract invariant 4): see `toolwire::spans::check_conservation`.
pub fn check_spans(f: &Fixture, events: &[Event], spans: &[Span]) {
    let may_drop = !f.options().policy.resolve(None, false).keep_malformed;
    if let Err(e) = toolwire::spans::check_conservation(&f.input, events, spans, may_drop) {
        panic!("{}: {e}", f.name);
    }
}

/// Checks the invariants that hold for one event sequence (2 and 4, and well-formedness).
pub fn check_events(f: &Fixture, events: &[Event]) {
    let mut open: Option<(usize, String)> = None;
    let mut next_index = 0;
    let mut output = String::new();
    for e in events {
        match e {
            Event::Text(t) | Event::Reasoning(t) => output.push_str(t),
            Event::ToolCallStart { index, name, .. } => {
                assert!(open.is_none(), "{}: call {index} started inside another", f.name);
                assert_eq!(*index, next_index, "{}: call indices count from 0", f.name);
                next_index += 1;
                open = Some((*index, String::new()));
                let _ = name;
            }
            Event::ToolCallDelta { index, arguments_delta } => {
                let (i, args) = open.as_mut().unwrap_or_else(|| panic!("{}: delta outside a call", f.name));
                assert_eq!(i, index, "{}: delta for another call", f.name);
                args.push_str(arguments_delta);
            }
            Event::ToolCallEnd { index, arguments, .. } => {
                let (i, args) = open.take().unwrap_or_else(|| panic!("{}: end outside a call", f.name));
                assert_eq!(i, *index);
                // Invariant 2: append-only arguments forming one JSON object.
                assert_eq!(&args, arguments, "{}: deltas do not concatenate to the final arguments", f.name);
                assert!(is_valid_json(arguments, Expect::Object), "{}: arguments are not one JSON object: {arguments}", f.name);
                assert!(serde_json::from_str::<Value>(arguments).is_ok_and(|v| v.is_object()), "{}: serde rejects {arguments}", f.name);
            }
            Event::Diagnostic { message, .. } => assert!(!message.is_empty()),
        }
    }
    assert!(open.is_none(), "{}: a call was never ended", f.name);
    // Invariant 4 (in part): text and reasoning are input bytes, in input order.
    assert!(is_subsequence(&output, &f.input), "{}: text/reasoning are not a subsequence of the input:\n{output:?}", f.name);
}

/// `needle`'s characters appear in `hay` in order (greedy; both are small).
fn is_subsequence(needle: &str, hay: &str) -> bool {
    let mut h = hay.chars();
    needle.chars().all(|c| h.any(|d| d == c))
}

/// JSON equality, key order aside, with numbers compared by value (`2.5e-3` == `0.0025`): serde_json keeps
/// number text (`arbitrary_precision`), and the parser forwards the model's own spelling.
pub fn same_json(a: &Value, b: &Value) -> bool {
    use toolwire::schema::number::Decimal;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.cmp_value(y).is_eq(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_json(p, q)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, p)| y.get(k).is_some_and(|q| same_json(p, q))),
        _ => a == b,
    }
}

/// Checks the one-shot result against the fixture's expectations.
pub fn check_expectations(f: &Fixture, r: &ParseResult) -> Result<(), String> {
    if let Some(calls) = &f.calls {
        let got: Vec<(String, Value)> = r
            .tool_calls
            .iter()
            .map(|c| (c.name.clone(), serde_json::from_str(&c.arguments).unwrap_or(Value::Null)))
            .collect();
        let matches = |want: &(Option<String>, Option<Value>), have: &(String, Value)| {
            want.0.as_ref().is_none_or(|n| n == &have.0) && want.1.as_ref().is_none_or(|a| same_json(a, &have.1))
        };
        if f.calls_subset {
            let mut it = got.iter();
            for w in calls {
                if !it.any(|h| matches(w, h)) {
                    return Err(format!("call {w:?} not found in {got:?}"));
                }
            }
        } else {
            if calls.len() != got.len() {
                return Err(format!("expected {} calls {calls:?}, got {} {got:?}", calls.len(), got.len()));
            }
            for (w, h) in calls.iter().zip(&got) {
                if !matches(w, h) {
                    return Err(format!("expected call {w:?}, got {h:?}"));
                }
            }
        }
    }
    if let Some(content) = &f.content {
        let got = if f.content_trimmed {
            r.content.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
        } else {
            r.content.clone()
        };
        if &got != content {
            return Err(format!("content: expected {content:?}, got {got:?}"));
        }
    }
    if let Some(reasoning) = &f.reasoning_text {
        if &r.reasoning != reasoning {
            return Err(format!("reasoning: expected {reasoning:?}, got {:?}", r.reasoning));
        }
    }
    if let Some(diags) = &f.diagnostics {
        let got: Vec<&str> = r.diagnostics.iter().map(|d| d.label.as_str()).collect();
        if got != diags.iter().map(String::as_str).collect::<Vec<_>>() {
            return Err(format!("diagnostics: expected {diags:?}, got {got:?} ({:?})", r.diagnostics));
        }
    }
    Ok(())
}

/// A small deterministic PRNG for random chunkings.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Runs every driver over one fixture and checks every invariant. Returns the whole-input
/// result (for the expectation check).
pub fn run_all_drivers(f: &Fixture, hold_bound: usize) -> ParseResult {
    let opts = f.options();
    let whole = toolwire::parse(&f.input, &opts).unwrap_or_else(|e| panic!("{}: {e}", f.name));
    // Invariant 3: parse() equals streaming the whole text and finishing.
    let streamed = stream_str(f, &[&f.input], usize::MAX);
    check_events(f, &streamed);
    let keep = ToolCallParser::new(&opts).unwrap().keeps_repaired();
    assert_eq!(whole, ParseResult::from_events(&streamed, keep), "{}: parse() differs from streaming", f.name);
    let reference = merge(&streamed);

    let input = f.input.as_str();
    let bytes = input.as_bytes();
    // Invariant 1 at every split point: text API at char boundaries, byte API at every byte.
    for cut in 0..=bytes.len() {
        if input.is_char_boundary(cut) {
            let ev = stream_str(f, &[&input[..cut], &input[cut..]], hold_bound);
            check_events(f, &ev);
            assert_eq!(merge(&ev), reference, "{}: split at {cut} changes the events", f.name);
        }
        let ev = stream_bytes(f, &[&bytes[..cut], &bytes[cut..]]);
        assert_eq!(merge(&ev), reference, "{}: byte split at {cut} changes the events", f.name);
    }
    // One character at a time.
    let chars: Vec<&str> = input.char_indices().map(|(i, c)| &input[i..i + c.len_utf8()]).collect();
    let ev = stream_str(f, &chars, hold_bound);
    check_events(f, &ev);
    assert_eq!(merge(&ev), reference, "{}: char-by-char changes the events", f.name);
    // Random chunkings.
    let mut rng = Rng::new(bytes.len() as u64 + 7);
    for _ in 0..8 {
        let mut chunks: Vec<&[u8]> = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let n = 1 + rng.below(12);
            let end = (at + n).min(bytes.len());
            chunks.push(&bytes[at..end]);
            at = end;
        }
        let ev = stream_bytes(f, &chunks);
        check_events(f, &ev);
        assert_eq!(merge(&ev), reference, "{}: random chunking changes the events", f.name);
    }
    whole
}
