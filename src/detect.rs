//! Family detection from a model name.

/// (lowercase substring of the model name, parser id). The most specific (longest) match wins.
const TABLE: &[(&str, &str)] = &[
    ("hermes", "hermes"),
    ("qwen2.5", "hermes"),
    ("qwq", "hermes"),
    ("qwen3", "hermes"),
    ("longcat", "longcat"),
    ("granite-4", "granite4"),
    ("ernie-4.5", "ernie45"),
    ("internlm", "internlm"),
    ("gigachat3", "gigachat3"),
    ("hunyuan-a13b", "hunyuan_a13b"),
    ("jamba", "jamba"),
    ("gpt-4", "openai"),
];

/// The parser id for `model`, or `None` when unknown.
pub fn detect_parser(model: &str) -> Option<&'static str> {
    let m = model.to_ascii_lowercase();
    TABLE.iter().filter(|(k, _)| m.contains(k)).max_by_key(|(k, _)| k.len()).map(|(_, id)| *id)
}
