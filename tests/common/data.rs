//! The case format of `tests/data/` (read by the native harness, the wasm suite, the benches
//! and the fixture converter; `tests/js/support/cases.mjs` reads the same format for JS).
//!
//! One case is two files in `tests/data/<parser>/`:
//! - `<case>.txt`: the raw model output, byte for byte (no escaping, no added newline);
//! - `<case>.expect`: a header of `# description` lines and `key: <JSON>` option lines (JS
//!   option names; `tools: "name"` names a set in `tests/data/tools/<name>.json`), then the
//!   expected merged events, one per line (see [`render_events`]).
//!
//! The directory names the parser (`parser` is not a header key). A case without a `.expect`
//! file has no options and expects nothing: the harness reports it until it is blessed.

#![allow(dead_code)]

use serde_json::{Map, Value};
use toolwire::Event;

/// The data directory's subdirectory of named tool sets (not a parser).
pub const TOOLS_DIR: &str = "tools";
/// The list of vLLM's `--tool-call-parser` names, one per line (`#` comments).
pub const VLLM_PARSERS: &str = "vllm-parsers.txt";

/// Header keys a case may set: the JS options other than `parser`. (A typo would otherwise be
/// ignored by `Options::from_json`, and the case would silently test the defaults.)
pub const OPTION_KEYS: &[&str] = &[
    "model", "tools", "reasoning", "thinking", "idPrefix", "recover", "template", "policy", "recoverTruncated",
    "keepMalformed", "bareJson", "limits",
];

/// The first word of an event line.
pub const EVENT_KINDS: &[&str] = &["text", "reasoning", "tool-call-start", "tool-call-delta", "tool-call-end", "diagnostic"];

/// A `.expect` file split into its header lines (verbatim) and its events section.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Expect {
    /// Header lines as written (comments and options), without trailing blank lines.
    pub header: Vec<String>,
    /// The events section exactly as written (from the first event line to the end).
    pub events: String,
}

fn is_event_line(line: &str) -> bool {
    let word = line.split(' ').next().unwrap_or("");
    EVENT_KINDS.contains(&word)
}

impl Expect {
    pub fn parse(text: &str) -> Expect {
        let mut header = Vec::new();
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            if is_event_line(line.trim_end_matches(['\n', '\r'])) {
                break;
            }
            header.push(line.trim_end_matches(['\n', '\r']).to_string());
            at += line.len();
        }
        while header.last().is_some_and(|l| l.trim().is_empty()) {
            header.pop();
        }
        Expect { header, events: text[at..].to_string() }
    }

    /// The file text: the header, a blank line, the events.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for l in &self.header {
            out.push_str(l);
            out.push('\n');
        }
        if !self.header.is_empty() && !self.events.is_empty() {
            out.push('\n');
        }
        out.push_str(&self.events);
        out
    }

    /// The `# ` lines of the header, joined with spaces (the case's description).
    pub fn description(&self) -> Option<String> {
        let d: Vec<&str> = self.header.iter().filter_map(|l| l.strip_prefix('#')).map(str::trim).collect();
        (!d.is_empty()).then(|| d.join(" "))
    }

    /// The header's options as written (`tools` may still be a set name).
    pub fn options(&self) -> Result<Map<String, Value>, String> {
        let mut out = Map::new();
        for (i, line) in self.header.iter().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, value) = line.split_once(':').ok_or_else(|| {
                format!(
                    "header line {}: `{line}` is neither `# comment`, `key: <JSON value>` nor an event line ({})",
                    i + 1,
                    EVENT_KINDS.join(", ")
                )
            })?;
            let key = key.trim();
            if !OPTION_KEYS.contains(&key) {
                let why = if key == "parser" { " (the directory names the parser)" } else { "" };
                return Err(format!("header line {}: unknown option `{key}`{why}; valid: {}", i + 1, OPTION_KEYS.join(", ")));
            }
            let v: Value = serde_json::from_str(value.trim())
                .map_err(|e| format!("header line {}: `{key}` is not a JSON value ({e}): {}", i + 1, value.trim()))?;
            if out.insert(key.to_string(), v).is_some() {
                return Err(format!("header line {}: `{key}` is set twice", i + 1));
            }
        }
        Ok(out)
    }
}

/// The JS options object of a case: the header's options with `parser` from the directory and
/// a named tool set replaced by its definition (`tools` reads `tests/data/tools/<name>.json`).
pub fn case_options(
    parser: &str,
    expect: &Expect,
    tools: &dyn Fn(&str) -> Result<Value, String>,
) -> Result<Value, String> {
    let mut o = expect.options()?;
    if let Some(Value::String(name)) = o.get("tools") {
        let set = tools(name)?;
        o.insert("tools".into(), set);
    }
    o.insert("parser".into(), Value::String(parser.to_string()));
    Ok(Value::Object(o))
}

/// A token: bare when it has no spaces, quotes or control characters, else a JSON string.
fn atom(s: &str) -> String {
    if s.is_empty() || s.starts_with('"') || s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        serde_json::to_string(s).unwrap()
    } else {
        s.to_string()
    }
}

/// The rest of a line: bare unless it is empty, starts with a quote or whitespace, ends with
/// whitespace or holds a control character (then a JSON string).
fn rest(s: &str) -> String {
    let plain = !s.is_empty()
        && !s.starts_with(|c: char| c == '"' || c.is_whitespace())
        && !s.ends_with(char::is_whitespace)
        && !s.chars().any(char::is_control);
    if plain { s.to_string() } else { serde_json::to_string(s).unwrap() }
}

/// One line per event (the events should be merged first: adjacent text, reasoning and
/// same-call deltas joined):
///
/// ```text
/// text "Checking. "                      text and reasoning as JSON strings
/// reasoning "The user wants..."
/// tool-call-start 0 get_weather          index, name; ` id=…` when the id is not `call_<index>`
/// tool-call-delta 0 {"city": "Paris"}    the arguments text (a JSON string when it would not
///                                        read back from a bare line)
/// tool-call-end 0                        ` repaired` when the parser closed the arguments,
///                                        ` left-out` when `parse()` leaves the call out (`kept`
///                                        false), then its `text` as a JSON string if any
/// diagnostic malformed_json 0            label, call index if any (the message is not kept)
/// ```
pub fn render_events(events: &[Event]) -> String {
    let mut out = String::new();
    for e in events {
        let line = match e {
            Event::Text(t) => format!("text {}", serde_json::to_string(t).unwrap()),
            Event::Reasoning(t) => format!("reasoning {}", serde_json::to_string(t).unwrap()),
            Event::ToolCallStart { index, id, name } => {
                let id = if *id == format!("call_{index}") { String::new() } else { format!(" id={}", atom(id)) };
                format!("tool-call-start {index} {}{id}", atom(name))
            }
            Event::ToolCallDelta { index, arguments_delta } => format!("tool-call-delta {index} {}", rest(arguments_delta)),
            Event::ToolCallEnd { index, repaired, kept, text, .. } => {
                let repaired = if *repaired { " repaired" } else { "" };
                let left_out = if *kept { String::new() } else if text.is_empty() { " left-out".into() } else { format!(" left-out {}", serde_json::to_string(text).unwrap()) };
                format!("tool-call-end {index}{repaired}{left_out}")
            }
            Event::Diagnostic { label, index, .. } => match index {
                Some(i) => format!("diagnostic {} {i}", label.as_str()),
                None => format!("diagnostic {}", label.as_str()),
            },
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// A line diff of `want` against `got` (`-` only in `want`, `+` only in `got`, two spaces both).
pub fn diff(want: &str, got: &str) -> String {
    let a: Vec<&str> = want.lines().collect();
    let b: Vec<&str> = got.lines().collect();
    // Longest common subsequence table; event sections are short (a cap keeps it bounded).
    if a.len() * b.len() > 4_000_000 {
        return format!("--- expected\n{want}+++ actual\n{got}");
    }
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push_str(&format!("  {}\n", a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push_str(&format!("- {}\n", a[i]));
            i += 1;
        } else {
            out.push_str(&format!("+ {}\n", b[j]));
            j += 1;
        }
    }
    out
}

/// The names in `vllm-parsers.txt` (blank lines and `#` comments skipped).
pub fn parser_names(text: &str) -> Vec<&str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
}

/// One case as stored.
#[derive(Clone, Debug)]
pub struct Case {
    /// `<parser>/<case>`: the test name.
    pub name: String,
    pub parser: String,
    pub input: String,
    /// `None` when the `.expect` file is missing.
    pub expect: Option<Expect>,
    /// The JS options object (parser included, tool sets resolved), or why it cannot be built.
    pub options: Result<Value, String>,
}

/// Reads cases from a data directory through `fs` (std on native, Node's fs in the wasm suite).
pub trait DataFs {
    /// File and directory names in `dir` (relative to the data directory), sorted.
    fn list(&self, dir: &str) -> Vec<String>;
    fn is_dir(&self, path: &str) -> bool;
    fn read(&self, path: &str) -> Option<String>;
}

/// A named tool set, from `tools/<name>.json`.
pub fn tool_set(fs: &dyn DataFs, name: &str) -> Result<Value, String> {
    let path = format!("{TOOLS_DIR}/{name}.json");
    let text = fs.read(&path).ok_or_else(|| {
        let known: Vec<String> = fs.list(TOOLS_DIR).into_iter().filter_map(|n| n.strip_suffix(".json").map(str::to_string)).collect();
        format!("no tool set `{name}` (tests/data/{path}); known sets: {}", known.join(", "))
    })?;
    serde_json::from_str(&text).map_err(|e| format!("tests/data/{path}: {e}"))
}

/// Every case under the data directory, sorted by name, plus problems that are not cases
/// (stray files) as `(path, message)`.
pub fn load_cases(fs: &dyn DataFs) -> (Vec<Case>, Vec<(String, String)>) {
    let mut cases = Vec::new();
    let mut problems = Vec::new();
    for parser in fs.list("") {
        if parser == TOOLS_DIR || !fs.is_dir(&parser) {
            continue;
        }
        let files = fs.list(&parser);
        for f in &files {
            let (stem, ext) = f.rsplit_once('.').unwrap_or((f.as_str(), ""));
            match ext {
                "txt" => {
                    let Some(input) = fs.read(&format!("{parser}/{f}")) else {
                        problems.push((format!("{parser}/{f}"), "unreadable or not UTF-8".to_string()));
                        continue;
                    };
                    let expect = fs.read(&format!("{parser}/{stem}.expect")).map(|t| Expect::parse(&t));
                    let options = case_options(&parser, expect.as_ref().unwrap_or(&Expect::default()), &|n| tool_set(fs, n));
                    cases.push(Case { name: format!("{parser}/{stem}"), parser: parser.clone(), input, expect, options });
                }
                "expect" if files.contains(&format!("{stem}.txt")) => {}
                "expect" => problems.push((format!("{parser}/{f}"), format!("no input file {stem}.txt beside it"))),
                _ => problems.push((format!("{parser}/{f}"), "a case is <name>.txt (input) and <name>.expect".to_string())),
            }
        }
    }
    (cases, problems)
}

/// `DataFs` over a directory on disk.
#[cfg(not(target_arch = "wasm32"))]
pub struct StdFs(pub std::path::PathBuf);

#[cfg(not(target_arch = "wasm32"))]
impl DataFs for StdFs {
    fn list(&self, dir: &str) -> Vec<String> {
        let mut v: Vec<String> = match std::fs::read_dir(self.0.join(dir)) {
            Ok(rd) => rd.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect(),
            Err(_) => Vec::new(),
        };
        v.sort();
        v
    }
    fn is_dir(&self, path: &str) -> bool {
        self.0.join(path).is_dir()
    }
    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.0.join(path)).ok()
    }
}

/// The repository's `tests/data`.
#[cfg(not(target_arch = "wasm32"))]
pub fn data_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}
