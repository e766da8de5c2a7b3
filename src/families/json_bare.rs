//! JSON calls with weak or no markers: Llama 3 JSON, xLAM, Phi-4-mini, Granite, Apertus, granite-20b-fc, MiniMax-M1.
//! (Mistral is in `json_named`: its marker is followed by either layout.)

use crate::sink::IdStyle::Prefixed;
use crate::syntax::JsonShape::{Array, Object, ObjectOrArray, Sequence};
use crate::syntax::{Family, Payload, Syntax, Wrapper};

pub static FAMILIES: &[Family] = &[
    Family {
        id: "llama3_json",
        aliases: &["llama4_json"],
        models: names![
            "meta-llama/Llama-3.1-8B-Instruct",
            "meta-llama/Llama-3.2-3B-Instruct",
            "meta-llama/Llama-3.3-70B-Instruct",
            "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        ],
        description: text!("Llama 3.1/3.2/3.3/4 JSON: optional <|python_tag|>, then {\"name\", \"parameters\"} objects anywhere in the text, `;`-separated."),
        syntax: Syntax {
            start: &["<|python_tag|>"],
            bare: &["{"],
            ignore: &["<|eom_id|>", "<|eot_id|>"],
            payload: Payload::Json(Sequence(b';'), Wrapper::STANDARD),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
    Family {
        id: "phi4_mini_json",
        aliases: &[],
        models: names!["microsoft/Phi-4-mini-instruct"],
        description: text!("Phi-4-mini: functools[{\"name\", \"arguments\"}, …]; streamed (vLLM does not stream it), nested arrays allowed."),
        syntax: Syntax { start: &["functools"], payload: Payload::Json(Array, Wrapper::STANDARD), ..Syntax::NONE },
        id_style: Prefixed,
    },
    Family {
        id: "xlam",
        aliases: &[],
        models: names!["Salesforce/Llama-xLAM-2-8b-fc-r", "Salesforce/xLAM-2-32b-fc-r", "Salesforce/xLAM-2-3b-fc-r"],
        description: text!("Salesforce xLAM: a JSON array (or object) of {\"name\", \"arguments\"}, bare, in ```json fences, after [TOOL_CALLS] or in <tool_call> tags."),
        syntax: Syntax {
            start: &["<tool_call>", "```json", "```", "[TOOL_CALLS]"],
            end: &["</tool_call>", "```"],
            bare: &["[", "{"],
            payload: Payload::Json(ObjectOrArray, Wrapper::STANDARD),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
    Family {
        id: "apertus",
        aliases: &[],
        models: names!["swiss-ai/Apertus-8B-Instruct-2509", "swiss-ai/Apertus-70B-Instruct-2509"],
        description: text!("Swiss AI Apertus: <|tools_prefix|>[{\"NAME\": {args}}, …]<|tools_suffix|> (a single object is accepted)."),
        syntax: Syntax {
            start: &["<|tools_prefix|>"],
            end: &["<|tools_suffix|>"],
            payload: Payload::Json(ObjectOrArray, Wrapper::KEY_IS_NAME),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
    Family {
        id: "granite",
        aliases: &[],
        models: names!["ibm-granite/granite-3.0-8b-instruct", "ibm-granite/granite-3.1-8b-instruct", "ibm-granite/granite-3.3-8b-instruct"],
        description: text!("Granite 3.x: <|tool_call|> (or <tool_call>) then a JSON array of {\"name\", \"arguments\"} (a single object is accepted); `]` ends it."),
        syntax: Syntax { start: &["<|tool_call|>", "<tool_call>"], payload: Payload::Json(ObjectOrArray, Wrapper::STANDARD), ..Syntax::NONE },
        id_style: Prefixed,
    },
    Family {
        id: "granite-20b-fc",
        aliases: &[],
        models: names!["ibm-granite/granite-20b-functioncalling"],
        description: text!("granite-20b-functioncalling: <function_call> before each {\"name\", \"arguments\"} object."),
        syntax: Syntax { start: &["<function_call>"], payload: Payload::Json(Object, Wrapper::STANDARD), ..Syntax::NONE },
        id_style: Prefixed,
    },
    Family {
        id: "minimax",
        aliases: &["minimax_m1"],
        models: names!["MiniMaxAI/MiniMax-M1-40k", "MiniMaxAI/MiniMax-M1-80k"],
        description: text!("MiniMax-M1: <tool_calls> then one {\"name\", \"arguments\"} object per line (commas or an array tolerated), </tool_calls>."),
        syntax: Syntax {
            start: &["<tool_calls>"],
            end: &["</tool_calls>"],
            payload: Payload::Json(Sequence(b','), Wrapper::STANDARD),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
];
