//! The fixture harness: every fixture runs whole, split at every byte, and in random chunkings,
//! and every run is checked against the stream invariants (merged events independent of the
//! chunking, one JSON object of arguments per call, text and reasoning taken from the input in
//! order, every byte accounted for, a bounded hold-back).
//!
//! Fixtures are data: our cases in `tests/data/<parser>/` (see `data.rs` for the format) and
//! vLLM's vectors in `tests/corpus/vllm-sample.json` (see `corpus_fixtures`).

#![allow(dead_code)]

pub mod data;

use serde_json::Value;
use std::path::Path;
use toolwire::testing::{is_valid_json, nests_within, Expect};
use toolwire::{Event, Options, ParseResult, QuietKind, Span, Stop, ToolCallParser};

/// One fixture: an input, the options to parse it with, and (for vLLM's vectors) what the
/// result must contain. Our own cases compare the whole event sequence instead (`data.rs`).
#[derive(Clone, Debug, Default)]
pub struct Fixture {
    /// The test name (`hermes/two-calls`, `vllm/mistral/test_extract_tool_calls[wrong_json]`).
    pub name: String,
    pub input: String,
    /// The JS options object, `parser` included.
    pub options: Value,
    /// The exact list of `{name, arguments}` (`arguments` compared as JSON values; a `None`
    /// name or arguments is not checked).
    pub calls: Option<Vec<(Option<String>, Option<Value>)>>,
    /// The calls listed are a subsequence of those found (count not asserted).
    pub calls_subset: bool,
    /// Exact content (`Some(None)`: none emitted).
    pub content: Option<Option<String>>,
    /// Compare content after trimming both sides (vLLM vectors).
    pub content_trimmed: bool,
    pub reasoning_text: Option<Option<String>>,
    /// The exact list of diagnostic labels, in order.
    pub diagnostics: Option<Vec<String>>,
    /// `options` read once (the drivers build a parser per chunking).
    pub parsed: std::sync::OnceLock<Options>,
}

/// serde_json's value (the harness reads fixtures with it) as toolwire's.
pub fn tw(v: &Value) -> toolwire::json::Value {
    toolwire::json::parse(&v.to_string()).unwrap()
}

impl Fixture {
    pub fn options(&self) -> &Options {
        self.parsed.get_or_init(|| Options::from_json(&tw(&self.options)).unwrap_or_else(|e| panic!("{}: options: {e}", self.name)))
    }

    pub fn parser(&self) -> &str {
        self.options["parser"].as_str().unwrap_or("auto")
    }
}

fn opt_str(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

pub fn parse_calls(v: &Value) -> Option<Vec<(Option<String>, Option<Value>)>> {
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

/// A JSON string or `null` as an expectation (`None`: not asserted).
pub fn nullable(v: Option<&Value>) -> Option<Option<String>> {
    match v {
        None => None,
        Some(Value::Null) => Some(None),
        Some(Value::String(s)) => Some(Some(s.clone())),
        Some(_) => None,
    }
}

/// FNV-1a, 32 bits: short stable disambiguators.
pub fn fnv32(s: &str) -> u32 {
    let mut h: u32 = 0x811c9dc5;
    for b in s.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x01000193);
    }
    h
}

/// The stable name of a vLLM vector, from the test it was taken from (its `notes`):
/// `vllm/<parser>/<test>`, `vllm/<parser>/<test>[<case>]` for a parametrized case, or
/// `vllm/<parser>/ToolParserTestConfig.<field>`; when several vectors share one, each gets
/// `#<hash of its model output>`.
pub fn vector_names(vectors: &[Value]) -> Vec<String> {
    let base: Vec<String> = vectors
        .iter()
        .map(|v| {
            let parser = opt_str(v, "parser").unwrap_or_default();
            let notes = opt_str(v, "notes").unwrap_or_default();
            let head = notes.split(';').next().unwrap_or("").trim();
            let test = if let Some(t) = head.strip_prefix("auto-extracted from asserts in ") {
                t.split_whitespace().next().unwrap_or(t).to_string()
            } else if let Some(rest) = head.strip_prefix("parametrize case '") {
                let (case, test) = rest.split_once("' of ").unwrap_or((rest, ""));
                format!("{}[{case}]", test.split_whitespace().next().unwrap_or(""))
            } else if head.starts_with("ToolParserTestConfig.") {
                head.split_whitespace().next().unwrap_or(head).to_string()
            } else {
                let src = opt_str(v, "source").unwrap_or_default();
                src.rsplit('/').next().unwrap_or("").trim_end_matches(".py").to_string()
            };
            format!("vllm/{parser}/{test}")
        })
        .collect();
    base.iter()
        .zip(vectors)
        .map(|(b, v)| {
            if base.iter().filter(|o| *o == b).count() > 1 {
                format!("{b}#{:08x}", fnv32(v["model_output"].as_str().unwrap_or("")))
            } else {
                b.clone()
            }
        })
        .collect()
}

/// vLLM's vectors. Content is compared trimmed (vLLM strips it for most families), and only
/// where the vector asserts it; `tests/corpus/deviations.json` lists where we differ on
/// purpose, keyed by the vector's name (see `vector_names`):
/// `{"vllm/<parser>/<test>": {"why": "...", "content"?: true, "calls"?: [...]}}`.
pub fn corpus_fixtures() -> Vec<Fixture> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/vllm-sample.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let vectors = v.as_array().unwrap();
    let deviations = deviations();
    vector_names(vectors)
        .into_iter()
        .zip(vectors)
        .map(|(name, c)| {
            let notes = opt_str(c, "notes").unwrap_or_default();
            let parser = opt_str(c, "parser").unwrap();
            let input = opt_str(c, "model_output").unwrap();
            let dev = deviations.get(&name);
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
            let mut options = serde_json::json!({ "parser": parser });
            if let Some(t) = c.get("tools").filter(|t| !t.is_null()) {
                options["tools"] = t.clone();
            }
            Fixture {
                name,
                input,
                options,
                calls,
                calls_subset: notes.contains("call count not asserted"),
                content,
                content_trimmed: true,
                ..Default::default()
            }
        })
        .collect()
}

/// Where we deliberately differ from a vLLM vector: `tests/corpus/deviations.json`.
pub fn deviations() -> serde_json::Map<String, Value> {
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

/// The merge rule a stream consumer applies (README, events), written independently of
/// `ParseResult::from_events`: text and reasoning concatenate; a call is listed iff its end event
/// says `kept`, else its end event's `text` is content at its place; every diagnostic is kept.
pub fn merge_rule(events: &[Event]) -> ParseResult {
    let (mut content, mut reasoning): (Option<String>, Option<String>) = (None, None);
    let mut r = ParseResult::default();
    for e in events {
        match e {
            Event::Text(t) => content.get_or_insert_default().push_str(t),
            Event::Reasoning(t) => reasoning.get_or_insert_default().push_str(t),
            Event::ToolCallEnd { kept: false, text, .. } if !text.is_empty() => content.get_or_insert_default().push_str(text),
            Event::ToolCallEnd { kept: false, .. } => {}
            Event::ToolCallEnd { id, name, arguments, .. } => {
                r.tool_calls.push(toolwire::ToolCall { id: id.clone(), name: name.clone(), arguments: arguments.clone() })
            }
            Event::Diagnostic { label, message, index } => {
                r.diagnostics.push(toolwire::Diagnostic { label: *label, message: message.clone(), index: *index })
            }
            Event::ToolCallStart { .. } | Event::ToolCallDelta { .. } => {}
        }
    }
    r.content = content;
    r.reasoning = reasoning;
    r
}

/// Streams `chunks` (as text) and returns all events; checks the hold-back bound after each push.
pub fn stream_str(f: &Fixture, chunks: &[&str], hold_bound: usize) -> Vec<Event> {
    let mut p = ToolCallParser::new(f.options()).unwrap_or_else(|e| panic!("{}: {e}", f.name));
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

/// The input repeated until it gives several hundred events, pushed whole through
/// `push_with` (which drains at call ends on the way natively: `Engine::push_pausing`) and
/// through `push_into` (one drain): the events, unmerged, and the spans are the same.
pub fn check_pausing_push(f: &Fixture, events_once: usize) {
    let times = (600 / events_once.max(1) + 1).min(400).min(200_000 / f.input.len().max(1)).max(2);
    if let Err(e) = toolwire::testing::check_pausing_push(f.options(), &f.input.repeat(times)) {
        panic!("{}: {e} on the input {times} times", f.name);
    }
}

/// A Hermes call with a 2 KB string argument: a parser that read it has grown buffers and
/// a JSON calls reader (`check_recycled`).
fn big_hermes_call() -> String {
    format!("Let me check. <tool_call>{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"{}\", \"days\": 3}}}}</tool_call> Done.", "Paris \\\"x\\\" é ".repeat(200))
}

/// `ToolCallParser::recycle` (the package's pool of freed parsers): the fixture read by a new
/// parser given the buffers of a parser that read, with the fixture's options, the fixture
/// whole and finished, its first half and its first two thirds (left open: a call may be
/// open), and a 2 KB Hermes call with Hermes' options (finished and open), plus `others`
/// (options, input, finished), must give a new parser's events and spans.
pub fn check_recycled(f: &Fixture, others: &[(&Options, &str, bool)]) {
    let opts = f.options();
    let input = f.input.as_str();
    let cut = |n: usize| cut_str(input, n);
    let hermes = Options::from_json(&tw(&serde_json::json!({ "parser": "hermes" }))).unwrap();
    let big = big_hermes_call();
    let mut before: Vec<(&Options, &str, bool)> = vec![(opts, input, true), (opts, cut(input.len() / 2), false), (opts, cut(input.len() * 2 / 3), false), (&hermes, &big, true), (&hermes, cut_str(&big, big.len() / 2), false)];
    before.extend_from_slice(others);
    if let Err(e) = toolwire::testing::check_recycled(opts, input, &before) {
        panic!("{}: {e}", f.name);
    }
}

/// `s`'s first `n` bytes, fewer to end at a char boundary.
fn cut_str(s: &str, mut n: usize) -> &str {
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    &s[..n]
}

/// The JS package's quiet-run fast path (`ToolCallParser::quiet`), simulated: a chunk the
/// hint admits is answered with the promised event and its bytes go in with the next real
/// push (`push_after_quiet`), at most 64 KiB of them; a chunk that continues a held marker
/// (`ToolCallParser::held_marker`) gives no event and goes in with the next real push, not as
/// answered (the hint then is the rest of the marker); so does a chunk the held-run hint
/// admits (`ToolCallParser::held_run`). Asserts that every push (and the finish)
/// gives exactly the events a plain parser gives for it; returns how many pushes were quiet.
pub fn check_quiet(f: &Fixture, chunks: &[&str]) -> usize {
    let mut plain = ToolCallParser::new(f.options()).unwrap();
    let mut fast = ToolCallParser::new(f.options()).unwrap();
    let mut hint = fast.quiet();
    // The held-marker hint: bytes that continue a held marker give no event and wait, fed
    // (not as answered) with the next push.
    let mut held = fast.held_marker().map(<[u8]>::to_vec);
    // The held-run hint: ASCII bytes outside its set, within its budget, give no event and
    // wait, fed (not as answered) with the next push.
    let mut run = fast.held_run();
    let mut pending = String::new();
    // The bytes of `pending` answered from the quiet hint (held ones are not).
    let mut answered = 0;
    let mut quiet = 0;
    for (n, c) in chunks.iter().enumerate() {
        let want = plain.push(c);
        if let Some(rest) = held.as_deref().filter(|rest| !c.is_empty() && rest.starts_with(c.as_bytes())) {
            assert!(hint.is_none(), "{}: a quiet hint with a held marker", f.name);
            quiet += 1;
            pending.push_str(c);
            held = Some(rest[c.len()..].to_vec());
            assert_eq!(want, [], "{}: held-marker hint, push {n} ({c:?}) of {}", f.name, chunks.len());
            continue;
        }
        // Bytes that begin the lead, or the whole lead and then bytes outside the set.
        let admits = |&(lead, stop, budget): &(&[u8], Stop, usize)| {
            let n = c.len().min(lead.len());
            !c.is_empty() && c.len() <= lead.len() + budget && c.as_bytes()[..n] == lead[..n] && c.bytes().skip(n).all(|b| !stop.has(b))
        };
        if let Some((lead, stop, budget)) = run.filter(admits) {
            assert!(hint.is_none() && held.is_none(), "{}: a quiet or held-marker hint with a held run", f.name);
            quiet += 1;
            pending.push_str(c);
            let n = c.len().min(lead.len());
            run = Some((&lead[n..], stop, budget - (c.len() - n)));
            assert_eq!(want, [], "{}: held-run hint, push {n} ({c:?}) of {}", f.name, chunks.len());
            continue;
        }
        let got = match hint {
            Some(q) if c.is_empty() || (q.admits(c) && pending.len() + c.len() <= q.budget.min(1 << 16)) => {
                quiet += 1;
                answered += c.len();
                pending.push_str(c);
                if c.is_empty() {
                    vec![]
                } else {
                    // A held `\\` goes out with the first chunk after it; then the plain hint.
                    let delta = if q.backslash { format!("\\{c}") } else { c.to_string() };
                    assert!(!q.backslash || matches!(q.kind, QuietKind::Args(_)), "{}: a held backslash outside arguments", f.name);
                    hint = Some(q.after());
                    match q.kind {
                        QuietKind::Text => vec![Event::Text(delta)],
                        QuietKind::Reasoning => vec![Event::Reasoning(delta)],
                        QuietKind::Args(index) => vec![Event::ToolCallDelta { index, arguments_delta: delta }],
                    }
                }
            }
            _ => {
                let mut ev = Vec::new();
                // Every other time, answered arguments alone are taken without a scan
                // (`take_quiet_args`, the SSE rewriter's way), then the chunk pushed.
                let args = matches!(hint.map(|q| q.kind), Some(QuietKind::Args(_))) && answered > 0 && answered == pending.len();
                if args && n % 2 == 0 && fast.take_quiet_args(&pending) {
                    pending.clear();
                    answered = 0;
                }
                pending.push_str(c);
                fast.push_after_quiet_with(&pending, answered, |e| ev.push(e.to_event()));
                pending.clear();
                answered = 0;
                hint = fast.quiet();
                held = fast.held_marker().map(<[u8]>::to_vec);
                run = fast.held_run();
                ev
            }
        };
        assert_eq!(got, want, "{}: quiet fast path, push {n} ({c:?}) of {} (hint {hint:?})", f.name, chunks.len());
    }
    let mut got = Vec::new();
    fast.push_after_quiet(&pending, answered, &mut got);
    assert_eq!(got, [], "{}: quiet fast path: the pending bytes gave more events", f.name);
    fast.finish_into(&mut got);
    assert_eq!(got, plain.finish(), "{}: quiet fast path: finish", f.name);
    quiet
}

/// Streams byte chunks through the byte API, taking the events as borrowed views
/// (`push_bytes_with`, `finish_with`: the allocation-free path the binding uses).
pub fn stream_bytes(f: &Fixture, chunks: &[&[u8]]) -> Vec<Event> {
    let mut p = ToolCallParser::new(f.options()).unwrap();
    p.record_spans();
    let mut ev = Vec::new();
    for c in chunks {
        p.push_bytes_with(c, |e| ev.push(e.to_event()));
    }
    p.finish_with(|e| ev.push(e.to_event()));
    check_spans(f, &ev, p.spans());
    ev
}

/// Conservation (nothing lost): see `toolwire::testing::check_conservation`.
pub fn check_spans(f: &Fixture, events: &[Event], spans: &[Span]) {
    let may_drop = !f.options().policy.resolve(None, false).keep_malformed;
    if let Err(e) = toolwire::testing::check_conservation(&f.input, events, spans, may_drop) {
        panic!("{}: {e}", f.name);
    }
}

/// Checks the invariants that hold for one event sequence (2 and 4, and well-formedness).
pub fn check_events(f: &Fixture, events: &[Event]) {
    let mut open: Option<(usize, String, &str, &str)> = None;
    let mut next_index = 0;
    let mut output = String::new();
    for e in events {
        match e {
            Event::Text(t) | Event::Reasoning(t) => output.push_str(t),
            Event::ToolCallStart { index, id, name } => {
                assert!(open.is_none(), "{}: call {index} started inside another", f.name);
                assert_eq!(*index, next_index, "{}: call indices count from 0", f.name);
                next_index += 1;
                open = Some((*index, String::new(), id, name));
            }
            Event::ToolCallDelta { index, arguments_delta } => {
                let (i, args, _, _) = open.as_mut().unwrap_or_else(|| panic!("{}: delta outside a call", f.name));
                assert_eq!(i, index, "{}: delta for another call", f.name);
                args.push_str(arguments_delta);
            }
            Event::ToolCallEnd { index, arguments, id, name, repaired, kept, text } => {
                let (i, args, start_id, start_name) = open.take().unwrap_or_else(|| panic!("{}: end outside a call", f.name));
                assert_eq!(i, *index);
                assert!(*kept || *repaired, "{}: call {i} is left out of parse() but was not repaired", f.name);
                assert!(!*kept || text.is_empty(), "{}: kept call {i} carries text {text:?}", f.name);
                output.push_str(text);
                // The expected-events files show id and name at the start only.
                assert_eq!((start_id, start_name), (id.as_str(), name.as_str()), "{}: call {i} ends with another id or name", f.name);
                // Invariant 2: append-only arguments forming one JSON object.
                assert_eq!(&args, arguments, "{}: deltas do not concatenate to the final arguments", f.name);
                assert!(is_valid_json(arguments, Expect::Object), "{}: arguments are not one JSON object: {arguments}", f.name);
                assert!(serde_json::from_str::<Value>(arguments).is_ok_and(|v| v.is_object()), "{}: serde rejects {arguments}", f.name);
                // `maxDepth` counts the arguments object as the first level, for every reader.
                let depth = f.options().limits.depth();
                assert!(nests_within(arguments, depth), "{}: arguments nest deeper than maxDepth {depth}: {arguments}", f.name);
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
    use toolwire::testing::Decimal;
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

/// The hold-back bound of the fixture's parser.
pub fn bound(f: &Fixture) -> usize {
    ToolCallParser::new(f.options()).map(|p| p.hold_bound()).unwrap_or(usize::MAX)
}

/// Runs every driver over one fixture and checks every invariant. Returns the whole-input
/// result and the merged events (for the expectation checks).
pub fn run_all_drivers(f: &Fixture, hold_bound: usize) -> (ParseResult, Vec<Event>) {
    let opts = f.options();
    let whole = toolwire::parse(&f.input, opts).unwrap_or_else(|e| panic!("{}: {e}", f.name));
    // Invariant 3: parse() equals streaming the whole text and finishing.
    let streamed = stream_str(f, &[&f.input], usize::MAX);
    check_events(f, &streamed);
    assert_eq!(whole, ParseResult::from_events(&streamed), "{}: parse() differs from streaming", f.name);
    assert_eq!(whole, merge_rule(&streamed), "{}: the merge rule differs from parse()", f.name);
    let reference = merge(&streamed);
    check_pausing_push(f, streamed.len());
    check_recycled(f, &[]);
    let check = |ev: &[Event], how: &str| {
        assert_eq!(merge(ev), reference, "{}: {how} changes the events", f.name);
        assert_eq!(merge_rule(ev), whole, "{}: {how}: merging the events by the rule differs from parse()", f.name);
    };

    let input = f.input.as_str();
    let bytes = input.as_bytes();
    // Invariant 1 at every split point: text API at char boundaries, byte API at every byte.
    for cut in 0..=bytes.len() {
        if input.is_char_boundary(cut) {
            let ev = stream_str(f, &[&input[..cut], &input[cut..]], hold_bound);
            check_events(f, &ev);
            check(&ev, &format!("split at {cut}"));
        }
        let ev = stream_bytes(f, &[&bytes[..cut], &bytes[cut..]]);
        check(&ev, &format!("byte split at {cut}"));
    }
    // One character at a time.
    let chars: Vec<&str> = input.char_indices().map(|(i, c)| &input[i..i + c.len_utf8()]).collect();
    let ev = stream_str(f, &chars, hold_bound);
    check_events(f, &ev);
    check(&ev, "char-by-char");
    // The quiet-run fast path gives the events of every push exactly (char by char, in 4-byte
    // chunks, at every split point, and in random chunkings below).
    check_quiet(f, &chars);
    let fours: Vec<&str> = chars.chunks(4).map(|c| &input[c[0].as_ptr() as usize - input.as_ptr() as usize..][..c.iter().map(|s| s.len()).sum()]).collect();
    check_quiet(f, &fours);
    for cut in (0..=bytes.len()).filter(|&c| input.is_char_boundary(c)) {
        check_quiet(f, &[&input[..cut], &input[cut..]]);
    }
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
        check(&ev, "a random chunking");
        let text: Vec<&str> = chunks.iter().filter_map(|c| std::str::from_utf8(c).ok()).collect();
        if text.len() == chunks.len() {
            check_quiet(f, &text);
        }
    }
    (whole, reference)
}
