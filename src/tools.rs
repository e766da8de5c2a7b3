//! The request's tool definitions (OpenAI `tools`), as the parsers see them.

use crate::prelude::*;
use crate::event::Label;
use crate::json::Value;
use alloc::rc::Rc;
use core::cell::Cell;

/// One declared tool.
#[derive(Clone, Debug)]
pub struct Tool {
    pub name: String,
    /// The `parameters` JSON Schema (`{}` when absent).
    pub parameters: Value,
    /// Its `pattern`s and `patternProperties` keys, compiled once.
    pub patterns: crate::schema::pattern::Patterns,
    /// The schema read once for the fast "no issue" answer, when it is flat (`schema::flat`).
    flat: Option<crate::schema::flat::FlatSchema>,
    /// Where its patterns' "not checked" flags start in `Tools::reported`.
    reported_at: usize,
}

/// Declared tools, looked up by name. The definitions are shared (`Rc`): `fresh` gives
/// another parser the same compiled tools without reading them again; what validation
/// remembers per parser (the "not checked" notes given) is each one's own.
#[derive(Clone, Debug, Default)]
pub struct Tools {
    list: Rc<[Tool]>,
    /// Whether each pattern's "not checked" note was given, every tool's patterns in a row.
    reported: Vec<Cell<bool>>,
}

impl Tools {
    /// Reads OpenAI tool definitions: `[{type:"function", function:{name, parameters}}]`.
    /// Also accepts bare `{name, parameters}` entries. Entries without a name are skipped.
    pub fn from_json(v: &Value) -> Result<Tools, String> {
        Tools::from_json_with(v, Default::default())
    }

    /// `from_json` with the host's engines for what the build leaves out (`schema::Engines`).
    pub fn from_json_with(v: &Value, engines: crate::schema::Engines) -> Result<Tools, String> {
        let arr = v.as_array().ok_or_else(|| "`tools` must be an array of tool definitions".to_string())?;
        let mut list = Vec::new();
        let mut patterns_seen = 0;
        for t in arr {
            let f = t.get("function").unwrap_or(t);
            let Some(name) = f.get("name").and_then(Value::as_str) else { continue };
            let parameters = f.get("parameters").cloned().unwrap_or(Value::Object(Default::default()));
            let mut patterns = crate::schema::pattern::Patterns::with_engines(engines);
            patterns.collect(&parameters);
            let reported_at = patterns_seen;
            patterns_seen += patterns.len();
            let flat = crate::schema::flat::FlatSchema::of(&parameters);
            list.push(Tool { name: name.to_string(), parameters, patterns, flat, reported_at });
        }
        Ok(Tools { list: list.into(), reported: vec![Cell::new(false); patterns_seen] })
    }

    /// The same tools, shared, with no note given yet (for another parser).
    pub fn fresh(&self) -> Tools {
        Tools { list: self.list.clone(), reported: vec![Cell::new(false); self.reported.len()] }
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.list.iter().map(|t| t.name.as_str())
    }

    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.list.iter().find(|t| t.name == name)
    }

    pub fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    pub fn unknown_tool_message(&self, name: &str) -> String {
        let mut names = Vec::with_capacity(self.list.len());
        for t in self.list.iter() {
            names.push(t.name.as_str());
        }
        format!("`{name}` is not a declared tool (declared: {})", crate::small::join(&names, ", "))
    }

    /// The schema of parameter `key` of tool `name` and the tool's parameters schema (the root
    /// for `$ref`), if declared.
    pub fn param(&self, name: &str, key: &str) -> Option<(&Value, &Value)> {
        let root = &self.get(name)?.parameters;
        Some((crate::schema::property(root, key, root)?, root))
    }

    /// True when a text value of this parameter streams as a JSON string: the tool or the
    /// parameter is undeclared, its schema names no type, or only `string`.
    pub fn streams_as_string(&self, name: &str, key: &str) -> bool {
        if let Some(t) = self.flat_types(name, key) {
            return t.is_empty() || t.only_string();
        }
        match self.param(name, key) {
            None => true,
            Some((schema, root)) => {
                let t = crate::schema::types(schema, root);
                t.is_empty() || t.only_string()
            }
        }
    }

    /// Coerces a text value of parameter `key` of tool `name` (vLLM's type ladder).
    pub fn coerce_text(&self, name: &str, key: &str, text: &str) -> crate::schema::coerce::Coerced {
        use crate::schema::Ty;
        // An object or array value is coerced member by member by its schema.
        if let Some(t) = self.flat_types(name, key).filter(|t| !t.has(Ty::Object) && !t.has(Ty::Array)) {
            return crate::schema::coerce::coerce_typed(text, t, None, &Value::Null);
        }
        match self.param(name, key) {
            Some((schema, root)) => crate::schema::coerce::coerce_text(text, Some(schema), root),
            None => crate::schema::coerce::coerce_text(text, None, &Value::Null),
        }
    }

    /// The types parameter `key` of tool `name` allows, read from its flat schema (what `param`
    /// and `schema::types` give for it: a flat property schema has no `$ref`); `None` when the
    /// tool is undeclared or its schema is not flat.
    fn flat_types(&self, name: &str, key: &str) -> Option<crate::schema::Types> {
        Some(self.get(name)?.flat.as_ref()?.types_of(key))
    }

    /// Checks a finished call's arguments against the tool's schema (`schema::validate`) and
    /// pushes one diagnostic per problem: `missing_required`, `hallucinated_param`,
    /// `type_coercion`, `schema_violation` (also for a pattern that cannot be checked: once per
    /// parser, "not checked: …"). Messages name the tool, the parameter path and what
    /// was expected, e.g. "`get_weather`.`days`: expected integer, got \"3\"".
    ///
    /// Undeclared tools are not checked (the sink reported `wrong_tool`). `repaired`: the
    /// arguments were closed by the parser, so missing keys are expected and not reported.
    /// `coerced`: top-level keys whose text value already failed coercion (`Sink::coerce_param`
    /// reported `type_coercion`); type problems under them are not reported twice.
    pub fn validate_call(&self, name: &str, args: &str, repaired: bool, coerced: &[String], out: &mut Vec<(Label, String)>) {
        let Some(tool) = self.get(name) else { return };
        // A flat schema answers "no issue" without parsing the arguments; else the full check.
        if tool.flat.as_ref().is_some_and(|f| f.passes(args, repaired)) {
            return;
        }
        let Ok(value) = crate::json::parse(args) else { return };
        let reported = self.reported.get(tool.reported_at..tool.reported_at + tool.patterns.len()).unwrap_or_default();
        let check = crate::schema::validate::Check { skip_required: repaired, patterns: Some(&tool.patterns), reported };
        for issue in crate::schema::validate::validate(&value, &tool.parameters, &tool.parameters, check) {
            use crate::schema::validate::Kind;
            let label = match issue.kind {
                Kind::Missing => Label::MissingRequired,
                Kind::Extra | Kind::Undeclared => Label::HallucinatedParam,
                Kind::Type => Label::TypeCoercion,
                Kind::Violation | Kind::Unchecked => Label::SchemaViolation,
            };
            if label == Label::TypeCoercion && coerced.iter().any(|k| under(&issue.path, k)) {
                continue;
            }
            let sep = if issue.path.is_empty() { "" } else { "." };
            out.push((label, format!("`{name}`{sep}{}: {}", issue.path, issue.message)));
        }
    }
}

/// True when validation path `path` is top-level key `key` or below it.
fn under(path: &str, key: &str) -> bool {
    path.strip_prefix('`')
        .and_then(|p| p.strip_prefix(key))
        .and_then(|p| p.strip_prefix('`'))
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;
    use crate::json::json;

    fn tools() -> Tools {
        Tools::from_json(&json!([{"type": "function", "function": {"name": "get_weather", "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer", "maximum": 14}},
            "required": ["city"]
        }}}]))
        .unwrap()
    }

    fn check(name: &str, args: &str, repaired: bool, coerced: &[&str]) -> Vec<(Label, String)> {
        let coerced: Vec<String> = coerced.iter().map(|s| s.to_string()).collect();
        let mut out = Vec::new();
        tools().validate_call(name, args, repaired, &coerced, &mut out);
        out
    }

    #[test]
    fn labels_and_messages() {
        assert_eq!(check("get_weather", r#"{"city": "Paris", "days": 3}"#, false, &[]), vec![]);
        assert_eq!(
            check("get_weather", r#"{"days": "3", "unit": "C"}"#, false, &[]),
            vec![
                (Label::MissingRequired, "`get_weather`: missing required parameter `city`".to_string()),
                (Label::TypeCoercion, "`get_weather`.`days`: expected integer, got \"3\"".to_string()),
                (Label::HallucinatedParam, "`get_weather`.`unit`: not a declared parameter (declared: `city`, `days`)".to_string()),
            ]
        );
        assert_eq!(
            check("get_weather", r#"{"city": "Paris", "days": 30}"#, false, &[]),
            vec![(Label::SchemaViolation, "`get_weather`.`days`: expected a number <= 14, got 30".to_string())]
        );
        // Undeclared tools, cut-off arguments, values whose coercion was already reported.
        assert_eq!(check("other", r#"{"x": 1}"#, false, &[]), vec![]);
        assert_eq!(check("get_weather", r#"{"days": 3}"#, true, &[]), vec![]);
        assert_eq!(check("get_weather", r#"{"city": "x", "days": "three"}"#, false, &["days"]), vec![]);
        assert_eq!(check("get_weather", r#"{"city": "x", "days": "three"}"#, false, &["day"]).len(), 1);
    }

    /// A pattern that cannot be checked is noted once per `Tools`; `fresh` shares the compiled
    /// tools, not the notes given.
    #[test]
    fn notes_once_per_tools_and_fresh_has_its_own() {
        let tools = Tools::from_json(&json!([{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "string", "pattern": "(?<=x)a"}}}}])).unwrap();
        let notes = |t: &Tools| {
            let mut out = Vec::new();
            t.validate_call("f", r#"{"a": "a"}"#, false, &[], &mut out);
            out.len()
        };
        let other = tools.fresh();
        assert_eq!((notes(&tools), notes(&tools)), (1, 0));
        assert_eq!((notes(&other), notes(&other)), (1, 0));
        assert_eq!(notes(&tools.fresh()), 1);
    }

    /// A flat schema's parameter types (`flat_types`) give what the schema walk gives: the same
    /// tools with one keyword that makes them not flat (and changes no type) agree on every key.
    #[test]
    fn flat_types_agree_with_the_schema_walk() {
        let props = json!({"s": {"type": "string"}, "i": {"type": "int"}, "n": {"type": ["number", "null"]}, "b": {"type": "boolean"}, "o": {"type": "object"}, "a": {"type": "array"}, "any": {"description": "x"}, "odd": {"type": "strang"}});
        let flat = Tools::from_json(&json!([{"name": "f", "parameters": {"type": "object", "properties": props.clone()}}])).unwrap();
        let walked = Tools::from_json(&json!([{"name": "f", "parameters": {"type": "object", "properties": props, "minProperties": 0}}])).unwrap();
        assert!(flat.flat_types("f", "s").is_some() && walked.flat_types("f", "s").is_none());
        for key in ["s", "i", "n", "b", "o", "a", "any", "odd", "undeclared"] {
            assert_eq!(flat.streams_as_string("f", key), walked.streams_as_string("f", key), "{key}");
            for text in ["Paris", "3", "-2.5", "1e400", "true", "null", "None", "{\"k\": 1}", "[1, \"2\"]", " 7 ", ""] {
                let (x, y) = (flat.coerce_text("f", key, text), walked.coerce_text("f", key, text));
                assert_eq!((x.value, x.ok), (y.value, y.ok), "{key} {text:?}");
            }
        }
    }

    /// A text value (XML families) whose coercion failed is reported once, by the sink.
    #[test]
    fn coercion_failure_is_reported_once() {
        use crate::event::Event;
        use crate::sink::{IdStyle, Sink};
        let mut sink = Sink::new(crate::Limits::default(), Some(tools()), "call_".into(), IdStyle::Prefixed);
        sink.start_call("get_weather", None);
        let days = sink.coerce_param("days", "three");
        let city = sink.coerce_param("city", "Oslo");
        assert!(sink.args(&format!("{{\"city\": {city}, \"days\": {days}, \"x\": 1}}")));
        sink.end_call();
        let labels: Vec<Label> = sink.take().into_iter().filter_map(|e| match e {
            Event::Diagnostic { label, .. } => Some(label),
            _ => None,
        }).collect();
        assert_eq!(labels, vec![Label::TypeCoercion, Label::HallucinatedParam]);
    }
}
