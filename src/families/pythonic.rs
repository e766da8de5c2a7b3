//! Pythonic calls and key-value formats: pythonic, Llama 4, Olmo 3, LFM2, Gemma 4, FunctionGemma.

use crate::syntax::Family;

pub static FAMILIES: &[Family] = &[];
