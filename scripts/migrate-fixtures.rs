//! Converts fixture files of the old layout (`tests/fixtures/*.json`, arrays of
//! `{name, parser, input, tools?, reasoning?, recover?, template?, options?, calls?, content?,
//! reasoning_text?, diagnostics?}`) to one case per file in `tests/data/` (format:
//! `tests/common/data.rs`), then deletes the JSON files.
//!
//!     cargo run --example migrate-fixtures [-- [--keep] [FILE.json ...]]
//!
//! Without files it converts every `tests/fixtures/*.json`; `--keep` leaves the JSON files.
//! - Each case's expected events are the parser's output, checked first against the old
//!   assertions (calls, content, reasoning_text, diagnostics): if any case disagrees, nothing is
//!   written and the disagreements are listed.
//! - Deterministic and idempotent: a case whose description (`# <old name>`, the first line of
//!   its `.expect`) is already in `tests/data/<parser>/` is written to that file again; a new
//!   one gets a file named after its old name (`-2`, `-3` if taken). Tool sets equal to one in
//!   `tests/data/tools/` are referenced by that name; a new set is named after its functions.

#[path = "../tests/common/mod.rs"]
mod common;

use common::data::{self, DataFs, Expect, StdFs};
use common::{check_expectations, merge, nullable, parse_calls, Fixture};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use toolwire::{ParseResult, ToolCallParser};

fn main() {
    if let Err(e) = run() {
        eprintln!("migrate-fixtures: {e}");
        std::process::exit(1);
    }
}

/// A file name from a case's old name: lowercase ASCII letters, digits and `_`, other runs
/// as `-`, the parser's own prefix (`qwen3_coder: `) dropped, at most 72 bytes.
fn slug(name: &str, parser: &str) -> String {
    let mut n = name;
    for sep in [": ", " "] {
        if let Some(rest) = n.strip_prefix(parser).and_then(|r| r.strip_prefix(sep)) {
            n = rest;
            break;
        }
    }
    let mut s = String::new();
    for c in n.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() || c == '_' {
            s.push(c);
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    let mut s = s.trim_matches('-').to_string();
    if s.len() > 72 {
        let cut = &s[..73];
        let end = cut.rfind('-').filter(|&i| i > 20).unwrap_or(72);
        s = s[..end].trim_end_matches('-').to_string();
    }
    if s.is_empty() { "case".into() } else { s }
}

/// A name for a new tool set: its function names joined with `+` (`none` for `[]`).
fn set_name(tools: &Value) -> String {
    let names: Vec<&str> = tools
        .as_array()
        .map(|a| a.iter().filter_map(|t| t.pointer("/function/name").or_else(|| t.get("name"))?.as_str()).collect())
        .unwrap_or_default();
    let s: String = names.join("+").chars().map(|c| if c.is_ascii_alphanumeric() || "_+-".contains(c) { c } else { '-' }).collect();
    if s.is_empty() { "none".into() } else { s }
}

fn first_free(base: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_string();
    }
    (2..).map(|i| format!("{base}-{i}")).find(|n| !taken(n)).unwrap()
}

struct Write {
    path: PathBuf,
    text: String,
}

fn run() -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let keep = args.iter().any(|a| a == "--keep");
    let mut files: Vec<PathBuf> = args.iter().filter(|a| !a.starts_with("--")).map(PathBuf::from).collect();
    if files.is_empty() {
        let dir = root.join("tests/fixtures");
        files = std::fs::read_dir(&dir)
            .map_err(|e| format!("{}: {e} (nothing to convert?)", dir.display()))?
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
    }
    files.sort();
    let data_dir = data::data_dir();
    let fs = StdFs(data_dir.clone());

    // Tool sets already stored, by name.
    let mut sets: BTreeMap<String, Value> = BTreeMap::new();
    for f in fs.list(data::TOOLS_DIR) {
        if let Some(name) = f.strip_suffix(".json") {
            sets.insert(name.to_string(), data::tool_set(&fs, name)?);
        }
    }
    let mut new_sets: BTreeSet<String> = BTreeSet::new();
    // (parser, stem) taken on disk or by this run; (parser, description) -> stem on disk.
    let mut taken: BTreeSet<(String, String)> = BTreeSet::new();
    let mut by_description: BTreeMap<(String, String), String> = BTreeMap::new();
    for parser in fs.list("") {
        if parser == data::TOOLS_DIR || !fs.is_dir(&parser) {
            continue;
        }
        for f in fs.list(&parser) {
            let Some((stem, ext)) = f.rsplit_once('.') else { continue };
            taken.insert((parser.clone(), stem.to_string()));
            if ext == "expect" {
                let e = Expect::parse(&fs.read(&format!("{parser}/{f}")).unwrap_or_default());
                if let Some(first) = e.header.first().and_then(|l| l.strip_prefix("# ")) {
                    by_description.insert((parser.clone(), first.to_string()), stem.to_string());
                }
            }
        }
    }
    let mut claimed: BTreeSet<(String, String)> = BTreeSet::new();

    let mut writes: Vec<Write> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut count = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let list: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        let list = list.as_array().ok_or_else(|| format!("{}: not an array of fixtures", file.display()))?;
        let file_name = file.file_name().unwrap().to_string_lossy().to_string();
        for (i, c) in list.iter().enumerate() {
            count += 1;
            let at = format!("{file_name}#{i}");
            let s = |k: &str| c.get(k).and_then(Value::as_str).map(str::to_string);
            let (Some(name), Some(parser), Some(input)) = (s("name"), s("parser"), s("input")) else {
                failures.push(format!("{at}: needs a name, a parser and an input"));
                continue;
            };
            let at = format!("{at} {name:?}");
            if name.contains('\n') {
                failures.push(format!("{at}: the name is one line"));
                continue;
            }
            // The options as the old harness built them: `options`, then the case's own keys.
            let mut opts: Map<String, Value> = c.get("options").and_then(Value::as_object).cloned().unwrap_or_default();
            for k in ["tools", "template"] {
                if let Some(v) = c.get(k).filter(|v| !v.is_null()) {
                    opts.insert(k.into(), v.clone());
                }
            }
            if let Some(r) = s("reasoning") {
                opts.insert("reasoning".into(), Value::String(r));
            }
            if let Some(r) = c.get("recover").and_then(Value::as_bool) {
                opts.insert("recover".into(), Value::Bool(r));
            }
            if let Some(k) = opts.keys().find(|k| !data::OPTION_KEYS.contains(&k.as_str())) {
                failures.push(format!("{at}: option `{k}` is not one of {}", data::OPTION_KEYS.join(", ")));
                continue;
            }
            let mut header_opts = opts.clone();
            if let Some(tools) = opts.get("tools") {
                let name = match sets.iter().find(|(_, v)| *v == tools) {
                    Some((n, _)) => n.clone(),
                    None => {
                        let n = first_free(&set_name(tools), |n| sets.contains_key(n));
                        sets.insert(n.clone(), tools.clone());
                        new_sets.insert(n.clone());
                        n
                    }
                };
                header_opts.insert("tools".into(), Value::String(name));
            }
            let mut header = vec![format!("# {name}")];
            for (k, v) in &header_opts {
                header.push(format!("{k}: {}", serde_json::to_string(v).unwrap()));
            }
            let mut options = opts.clone();
            options.insert("parser".into(), Value::String(parser.clone()));
            let fixture = Fixture {
                name: at.clone(),
                input: input.clone(),
                options: Value::Object(options),
                calls: c.get("calls").and_then(parse_calls),
                content: nullable(c.get("content")),
                reasoning_text: nullable(c.get("reasoning_text")),
                diagnostics: c.get("diagnostics").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect()),
                ..Default::default()
            };
            // The parser's output, checked against the old assertions.
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<(ParseResult, Vec<toolwire::Event>), String> {
                let opts = fixture.options();
                let mut p = ToolCallParser::new(opts).map_err(|e| e.to_string())?;
                let mut events = Vec::new();
                p.push_into(&fixture.input, &mut events);
                p.finish_into(&mut events);
                let result = toolwire::parse(&fixture.input, opts).map_err(|e| e.to_string())?;
                Ok((result, merge(&events)))
            }));
            let (result, events) = match outcome {
                Ok(Ok(r)) => r,
                Ok(Err(e)) => {
                    failures.push(format!("{at}: {e}"));
                    continue;
                }
                Err(_) => {
                    failures.push(format!("{at}: the parser panicked"));
                    continue;
                }
            };
            if let Err(e) = check_expectations(&fixture, &result) {
                failures.push(format!("{at}: the old assertions do not hold: {e}"));
                continue;
            }
            let expect = Expect { header, events: data::render_events(&events) };
            // Read back as the harness will.
            let back = Expect::parse(&expect.to_text());
            let back_opts = data::case_options(&parser, &back, &|n| sets.get(n).cloned().ok_or_else(|| format!("no set {n}")))?;
            if back != expect || back_opts != fixture.options {
                failures.push(format!("{at}: the written case does not read back the same:\n{}", expect.to_text()));
                continue;
            }
            let stem = match by_description.get(&(parser.clone(), name.clone())) {
                Some(stem) => stem.clone(),
                None => first_free(&slug(&name, &parser), |n| taken.contains(&(parser.clone(), n.to_string()))),
            };
            if !claimed.insert((parser.clone(), stem.clone())) {
                failures.push(format!("{at}: another case of this run has the same name (old names must differ)"));
                continue;
            }
            taken.insert((parser.clone(), stem.clone()));
            let dir = data_dir.join(&parser);
            writes.push(Write { path: dir.join(format!("{stem}.txt")), text: input });
            writes.push(Write { path: dir.join(format!("{stem}.expect")), text: expect.to_text() });
        }
    }
    if !failures.is_empty() {
        return Err(format!("{} of {count} cases cannot be converted; nothing written:\n{}", failures.len(), failures.join("\n")));
    }
    for n in &new_sets {
        let mut text = serde_json::to_string_pretty(&sets[n]).unwrap();
        text.push('\n');
        writes.push(Write { path: data_dir.join(data::TOOLS_DIR).join(format!("{n}.json")), text });
    }
    let (mut added, mut changed, mut same) = (0, 0, 0);
    for w in &writes {
        match std::fs::read(&w.path) {
            Ok(old) if old == w.text.as_bytes() => {
                same += 1;
                continue;
            }
            Ok(_) => changed += 1,
            Err(_) => added += 1,
        }
        std::fs::create_dir_all(w.path.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&w.path, &w.text).map_err(|e| format!("{}: {e}", w.path.display()))?;
    }
    println!("{count} cases from {} files: {added} files added, {changed} rewritten, {same} unchanged", files.len());
    if !keep {
        for f in &files {
            std::fs::remove_file(f).map_err(|e| format!("{}: {e}", f.display()))?;
        }
        println!("deleted {}", files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", "));
    }
    Ok(())
}
