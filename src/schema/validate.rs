//! Validation of finished tool-call arguments against the tool's JSON Schema: a compact subset
//! of our own (no crate), reporting problems, never rejecting anything.
//!
//! Keywords: `type` (string or list, vLLM's aliases; `nullable: true`), `enum`, `const`,
//! `properties`, `required`, `additionalProperties` (bool or schema),
//! `minProperties`/`maxProperties`, `items` (schema or draft-4 tuple list), `prefixItems`,
//! `minItems`/`maxItems`, `uniqueItems` (arrays up to 256 items), `minimum`/`maximum`,
//! `exclusiveMinimum`/`exclusiveMaximum` (number or draft-4 bool), `multipleOf`,
//! `minLength`/`maxLength` (code points), `anyOf`/`oneOf`/`allOf`/`not`, local `$ref`, boolean
//! schemas. Not checked, to keep the wasm small (no regex engine): `pattern`, and
//! `patternProperties` (an object that declares any keeps undeclared keys unreported). Other
//! keywords (`format`, `if`, ...) are ignored.
//!
//! Decisions:
//! - A key not declared in `properties` is an `Extra` issue
//!   (`hallucinated_param`) when the schema declares `properties` and `additionalProperties` is
//!   absent or `false`. vLLM-style tools usually omit `additionalProperties`; a user debugging a
//!   model wants to see the undeclared key. `additionalProperties: true` or a schema allows it.
//!   Inside `anyOf`/`oneOf`/`allOf` branches only an explicit `false` counts (a branch rarely
//!   lists every property); the enclosing object sees properties declared in any branch.
//! - A value of the wrong JSON type is a `Type` issue (`type_coercion`), including `"42"` for an
//!   integer and enum values of the wrong type; other keywords of that schema are then skipped.
//! - `oneOf` is checked like `anyOf`: a value matching several alternatives is not reported
//!   (that is the schema's ambiguity, not the model's mistake).
//! - Work is bounded: recursion depth 128 and 100 000 schema/value visits per call; past them the
//!   rest is not checked (no issue is invented).

use super::{resolve, types, Ty};
use crate::json::{Map, Value};

/// What kind of problem an issue is (maps to a diagnostic label).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A `required` property is absent (`missing_required`).
    Missing,
    /// An undeclared property (`hallucinated_param`).
    Extra,
    /// A value of the wrong JSON type (`type_coercion`).
    Type,
    /// Any other constraint (`schema_violation`).
    Violation,
}

/// One problem. `path` is where it is, as `.`-joined backquoted keys and `[i]` indices
/// (e.g. "`loc`.`lat`", "`tags`[2]"); empty for the arguments object itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub kind: Kind,
    pub path: String,
    pub message: String,
}

/// What to check.
#[derive(Clone, Copy, Debug, Default)]
pub struct Check {
    /// Skip `required` (the arguments were cut off: missing keys are expected).
    pub skip_required: bool,
}

const MAX_DEPTH: usize = 128;
const MAX_VISITS: usize = 100_000;
const MAX_UNIQUE: usize = 256;

/// Validates `value` against `schema` (`$ref`s resolve against `root`).
pub fn validate(value: &Value, schema: &Value, root: &Value, check: Check) -> Vec<Issue> {
    let mut v = Validator { root, check, visits: 0, out: Vec::new() };
    let mut path = String::new();
    v.value(value, schema, &mut path, 0, false);
    v.out
}

struct Validator<'a> {
    root: &'a Value,
    check: Check,
    visits: usize,
    out: Vec<Issue>,
}

impl<'a> Validator<'a> {
    fn issue(&mut self, kind: Kind, path: &str, message: String) {
        self.out.push(Issue { kind, path: path.to_string(), message });
    }

    /// Issues of `value` against `schema`, collected apart (for combinators).
    fn apart(&mut self, value: &Value, schema: &'a Value, path: &mut String, depth: usize) -> Vec<Issue> {
        let saved = core::mem::take(&mut self.out);
        self.value(value, schema, path, depth + 1, true);
        core::mem::replace(&mut self.out, saved)
    }

    /// `branch`: validating an `anyOf`/`oneOf`/`allOf` alternative (see the module docs).
    fn value(&mut self, value: &Value, schema: &'a Value, path: &mut String, depth: usize, branch: bool) {
        self.visits += 1;
        if depth > MAX_DEPTH || self.visits > MAX_VISITS {
            return;
        }
        let schema = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return self.issue(Kind::Violation, path, "no value is allowed here".into()),
            s => match resolve(s, self.root) {
                Some(s) if s.is_object() => s,
                _ => return,
            },
        };
        if !self.types(value, schema, path) {
            return;
        }
        self.enum_const(value, schema, path);
        match value {
            Value::Number(_) => self.number(value, schema, path),
            Value::String(s) => self.string(s, schema, path),
            Value::Array(a) => self.array(a, schema, path, depth),
            Value::Object(o) => self.object(o, schema, path, depth, branch),
            _ => {}
        }
        self.combinators(value, schema, path, depth);
    }

    /// The `type` keyword; false (with a `Type` issue) when the value's type is not allowed.
    fn types(&mut self, value: &Value, schema: &Value, path: &str) -> bool {
        let mut allowed = Vec::new();
        match schema.get("type") {
            Some(Value::String(s)) => allowed.extend(Ty::from_name(s)),
            Some(Value::Array(a)) => allowed.extend(a.iter().filter_map(Value::as_str).filter_map(Ty::from_name)),
            _ => return true,
        }
        if allowed.is_empty() || allowed.iter().any(|t| has_type(value, *t)) {
            return true;
        }
        if value.is_null() && schema.get("nullable") == Some(&Value::Bool(true)) {
            return true;
        }
        let names: Vec<&str> = allowed.iter().map(|t| t.name()).collect();
        self.issue(Kind::Type, path, format!("expected {}, got {}", names.join(" or "), show(value)));
        false
    }

    fn enum_const(&mut self, value: &Value, schema: &Value, path: &str) {
        let explicit_type = schema.get("type").is_some();
        if let Some(list) = schema.get("enum").and_then(Value::as_array) {
            if !list.iter().any(|x| same(x, value)) {
                let kind = if !explicit_type && !list.iter().any(|x| same_type(x, value)) { Kind::Type } else { Kind::Violation };
                let shown: Vec<String> = list.iter().take(12).map(show).collect();
                let more = if list.len() > 12 { ", …" } else { "" };
                self.issue(kind, path, format!("expected one of {}{more}, got {}", shown.join(", "), show(value)));
            }
        }
        if let Some(c) = schema.get("const") {
            if !same(c, value) {
                let kind = if !explicit_type && !same_type(c, value) { Kind::Type } else { Kind::Violation };
                self.issue(kind, path, format!("expected {}, got {}", show(c), show(value)));
            }
        }
    }

    fn number(&mut self, value: &Value, schema: &Value, path: &str) {
        use core::cmp::Ordering::{Equal, Greater, Less};
        let Some(x) = value.as_number() else { return };
        let num = |k: &str| schema.get(k).and_then(|v| Some((v.as_number()?, show(v))));
        let flag = |k: &str| schema.get(k).and_then(Value::as_bool).unwrap_or(false);
        let fail = |this: &mut Self, what: String| this.issue(Kind::Violation, path, format!("{what}, got {}", show(value)));
        if let Some((m, shown)) = num("minimum") {
            let c = x.cmp_value(m);
            if c == Less || (flag("exclusiveMinimum") && c == Equal) {
                let op = if flag("exclusiveMinimum") { ">" } else { ">=" };
                fail(self, format!("expected a number {op} {shown}"));
            }
        }
        if let Some((m, shown)) = num("maximum") {
            let c = x.cmp_value(m);
            if c == Greater || (flag("exclusiveMaximum") && c == Equal) {
                let op = if flag("exclusiveMaximum") { "<" } else { "<=" };
                fail(self, format!("expected a number {op} {shown}"));
            }
        }
        if let Some((m, shown)) = num("exclusiveMinimum") {
            if x.cmp_value(m) != Greater {
                fail(self, format!("expected a number > {shown}"));
            }
        }
        if let Some((m, shown)) = num("exclusiveMaximum") {
            if x.cmp_value(m) != Less {
                fail(self, format!("expected a number < {shown}"));
            }
        }
        if let Some((m, shown)) = num("multipleOf") {
            if x.is_multiple_of(m) == Some(false) {
                fail(self, format!("expected a multiple of {shown}"));
            }
        }
    }

    fn string(&mut self, s: &str, schema: &Value, path: &str) {
        let len = s.chars().count() as u64;
        if let Some(m) = schema.get("minLength").and_then(Value::as_u64) {
            if len < m {
                self.issue(Kind::Violation, path, format!("expected at least {m} characters, got {len}"));
            }
        }
        if let Some(m) = schema.get("maxLength").and_then(Value::as_u64) {
            if len > m {
                self.issue(Kind::Violation, path, format!("expected at most {m} characters, got {len}"));
            }
        }
    }

    fn array(&mut self, a: &[Value], schema: &'a Value, path: &mut String, depth: usize) {
        let n = a.len() as u64;
        if let Some(m) = schema.get("minItems").and_then(Value::as_u64) {
            if n < m {
                self.issue(Kind::Violation, path, format!("expected at least {m} items, got {n}"));
            }
        }
        if let Some(m) = schema.get("maxItems").and_then(Value::as_u64) {
            if n > m {
                self.issue(Kind::Violation, path, format!("expected at most {m} items, got {n}"));
            }
        }
        if schema.get("uniqueItems") == Some(&Value::Bool(true)) && a.len() <= MAX_UNIQUE {
            let dup = (0..a.len()).find(|&i| a[..i].iter().any(|x| same(x, &a[i])));
            if let Some(i) = dup {
                self.issue(Kind::Violation, path, format!("expected unique items, item {i} repeats {}", show(&a[i])));
            }
        }
        // Tuple items: `prefixItems`, or draft-4 `items: [...]`; the rest follow `items`.
        let tuple = schema.get("prefixItems").or_else(|| schema.get("items").filter(|i| i.is_array())).and_then(Value::as_array);
        let rest = schema.get("items").filter(|i| !i.is_array());
        for (i, x) in a.iter().enumerate() {
            let item_schema = match tuple.and_then(|t| t.get(i)) {
                Some(s) => s,
                None => match rest {
                    Some(s) => s,
                    None => continue,
                },
            };
            let len = path.len();
            path.push('[');
            crate::event::push_usize(path, i);
            path.push(']');
            self.value(x, item_schema, path, depth + 1, false);
            path.truncate(len);
        }
    }

    fn object(&mut self, o: &Map, schema: &'a Value, path: &mut String, depth: usize, branch: bool) {
        let n = o.len() as u64;
        if let Some(m) = schema.get("minProperties").and_then(Value::as_u64) {
            if n < m {
                self.issue(Kind::Violation, path, format!("expected at least {m} properties, got {n}"));
            }
        }
        if let Some(m) = schema.get("maxProperties").and_then(Value::as_u64) {
            if n > m {
                self.issue(Kind::Violation, path, format!("expected at most {m} properties, got {n}"));
            }
        }
        if !self.check.skip_required {
            if let Some(req) = schema.get("required").and_then(Value::as_array) {
                for k in req.iter().filter_map(Value::as_str) {
                    if !o.contains_key(k) {
                        let what = if path.is_empty() { "parameter" } else { "property" };
                        self.issue(Kind::Missing, path, format!("missing required {what} `{k}`"));
                    }
                }
            }
        }
        let props = schema.get("properties").and_then(Value::as_object);
        let patterns = schema.get("patternProperties").and_then(Value::as_object);
        let additional = schema.get("additionalProperties");
        let declares = !branch && declares_properties(schema, self.root, 0);
        for (k, x) in o {
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            path.push('`');
            path.push_str(k);
            path.push('`');
            let mut known = false;
            if let Some(s) = props.and_then(|p| p.get(k)) {
                known = true;
                self.value(x, s, path, depth + 1, false);
            }
            // `patternProperties` keys are not matched (no regex engine in the wasm): with any
            // pattern declared, an undeclared key is not reported.
            if patterns.is_some_and(|p| !p.is_empty()) {
                known = true;
            }
            if !known {
                match additional {
                    Some(Value::Bool(false)) => self.extra(schema, path),
                    Some(s @ Value::Object(_)) => self.value(x, s, path, depth + 1, false),
                    None if declares && super::property(schema, k, self.root).is_none() => self.extra(schema, path),
                    _ => {}
                }
            }
            path.truncate(len);
        }
    }

    fn extra(&mut self, schema: &Value, path: &str) {
        let mut names = Vec::new();
        declared_names(schema, self.root, 0, &mut names);
        let what = if path.matches('`').count() <= 2 { "parameter" } else { "property" };
        let list = if names.is_empty() { "none".to_string() } else { names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ") };
        self.issue(Kind::Extra, path, format!("not a declared {what} (declared: {list})"));
    }

    fn combinators(&mut self, value: &Value, schema: &'a Value, path: &mut String, depth: usize) {
        if let Some(list) = schema.get("allOf").and_then(Value::as_array) {
            for s in list {
                let issues = self.apart(value, s, path, depth);
                self.out.extend(issues);
            }
        }
        for key in ["anyOf", "oneOf"] {
            let Some(list) = schema.get(key).and_then(Value::as_array) else { continue };
            if list.is_empty() {
                continue;
            }
            let mut failures = Vec::with_capacity(list.len());
            let mut matched = false;
            for s in list {
                let issues = self.apart(value, s, path, depth);
                if issues.is_empty() {
                    matched = true;
                    break;
                }
                failures.push(issues);
            }
            if matched {
                continue;
            }
            // Alternatives of the value's type: one → its issues say most; none → a type issue.
            let typed: Vec<usize> = failures.iter().enumerate().filter(|(_, f)| !is_root_type_failure(f, path)).map(|(i, _)| i).collect();
            match typed.as_slice() {
                [] => {
                    let t = types(schema, self.root);
                    let expected = if t.is_empty() { "one of the alternatives".to_string() } else { t.names() };
                    self.issue(Kind::Type, path, format!("expected {expected}, got {}", show(value)));
                }
                [one] => {
                    let issues = core::mem::take(&mut failures[*one]);
                    self.out.extend(issues);
                }
                _ => self.issue(Kind::Violation, path, format!("matches none of the `{key}` alternatives, got {}", show(value))),
            }
        }
        if let Some(s) = schema.get("not") {
            if self.apart(value, s, path, depth).is_empty() {
                self.issue(Kind::Violation, path, format!("must not match the `not` schema, got {}", show(value)));
            }
        }
    }
}

/// An alternative failed only because the value has another type.
fn is_root_type_failure(issues: &[Issue], path: &str) -> bool {
    issues.iter().any(|i| i.kind == Kind::Type && i.path == path)
}

fn has_type(v: &Value, t: Ty) -> bool {
    match (v, t) {
        (Value::Number(n), Ty::Integer) => n.is_integral(),
        (Value::Number(_), Ty::Number) => true,
        _ => Ty::of(v) == t,
    }
}

fn same_type(a: &Value, b: &Value) -> bool {
    matches!((a, b), (Value::Number(_), Value::Number(_))) || Ty::of(a) == Ty::of(b)
}

/// JSON equality with numbers compared by value (`1 == 1.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.cmp_value(y) == core::cmp::Ordering::Equal,
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, p)| y.get(k).is_some_and(|q| same(p, q))),
        _ => a == b,
    }
}

/// True when `schema` (or a combinator branch) declares `properties`.
fn declares_properties(schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    let Some(s) = resolve(schema, root) else { return false };
    s.get("properties").is_some_and(Value::is_object)
        || ["allOf", "anyOf", "oneOf"].iter().any(|k| {
            s.get(*k).and_then(Value::as_array).is_some_and(|l| l.iter().any(|b| declares_properties(b, root, depth + 1)))
        })
}

fn declared_names<'a>(schema: &'a Value, root: &'a Value, depth: usize, out: &mut Vec<&'a str>) {
    if depth > 16 || out.len() > 24 {
        return;
    }
    let Some(s) = resolve(schema, root) else { return };
    if let Some(p) = s.get("properties").and_then(Value::as_object) {
        for k in p.keys() {
            if !out.contains(&k.as_str()) {
                out.push(k);
            }
        }
    }
    for k in ["allOf", "anyOf", "oneOf"] {
        for b in s.get(k).and_then(Value::as_array).into_iter().flatten() {
            declared_names(b, root, depth + 1, out);
        }
    }
}

/// A value as JSON, shortened to about 40 characters.
fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 40 {
        return s;
    }
    let mut t: String = s.chars().take(37).collect();
    t.push('…');
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::json;

    fn run(schema: Value, value: Value) -> Vec<(Kind, String, String)> {
        validate(&value, &schema, &schema, Check::default()).into_iter().map(|i| (i.kind, i.path, i.message)).collect()
    }

    fn kinds(schema: Value, value: Value) -> Vec<Kind> {
        run(schema, value).into_iter().map(|i| i.0).collect()
    }

    use Kind::*;

    #[test]
    fn keyword_table() {
        let weather = json!({"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1, "maximum": 14}}, "required": ["city"]});
        let cases: Vec<(Value, Value, Vec<Kind>)> = vec![
            (weather.clone(), json!({"city": "Paris", "days": 3}), vec![]),
            (weather.clone(), json!({"city": "Paris", "days": 3.0}), vec![]),
            (weather.clone(), json!({"days": 3}), vec![Missing]),
            (weather.clone(), json!({"city": "Paris", "days": "3"}), vec![Type]),
            (weather.clone(), json!({"city": "Paris", "days": 30}), vec![Violation]),
            (weather.clone(), json!({"city": "Paris", "unit": "C"}), vec![Extra]),
            (weather.clone(), json!({"city": 5, "x": 1}), vec![Type, Extra]),
            (json!({"type": "object", "properties": {"a": {}}, "additionalProperties": true}), json!({"b": 1}), vec![]),
            (json!({"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "string"}}), json!({"b": 1}), vec![Type]),
            (json!({"type": "object", "additionalProperties": false}), json!({"b": 1}), vec![Extra]),
            (json!({"type": "object"}), json!({"b": 1}), vec![]),
            (json!({"type": "object", "properties": {}, "patternProperties": {"^x_": {"type": "integer"}}}), json!({"x_a": 1, "y": 2}), vec![]),
            (json!({"enum": ["c", "f"]}), json!("k"), vec![Violation]),
            (json!({"enum": [1, 2]}), json!("2"), vec![Type]),
            (json!({"enum": [1, 2]}), json!(2.0), vec![]),
            (json!({"type": "string", "enum": ["a"]}), json!("b"), vec![Violation]),
            (json!({"const": "x"}), json!("y"), vec![Violation]),
            (json!({"const": true}), json!("true"), vec![Type]),
            (json!({"type": "number", "exclusiveMinimum": 0}), json!(0), vec![Violation]),
            (json!({"type": "number", "minimum": 0, "exclusiveMinimum": true}), json!(0), vec![Violation]),
            (json!({"type": "number", "exclusiveMaximum": 10}), json!(9.5), vec![]),
            (json!({"type": "number", "multipleOf": 0.5}), json!(2.5), vec![]),
            (json!({"type": "number", "multipleOf": 0.5}), json!(2.2), vec![Violation]),
            (json!({"type": "string", "minLength": 2, "maxLength": 3}), json!("é"), vec![Violation]),
            (json!({"type": "string", "maxLength": 3}), json!("ééé"), vec![]),
            (json!({"type": "string", "pattern": "^[A-Z]{3}$"}), json!("EUR"), vec![]),
            (json!({"type": "string", "pattern": "^[A-Z]{3}$"}), json!("euro"), vec![]),
            (json!({"type": "string", "pattern": "(?<=x)"}), json!("y"), vec![]),
            (json!({"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2}), json!([1, "2", 3]), vec![Violation, Type]),
            (json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": {"type": "boolean"}}), json!(["a", 1, true, 2]), vec![Type]),
            (json!({"type": "array", "items": [{"type": "string"}]}), json!([1, 2]), vec![Type]),
            (json!({"type": "array", "uniqueItems": true}), json!([1, 2, 1.0]), vec![Violation]),
            (json!({"type": ["integer", "null"]}), json!(null), vec![]),
            (json!({"type": "integer", "nullable": true}), json!(null), vec![]),
            (json!({"type": "int64"}), json!(5), vec![]),
            (json!({"type": "dict"}), json!([]), vec![Type]),
            (json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}), json!("x"), vec![]),
            (json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}), json!(true), vec![Type]),
            (json!({"anyOf": [{"type": "integer", "minimum": 5}, {"type": "string"}]}), json!(3), vec![Violation]),
            (json!({"anyOf": [{"type": "integer", "minimum": 5}, {"type": "integer", "maximum": 1}]}), json!(3), vec![Violation]),
            (json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}), json!(3), vec![]),
            (json!({"allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]}), json!({"a": "x", "b": 1}), vec![]),
            (json!({"allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]}), json!({"a": "x", "c": 1}), vec![Extra, Missing]),
            (json!({"not": {"type": "string"}}), json!("s"), vec![Violation]),
            (json!(false), json!(1), vec![Violation]),
            (json!(true), json!(1), vec![]),
            (json!({"$ref": "#/nowhere"}), json!(1), vec![]),
            (json!({"type": "frobnicate"}), json!(1), vec![]),
        ];
        for (schema, value, want) in cases {
            assert_eq!(kinds(schema.clone(), value.clone()), want, "{value} against {schema}");
        }
    }

    #[test]
    fn messages_name_the_path_and_the_expectation() {
        let schema = json!({"type": "object", "properties": {
            "days": {"type": "integer"},
            "loc": {"type": "object", "properties": {"lat": {"type": "number"}}, "required": ["lat"]},
            "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}}
        }, "$defs": {"Tag": {"type": "string", "maxLength": 3}}});
        let got = run(schema, json!({"days": "3", "loc": {"lon": 1}, "tags": ["ok", "long"], "zz": 1}));
        assert_eq!(
            got,
            vec![
                (Type, "`days`".into(), "expected integer, got \"3\"".into()),
                (Missing, "`loc`".into(), "missing required property `lat`".into()),
                (Extra, "`loc`.`lon`".into(), "not a declared property (declared: `lat`)".into()),
                (Violation, "`tags`[1]".into(), "expected at most 3 characters, got 4".into()),
                (Extra, "`zz`".into(), "not a declared parameter (declared: `days`, `loc`, `tags`)".into()),
            ]
        );
    }

    #[test]
    fn skip_required_and_recursion_bounds() {
        let schema = json!({"type": "object", "properties": {"a": {}}, "required": ["a"]});
        assert!(validate(&json!({}), &schema, &schema, Check { skip_required: true }).is_empty());
        // A schema that refers to itself without consuming the value terminates.
        let looped = json!({"anyOf": [{"$ref": "#"}, {"allOf": [{"$ref": "#"}]}]});
        let _ = validate(&json!(1), &looped, &looped, Check::default());
        let tree = json!({"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}});
        assert!(validate(&json!({"kids": [{"kids": []}]}), &tree, &tree, Check::default()).is_empty());
        assert_eq!(kinds(tree, json!({"kids": [{"kids": [1]}]})), vec![Type]);
    }
}
