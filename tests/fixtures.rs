//! Runs every fixture (ours and vLLM's) through every driver; see `common`.

mod common;

use common::*;
use toolwire::ToolCallParser;

/// Corpus parsers whose family is not implemented yet. Must shrink to empty.
const PENDING: &[&str] = &[
    "apertus", "beam", "deepseek_v3", "deepseek_v31", "deepseek_v32", "deepseek_v4", "deepseek_v41", "dots",
    "functiongemma", "gemma4", "glm45", "glm47", "granite", "granite-20b-fc", "hf", "hy_v3", "inkling", "k2_horizon",
    "kimi_k2", "lfm2", "ling3", "llama3_json", "llama4_pythonic", "minicpm5", "minimax_m2", "minimax_m3", "mistral",
    "muse", "muse_glimmer", "olmo3", "phi4_mini_json", "poolside_v1", "pythonic", "qwen3_coder", "seed_oss", "step3",
    "step3p5", "xlam",
];

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
    let mut pending = Vec::new();
    let mut runnable = Vec::new();
    for f in all {
        if toolwire::families::find(&f.parser).is_some() {
            runnable.push(f);
        } else {
            assert!(PENDING.contains(&f.parser.as_str()), "corpus parser `{}` is neither registered nor pending", f.parser);
            pending.push(f.parser.clone());
        }
    }
    for p in PENDING {
        assert!(toolwire::families::find(p).is_none(), "`{p}` is registered now: remove it from PENDING");
    }
    eprintln!("corpus: {} vectors run, {} pending", runnable.len(), pending.len());
    run(runnable);
}
