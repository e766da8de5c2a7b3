//! Family detection: from a model name (`detect_parser`) or from markers in a text
//! (`sniff_parser`).
//!
//! Model names are normalised first: the organisation prefix (`Qwen/`, `hf.co/unsloth/`) and a
//! `:tag` suffix (`:latest`, `:Q4_K_M`) are dropped, letters lowercased, and separators (`-`, `_`,
//! spaces) removed, so `Meta-Llama-3.1-8B`, `llama3.1:8b` and `llama_3.1` all read
//! `metallama3.18b` / `llama3.1` and match the key `llama3`. Quantisation suffixes (GGUF, AWQ,
//! FP8, ...) need no handling: keys are substrings.
//!
//! Most specific match wins: fine-tunes that carry their base model's name (`Hermes-3-Llama-3.1`,
//! `Llama-xLAM-2`, `ToolACE-2-Llama-3.1`) are looked up first (`DERIVED`); then the longest
//! matching key of `BASE` wins, so versions pick their parser (`qwen3coder` over `qwen3`,
//! `deepseekv3.1` over `deepseekv3`, `glm4.7` over `glm4`). A key starting with `^` must match
//! at the start of the name (short names such as `o3`).
//!
//! Not detectable by name: `hf`/`beam` (driven by the checkpoint's template), and aliases
//! (`qwen3_json`, `llama4_json`, `musespark1x`) whose canonical id is returned instead.
//! Unknown names give `None` (`parser: "auto"` then uses `generic`).

use crate::prelude::*;
/// Fine-tunes named after their base model: checked before `BASE`.
const DERIVED: &[(&str, &str)] = &[
    ("hermes", "hermes"),
    ("kolibri", "hermes"),
    ("xlam", "xlam"),
    ("toolace", "pythonic"),
    ("functiongemma", "functiongemma"),
    ("granite20bfunctioncalling", "granite-20b-fc"),
    ("granite20bfc", "granite-20b-fc"),
    // Llama-Nemotron Super/Nano speak <TOOLCALL>; other Llama 3.1 Nemotrons speak Llama 3 JSON.
    ("nemotronsuper", "nemotron_json"),
    ("nemotronnano", "nemotron_json"),
];

/// Base model families (longest match wins).
const BASE: &[(&str, &str)] = &[
    // Qwen
    ("qwen2", "hermes"),
    ("qwen2.5", "hermes"),
    ("qwq", "hermes"),
    ("qwen3", "hermes"),
    ("qwen3coder", "qwen3_coder"),
    ("qwen3.5", "qwen3_xml"),
    ("qwen3.6", "qwen3_xml"),
    ("smollm3", "hermes"),
    // Meta
    ("llama3", "llama3_json"),
    ("llama4", "llama4_pythonic"),
    // Mistral AI
    ("mistral", "mistral"),
    ("mixtral", "mistral"),
    ("ministral", "mistral"),
    ("magistral", "mistral"),
    ("devstral", "mistral"),
    ("codestral", "mistral"),
    ("pixtral", "mistral"),
    ("voxtral", "mistral"),
    // DeepSeek
    ("deepseekv3", "deepseek_v3"),
    ("deepseekr1", "deepseek_v3"),
    ("deepseekv3.1", "deepseek_v31"),
    ("deepseekv3.2", "deepseek_v32"),
    ("deepseekv4", "deepseek_v4"),
    ("deepseekv4.1", "deepseek_v41"),
    // IBM
    ("granite3", "granite"),
    ("granite4", "granite4"),
    // Zhipu / Z.ai, Ant
    ("glm4", "glm45"),
    ("glm4.5", "glm45"),
    ("glm4.6", "glm45"),
    ("glm4.7", "glm47"),
    ("glm5", "glm47"),
    ("^ling3", "ling3"),
    // Moonshot, MBZUAI IFM
    ("kimik2", "kimi_k2"),
    ("kimik3", "kimi_k3"),
    ("k2horizon", "k2_horizon"),
    // MiniMax
    ("minimaxm1", "minimax"),
    ("minimaxtext01", "minimax"),
    ("minimaxm2", "minimax_m2"),
    ("minimaxm3", "minimax_m3"),
    // StepFun
    ("step3", "step3"),
    ("step3.5", "step3p5"),
    ("step3.7", "step3p5"),
    ("^step5", "step5"),
    // Google
    ("gemma4", "gemma4"),
    // Others, alphabetical
    ("apertus", "apertus"),
    ("commanda", "cohere_command3"),
    ("commandr7b", "cohere_command3"),
    ("commanda+", "cohere_command4"),
    ("commandaplus", "cohere_command4"),
    ("northmini", "cohere_command4"),
    ("dots.llm", "dots"),
    ("dotsllm", "dots"),
    ("ernie4.5", "ernie45"),
    ("gigachat3", "gigachat3"),
    ("hunyuana13b", "hunyuan_a13b"),
    ("^hyv3", "hy_v3"),
    ("hunyuanv3", "hy_v3"),
    ("^hyv4", "hy_v4"),
    ("hunyuanv4", "hy_v4"),
    ("inkling", "inkling"),
    ("internlm", "internlm"),
    ("jamba", "jamba"),
    ("lfm2", "lfm2"),
    ("longcat", "longcat"),
    ("mimo", "mimo"),
    ("minicpm5", "minicpm5"),
    ("musespark", "muse"),
    ("museglimmer", "muse_glimmer"),
    ("olmo3", "olmo3"),
    ("phi4mini", "phi4_mini_json"),
    ("plamo3", "plamo3"),
    ("poolside", "poolside_v1"),
    ("seedoss", "seed_oss"),
    // OpenAI: gpt-oss speaks Harmony; hosted models return native calls (passthrough).
    ("gptoss", "openai"),
    ("gpt3.5", "openai"),
    ("gpt4", "openai"),
    ("gpt5", "openai"),
    ("chatgpt", "openai"),
    ("^o1", "openai"),
    ("^o3", "openai"),
    ("^o4", "openai"),
];

/// The normalised form of a model name (see the module docs).
pub fn normalize(model: &str) -> String {
    let name = model.trim();
    // After the last `/`, before the first `:` (found as bytes: no reverse char searcher in the wasm).
    let name = &name[crate::text::rfind_byte(name, b'/').map_or(0, |i| i + 1)..];
    let name = &name[..crate::text::find_byte(name, b':').unwrap_or(name.len())];
    name.chars().filter(|c| !matches!(c, '-' | '_' | ' ')).map(|c| c.to_ascii_lowercase()).collect()
}

fn matches(name: &str, key: &str) -> bool {
    match key.strip_prefix('^') {
        Some(k) => name.starts_with(k),
        None => crate::text::find(name, key).is_some(),
    }
}

/// The parser id for `model`, or `None` when unknown.
pub fn detect_parser(model: &str) -> Option<&'static str> {
    let name = normalize(model);
    if name.is_empty() {
        return None;
    }
    // The longest matching key, the last of equals (as `max_by_key`); plain loops here and in
    // `sniff_parser` (iterator adapters are a copy per use in the wasm).
    let best = |table: &[(&'static str, &'static str)]| {
        let mut best: Option<(usize, &'static str)> = None;
        for &(k, id) in table {
            let len = k.trim_start_matches('^').len();
            if matches(&name, k) && best.is_none_or(|(l, _)| len >= l) {
                best = Some((len, id));
            }
        }
        best.map(|(_, id)| id)
    };
    best(DERIVED).or_else(|| best(BASE))
}

/// Families whose tool-call markers appear in `text`, most specific first: ranked by the total
/// length of the distinct markers found (opening and closing), at least one of them opening;
/// ties keep registry order; `generic` comes last. Bare openings (`{`, `[`) are not evidence.
pub fn sniff_parser(text: &str) -> Vec<&'static str> {
    let mut found: Vec<(usize, usize, &'static str)> = Vec::new();
    for (order, f) in crate::families::all().enumerate() {
        let s = &f.syntax;
        // The total length of the markers of `list` (but those of `skip`) found in `text`.
        let score = |list: &[&str], skip: &[&str]| {
            let mut n = 0;
            for m in list {
                if !m.is_empty() && !skip.contains(m) && crate::text::find(text, m).is_some() {
                    n += m.len();
                }
            }
            n
        };
        let opening = score(s.section, &[]) + score(s.start, &[]);
        if opening == 0 {
            continue;
        }
        let closing = score(s.section_end, &[]) + score(s.end, s.start);
        let rank = if f.id == "generic" { 0 } else { opening + closing };
        found.push((rank, order, f.id));
    }
    // Higher rank first; the sort is stable, so ties keep registry order.
    crate::small::sort_by(&mut found, |a, b| a.0 > b.0);
    let mut ids = Vec::with_capacity(found.len());
    for (_, _, id) in found {
        ids.push(id);
    }
    ids
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;

    /// Real model names (Hugging Face ids, Ollama tags, GGUF files) → parser ids.
    const MODELS: &[(&str, &str)] = &[
        ("NousResearch/Hermes-2-Pro-Llama-3-8B", "hermes"),
        ("NousResearch/Hermes-3-Llama-3.1-8B", "hermes"),
        ("NousResearch/Hermes-2-Pro-Mistral-7B", "hermes"),
        ("NousResearch/Hermes-4-70B", "hermes"),
        ("hermes3:8b", "hermes"),
        ("Qwen/Qwen2.5-7B-Instruct", "hermes"),
        ("Qwen/Qwen2.5-Coder-32B-Instruct-AWQ", "hermes"),
        ("qwen2.5:14b", "hermes"),
        ("Qwen/Qwen2-7B-Instruct", "hermes"),
        ("Qwen/QwQ-32B", "hermes"),
        ("Qwen/Qwen3-8B", "hermes"),
        ("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "hermes"),
        ("Qwen/Qwen3-Next-80B-A3B-Instruct", "hermes"),
        ("qwen3:latest", "hermes"),
        ("Qwen3-Coder-30B-A3B-Instruct", "qwen3_coder"),
        ("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", "qwen3_coder"),
        ("unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF:Q4_K_M", "qwen3_coder"),
        ("qwen3-coder:30b", "qwen3_coder"),
        ("Qwen/Qwen3.5-397B-A17B", "qwen3_xml"),
        ("Qwen/Qwen3.6-35B-A3B", "qwen3_xml"),
        ("HuggingFaceTB/SmolLM3-3B", "hermes"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama3_json"),
        ("meta-llama/Meta-Llama-3.1-70B-Instruct", "llama3_json"),
        ("meta-llama/Llama-3.2-3B-Instruct", "llama3_json"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama3_json"),
        ("llama3.1:8b", "llama3_json"),
        ("nvidia/Llama-3.1-Nemotron-70B-Instruct-HF", "llama3_json"),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama4_pythonic"),
        ("meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "llama4_pythonic"),
        ("mistralai/Mistral-7B-Instruct-v0.3", "mistral"),
        ("mistralai/Mistral-Small-3.2-24B-Instruct-2506", "mistral"),
        ("mistralai/Mixtral-8x22B-Instruct-v0.1", "mistral"),
        ("mistralai/Ministral-8B-Instruct-2410", "mistral"),
        ("mistralai/Magistral-Small-2509", "mistral"),
        ("mistralai/Devstral-Small-2507", "mistral"),
        ("mistral-nemo:latest", "mistral"),
        ("Salesforce/Llama-xLAM-2-8b-fc-r", "xlam"),
        ("Salesforce/xLAM-2-32b-fc-r", "xlam"),
        ("Salesforce/Qwen-xLAM-2-3b-fc-r", "xlam"),
        ("Team-ACE/ToolACE-8B", "pythonic"),
        ("Team-ACE/ToolACE-2-Llama-3.1-8B", "pythonic"),
        ("deepseek-ai/DeepSeek-V3-0324", "deepseek_v3"),
        ("deepseek-ai/DeepSeek-R1-0528", "deepseek_v3"),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "deepseek_v3"),
        ("deepseek-ai/DeepSeek-V3.1", "deepseek_v31"),
        ("deepseek-ai/DeepSeek-V3.1-Terminus", "deepseek_v31"),
        ("deepseek-ai/DeepSeek-V3.2-Exp", "deepseek_v32"),
        ("deepseek-ai/DeepSeek-V4", "deepseek_v4"),
        ("deepseek-ai/DeepSeek-V4.1", "deepseek_v41"),
        ("ibm-granite/granite-3.1-8b-instruct", "granite"),
        ("ibm-granite/granite-3.3-8b-instruct", "granite"),
        ("granite3.3:8b", "granite"),
        ("ibm-granite/granite-4.0-h-small", "granite4"),
        ("ibm-granite/granite-4.0-micro", "granite4"),
        ("ibm-granite/granite-20b-functioncalling", "granite-20b-fc"),
        ("internlm/internlm2_5-7b-chat", "internlm"),
        ("internlm/internlm2-chat-7b", "internlm"),
        ("google/functiongemma-270m-it", "functiongemma"),
        ("google/gemma-4-31b-it", "gemma4"),
        ("allenai/Olmo-3-7B-Instruct", "olmo3"),
        ("allenai/Olmo-3-32B-Think", "olmo3"),
        ("THUDM/glm-4-9b-chat", "glm45"),
        ("zai-org/GLM-4.5-Air-FP8", "glm45"),
        ("zai-org/GLM-4.6", "glm45"),
        ("zai-org/GLM-4.7", "glm47"),
        ("zai-org/GLM-4.7-Flash", "glm47"),
        ("zai-org/GLM-5", "glm47"),
        ("inclusionAI/Ling-3-flash", "ling3"),
        ("stepfun-ai/step3", "step3"),
        ("stepfun-ai/Step-3.5-Flash", "step3p5"),
        ("stepfun-ai/Step-3.7-Flash", "step3p5"),
        ("moonshotai/Kimi-K2-Instruct-0905", "kimi_k2"),
        ("moonshotai/Kimi-K2-Thinking", "kimi_k2"),
        ("moonshotai/Kimi-K3", "kimi_k3"),
        ("tencent/Hunyuan-A13B-Instruct", "hunyuan_a13b"),
        ("meituan-longcat/LongCat-Flash-Chat", "longcat"),
        ("ai21labs/AI21-Jamba-1.5-Mini", "jamba"),
        ("ai21labs/AI21-Jamba-1.5-Large", "jamba"),
        ("MiniMaxAI/MiniMax-M1-80k", "minimax"),
        ("MiniMaxAI/MiniMax-Text-01", "minimax"),
        ("MiniMaxAI/MiniMax-M2", "minimax_m2"),
        ("MiniMaxAI/MiniMax-M2.1", "minimax_m2"),
        ("MiniMaxAI/MiniMax-M3", "minimax_m3"),
        ("ai-sage/GigaChat3-10B-A1.8B", "gigachat3"),
        ("ai-sage/GigaChat3-702B-A36B-preview", "gigachat3"),
        ("openai/gpt-oss-20b", "openai"),
        ("gpt-oss:120b", "openai"),
        ("gpt-4o", "openai"),
        ("o3-mini", "openai"),
        ("baidu/ERNIE-4.5-21B-A3B-Thinking", "ernie45"),
        ("swiss-ai/Apertus-8B-Instruct-2509", "apertus"),
        ("microsoft/Phi-4-mini-instruct", "phi4_mini_json"),
        ("LiquidAI/LFM2-1.2B-Tool", "lfm2"),
        ("ByteDance-Seed/Seed-OSS-36B-Instruct", "seed_oss"),
        ("XiaomiMiMo/MiMo-V2-Flash", "mimo"),
        ("rednote-hilab/dots.llm1.inst", "dots"),
        ("CohereLabs/c4ai-command-a-03-2025", "cohere_command3"),
        ("CohereLabs/command-a-reasoning-08-2025", "cohere_command3"),
        ("CohereLabs/c4ai-command-r7b-12-2024", "cohere_command3"),
        ("pfnet/plamo-3-31b", "plamo3"),
        ("Llama 3.1 8B Instruct", "llama3_json"),
        ("QWEN3_CODER_30B", "qwen3_coder"),
    ];

    #[test]
    fn real_model_names() {
        let wrong: Vec<String> = MODELS
            .iter()
            .filter(|(m, want)| detect_parser(m) != Some(want))
            .map(|(m, want)| format!("{m}: want {want}, got {:?}", detect_parser(m)))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        for unknown in ["", "   ", "my-finetune", "bert-base-uncased", "gemma-3-27b-it", "org/bo3x:latest"] {
            assert_eq!(detect_parser(unknown), None, "{unknown}");
        }
    }

    /// Every table target is a registered family (the registry is the one list of names), and
    /// every family that lists public models is a target.
    #[test]
    fn targets_are_registered_families() {
        for (_, id) in DERIVED.iter().chain(BASE) {
            assert!(crate::families::find(id).is_some(), "{id} is not registered");
        }
        for f in crate::families::all().filter(|f| !f.models.is_empty()) {
            assert!(DERIVED.iter().chain(BASE).any(|(_, t)| *t == f.id), "{} is not detectable", f.id);
        }
    }

    /// The registry's public model names detect to their own family, except models that
    /// speak several formats (Llama 4: JSON and pythonic, detection picks pythonic; Llama 3.2:
    /// pythonic and JSON, detection picks JSON).
    #[test]
    fn registry_models_detect_to_their_family() {
        const ALSO: &[(&str, &str)] = &[("llama3_json", "llama4_pythonic"), ("pythonic", "llama3_json")];
        let mut wrong = Vec::new();
        for f in crate::families::all() {
            for m in f.models {
                let got = detect_parser(m);
                let ok = got.and_then(crate::families::find).is_some_and(|g| g.id == f.id)
                    || got.is_some_and(|g| ALSO.contains(&(f.id, g)));
                if !ok {
                    wrong.push(format!("{m} (listed by {}): detected {got:?}", f.id));
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn sniff() {
        let hermes = sniff_parser("ok <tool_call>{\"name\": \"f\"}</tool_call>");
        assert!(hermes.contains(&"hermes"));
        assert_eq!(hermes.last(), Some(&"generic"));
        assert_eq!(sniff_parser("x<longcat_tool_call>{}</longcat_tool_call>").first(), Some(&"longcat"));
        assert_eq!(sniff_parser("<|action_start|><|plugin|>{}").first(), Some(&"internlm"));
        assert!(sniff_parser("plain text {\"a\": 1}").is_empty());
    }
}
