//! Template-driven families (`hf`, `beam`) from a user-supplied response template.

use crate::syntax::Family;

pub static FAMILIES: &[Family] = &[];
