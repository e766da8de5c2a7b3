//! The recovery policy: what becomes of malformed and cut-off tool-call markup.
//!
//! | option (JS) | default | `"strict"` | `"lenient"` | effect |
//! |---|---|---|---|---|
//! | `recover` | family (off for most) | off | on | `parse()` keeps calls whose arguments the parser had to close (malformed or cut off) |
//! | `recoverTruncated` | = `recover` | off | on | `parse()` keeps a final call cut off by the end of the output (`truncation`), even with `recover` off |
//! | `keepMalformed` | on | off | on | markup that opened a call but is not one (with a diagnostic) comes back as text; off: it is dropped, the diagnostic stays |
//! | `bareJson` | off | off | on | also read bare `{"name": …, "arguments": …}` objects in prose, for families whose syntax has no bare start |
//!
//! `policy` picks a preset; individual options override it. Streaming events are the same under
//! every policy except `keepMalformed` (text dropped) and `bareJson` (calls found): `recover*`
//! only decide which ended calls `parse()` lists (every call's end event carries `repaired`).
//! A marker mentioned in prose (no diagnostic) is always text.

use crate::prelude::*;
use crate::json::{Map, Value};

/// A named set of defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    /// Only well-formed calls count; malformed markup is removed from content.
    Strict,
    /// Keep everything that can be read as a call.
    Lenient,
}

/// The user's choices; `None` means the preset's (or the default) value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    pub preset: Option<Preset>,
    pub recover_truncated: Option<bool>,
    pub keep_malformed: Option<bool>,
    pub bare_json: Option<bool>,
}

/// The policy in force (see the table in the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub keep: crate::event::Keep,
    pub keep_malformed: bool,
    pub bare_json: bool,
}

impl Policy {
    /// Reads `policy`, `recoverTruncated`, `keepMalformed`, `bareJson` from a JS options object;
    /// the error says which option is wrong.
    pub fn from_json(obj: &Map) -> Result<Policy, String> {
        let flag = |k: &str| -> Result<Option<bool>, String> {
            match obj.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Bool(b)) => Ok(Some(*b)),
                Some(_) => Err(format!("option `{k}` must be a boolean")),
            }
        };
        let preset = match obj.get("policy") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s == "strict" => Some(Preset::Strict),
            Some(Value::String(s)) if s == "lenient" => Some(Preset::Lenient),
            Some(_) => return Err("option `policy` must be \"strict\" or \"lenient\"".into()),
        };
        Ok(Policy {
            preset,
            recover_truncated: flag("recoverTruncated")?,
            keep_malformed: flag("keepMalformed")?,
            bare_json: flag("bareJson")?,
        })
    }

    /// The policy in force, given the `recover` option and the family's default for it.
    pub fn resolve(&self, recover: Option<bool>, family_keeps_repaired: bool) -> Resolved {
        let preset = self.preset.map(|p| p == Preset::Lenient);
        let repaired = recover.or(preset).unwrap_or(family_keeps_repaired);
        Resolved {
            keep: crate::event::Keep { repaired, truncated: self.recover_truncated.or(preset).unwrap_or(repaired) },
            keep_malformed: self.keep_malformed.or(preset).unwrap_or(true),
            bare_json: self.bare_json.or(preset).unwrap_or(false),
        }
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;
    use crate::event::Keep;
    use crate::json::json;

    fn resolve(v: Value, recover: Option<bool>, family: bool) -> Resolved {
        Policy::from_json(v.as_object().unwrap()).unwrap().resolve(recover, family)
    }

    #[test]
    fn defaults_presets_and_overrides() {
        let r = resolve(json!({}), None, false);
        assert_eq!(r, Resolved { keep: Keep { repaired: false, truncated: false }, keep_malformed: true, bare_json: false });
        assert_eq!(resolve(json!({}), None, true).keep, Keep { repaired: true, truncated: true });
        assert_eq!(resolve(json!({}), Some(true), false).keep, Keep { repaired: true, truncated: true });
        let strict = resolve(json!({"policy": "strict"}), None, true);
        assert_eq!(strict, Resolved { keep: Keep { repaired: false, truncated: false }, keep_malformed: false, bare_json: false });
        let lenient = resolve(json!({"policy": "lenient"}), None, false);
        assert_eq!(lenient, Resolved { keep: Keep { repaired: true, truncated: true }, keep_malformed: true, bare_json: true });
        let mixed = resolve(json!({"policy": "strict", "recoverTruncated": true, "bareJson": true}), None, false);
        assert_eq!(mixed, Resolved { keep: Keep { repaired: false, truncated: true }, keep_malformed: false, bare_json: true });
        assert_eq!(resolve(json!({"policy": "lenient"}), Some(false), false).keep, Keep { repaired: false, truncated: true });
    }

    #[test]
    fn bad_values_are_errors() {
        for v in [json!({"policy": "loose"}), json!({"policy": 1}), json!({"bareJson": "yes"}), json!({"keepMalformed": 0})] {
            assert!(Policy::from_json(v.as_object().unwrap()).is_err(), "{v}");
        }
    }
}
