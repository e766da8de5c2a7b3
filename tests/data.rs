//! Every case of `tests/data/<parser>/` and every vLLM vector of `tests/corpus/` as its own
//! test, run through every driver (`common::run_all_drivers`: whole, every split point, char by
//! char, random chunkings, all invariants). Filter by name like any cargo test:
//!
//!     cargo test --test data -- hermes/             our hermes cases and vLLM's hermes vectors
//!     cargo test --test data -- vllm/               vLLM's vectors
//!     cargo test --test data -- --exact hermes/text-call-text
//!     UPDATE_EXPECT=1 cargo test --test data -- hermes/   rewrite the .expect files of those cases
//!
//! A case passes when the merged events of its input equal its `.expect` file's events (see
//! `common/data.rs` for the format); without `UPDATE_EXPECT` a difference prints a line diff.

mod common;

use common::data::{self, StdFs};
use common::*;
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use std::collections::BTreeSet;

fn main() {
    let args = Arguments::from_args();
    let update = std::env::var_os("UPDATE_EXPECT").is_some_and(|v| !v.is_empty() && v != "0");
    let mut trials = Vec::new();

    let (cases, problems) = data::load_cases(&StdFs(data::data_dir()));
    for (path, msg) in problems {
        trials.push(Trial::test(format!("stray/{path}"), move || Err(format!("tests/data/{path}: {msg}").into())));
    }
    let quiet_cases: Vec<Fixture> = cases.iter().filter(|c| QUIET_RUNS.iter().any(|(n, _)| *n == c.name)).map(fixture).collect();
    trials.push(Trial::test("meta/quiet-runs-fire", move || check_quiet_runs(&quiet_cases)));
    // Each case also read by a parser recycled from one that read the case before it (`check_recycled`).
    let mut previous: Option<(String, Value, String)> = None;
    for case in cases {
        let before = previous.take();
        previous = case.options.clone().ok().map(|o| (case.name.clone(), o, case.input.clone()));
        trials.push(Trial::test(case.name.clone(), move || run_case(case, before, update)));
    }

    let required: BTreeSet<String> = required_names().into_iter().collect();
    for f in corpus_fixtures() {
        let parser = f.parser().to_string();
        let registered = toolwire::registry::find(&parser).is_some();
        if !registered && required.contains(&parser) {
            // A vLLM family not registered yet: listed, run with `--ignored` (and failing then).
            trials.push(Trial::test(f.name.clone(), move || run_vector(f)).with_ignored_flag(true));
        } else {
            trials.push(Trial::test(f.name.clone(), move || run_vector(f)));
        }
    }
    trials.push(Trial::test("meta/vllm-parser-names", check_required_names));
    trials.push(Trial::test("meta/deviations-name-vectors", check_deviation_keys));

    libtest_mimic::run(&args, trials).exit();
}

/// Cases with long quiet runs (message bodies, string arguments) and the share of their 4-byte
/// pushes the quiet-run hint must answer (`common::check_quiet`): the hint fires, not only
/// harms nothing.
const QUIET_RUNS: &[(&str, f64)] = &[("openai/harmony-long-reasoning-and-final-message", 0.85), ("muse/long-reasoning-and-answer", 0.85), ("hermes/quiet-run-code-argument-with-escapes", 0.8), ("hermes/quiet-run-non-ascii-prose-and-argument", 0.8)];

fn fixture(case: &data::Case) -> Fixture {
    Fixture { name: case.name.clone(), input: case.input.clone(), options: case.options.clone().unwrap_or_default(), ..Default::default() }
}

fn check_quiet_runs(fixtures: &[Fixture]) -> Result<(), Failed> {
    if fixtures.len() != QUIET_RUNS.len() {
        return Err(format!("{} of the {} cases of QUIET_RUNS found", fixtures.len(), QUIET_RUNS.len()).into());
    }
    for f in fixtures {
        let input = f.input.as_str();
        let mut fours = Vec::new();
        let mut at = 0;
        while at < input.len() {
            let mut end = (at + 4).min(input.len());
            while !input.is_char_boundary(end) {
                end += 1;
            }
            fours.push(&input[at..end]);
            at = end;
        }
        let quiet = check_quiet(f, &fours);
        let share = QUIET_RUNS.iter().find(|(n, _)| *n == f.name).map_or(1.0, |(_, s)| *s);
        eprintln!("{}: {quiet} of {} 4-byte pushes quiet", f.name, fours.len());
        if (quiet as f64) < share * fours.len() as f64 {
            return Err(format!("{}: {quiet} of {} 4-byte pushes quiet, less than {share}", f.name, fours.len()).into());
        }
    }
    Ok(())
}

/// vLLM's `--tool-call-parser` names (`tests/data/vllm-parsers.txt`).
fn required_names() -> Vec<String> {
    let text = std::fs::read_to_string(data::data_dir().join(data::VLLM_PARSERS)).unwrap();
    data::parser_names(&text).into_iter().map(str::to_string).collect()
}

fn check_required_names() -> Result<(), Failed> {
    let names = required_names();
    let distinct: BTreeSet<&String> = names.iter().collect();
    if distinct.len() != names.len() || names.len() != 58 {
        return Err(format!("{} names, {} distinct: vLLM 0.33.0 has 58 `--tool-call-parser` names", names.len(), distinct.len()).into());
    }
    let missing: Vec<_> = names.iter().filter(|n| toolwire::registry::find(n).is_none()).collect();
    if !missing.is_empty() {
        return Err(format!("not registered: {missing:?}").into());
    }
    Ok(())
}

/// Every key of `tests/corpus/deviations.json` names a vector, and every vector name is unique.
fn check_deviation_keys() -> Result<(), Failed> {
    let names: Vec<String> = corpus_fixtures().into_iter().map(|f| f.name).collect();
    let distinct: BTreeSet<&String> = names.iter().collect();
    if distinct.len() != names.len() {
        return Err("two vectors have the same name (see common::vector_names)".into());
    }
    let stale: Vec<String> = deviations().keys().filter(|k| !distinct.contains(k)).cloned().collect();
    if !stale.is_empty() {
        return Err(format!("deviations.json names no vector: {stale:?} (names are listed by `cargo test --test data -- --list vllm/`)").into());
    }
    Ok(())
}

/// Runs `f` through every driver, turning an invariant's panic into a failure.
fn drive(f: &Fixture) -> Result<(toolwire::ParseResult, Vec<toolwire::Event>), Failed> {
    let hold = bound(f);
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_all_drivers(f, hold))).map_err(|e| {
        let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
        Failed::from(format!("invariant: {}\ninput: {:?}", msg.unwrap_or_default(), f.input))
    })
}

fn run_vector(f: Fixture) -> Result<(), Failed> {
    let (result, _) = drive(&f)?;
    check_expectations(&f, &result).map_err(|e| format!("{e}\ninput: {:?}\n(where we differ on purpose: tests/corpus/deviations.json, keyed by this test's name)", f.input).into())
}

/// `before`: the case before this one (name, options, input), read first by the parser this
/// case's recycled parser gets its buffers from (`check_recycled`; finished and left open).
fn run_case(case: data::Case, before: Option<(String, Value, String)>, update: bool) -> Result<(), Failed> {
    let options = case.options.map_err(|e| format!("tests/data/{}.expect: {e}", case.name))?;
    let f = Fixture { name: case.name.clone(), input: case.input, options, ..Default::default() };
    let (_, events) = drive(&f)?;
    if let Some((name, options, input)) = before {
        let other = Fixture { name, input, options, ..Default::default() };
        let half = &other.input[..(0..=other.input.len() / 2).rev().find(|&n| other.input.is_char_boundary(n)).unwrap_or(0)];
        std::panic::catch_unwind(|| check_recycled(&f, &[(other.options(), &other.input, true), (other.options(), half, false)]))
            .map_err(|e| Failed::from(format!("recycled after {}: {:?}", other.name, e.downcast_ref::<String>())))?;
    }
    let got = data::render_events(&events);
    let missing = case.expect.is_none();
    let expect = case.expect.unwrap_or_default();
    if got == expect.events {
        return Ok(());
    }
    let path = data::data_dir().join(format!("{}.expect", case.name));
    if update {
        let new = data::Expect { events: got, ..expect };
        std::fs::write(&path, new.to_text()).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("updated tests/data/{}.expect", case.name);
        return Ok(());
    }
    if missing {
        return Err(format!(
            "no tests/data/{name}.expect yet; the events are:\n{got}\nTo write them: UPDATE_EXPECT=1 cargo test --test data -- --exact {name}",
            name = case.name
        )
        .into());
    }
    Err(format!(
        "the events differ from tests/data/{name}.expect (- expected, + actual):\n{}\nIf the new events are right: UPDATE_EXPECT=1 cargo test --test data -- --exact {name}",
        data::diff(&expect.events, &got),
        name = case.name
    )
    .into())
}
