//! XML parameters: Qwen3-Coder, GLM, MiniMax, DeepSeek DSML, Step, Kimi K3, Muse, ...

use crate::syntax::Family;

pub static FAMILIES: &[Family] = &[];
