//! Pythonic calls and key-value formats: pythonic, Llama 4, Olmo 3, LFM2, Gemma 4, FunctionGemma.

use crate::prelude::*;
use crate::pythonic::{PySyntax, Style, Untyped};
use crate::sink::IdStyle::Prefixed;
use crate::syntax::{Family, Payload, Syntax};

const PYTHON: Payload = Payload::Pythonic(&PySyntax::PYTHON);

/// LFM2 calls: pythonic, or JSON call objects (see `JsonOrPython`).
fn lfm2(_bare: bool) -> Box<dyn crate::reader::Reader> {
    Box::new(crate::pythonic::JsonOrPython::new(&PySyntax::PYTHON))
}

static GEMMA4: PySyntax = PySyntax {
    style: Style::KeyValue,
    call_prefix: &["call:", ":"],
    quote: "<|\"|>",
    stop: &["<tool_call|>"],
    untyped: Untyped::Spelled,
};

static FUNCTIONGEMMA: PySyntax = PySyntax {
    style: Style::KeyValue,
    call_prefix: &["call:"],
    quote: "<escape>",
    stop: &["<end_function_call>"],
    untyped: Untyped::JsonOrString,
};

pub static FAMILIES: &[Family] = &[
    Family {
        id: "pythonic",
        aliases: &[],
        models: names!["meta-llama/Llama-3.2-3B-Instruct", "meta-llama/Llama-3.2-1B-Instruct", "Team-ACE/ToolACE-8B"],
        description: text!("Llama 3.2, ToolACE: a Python list of calls, [f(a=1, b='x'), g()]."),
        syntax: Syntax { bare: &["["], payload: PYTHON, ..Syntax::NONE },
        id_style: Prefixed,
    },
    Family {
        id: "llama4_pythonic",
        aliases: &[],
        models: names!["meta-llama/Llama-4-Scout-17B-16E-Instruct", "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8"],
        description: text!("Llama 4: a Python list of calls, optionally in <|python_start|>…<|python_end|>."),
        syntax: Syntax { start: &["<|python_start|>"], end: &["<|python_end|>"], bare: &["["], payload: PYTHON, ..Syntax::NONE },
        id_style: Prefixed,
    },
    Family {
        id: "olmo3",
        aliases: &[],
        models: names!["allenai/Olmo-3-7B-Instruct", "allenai/Olmo-3-7B-Think", "allenai/Olmo-3-32B-Think"],
        description: text!("Olmo 3: <function_calls> one Python call per line </function_calls>."),
        syntax: Syntax { start: &["<function_calls>"], end: &["</function_calls>"], payload: PYTHON, ..Syntax::NONE },
        id_style: Prefixed,
    },
    Family {
        id: "lfm2",
        aliases: &[],
        models: names!["LiquidAI/LFM2-1.2B", "LiquidAI/LFM2-2.6B", "LiquidAI/LFM2-8B-A1B"],
        description: text!("Liquid LFM2: <|tool_call_start|>[f(x=1), g(y='a')]<|tool_call_end|> (or a JSON list of {\"name\", \"arguments\"}); end optional."),
        syntax: Syntax {
            start: &["<|tool_call_start|>"],
            end: &["<|tool_call_end|>"],
            ignore: &["<|tool_call_end|>"],
            payload: Payload::Custom(lfm2),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
    Family {
        id: "gemma4",
        aliases: &[],
        models: names!["google/gemma-4-E4B-it", "google/gemma-4-31B-it", "google/gemma-4-26B-A4B-it"],
        description: text!("Gemma 4: <|tool_call>call:NAME{key:<|\"|>str<|\"|>,n:42}<tool_call|>; values typed by the tool schema, else bare numbers, true/false and null by their spelling."),
        syntax: Syntax {
            start: &["<|tool_call>"],
            end: &["<tool_call|>"],
            ignore: &["<tool_call|>"],
            payload: Payload::Pythonic(&GEMMA4),
            keep_repaired: true,
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
    Family {
        id: "functiongemma",
        aliases: &[],
        models: names!["google/functiongemma-270m-it"],
        description: text!("FunctionGemma: <start_function_call>call:NAME{k:<escape>v<escape>,…}<end_function_call>; values JSON-decoded when possible."),
        syntax: Syntax {
            start: &["<start_function_call>"],
            end: &["<end_function_call>"],
            ignore: &["<end_function_call>"],
            payload: Payload::Pythonic(&FUNCTIONGEMMA),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
];
