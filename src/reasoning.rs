//! Reasoning parsers (vLLM `--reasoning-parser` names) as data.

use crate::syntax::Reasoning;

const THINK: &[&str] = &["<think>"];
const END_THINK: &[&str] = &["</think>"];

/// Every reasoning parser.
pub static REASONING: &[Reasoning<'static>] = &[
    Reasoning {
        id: "qwen3",
        aliases: &["mimo", "nemotron_v3"],
        start: THINK,
        end: END_THINK,
        implicit_start: false,
        description: "<think>…</think>; a tool call ends reasoning.",
    },
    Reasoning {
        id: "deepseek_r1",
        aliases: &["step5"],
        start: THINK,
        end: END_THINK,
        implicit_start: true,
        description: "<think>…</think>; output may begin inside reasoning with no <think>.",
    },
];

/// Looks up a reasoning parser by id or alias.
pub fn find(name: &str) -> Option<&'static Reasoning<'static>> {
    let want = name.trim().to_ascii_lowercase().replace('-', "_");
    REASONING.iter().find(|r| r.id == want || r.aliases.contains(&want.as_str()))
}

/// All ids and aliases, sorted.
pub fn names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> =
        REASONING.iter().flat_map(|r| core::iter::once(r.id).chain(r.aliases.iter().copied())).collect();
    v.sort_unstable();
    v
}
