//! Name then raw JSON arguments: Mistral (v11+ and pre-v11), Kimi K2, DeepSeek V3/V3.1, PLaMo 3.

use crate::json::named::MistralReader;
use crate::sink::IdStyle::{Alnum9, Prefixed};
use crate::syntax::{Family, NamedJson, Payload, Syntax};

/// `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>`.
static DEEPSEEK_V3: NamedJson = NamedJson {
    type_sep: Some("<｜tool▁sep｜>"),
    name_close: &["```json", "```"],
    name_stop: b"{",
    args_close: &["```"],
    ..NamedJson::NONE
};

/// `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`.
static DEEPSEEK_V31: NamedJson = NamedJson {
    name_close: &["<｜tool▁sep｜>"],
    empty_at: &["<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>"],
    ..NamedJson::NONE
};

/// `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>`.
static KIMI_K2: NamedJson = NamedJson {
    name_close: &["<|tool_call_argument_begin|>"],
    empty_at: &["<|tool_call_end|>", "<|tool_calls_section_end|>"],
    kimi_header: true,
    ..NamedJson::NONE
};

static PLAMO3: NamedJson = NamedJson {
    name_open: &["<|plamo:begin_tool_name:plamo|>"],
    name_close: &["<|plamo:end_tool_name:plamo|>"],
    args_open: &[
        "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>",
        "<|plamo:begin_tool_arguments:plamo|><|plamo:msg|>",
        "<|plamo:begin_tool_arguments:plamo|>",
    ],
    args_close: &["<|plamo:end_tool_arguments:plamo|>"],
    empty_at: &["<|plamo:end_tool_arguments:plamo|>", "<|plamo:end_tool_request:plamo|>", "<|plamo:end_tool_requests:plamo|>"],
    ..NamedJson::NONE
};

const DEEPSEEK_SECTION: Syntax = Syntax {
    section: &["<｜tool▁calls▁begin｜>"],
    section_end: &["<｜tool▁calls▁end｜>"],
    start: &["<｜tool▁call▁begin｜>"],
    end: &["<｜tool▁call▁end｜>"],
    ignore: &["<｜end▁of▁sentence｜>", "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>"],
    ..Syntax::NONE
};

pub static FAMILIES: &[Family] = &[
    Family {
        id: "mistral",
        aliases: &[],
        models: names![
            "mistralai/Mistral-7B-Instruct-v0.3",
            "mistralai/Mistral-Nemo-Instruct-2407",
            "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
            "mistralai/Magistral-Small-2506",
            "mistralai/Devstral-Small-2507",
        ],
        description: text!("Mistral: [TOOL_CALLS]NAME[ARGS]{…} (v11+, also NAME{…}) or [TOOL_CALLS] [{\"name\", \"arguments\"}, …] (pre-v11, also without the marker under guided decoding); 9-character ids."),
        syntax: Syntax { start: &["[TOOL_CALLS]"], bare: &["["], payload: Payload::Custom(MistralReader::boxed), ..Syntax::NONE },
        id_style: Alnum9,
    },
    Family {
        id: "deepseek_v3",
        aliases: &[],
        models: names!["deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3-0324", "deepseek-ai/DeepSeek-R1-0528"],
        description: text!("DeepSeek-V3/R1: <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME then ```json fenced arguments, inside <｜tool▁calls▁begin｜>."),
        syntax: Syntax { payload: Payload::Named(&DEEPSEEK_V3), ..DEEPSEEK_SECTION },
        id_style: Prefixed,
    },
    Family {
        id: "deepseek_v31",
        aliases: &[],
        models: names!["deepseek-ai/DeepSeek-V3.1", "deepseek-ai/DeepSeek-V3.1-Terminus"],
        description: text!("DeepSeek-V3.1: <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}<｜tool▁call▁end｜>, inside <｜tool▁calls▁begin｜>."),
        syntax: Syntax { payload: Payload::Named(&DEEPSEEK_V31), ..DEEPSEEK_SECTION },
        id_style: Prefixed,
    },
    Family {
        id: "kimi_k2",
        aliases: &[],
        models: names!["moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2-Instruct-0905", "moonshotai/Kimi-K2-Thinking"],
        description: text!("Kimi K2: <|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}<|tool_call_end|>; the header is the call id."),
        syntax: Syntax {
            section: &["<|tool_calls_section_begin|>"],
            section_end: &["<|tool_calls_section_end|>"],
            start: &["<|tool_call_begin|>"],
            end: &["<|tool_call_end|>"],
            ignore: &["<|tool_call_end|>", "<|tool_calls_section_end|>"],
            payload: Payload::Named(&KIMI_K2),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
    Family {
        id: "plamo3",
        aliases: &[],
        models: names!["pfnet/plamo-3-nict-8b-base", "pfnet/plamo-3-nict-31b-base"],
        description: text!("PLaMo 3: <|plamo:begin_tool_request:plamo|> with the name and raw JSON arguments between plamo markers."),
        syntax: Syntax {
            section: &["<|plamo:begin_tool_requests:plamo|>"],
            section_end: &["<|plamo:end_tool_requests:plamo|>"],
            start: &["<|plamo:begin_tool_request:plamo|>"],
            end: &["<|plamo:end_tool_request:plamo|>"],
            ignore: &["<|plamo:tag|>", "<|plamo:end_tool_request:plamo|>", "<|plamo:end_tool_requests:plamo|>"],
            payload: Payload::Named(&PLAMO3),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
];
