//! Runs every fixture (ours and vLLM's) through every driver; see `common`.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::*;
use toolwire::ToolCallParser;

/// vLLM 0.33.0's 58 `--tool-call-parser` names, plus ours.
const REQUIRED: &[&str] = &[
    "dots", "deepseek_v3", "deepseek_v31", "deepseek_v32", "deepseek_v4", "deepseek_v41", "cohere_command3",
    "cohere_command4", "ernie45", "glm45", "glm47", "ling3", "granite-20b-fc", "granite", "granite4", "hermes", "hf",
    "beam", "poolside_v1", "hunyuan_a13b", "hy_v3", "hy_v4", "internlm", "jamba", "lfm2", "kimi_k2", "kimi_k3",
    "k2_horizon", "llama3_json", "llama4_json", "llama4_pythonic", "longcat", "mimo", "minimax_m2", "minimax_m3",
    "minicpm5", "mistral", "olmo3", "plamo3", "muse", "muse_glimmer", "musespark1x", "openai", "phi4_mini_json",
    "pythonic", "qwen3_coder", "qwen3_json", "qwen3_xml", "seed_oss", "step3", "step3p5", "step5", "inkling", "xlam",
    "gigachat3", "functiongemma", "gemma4", "apertus", "minimax", "generic",
];

#[test]
fn required_names_are_distinct() {
    let mut v = REQUIRED.to_vec();
    v.sort_unstable();
    v.dedup();
    assert_eq!(v.len(), 58 + 2, "58 vLLM names plus minimax and generic (openai is one of vLLM's)");
}

#[test]
fn every_required_name_is_registered() {
    let missing: Vec<_> = REQUIRED.iter().filter(|n| toolwire::families::find(n).is_none()).collect();
    assert!(missing.is_empty(), "not registered: {missing:?}");
}

fn bound(f: &Fixture) -> usize {
    ToolCallParser::new(&f.options()).map(|p| p.hold_bound()).unwrap_or(usize::MAX)
}

fn run(fixtures: Vec<Fixture>) {
    let mut failures = Vec::new();
    let total = fixtures.len();
    for f in &fixtures {
        let r = std::panic::catch_unwind(|| run_all_drivers(f, bound(f)));
        match r {
            Err(e) => {
                let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
                failures.push(format!("{}: invariant: {}", f.name, msg.unwrap_or_default()));
            }
            Ok(result) => {
                if let Err(e) = check_expectations(f, &result) {
                    failures.push(format!("{}\n  input: {:?}\n  {e}", f.name, f.input));
                }
            }
        }
    }
    if !failures.is_empty() {
        panic!("{} of {total} fixtures failed:\n{}", failures.len(), failures.join("\n"));
    }
}

#[test]
fn own_fixtures_hold_every_invariant() {
    let fixtures = own_fixtures();
    assert!(!fixtures.is_empty());
    run(fixtures);
}

#[test]
fn vllm_corpus() {
    let all = corpus_fixtures();
    let (runnable, pending): (Vec<_>, Vec<_>) = all.into_iter().partition(|f| toolwire::families::find(&f.parser).is_some());
    for f in &pending {
        assert!(REQUIRED.contains(&f.parser.as_str()), "corpus parser `{}` is not a known name", f.parser);
    }
    eprintln!("corpus: {} vectors run, {} for families not registered yet", runnable.len(), pending.len());
    run(runnable);
}

#[test]
fn wasm_suite_includes_every_fixture_file() {
    let listed = include_str!("wasm.rs");
    for e in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures")).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        assert!(listed.contains(&format!("include_str!(\"fixtures/{name}\")")), "add fixtures/{name} to FIXTURES in tests/wasm.rs");
    }
}

/// Byte accounting on a small input: text, one markup span per call, a prose marker as text.
#[test]
fn spans_attribute_every_byte() {
    use toolwire::spans::SpanKind::*;
    let mut p = ToolCallParser::new(&toolwire::Options::new("hermes")).unwrap();
    p.record_spans();
    p.push("Hi <tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call> <tool_call> bye");
    p.finish();
    let got: Vec<_> = p.spans().iter().map(|s| (s.start, s.end, s.kind)).collect();
    assert_eq!(got, [(0, 3, Text), (3, 56, Markup), (56, 72, Text)]);
}
