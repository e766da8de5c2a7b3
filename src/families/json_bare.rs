//! JSON calls with weak or no markers: Llama 3 JSON, xLAM, Phi-4-mini, Granite, Apertus, granite-20b-fc, MiniMax-M1, Mistral pre-v11.

use crate::syntax::Family;

pub static FAMILIES: &[Family] = &[];
