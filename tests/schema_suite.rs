//! The official JSON Schema Test Suite (draft 4, from the npm dev dependency
//! `json-schema-test-suite`, installed by `npm ci` / scripts/setup.sh; not vendored) run through
//! argument validation. Every case of every applicable file must be decided as the suite says.
//!
//! A case is "invalid" for us when validation reports a failure (`Issue::is_failure`: advice
//! such as an undeclared key allowed by JSON Schema, and "not checked" notes, are not failures).
//! Each case runs twice: the schema as a tool's whole `parameters` (`schema::validate`, `$ref`s
//! resolving against it), and, when it has no `$ref`, as the schema of one parameter of a
//! declared tool through `Tools::validate_call` (the path a parser's calls take).
//!
//! Skipped, with the reason (also listed in the README):
//! - `refRemote.json`, `definitions.json` and the `ref.json` group "remote ref, containing refs
//!   itself": they need remote documents (`http://localhost:1234/…`, the draft-04 meta-schema);
//!   a tool schema is self-contained and validation never fetches.
//! - `optional/zeroTerminatedFloats.json`: draft 4 alone says `1.0` is not an integer; draft 6
//!   and later (and vLLM's type ladder, which turns "3.0" into 3) say it is.
//! - `optional/format.json`, "a valid protocol-relative URI": `//foo.bar/…` is a relative
//!   reference (`uri-reference`); the suite's later drafts mark it invalid for `uri`, and so
//!   does ajv-formats, which `format` follows.

use std::path::{Path, PathBuf};
use toolwire::json::Value;
use toolwire::testing::{validate, Check};

const SKIPPED_FILES: &[&str] = &["refRemote.json", "definitions.json", "optional/zeroTerminatedFloats.json"];
const SKIPPED_GROUPS: &[(&str, &str)] = &[("ref.json", "remote ref, containing refs itself")];
const SKIPPED_CASES: &[(&str, &str)] = &[("optional/format.json", "a valid protocol-relative URI")];

fn suite_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("node_modules/json-schema-test-suite/tests/draft4");
    assert!(dir.is_dir(), "{} is missing: run `npm ci` (scripts/setup.sh does)", dir.display());
    dir
}

fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for sub in ["", "optional/"] {
        let mut names: Vec<String> = std::fs::read_dir(dir.join(sub))
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".json"))
            .map(|n| format!("{sub}{n}"))
            .collect();
        names.sort();
        out.extend(names);
    }
    out
}

fn has_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("$ref") || m.values().any(has_ref),
        Value::Array(a) => a.iter().any(has_ref),
        _ => false,
    }
}

/// Validity through `Tools::validate_call`: the schema as parameter `value` of tool `t`.
fn valid_as_parameter(schema: &Value, data: &Value) -> bool {
    let tools = format!(
        r#"[{{"type": "function", "function": {{"name": "t", "parameters": {{"type": "object", "properties": {{"value": {schema}}}, "required": ["value"]}}}}}}]"#
    );
    let tools = toolwire::testing::Tools::from_json(&toolwire::json::parse(&tools).unwrap()).unwrap();
    let mut out = Vec::new();
    tools.validate_call("t", &format!(r#"{{"value": {data}}}"#), false, &[], &mut out);
    // Advice (an undeclared key JSON Schema allows) and "not checked" notes are not failures.
    out.iter().all(|(label, msg)| {
        (*label == toolwire::Label::HallucinatedParam && !msg.contains("not allowed")) || msg.contains("not checked")
    })
}

#[test]
fn json_schema_test_suite_draft4() {
    let dir = suite_dir();
    let (mut decided, mut total, mut skipped) = (0, 0, 0);
    let mut wrong = Vec::new();
    for file in files(&dir) {
        let text = std::fs::read_to_string(dir.join(&file)).unwrap();
        let groups = toolwire::json::parse(&text).unwrap();
        for g in groups.as_array().unwrap() {
            let desc = g["description"].as_str().unwrap_or("");
            let n = g["tests"].as_array().map_or(0, Vec::len);
            if SKIPPED_FILES.contains(&file.as_str()) || SKIPPED_GROUPS.contains(&(file.as_str(), desc)) {
                skipped += n;
                continue;
            }
            let schema = &g["schema"];
            for t in g["tests"].as_array().unwrap() {
                if SKIPPED_CASES.contains(&(file.as_str(), t["description"].as_str().unwrap_or(""))) {
                    skipped += 1;
                    continue;
                }
                total += 1;
                let want = t["valid"].as_bool().unwrap();
                let data = &t["data"];
                let issues = validate(data, schema, schema, Check::default());
                let got = !issues.iter().any(|i| i.is_failure());
                let via_tool = if has_ref(schema) { got } else { valid_as_parameter(schema, data) };
                if got == want && via_tool == want {
                    decided += 1;
                } else {
                    wrong.push(format!(
                        "{file} / {desc} / {}: expected {}, got {} (as a parameter: {}); schema {schema}, data {data}; issues {issues:?}",
                        t["description"].as_str().unwrap_or(""),
                        if want { "valid" } else { "invalid" },
                        if got { "valid" } else { "invalid" },
                        if via_tool { "valid" } else { "invalid" },
                    ));
                }
            }
        }
    }
    println!("JSON Schema Test Suite draft 4: {decided} of {total} cases decided as the suite says ({skipped} skipped)");
    assert!(total > 250, "only {total} cases found");
    assert!(wrong.is_empty(), "{} of {total} cases decided wrongly:\n{}", wrong.len(), wrong.join("\n"));
}
