//! Channel formats: Harmony (gpt-oss `openai`), Inkling, Cohere Command.

use crate::syntax::Family;

pub static FAMILIES: &[Family] = &[];
