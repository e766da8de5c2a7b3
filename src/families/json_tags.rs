//! JSON call objects inside tags: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`.

use crate::sink::IdStyle::Prefixed;
use crate::syntax::JsonShape::{Array, Object, ObjectOrArray};
use crate::syntax::{Family, Payload, Reasoning, Syntax, Wrapper};

const OBJECT: Payload = Payload::Json(Object, Wrapper::STANDARD);
const ARRAY: Payload = Payload::Json(Array, Wrapper::STANDARD);

/// Hunyuan-A13B's `<think>`/`<answer>` framing: vLLM's tool parser ignores tool blocks inside
/// `<think>`, so the format carries its reasoning markers (used when no reasoning parser is set).
static HUNYUAN_THINK: Reasoning = crate::reasoning::HUNYUAN_A13B;

/// `<tool_call>` {json} `</tool_call>`.
const HERMES: Syntax = Syntax { start: &["<tool_call>"], end: &["</tool_call>"], payload: OBJECT, ..Syntax::NONE };

pub static FAMILIES: &[Family] = &[
    Family {
        id: "hermes",
        aliases: &["qwen3_json"],
        models: names!["NousResearch/Hermes-2-Pro-Llama-3-8B", "NousResearch/Hermes-3-Llama-3.1-8B", "Qwen/Qwen2.5-7B-Instruct", "Qwen/QwQ-32B", "Qwen/Qwen3-8B"],
        description: text!("Hermes 2 Pro/3, Qwen2.5, QwQ, Qwen3 JSON: <tool_call>{\"name\", \"arguments\"}</tool_call>, repeated for parallel calls."),
        syntax: HERMES,
        id_style: Prefixed,
    },
    Family {
        id: "longcat",
        aliases: &[],
        models: names!["meituan-longcat/LongCat-Flash-Chat"],
        description: text!("LongCat-Flash: Hermes JSON inside <longcat_tool_call>…</longcat_tool_call>."),
        syntax: Syntax { start: &["<longcat_tool_call>"], end: &["</longcat_tool_call>"], ..HERMES },
        id_style: Prefixed,
    },
    Family {
        id: "granite4",
        aliases: &[],
        models: names!["ibm-granite/granite-4.0-h-small", "ibm-granite/granite-4.0-micro"],
        description: text!("Granite 4.0: <tool_call>{\"name\", \"arguments\"}</tool_call>; text around calls is content."),
        syntax: HERMES,
        id_style: Prefixed,
    },
    Family {
        id: "ernie45",
        aliases: &[],
        models: names!["baidu/ERNIE-4.5-21B-A3B-Thinking"],
        description: text!("ERNIE-4.5 thinking: <tool_call>{json}</tool_call>; the answer sits in <response>…</response>."),
        syntax: Syntax { ignore: &["<response>", "</response>"], ..HERMES },
        id_style: Prefixed,
    },
    Family {
        id: "internlm",
        aliases: &[],
        models: names!["internlm/internlm2_5-7b-chat", "internlm/internlm2-chat-7b"],
        description: text!("InternLM 2/2.5: <|action_start|><|plugin|>{\"name\", \"parameters\"}<|action_end|>."),
        syntax: Syntax { start: &["<|action_start|><|plugin|>"], end: &["<|action_end|>"], payload: OBJECT, ..Syntax::NONE },
        id_style: Prefixed,
    },
    Family {
        id: "gigachat3",
        aliases: &[],
        models: names!["ai-sage/GigaChat3-10B-A1.8B", "ai-sage/GigaChat3-702B-A36B-preview"],
        description: text!("GigaChat 3: {\"name\", \"arguments\"} after <|function_call|> or `function call<|role_sep|>`."),
        syntax: Syntax {
            start: &["<|function_call|>", "function call<|role_sep|>"],
            end: &["</s>"],
            ignore: &["<|message_sep|>"],
            payload: OBJECT,
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
    Family {
        id: "hunyuan_a13b",
        aliases: &[],
        models: names!["tencent/Hunyuan-A13B-Instruct"],
        description: text!("Hunyuan-A13B: <tool_calls>[{\"name\", \"arguments\"}, …]</tool_calls>; blocks inside <think> are reasoning, <answer> framing is dropped."),
        syntax: Syntax { start: &["<tool_calls>"], end: &["</tool_calls>"], reasoning: Some(&HUNYUAN_THINK), payload: ARRAY, ..Syntax::NONE },
        id_style: Prefixed,
    },
    Family {
        id: "jamba",
        aliases: &[],
        models: names!["ai21labs/AI21-Jamba-1.5-Mini", "ai21labs/AI21-Jamba-1.5-Large"],
        description: text!("AI21 Jamba 1.5: <tool_calls>[{\"name\", \"arguments\"}, …]</tool_calls>."),
        syntax: Syntax { start: &["<tool_calls>"], end: &["</tool_calls>"], payload: ARRAY, ..Syntax::NONE },
        id_style: Prefixed,
    },
    Family {
        id: "nemotron_json",
        aliases: &["llama_nemotron_json"],
        models: names!["nvidia/Llama-3_3-Nemotron-Super-49B-v1", "nvidia/Llama-3.1-Nemotron-Nano-8B-v1"],
        description: text!("Llama-Nemotron Super/Nano: <TOOLCALL>[{\"name\", \"arguments\"}, …]</TOOLCALL> (a lone object without brackets too)."),
        syntax: Syntax { start: &["<TOOLCALL>"], end: &["</TOOLCALL>"], payload: Payload::Json(ObjectOrArray, Wrapper::STANDARD), ..Syntax::NONE },
        id_style: Prefixed,
    },
    Family {
        id: "generic",
        aliases: &[],
        models: names![],
        description: text!("Any model: Hermes-style <tool_call> tags, ```json fences, or bare JSON call objects/arrays in the text."),
        syntax: Syntax {
            start: &["<tool_call>", "```json", "```"],
            end: &["</tool_call>", "```"],
            bare: &["{", "["],
            payload: Payload::Json(ObjectOrArray, Wrapper::STANDARD),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
];
