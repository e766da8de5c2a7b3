//! Reasoning parsers (vLLM `--reasoning-parser` names, 0.33.0: all 42) as data.
//!
//! The engine splits reasoning from content with these markers: `start` opens reasoning, `end`
//! closes it; with `implicit_start` the output begins inside reasoning and only an end marker
//! (or a tool call) closes it. A duplicate start inside reasoning and a stray end in content are
//! swallowed. `ignore` lists answer framing swallowed in content (`<answer>`, `<response>`).
//! With `calls_end` a family's tool-call marker inside reasoning ends the reasoning and opens the
//! call (vLLM's engine behaviour); without it the marker stays reasoning text.
//!
//! `implicit_start` follows vLLM's default for each name (thinking on where the parser reads a
//! `thinking` switch), except `qwen3`: it starts in content, so a hybrid Qwen3 with thinking off
//! loses no content; for templates that pre-fill `<think>` use `deepseek_r1`.
//!
//! Channel formats are read by their tool family, so these entries have no markers: `openai_gptoss`
//! (Harmony `analysis` channel: the `openai` family), `muse`/`musespark1x`/`muse_glimmer`
//! (`to=self` messages: the `muse` families), `hf`/`beam` (the checkpoint's template). For
//! `minimax_m2_append_think` (vLLM re-inserts `<think>` into content) reasoning stays content.

use crate::prelude::*;
use crate::syntax::Reasoning;

const THINK: &[&str] = &["<think>"];
const END_THINK: &[&str] = &["</think>"];

/// `<think>`/`</think>` reasoning; `implicit`: output begins inside it.
const fn think(id: &'static str, aliases: &'static [&'static str], implicit: bool, description: &'static str) -> Reasoning<'static> {
    Reasoning { id, aliases, start: THINK, end: END_THINK, ignore: &[], implicit_start: implicit, calls_end: true, strip_tail: false, description: text!(description) }
}

/// Reasoning read by a family's channel reader: no markers here.
const fn channels(id: &'static str, aliases: &'static [&'static str], description: &'static str) -> Reasoning<'static> {
    Reasoning { id, aliases, start: &[], end: &[], ignore: &[], implicit_start: false, calls_end: true, strip_tail: false, description: text!(description) }
}

/// Every reasoning parser.
/// Hunyuan-A13B; also the `hunyuan_a13b` tool family's own reasoning (its tool parser ignores
/// tool blocks inside `<think>`).
pub const HUNYUAN_A13B: Reasoning<'static> = Reasoning {
    id: "hunyuan_a13b",
    aliases: &[],
    start: &["<think>\n", "<think>"],
    end: &["\n</think>\n", "\n</think>", "</think>\n", "</think>"],
    ignore: &["<answer>\n", "<answer>", "\n</answer>", "</answer>"],
    implicit_start: false,
    calls_end: false,
    strip_tail: false,
    description: text!("Hunyuan-A13B: <think>\\n…\\n</think>\\n<answer>\\n…\\n</answer>; the answer framing is dropped; tool blocks inside <think> stay reasoning."),
};

/// Inkling thinking blocks: the reasoning parser `inkling` and the `inkling` family's own
/// reasoning (one definition). A block ends at `<|end_message|>` or where sampling ends.
pub const INKLING: Reasoning<'static> = Reasoning {
    id: "inkling",
    aliases: &[],
    start: &["<|content_thinking|>"],
    end: &["<|end_message|>", "<|content_model_end_sampling|>"],
    ignore: &["<|message_model|>", "<|content_text|>", "<|end_message|>", "<|content_model_end_sampling|>"],
    implicit_start: false,
    calls_end: true,
    strip_tail: false,
    description: text!("Inkling: <|content_thinking|>…<|end_message|>; text-message framing is dropped."),
};

pub static REASONING: &[Reasoning<'static>] = &[
    think("qwen3", &["mimo", "nemotron_v3"], true, "<think>…</think>; output starts in reasoning (thinking on, vLLM's default; the template may pre-fill <think>); a tool call ends reasoning. For thinking off, pass no reasoning parser."),
    think("deepseek_r1", &["step5", "holo2"], true, "<think>…</think>; output may begin inside reasoning with no <think>."),
    think(
        "deepseek_v3",
        &[],
        false,
        "<think>…</think> when the model opens it (vLLM: identity unless `thinking`); use deepseek_r1 when the prompt opens <think>.",
    ),
    think("deepseek_v4", &[], true, "<think>…</think>, thinking on by default: output begins inside reasoning; a DSML tool start ends it."),
    think("deepseek_v41", &[], false, "<think>…</think>, thinking off by default: reasoning only when the model opens <think>."),
    think("glm45", &["glm47", "ling3"], true, "GLM-4.5/4.6/4.7/5, Ling 3: output begins inside reasoning until </think>."),
    think("kimi_k2", &[], true, "Kimi K2: reasoning until </think>; <|tool_calls_section_begin|> ends it."),
    think("minimax_m2", &[], true, "MiniMax-M2: the prompt opens <think>; reasoning until </think>."),
    think("step3", &[], true, "Step-3: reasoning until </think>."),
    Reasoning {
        strip_tail: true,
        ..think("step3p5", &[], true, "Step-3.5: <think> always on (pre-filled); reasoning until </think>; its trailing whitespace is dropped.")
    },
    think("olmo3", &[], true, "Olmo 3 Think: <think>…</think>; output may begin inside reasoning."),
    think("poolside_v1", &[], false, "Poolside v1: <think>…</think>."),
    think("granite_thinking_parser", &[], false, "Granite thinking models: <think>…</think>."),
    think("hy_v3", &["hy_v4"], false, "Tencent HY v3/v4: <think>…</think> (tokenizers with a token suffix are not supported)."),
    think("k2_horizon", &[], false, "K2 Horizon: <think>…</think>; an <ifm|tool_calls> section ends reasoning."),
    Reasoning {
        id: "seed_oss",
        aliases: &[],
        start: &["<seed:think>"],
        end: &["</seed:think>"],
        ignore: &[],
        implicit_start: true,
        calls_end: true,
        strip_tail: false,
        description: text!("Seed-OSS: <seed:think>…</seed:think>; output may begin inside reasoning."),
    },
    Reasoning {
        id: "minimax_m3",
        aliases: &[],
        start: &["<mm:think>"],
        end: &["</mm:think>"],
        ignore: &[],
        implicit_start: false,
        calls_end: true,
        strip_tail: false,
        description: text!("MiniMax-M3: <mm:think>…</mm:think>."),
    },
    Reasoning {
        id: "mistral",
        aliases: &[],
        start: &["[THINK]", "<think>"],
        end: &["[/THINK]", "</think>"],
        ignore: &[],
        implicit_start: false,
        calls_end: true,
        strip_tail: false,
        description: text!("Mistral: [THINK]…[/THINK] (v13+) or <think>…</think> (v11); [TOOL_CALLS] ends reasoning."),
    },
    Reasoning {
        id: "granite",
        aliases: &[],
        start: &["Here is my thought process:", "Here's my thought process:"],
        end: &["Here is my response:", "Here's my response:"],
        ignore: &[],
        implicit_start: false,
        calls_end: true,
        strip_tail: false,
        description: text!("Granite 3.2: text markers \"Here is my thought process:\" … \"Here is my response:\"."),
    },
    HUNYUAN_A13B,
    Reasoning {
        id: "ernie45",
        aliases: &[],
        start: THINK,
        end: &["\n</think>\n\n", "\n</think>\n", "\n</think>", "</think>"],
        ignore: &["<response>\n", "<response>", "\n</response>", "</response>"],
        implicit_start: true,
        calls_end: true,
        strip_tail: false,
        description: text!("ERNIE-4.5 thinking: reasoning until </think>; the answer's <response>…</response> framing is dropped."),
    },
    Reasoning {
        id: "gemma4",
        aliases: &[],
        start: &["<|channel>thought\n", "<|channel>thought", "<|channel>"],
        end: &["<channel|>"],
        ignore: &[],
        implicit_start: false,
        calls_end: true,
        strip_tail: false,
        description: text!("Gemma 4: <|channel>thought\\n…<channel|> (the `thought` label is dropped)."),
    },
    Reasoning {
        id: "kimi_k3",
        aliases: &[],
        start: &["<|open|>think<|sep|>"],
        end: &["<|close|>think<|sep|>"],
        ignore: &["<|open|>response<|sep|>", "<|close|>response<|sep|>"],
        implicit_start: false,
        calls_end: true,
        strip_tail: false,
        description: text!("Kimi K3 XTML: <|open|>think<|sep|>…<|close|>think<|sep|>; the response channel's framing is dropped."),
    },
    Reasoning {
        id: "minicpmv",
        aliases: &[],
        start: THINK,
        end: END_THINK,
        ignore: &["<|im_end|>"],
        implicit_start: false,
        calls_end: true,
        strip_tail: false,
        description: text!("MiniCPM-V: <think>…</think>; <|im_end|> is dropped."),
    },
    Reasoning {
        id: "plamo3",
        aliases: &[],
        start: &["<|plamo:begin_think:plamo|>"],
        end: &["<|plamo:end_think:plamo|>"],
        ignore: &[],
        implicit_start: false,
        calls_end: true,
        strip_tail: false,
        description: text!("PLaMo 3: <|plamo:begin_think:plamo|>…<|plamo:end_think:plamo|>."),
    },
    INKLING,
    Reasoning {
        id: "cohere_command3",
        aliases: &["cohere_command4"],
        start: &["<|START_THINKING|>"],
        end: &["<|END_THINKING|>"],
        ignore: &["<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>"],
        implicit_start: false,
        calls_end: true,
        strip_tail: false,
        description: text!("Command A: <|START_THINKING|>…<|END_THINKING|>; response/text framing is dropped."),
    },
    channels("openai_gptoss", &["gpt_oss"], "gpt-oss Harmony: the `analysis` channel is reasoning, read by the `openai` family."),
    channels("muse", &["musespark1x", "muse_glimmer"], "Muse: `to=self` messages are reasoning, read by the `muse` families."),
    channels("hf", &["beam"], "Template-driven: reasoning markers come from the checkpoint's response_template."),
    channels("minimax_m2_append_think", &[], "MiniMax-M2 with <think> kept in content: no split (reasoning stays content)."),
];

/// Looks up a reasoning parser by id or alias (case-insensitive; `-` and `_` interchangeable).
pub fn find(name: &str) -> Option<&'static Reasoning<'static>> {
    let want = name.trim().to_ascii_lowercase().replace('-', "_");
    REASONING.iter().find(|r| r.id == want || r.aliases.contains(&want.as_str()))
}

/// All ids and aliases, sorted.
pub fn names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> =
        REASONING.iter().flat_map(|r| core::iter::once(r.id).chain(r.aliases.iter().copied())).collect();
    crate::small::sort_by(&mut v, |a, b| a < b);
    v
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;

    /// vLLM 0.33.0's 42 `--reasoning-parser` names.
    const VLLM: &[&str] = &[
        "deepseek_r1", "step5", "deepseek_v3", "holo2", "deepseek_v4", "deepseek_v41", "qwen3", "nemotron_v3",
        "seed_oss", "step3", "step3p5", "mimo", "glm45", "glm47", "ling3", "kimi_k2", "kimi_k3", "k2_horizon",
        "minimax_m2", "minimax_m2_append_think", "minimax_m3", "ernie45", "hunyuan_a13b", "hy_v3", "hy_v4", "granite",
        "granite_thinking_parser", "gemma4", "mistral", "olmo3", "openai_gptoss", "minicpmv", "plamo3", "inkling",
        "muse", "musespark1x", "muse_glimmer", "cohere_command3", "cohere_command4", "poolside_v1", "hf", "beam",
    ];

    #[test]
    fn every_vllm_name_resolves_once() {
        assert_eq!(VLLM.len(), 42);
        for n in VLLM {
            assert!(find(n).is_some(), "{n}");
        }
        let all = names();
        let mut dedup = all.clone();
        dedup.dedup();
        assert_eq!(all, dedup, "a name is listed twice");
        assert_eq!(find("Deepseek-R1").map(|r| r.id), Some("deepseek_r1"));
        assert!(find("nope").is_none());
    }
}

/// `[{id, aliases, description}]` for every reasoning parser, as JSON.
pub fn to_json() -> String {
    use crate::json::push_json_string;
    let mut out = String::from("[");
    for (i, r) in REASONING.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"id\":");
        push_json_string(&mut out, r.id);
        out.push_str(",\"aliases\":[");
        for (j, a) in r.aliases.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            push_json_string(&mut out, a);
        }
        out.push_str("],\"description\":");
        push_json_string(&mut out, r.description);
        out.push('}');
    }
    out.push(']');
    out
}
