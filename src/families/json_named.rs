//! Name then raw JSON arguments: Mistral v11, Kimi K2, DeepSeek V3/V3.1, PLaMo 3.

use crate::syntax::Family;

pub static FAMILIES: &[Family] = &[];
