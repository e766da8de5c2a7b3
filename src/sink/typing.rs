//! The typing context of the open call: parameter values given as text (XML, key-value
//! formats) become JSON of the declared type (pure: the sink reports what `Typing` returns),
//! and each completed call is validated against its tool's schema after its end (`Validation`).

use crate::prelude::*;
use crate::event::EventRef;
use crate::json::scanner::{Expect, JsonError, JsonScanner};
use crate::tools::Tools;

/// A parameter value as JSON text, and the diagnostics it earned.
pub(crate) struct Typed {
    pub json: String,
    /// The value did not fit its schema (`type_coercion`; validation then skips the key).
    pub coercion: Option<String>,
    /// The value nested past `value_depth` and is kept as a string (`limit_exceeded`).
    pub too_deep: Option<String>,
}

/// The tools of the request and the depth limit, for the call named `name`.
pub(crate) struct Typing<'a> {
    pub tools: Option<&'a Tools>,
    pub name: Option<&'a str>,
    /// `Limits::value_depth`.
    pub value_depth: usize,
}

impl Typing<'_> {
    /// True when a text value of parameter `key` streams as a JSON string (no tools,
    /// undeclared, or a string-only schema). See `Tools::streams_as_string`.
    pub fn streams_as_string(&self, key: &str) -> bool {
        match (self.tools, self.name) {
            (Some(t), Some(name)) => t.streams_as_string(name, key),
            _ => true,
        }
    }

    /// The JSON text of a text value of parameter `key`, coerced by the declared schema (a
    /// JSON string when there is none). A value that matches none of the declared types keeps
    /// its raw form and is reported as `type_coercion`.
    pub fn text_value(&self, key: &str, text: &str) -> Typed {
        let (Some(tools), Some(name)) = (self.tools, self.name) else {
            return Typed { json: json_string(text), coercion: None, too_deep: None };
        };
        let c = tools.coerce_text(name, key, text);
        let coercion = (!c.ok).then(|| {
            let expected = tools.param(name, key).map(|(s, r)| crate::schema::types(s, r).names()).unwrap_or_default();
            format!("`{name}`.`{key}`: expected {expected}, got {}; kept as given", json_string(text))
        });
        self.within_depth(key, crate::json::to_text(&c.value), text, coercion)
    }

    /// Like `text_value`, for a value that is already JSON text (a container of a typed
    /// parameter): coerced member by member by the declared schema. What does not fit keeps its
    /// form and is reported once as `type_coercion`.
    pub fn json_value(&self, key: &str, json: &str) -> Typed {
        let unchanged = || Typed { json: json.to_string(), coercion: None, too_deep: None };
        let Ok(v) = crate::json::parse(json) else { return unchanged() };
        let (Some(tools), Some(name)) = (self.tools, self.name) else { return unchanged() };
        let Some((schema, root)) = tools.param(name, key) else { return unchanged() };
        let c = crate::schema::coerce::coerce_value(&v, schema, root);
        let coercion = (!c.ok).then(|| {
            let expected = crate::schema::types(schema, root).names();
            format!("`{name}`.`{key}`: expected {expected}, got {json}; kept as given where it did not fit")
        });
        self.within_depth(key, crate::json::to_text(&c.value), json, coercion)
    }

    /// `json` when it nests at most `value_depth` deep (so that the arguments object holding it
    /// stays within the limit); else `raw` as a JSON string, reported as `limit_exceeded`.
    fn within_depth(&self, key: &str, json: String, raw: &str, coercion: Option<String>) -> Typed {
        let mut sc = JsonScanner::new(Expect::Any, self.value_depth);
        if !matches!(sc.feed(&json, None).1, Err(JsonError::TooDeep)) {
            return Typed { json, coercion, too_deep: None };
        }
        let msg = format!("`{}`.`{key}`: the value nests deeper than {} inside the arguments; kept as a string", self.name.unwrap_or_default(), self.value_depth);
        Typed { json: json_string(raw), coercion, too_deep: Some(msg) }
    }
}

/// Validation, the step after `tool-call-end`: the typing context reads each completed call off
/// its end event (name, arguments, `repaired`) and checks it against its tool's schema. The
/// diagnostics go right before the end event, where every other diagnostic of the call is (a
/// consumer acting on `tool-call-end` has them all by then). Undeclared tools are not checked
/// (`start_call` reported `wrong_tool`).
pub(crate) struct Validation {
    /// Keys of ended calls whose value failed coercion (already reported as `type_coercion`;
    /// validation skips them), by call index, until the call's end is validated. Empty unless a
    /// coercion failed.
    coerced: Vec<(usize, Vec<String>)>,
}

impl Validation {
    pub fn new() -> Validation {
        Validation { coerced: Vec::new() }
    }

    /// Call `index` ended with `keys` (not empty) failed coercion (see `coerced`).
    pub fn coerced(&mut self, index: usize, keys: Vec<String>) {
        self.coerced.push((index, keys));
    }

    /// The diagnostics of the completed call that `end` (a `ToolCallEnd`) ends, handed to `out`.
    pub fn check(&mut self, tools: &Tools, end: EventRef<'_>, out: &mut dyn FnMut(EventRef<'_>)) {
        let EventRef::ToolCallEnd { index, name, arguments, repaired, .. } = end else { return };
        let at = self.coerced.iter().position(|(i, _)| *i == index);
        let coerced = at.map(|at| self.coerced.swap_remove(at).1).unwrap_or_default();
        let mut diags = Vec::new();
        tools.validate_call(name, arguments, repaired, &coerced, &mut diags);
        for (label, message) in &diags {
            out(EventRef::Diagnostic { label: *label, message, index: Some(index) });
        }
    }
}

fn json_string(text: &str) -> String {
    let mut s = String::new();
    crate::json::push_json_string(&mut s, text);
    s
}
