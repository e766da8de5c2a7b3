//! Channel formats: Harmony (gpt-oss `openai`), Inkling, Cohere Command. Their reasoning
//! channels are part of the format, so they produce reasoning events without a reasoning parser.

use crate::channels::message::{CallBody, MessageSyntax, Route};
use crate::channels::inkling::{self, InklingReader};
use crate::sink::IdStyle::Prefixed;
use crate::syntax::JsonShape::Array;
use crate::syntax::{Family, Payload, Reasoning, Syntax, Thinking, Wrapper};

static COHERE_THINKING: Reasoning = Reasoning {
    id: "cohere_command",
    aliases: &[],
    start: &["<|START_THINKING|>"],
    end: &["<|END_THINKING|>"],
    ignore: &[],
    thinking: Thinking::Opened,
    calls_end: true,
    strip_tail: false,
    description: text!("<|START_THINKING|>…<|END_THINKING|>."),
};

/// `<|START_ACTION|>[{"tool_call_id", "tool_name", "parameters"}, …]<|END_ACTION|>`; the response
/// and text markers are framing.
const COHERE: Syntax = Syntax {
    start: &["<|START_ACTION|>"],
    end: &["<|END_ACTION|>"],
    ignore: &["<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>", "<|END_OF_TURN_TOKEN|>"],
    reasoning: Some(&COHERE_THINKING),
    payload: Payload::Json(Array, Wrapper::STANDARD),
    ..Syntax::NONE
};

/// gpt-oss Harmony: `<|start|>assistant<|channel|>CHANNEL[ to=RECIPIENT][ <|constrain|>TYPE]<|message|>BODY`
/// ended by `<|end|>`, `<|call|>` or `<|return|>`. A recipient other than a role is a tool: the
/// body is its JSON arguments; otherwise `analysis` is reasoning and every other channel content.
static HARMONY: MessageSyntax = MessageSyntax {
    start: "<|start|>",
    channel: "<|channel|>",
    constrain: "<|constrain|>",
    message: "<|message|>",
    recipient_key: "to=",
    opens: &["<|start|>", "<|channel|>", "<|message|>", " to=", "to="],
    ends: &["<|end|>", "<|call|>", "<|return|>"],
    recipients: &[
        ("assistant", Route::ByChannel),
        ("user", Route::ByChannel),
        ("system", Route::ByChannel),
        ("developer", Route::ByChannel),
        ("all", Route::ByChannel),
    ],
    no_recipient: Route::ByChannel,
    channels: &[("analysis", Route::Reasoning)],
    tool_prefix: "functions.",
    calls: CallBody::Json,
};

pub static FAMILIES: &[Family] = &[
    Family {
        id: "openai",
        aliases: &["harmony", "gpt_oss"],
        models: names!["openai/gpt-oss-20b", "openai/gpt-oss-120b"],
        description: text!("gpt-oss Harmony: analysis is reasoning, final is content, a message to=functions.NAME is a call with a JSON body; text without Harmony markup passes through."),
        syntax: Syntax::message(&HARMONY),
        id_style: Prefixed,
    },
    Family {
        id: "inkling",
        aliases: &[],
        models: names![],
        description: text!("Inkling: <|message_model|>[name]<|content_invoke_tool_json|>{\"name\", \"args\"}<|end_message|> calls, <|content_thinking|> reasoning, <|content_text|> content."),
        syntax: Syntax {
            bare: &[inkling::MESSAGE],
            start: &[inkling::INVOKE_JSON],
            end: &["<|end_message|>", "<|content_model_end_sampling|>"],
            ignore: &[
                "<|content_text|>",
                "<|content_invoke_tool_text|>",
                "<|content_tool_error|>",
                "<|end_message|>",
                "<|content_model_end_sampling|>",
            ],
            reasoning: Some(&crate::reasoning::INKLING),
            payload: Payload::Custom(InklingReader::boxed),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
    Family {
        id: "cohere_command3",
        aliases: &[],
        models: names!["CohereLabs/c4ai-command-r7b-12-2024", "CohereLabs/c4ai-command-a-03-2025", "CohereLabs/command-a-reasoning-08-2025"],
        description: text!("Cohere Command R7B/A: <|START_ACTION|>[{\"tool_name\", \"parameters\"}, …]<|END_ACTION|>, <|START_THINKING|> reasoning, <|START_RESPONSE|> content."),
        syntax: COHERE,
        id_style: Prefixed,
    },
    Family {
        id: "cohere_command4",
        aliases: &[],
        models: names![],
        description: text!("Cohere Command 4 preset (Command A+, North Mini Code): as cohere_command3, plus <|START_TEXT|> content blocks."),
        syntax: COHERE,
        id_style: Prefixed,
    },
];
