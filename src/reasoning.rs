//! Reasoning parsers (vLLM `--reasoning-parser` names, 0.33.0: all 42) as data.
//!
//! The engine splits reasoning from content with these markers: `start` opens reasoning, `end`
//! closes it. `thinking` ([`Thinking`]) says where the output starts for each value of the
//! `thinking` option (vLLM's `thinking`/`enable_thinking` chat-template switch): inside
//! reasoning, the text before an end marker (or a tool call) is reasoning with no start marker.
//! A duplicate start inside reasoning and a stray end in content are swallowed. `ignore` lists
//! answer framing swallowed in content (`<answer>`, `<response>`). With `calls_end` a family's
//! tool-call marker inside reasoning ends the reasoning and opens the call (vLLM's engine
//! behaviour); without it the marker stays reasoning text.
//!
//! The switch per name follows vLLM: `deepseek_v3` (r1-style when thinking is on, default off)
//! and `deepseek_v41` start in reasoning only with `thinking: true`; `qwen3`, `glm45`, `kimi_k2`,
//! `deepseek_v4`, … start in reasoning unless `thinking: false`; `step3p5`'s template pre-fills
//! `<think>` and ignores the switch. Parsers that vLLM runs r1-style without reading the switch
//! (`deepseek_r1`, `step3`, `olmo3`, …) honour `thinking: false` here (the caller says the
//! prompt did not open reasoning). With thinking off, vLLM's `deepseek_v3`/`holo2` read no
//! reasoning at all; here a `<think>` block the model writes is still reasoning.
//!
//! Channel formats are read by their tool family, so these entries have no markers: `openai_gptoss`
//! (Harmony `analysis` channel: the `openai` family), `muse`/`musespark1x`/`muse_glimmer`
//! (`to=self` messages: the `muse` families), `hf`/`beam` (the checkpoint's template). For
//! `minimax_m2_append_think` (vLLM re-inserts `<think>` into content) reasoning stays content.

use crate::prelude::*;
use crate::syntax::Reasoning;
use crate::syntax::Thinking::{self, Always, DefaultOff, DefaultOn, Opened};

const THINK: &[&str] = &["<think>"];
const END_THINK: &[&str] = &["</think>"];

/// `<think>`/`</think>` reasoning started as `thinking` says.
const fn think(id: &'static str, aliases: &'static [&'static str], thinking: Thinking, description: &'static str) -> Reasoning<'static> {
    Reasoning { id, aliases, start: THINK, end: END_THINK, ignore: &[], thinking, calls_end: true, strip_tail: false, description: text!(description) }
}

/// Reasoning read by a family's channel reader: no markers here.
const fn channels(id: &'static str, aliases: &'static [&'static str], description: &'static str) -> Reasoning<'static> {
    Reasoning { id, aliases, start: &[], end: &[], ignore: &[], thinking: Opened, calls_end: true, strip_tail: false, description: text!(description) }
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
    thinking: Opened,
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
    thinking: Opened,
    calls_end: true,
    strip_tail: false,
    description: text!("Inkling: <|content_thinking|>…<|end_message|>; text-message framing is dropped."),
};

pub static REASONING: &[Reasoning<'static>] = &[
    think("qwen3", &["mimo", "nemotron_v3"], DefaultOn, "<think>…</think>; output starts in reasoning unless thinking is off (vLLM's enable_thinking, default on); a tool call ends reasoning."),
    think("deepseek_r1", &["step5", "holo2"], DefaultOn, "<think>…</think>; output begins inside reasoning (no <think>) unless thinking is off."),
    think(
        "deepseek_v3",
        &[],
        DefaultOff,
        "<think>…</think>; with thinking on (vLLM's thinking/enable_thinking, default off) as deepseek_r1: output begins inside reasoning.",
    ),
    think("deepseek_v4", &[], DefaultOn, "<think>…</think>, thinking on by default: output begins inside reasoning; a DSML tool start ends it."),
    think("deepseek_v41", &[], DefaultOff, "<think>…</think>, thinking off by default: reasoning when the model opens <think>, or from the start with thinking on."),
    think("glm45", &["glm47", "ling3"], DefaultOn, "GLM-4.5/4.6/4.7/5, Ling 3: output begins inside reasoning until </think> unless thinking is off."),
    think("kimi_k2", &[], DefaultOn, "Kimi K2: reasoning until </think> unless thinking is off; <|tool_calls_section_begin|> ends it."),
    think("minimax_m2", &[], DefaultOn, "MiniMax-M2: the prompt opens <think>; reasoning until </think>."),
    think("step3", &[], DefaultOn, "Step-3: reasoning until </think>."),
    Reasoning {
        strip_tail: true,
        ..think("step3p5", &[], Always, "Step-3.5: <think> always on (pre-filled; the thinking switch is ignored); reasoning until </think>; its trailing whitespace is dropped.")
    },
    think("olmo3", &[], DefaultOn, "Olmo 3 Think: <think>…</think>; output may begin inside reasoning."),
    think("poolside_v1", &[], Opened, "Poolside v1: <think>…</think>."),
    think("granite_thinking_parser", &[], Opened, "Granite thinking models: <think>…</think>."),
    think("hy_v3", &["hy_v4"], Opened, "Tencent HY v3/v4: <think>…</think> (tokenizers with a token suffix are not supported)."),
    think("k2_horizon", &[], Opened, "K2 Horizon: <think>…</think>; an <ifm|tool_calls> section ends reasoning."),
    Reasoning {
        id: "seed_oss",
        aliases: &[],
        start: &["<seed:think>"],
        end: &["</seed:think>"],
        ignore: &[],
        thinking: DefaultOn,
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
        thinking: Opened,
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
        thinking: Opened,
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
        thinking: Opened,
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
        thinking: DefaultOn,
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
        thinking: Opened,
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
        thinking: Opened,
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
        thinking: Opened,
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
        thinking: Opened,
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
        thinking: Opened,
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
    // Plain loops, as `families::names`.
    let mut v: Vec<&'static str> = Vec::new();
    for r in REASONING {
        v.push(r.id);
        v.extend_from_slice(r.aliases);
    }
    crate::small::sort_by(&mut v, |a, b| a < b);
    v
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

    /// The `thinking` switch per name, as vLLM reads it: (name, unset, on, off) start states.
    #[test]
    fn thinking_switch_sets_the_start_as_vllm() {
        let cases = [
            ("deepseek_v3", false, true, false),
            ("deepseek_v41", false, true, false),
            ("deepseek_v4", true, true, false),
            ("qwen3", true, true, false),
            ("nemotron_v3", true, true, false),
            ("glm47", true, true, false),
            ("kimi_k2", true, true, false),
            ("holo2", true, true, false),
            ("step3p5", true, true, true),
            ("gemma4", false, false, false),
            ("mistral", false, false, false),
        ];
        for (name, unset, on, off) in cases {
            let t = find(name).unwrap().thinking;
            assert_eq!([t.starts_inside(None), t.starts_inside(Some(true)), t.starts_inside(Some(false))], [unset, on, off], "{name}");
        }
    }
}
