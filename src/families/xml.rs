//! XML parameters: Qwen3-Coder, GLM, MiniMax, DeepSeek DSML, Step, Kimi K3, Muse, ...
//!
//! Each dialect is an `XmlSyntax` (how one call is spelled, read by `xml::call::XmlReader`) plus
//! the `Syntax` markers around calls (sections, handled by the sequencer).

use crate::prelude::*;
use crate::reader::Reader;
use crate::json::call::CallsReader;
use crate::sink::IdStyle::Prefixed;
use crate::syntax::{Family, JsonShape, Payload, Syntax, Wrapper};
use crate::xml::m3::M3Reader;
use crate::channels::message::{CallBody, MessageSyntax, Route};
use crate::xml::xtml::XtmlReader;
use crate::xml::{Key, Name, XmlSyntax};

/// Qwen3-Coder: `<function=NAME>` `<parameter=KEY>`\nV\n`</parameter>` `</function>`. Parameter
/// tags may carry spaces (`< parameter = k >`, `< / parameter >`), as vLLM's pattern allows.
const QWEN: XmlSyntax = XmlSyntax {
    param_open: &["<parameter=", "< parameter=", "<parameter =", "< parameter ="],
    param_close: &[
        "</parameter>", "< / parameter >", "< /parameter>", "</ parameter>", "</parameter >",
        "< / parameter>", "< /parameter >", "</ parameter >",
    ],
    call_close: &["</function>"],
    stops: &["</tool_call>"],
    soft_stops: &["<tool_call>", "<function="],
    trim_newline: true,
    ..XmlSyntax::NONE
};
/// MiMo: Qwen3-Coder with verbatim values.
const MIMO: XmlSyntax = XmlSyntax { trim_newline: false, ..QWEN };
/// Seed-OSS: Qwen3-Coder inside `<seed:tool_call>`.
const SEED: XmlSyntax = XmlSyntax { stops: &["</seed:tool_call>"], soft_stops: &["<seed:tool_call>", "<function="], ..QWEN };

const fn qwen_syntax(xml: &'static XmlSyntax, open: &'static [&'static str], close: &'static [&'static str]) -> Syntax<'static> {
    Syntax { section: open, section_end: close, start: &["<function="], payload: Payload::Xml(xml), ..Syntax::NONE }
}
const QWEN_SYNTAX: Syntax = qwen_syntax(&QWEN, &["<tool_call>"], &["</tool_call>"]);

/// GLM-4.5/4.7: `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>`.
const GLM: XmlSyntax = XmlSyntax {
    name: Name::Text { sep: &[] },
    param_open: &["<arg_key>"],
    key: Key::Element { close: &["</arg_key>"], type_elem: None, value_open: &["<arg_value>"] },
    param_close: &["</arg_value>"],
    call_close: &["</tool_call>"],
    soft_stops: &["<tool_call>"],
    ..XmlSyntax::NONE
};
const GLM_SYNTAX: Syntax = Syntax { start: &["<tool_call>"], payload: Payload::Xml(&GLM), ..Syntax::NONE };

/// HY v3: GLM pairs in `<tool_calls><tool_call>NAME<tool_sep>…</tool_call></tool_calls>`.
const HY3: XmlSyntax = XmlSyntax { name: Name::Text { sep: &["<tool_sep>"] }, stops: &["</tool_calls>"], ..GLM };
/// HY v4: as HY v3 without `<tool_sep>`.
const HY4: XmlSyntax = XmlSyntax { stops: &["</tool_calls>"], ..GLM };
const fn hy_syntax(xml: &'static XmlSyntax) -> Syntax<'static> {
    Syntax { section: &["<tool_calls>"], section_end: &["</tool_calls>"], start: &["<tool_call>"], payload: Payload::Xml(xml), ..Syntax::NONE }
}

/// K2 Horizon: `<ifm|tool_call>NAME<ifm|arg_key>K</ifm|arg_key>[<ifm|arg_type>T</ifm|arg_type>]<ifm|arg_value>V</ifm|arg_value></ifm|tool_call>`.
const K2H: XmlSyntax = XmlSyntax {
    name: Name::Text { sep: &[] },
    param_open: &["<ifm|arg_key>"],
    key: Key::Element {
        close: &["</ifm|arg_key>"],
        type_elem: Some(("<ifm|arg_type>", "</ifm|arg_type>")),
        value_open: &["<ifm|arg_value>"],
    },
    param_close: &["</ifm|arg_value>"],
    call_close: &["</ifm|tool_call>"],
    stops: &["</ifm|tool_calls>"],
    soft_stops: &["<ifm|tool_call>"],
    ..XmlSyntax::NONE
};

/// MiniMax-M2: `<invoke name="N">` `<parameter name="K">V</parameter>` `</invoke>`.
const MINIMAX: XmlSyntax = XmlSyntax {
    param_open: &["<parameter name="],
    param_close: &["</parameter>"],
    call_close: &["</invoke>"],
    stops: &["</minimax:tool_call>"],
    soft_stops: &["<invoke name="],
    ..XmlSyntax::NONE
};
/// dots.llm: MiniMax-style invokes in `<dots_function_call>`, or a JSON `{"name", "arguments"}` body.
const DOTS: XmlSyntax = XmlSyntax { stops: &["</dots_function_call>"], ..MINIMAX };
fn dots(bare: bool) -> Box<dyn Reader> {
    if bare {
        Box::new(CallsReader::new(JsonShape::Object, Wrapper::STANDARD, true))
    } else {
        crate::xml::reader(&DOTS, false)
    }
}

/// DeepSeek DSML: `<｜DSML｜invoke name="N">` `<｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter>`.
const DSML: XmlSyntax = XmlSyntax {
    param_open: &["<｜DSML｜parameter name="],
    param_close: &["</｜DSML｜parameter>"],
    call_close: &["</｜DSML｜invoke>"],
    stops: &["</｜DSML｜function_calls>", "</｜DSML｜tool_calls>", "</｜DSML｜toolcalls>", "</｜DSML｜tool>"],
    soft_stops: &["<｜DSML｜invoke name="],
    json_values: true,
    unwrap: &["arguments", "input"],
    unwrap_needs_tools: true,
    ..XmlSyntax::NONE
};
/// DeepSeek-V4.1: DSML with a space after `｜DSML｜`.
const DSML41: XmlSyntax = XmlSyntax {
    param_open: &["<｜DSML｜ parameter name="],
    param_close: &["</｜DSML｜ parameter>"],
    call_close: &["</｜DSML｜ invoke>"],
    stops: &["</｜DSML｜ calls>"],
    soft_stops: &["<｜DSML｜ invoke name="],
    ..DSML
};
const fn dsml_syntax(xml: &'static XmlSyntax, open: &'static [&'static str], close: &'static [&'static str], start: &'static [&'static str]) -> Syntax<'static> {
    Syntax { section: open, section_end: close, start, payload: Payload::Xml(xml), ..Syntax::NONE }
}

/// Step-3: `<steptml:invoke name="N">` `<steptml:parameter name="K">V</steptml:parameter>` `</steptml:invoke>`
/// inside `<｜tool_call_begin｜>`…`<｜tool_call_end｜>`; the chat template writes the call type
/// first (`<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke …>`), vLLM's tests leave it out.
const STEP3: XmlSyntax = XmlSyntax {
    call_open: &["<steptml:invoke name="],
    call_type: &["function<｜tool_sep｜>"],
    param_open: &["<steptml:parameter name="],
    param_close: &["</steptml:parameter>"],
    call_close: &["</steptml:invoke>"],
    stops: &["<｜tool_call_end｜>", "<｜tool_calls_end｜>"],
    ..XmlSyntax::NONE
};

/// MiniCPM 5: `<function name="N">` `<param name="K">V</param>` `</function>`; BPE-space
/// spellings (`<functionname=`, `<functionĠname=`); CDATA values.
const MINICPM5_START: &[&str] = &["<function name=", "<functionname=", "<functionĠname="];
const MINICPM5: XmlSyntax = XmlSyntax {
    param_open: &["<param name=", "<paramname=", "<paramĠname="],
    param_close: &["</param>"],
    call_close: &["</function>"],
    soft_stops: MINICPM5_START,
    cdata: true,
    unwrap: &["properties"],
    ..XmlSyntax::NONE
};

/// Muse ATEM calls: `<atem:invoke name="N">` `<atem:parameter name="K">V</atem:parameter>` `</atem:invoke>`.
const ATEM: XmlSyntax = XmlSyntax {
    param_open: &["<atem:parameter name="],
    param_close: &["</atem:parameter>"],
    call_close: &["</atem:invoke>"],
    stops: &["</atem:function_calls>", "<|eom|>", "<|eot|>", "<|end|>", "<|call|>", "<|return|>", "<|start|>", "<|message|>"],
    soft_stops: &["<atem:invoke name="],
    ..XmlSyntax::NONE
};
/// Muse messages: `<|start|>assistant to=RECIPIENT<|message|>BODY<|eom|>`. `to=self` and
/// `to=developer` are reasoning (vLLM drops messages to the developer: they are not the answer,
/// and nothing is lost), `to=user`, `to=commentary`, `to=all` content; any other recipient is a
/// tool whose body holds ATEM invokes. Spark decodes JSON-looking values of parameters without
/// a schema type; typed ones follow the schema.
static MUSE: MessageSyntax = MessageSyntax {
    start: "<|start|>",
    channel: "",
    constrain: "",
    message: "<|message|>",
    recipient_key: "to=",
    opens: &["<|start|>", "<|message|>", " to=", "to="],
    ends: &["<|eom|>", "<|eot|>", "<|end|>", "<|call|>", "<|return|>"],
    recipients: &[
        ("self", Route::Reasoning),
        ("developer", Route::Reasoning),
        ("user", Route::Content),
        ("commentary", Route::Content),
        ("all", Route::Content),
    ],
    no_recipient: Route::Reasoning,
    channels: &[],
    tool_prefix: "",
    calls: CallBody::Invokes { open: "<atem:invoke name=", framing: &["<atem:function_calls>", "</atem:function_calls>"], xml: &XmlSyntax { json_untyped: true, ..ATEM } },
};
/// Glimmer decodes JSON values even without a schema, and reads recipient-less messages as content.
static GLIMMER: MessageSyntax = MessageSyntax {
    no_recipient: Route::Content,
    calls: CallBody::Invokes {
        open: "<atem:invoke name=",
        framing: &["<atem:function_calls>", "</atem:function_calls>"],
        xml: &XmlSyntax { json_values: true, ..ATEM },
    },
    ..MUSE
};

/// Kimi K3 XTML calls: `<|open|>call tool="N" index="0"<|sep|>` `<|open|>argument key="K" type="T"<|sep|>V<|close|>argument<|sep|>` `<|close|>call<|sep|>`.
static KIMI_K3: XmlSyntax = XmlSyntax {
    tag_end: "<|sep|>",
    param_open: &["<|open|>argument"],
    param_close: &["<|close|>argument<|sep|>"],
    call_close: &["<|close|>call<|sep|>"],
    stops: &["<|close|>tools<|sep|>"],
    soft_stops: &["<|open|>call"],
    ..XmlSyntax::NONE
};
fn kimi_k3(_bare: bool) -> Box<dyn Reader> {
    Box::new(XtmlReader::new(&KIMI_K3))
}

fn minimax_m3(_bare: bool) -> Box<dyn Reader> {
    Box::new(M3Reader::new())
}

pub static FAMILIES: &[Family] = &[
    Family {
        id: "qwen3_coder",
        aliases: &["qwen3_xml"],
        models: names![
            "Qwen/Qwen3-Coder-30B-A3B-Instruct",
            "Qwen/Qwen3-Coder-480B-A35B-Instruct",
            "Qwen/Qwen3.5-397B-A17B",
            "Qwen/Qwen3.6-35B-A3B"
        ],
        description: text!("Qwen3-Coder XML: <tool_call><function=NAME><parameter=K>\\nV\\n</parameter></function></tool_call>; values typed by the tool schema."),
        syntax: QWEN_SYNTAX,
        id_style: Prefixed,
    },
    Family {
        id: "step5",
        aliases: &[],
        models: names![],
        description: text!("Step 5: Qwen3-Coder XML tool calls (<tool_call><function=NAME><parameter=K>V</parameter>…); content whitespace kept as is."),
        syntax: QWEN_SYNTAX,
        id_style: Prefixed,
    },
    Family {
        id: "step3p5",
        aliases: &[],
        models: names!["stepfun-ai/Step-3.5-Flash", "stepfun-ai/Step-3.7-Flash"],
        description: text!("Step-3.5/3.7-Flash: Qwen3-Coder XML tool calls (<tool_call><function=NAME><parameter=K>V</parameter>…); its reasoning (step3p5) is always on."),
        syntax: QWEN_SYNTAX,
        id_style: Prefixed,
    },
    Family {
        id: "seed_oss",
        aliases: &[],
        models: names!["ByteDance-Seed/Seed-OSS-36B-Instruct"],
        description: text!("Seed-OSS: <seed:tool_call><function=NAME><parameter=K>V</parameter></function></seed:tool_call>."),
        syntax: qwen_syntax(&SEED, &["<seed:tool_call>"], &["</seed:tool_call>"]),
        id_style: Prefixed,
    },
    Family {
        id: "mimo",
        aliases: &[],
        models: names!["XiaomiMiMo/MiMo-V2-Flash", "XiaomiMiMo/MiMo-V2.6"],
        description: text!("MiMo: Qwen3-Coder XML with verbatim values (no newline trimming)."),
        syntax: qwen_syntax(&MIMO, &["<tool_call>"], &["</tool_call>"]),
        id_style: Prefixed,
    },
    Family {
        id: "glm45",
        aliases: &[],
        models: names!["zai-org/GLM-4.5", "zai-org/GLM-4.5-Air", "zai-org/GLM-4.6"],
        description: text!("GLM-4.5/4.6: <tool_call>NAME\\n<arg_key>K</arg_key>\\n<arg_value>V</arg_value>\\n</tool_call>."),
        syntax: GLM_SYNTAX,
        id_style: Prefixed,
    },
    Family {
        id: "glm47",
        aliases: &[],
        models: names!["zai-org/GLM-4.7", "zai-org/GLM-4.7-Flash", "zai-org/GLM-5"],
        description: text!("GLM-4.7/5: <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>; values verbatim, typed by the schema."),
        syntax: GLM_SYNTAX,
        id_style: Prefixed,
    },
    Family {
        id: "ling3",
        aliases: &[],
        models: names![],
        description: text!("Ling 3: the GLM-4.7 format, <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>."),
        syntax: GLM_SYNTAX,
        id_style: Prefixed,
    },
    Family {
        id: "poolside_v1",
        aliases: &[],
        models: names![],
        description: text!("Poolside v1: the GLM format, <tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>."),
        syntax: GLM_SYNTAX,
        id_style: Prefixed,
    },
    Family {
        id: "hy_v3",
        aliases: &[],
        models: names![],
        description: text!("Tencent HY v3: <tool_calls><tool_call>NAME<tool_sep><arg_key>K</arg_key><arg_value>V</arg_value></tool_call></tool_calls>."),
        syntax: hy_syntax(&HY3),
        id_style: Prefixed,
    },
    Family {
        id: "hy_v4",
        aliases: &[],
        models: names![],
        description: text!("Tencent HY v4: <tool_calls><tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call></tool_calls>."),
        syntax: hy_syntax(&HY4),
        id_style: Prefixed,
    },
    Family {
        id: "k2_horizon",
        aliases: &[],
        models: names![],
        description: text!("K2 Horizon: <ifm|tool_call>NAME<ifm|arg_key>K</ifm|arg_key>[<ifm|arg_type>T</ifm|arg_type>]<ifm|arg_value>V</ifm|arg_value></ifm|tool_call>."),
        syntax: Syntax {
            section: &["<ifm|tool_calls>"],
            section_end: &["</ifm|tool_calls>"],
            start: &["<ifm|tool_call>"],
            payload: Payload::Xml(&K2H),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
    Family {
        id: "minimax_m2",
        aliases: &[],
        models: names!["MiniMaxAI/MiniMax-M2", "MiniMaxAI/MiniMax-M2.1"],
        description: text!("MiniMax-M2: <minimax:tool_call><invoke name=\"N\"><parameter name=\"K\">V</parameter></invoke></minimax:tool_call>."),
        syntax: Syntax {
            section: &["<minimax:tool_call>"],
            section_end: &["</minimax:tool_call>"],
            start: &["<invoke name="],
            payload: Payload::Xml(&MINIMAX),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
    Family {
        id: "dots",
        aliases: &[],
        models: names!["rednote-hilab/dots.llm1.inst"],
        description: text!("dots.llm: <dots_function_call><invoke name=N><parameter name=K>V</parameter></invoke></dots_function_call>, or a JSON {\"name\", \"arguments\"} body."),
        syntax: Syntax {
            section: &["<dots_function_call>"],
            section_end: &["</dots_function_call>"],
            start: &["<invoke name="],
            section_bare: &["{"],
            payload: Payload::Custom(dots),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
    Family {
        id: "minicpm5",
        aliases: &[],
        models: names![],
        description: text!("MiniCPM 5: <function name=\"N\"><param name=\"K\">V</param></function>, repeated for parallel calls; a lone `properties` dict is unwrapped."),
        syntax: Syntax { start: MINICPM5_START, payload: Payload::Xml(&MINICPM5), ..Syntax::NONE },
        id_style: Prefixed,
    },
    Family {
        id: "step3",
        aliases: &[],
        models: names!["stepfun-ai/step3"],
        description: text!("Step-3: <｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name=\"N\"><steptml:parameter name=\"K\">V</steptml:parameter></steptml:invoke><｜tool_call_end｜>…<｜tool_calls_end｜>."),
        syntax: Syntax {
            section: &["<｜tool_calls_begin｜>"],
            section_end: &["<｜tool_calls_end｜>"],
            start: &["<｜tool_call_begin｜>"],
            end: &["<｜tool_call_end｜>"],
            ignore: &["<｜tool_sep｜>"],
            payload: Payload::Xml(&STEP3),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
    Family {
        id: "deepseek_v32",
        aliases: &[],
        models: names!["deepseek-ai/DeepSeek-V3.2", "deepseek-ai/DeepSeek-V3.2-Exp"],
        description: text!("DeepSeek-V3.2 DSML: <｜DSML｜function_calls><｜DSML｜invoke name=\"N\"><｜DSML｜parameter name=\"K\" string=\"true|false\">V</｜DSML｜parameter>…; string=\"false\" values are JSON."),
        syntax: dsml_syntax(&DSML, &["<｜DSML｜function_calls>"], &["</｜DSML｜function_calls>"], &["<｜DSML｜invoke name="]),
        id_style: Prefixed,
    },
    Family {
        id: "deepseek_v4",
        aliases: &[],
        models: names![],
        description: text!("DeepSeek-V4 DSML: <｜DSML｜tool_calls><｜DSML｜invoke name=\"N\"><｜DSML｜parameter name=\"K\" string=\"true|false\">V</｜DSML｜parameter>…."),
        syntax: dsml_syntax(
            &DSML,
            &["<｜DSML｜tool_calls>", "<｜DSML｜toolcalls>", "<｜DSML｜tool>", "<｜DSML｜function_calls>"],
            &["</｜DSML｜tool_calls>", "</｜DSML｜toolcalls>", "</｜DSML｜tool>", "</｜DSML｜function_calls>"],
            &["<｜DSML｜invoke name="],
        ),
        id_style: Prefixed,
    },
    Family {
        id: "deepseek_v41",
        aliases: &[],
        models: names![],
        description: text!("DeepSeek-V4.1 spaced DSML: <｜DSML｜ calls><｜DSML｜ invoke name=\"N\"><｜DSML｜ parameter name=\"K\" string=\"…\">V</｜DSML｜ parameter>…."),
        syntax: dsml_syntax(&DSML41, &["<｜DSML｜ calls>"], &["</｜DSML｜ calls>"], &["<｜DSML｜ invoke name="]),
        id_style: Prefixed,
    },
    Family {
        id: "minimax_m3",
        aliases: &[],
        models: names![],
        description: text!("MiniMax-M3: ]<]minimax[>[-prefixed tags, <invoke name=\"N\"> with one element per parameter (<KEY>V</KEY>, nested for objects and arrays)."),
        syntax: Syntax {
            section: &["]<]minimax[>[<tool_call>"],
            section_end: &["]<]minimax[>[</tool_call>"],
            start: &["]<]minimax[>[<invoke name="],
            payload: Payload::Custom(minimax_m3),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
    Family {
        id: "kimi_k3",
        aliases: &[],
        models: names![],
        description: text!("Kimi K3 XTML: <|open|>think/response/tools<|sep|> channels; <|open|>call tool=\"N\"<|sep|><|open|>argument key=\"K\" type=\"T\"<|sep|>V<|close|>argument<|sep|><|close|>call<|sep|>."),
        syntax: Syntax {
            bare: &["<|open|>"],
            ignore: &["<|close|>response<|sep|>", "<|close|>tools<|sep|>", "<|close|>think<|sep|>"],
            payload: Payload::Custom(kimi_k3),
            ..Syntax::NONE
        },
        id_style: Prefixed,
    },
    Family {
        id: "muse",
        aliases: &["musespark1x"],
        models: names![],
        description: text!("Muse Spark: <|start|>assistant to=RECIPIENT<|message|>…<|eom|> messages (to=self and to=developer are reasoning) with ATEM <atem:invoke name=\"N\"><atem:parameter name=\"K\">V</atem:parameter></atem:invoke> calls."),
        syntax: Syntax::message(&MUSE),
        id_style: Prefixed,
    },
    Family {
        id: "muse_glimmer",
        aliases: &[],
        models: names![],
        description: text!("Muse Glimmer: Muse messages and ATEM calls; parameter values are JSON-decoded when they parse."),
        syntax: Syntax::message(&GLIMMER),
        id_style: Prefixed,
    },
];

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    /// Every XML-parameter family and alias resolves to its entry, with a one-line description.
    #[test]
    fn every_xml_name_resolves() {
        for f in super::FAMILIES {
            for n in core::iter::once(&f.id).chain(f.aliases) {
                let found = crate::families::find(n).unwrap_or_else(|| panic!("{n} not registered"));
                assert_eq!(found.id, f.id, "{n}");
            }
            assert!(!f.description.is_empty() && !f.description.contains('\n'), "{}: one-line description", f.id);
        }
    }
}
