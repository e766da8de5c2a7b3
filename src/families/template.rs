//! Template-driven families (`hf`, `beam`) from a user-supplied response template; see
//! `crate::template` for the template shape and the format read without one. The engine is
//! built from the template at run time, so the static syntax here is only a placeholder.

use crate::sink::IdStyle::Prefixed;
use crate::syntax::{Family, Syntax};

pub static FAMILIES: &[Family] = &[
    Family {
        id: "hf",
        aliases: &["response_template"],
        models: names![],
        description: text!("Response-template driven (option `template`: call markers, payload kind, reasoning markers); without one: Gemma 4, Harmony and Hermes calls."),
        syntax: Syntax::NONE,
        id_style: Prefixed,
    },
    Family {
        id: "beam",
        aliases: &[],
        models: names![],
        description: text!("As hf (vLLM adds constrained decoding from the template); same `template` option and default."),
        syntax: Syntax::NONE,
        id_style: Prefixed,
    },
];
