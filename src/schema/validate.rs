//! Validation of finished tool-call arguments against the tool's JSON Schema, reporting
//! problems, never rejecting anything.
//!
//! Keywords (draft 4 to 2020-12 spellings): `type` (string or list, vLLM's aliases;
//! `nullable: true`), `enum`, `const`, `properties`, `required`, `additionalProperties`,
//! `patternProperties`, `propertyNames`, `minProperties`/`maxProperties`,
//! `dependencies`/`dependentRequired`/`dependentSchemas`, `items` (schema or draft-4 tuple
//! list), `prefixItems`, `additionalItems`, `contains`/`minContains`/`maxContains`,
//! `minItems`/`maxItems`, `uniqueItems` (arrays up to 256 items), `minimum`/`maximum`,
//! `exclusiveMinimum`/`exclusiveMaximum` (number, or draft-4 bool), `multipleOf`,
//! `minLength`/`maxLength` (code points), `pattern` (`pattern.rs`), `format` (`format.rs`),
//! `allOf`/`anyOf`/`oneOf`/`not`, `if`/`then`/`else`, local `$ref` (`$defs`, `definitions`,
//! any JSON Pointer; a `$ref` overrides its siblings, as in draft 4 to 7), boolean schemas.
//! Others (`unevaluatedProperties`, `$dynamicRef`, remote refs, ...) are not checked.
//! The official JSON Schema Test Suite runs over this in `tests/schema_suite.rs`.
//!
//! Decisions:
//! - A key not declared in `properties` (nor matched by `patternProperties`) is an `Undeclared`
//!   issue (`hallucinated_param`) when the schema declares `properties` and
//!   `additionalProperties` is absent: vLLM-style tools usually omit `additionalProperties`, and
//!   a user debugging a model wants to see the undeclared key. It is advice, not a JSON Schema
//!   failure (`Issue::is_failure`). `additionalProperties: false` makes it an `Extra` failure;
//!   `true` or a schema allows it. Inside `anyOf`/`oneOf`/`allOf` branches only an explicit
//!   `false` counts (a branch rarely lists every property); the enclosing object sees
//!   properties declared in any branch.
//! - A value of the wrong JSON type is a `Type` issue (`type_coercion`), including `"42"` for an
//!   integer and enum values of the wrong type; other keywords of that schema are then skipped.
//!   Integral numbers (`2.0`) are integers (draft 6 and later).
//! - `oneOf` wants exactly one alternative: a value matching several is a `Violation`.
//! - A pattern that cannot be checked gives one `Unchecked` issue per parser (not a failure).
//! - Work is bounded: recursion depth 128 and 100 000 schema/value visits per call; past them the
//!   rest is not checked (no issue is invented).

use crate::prelude::*;
use super::pattern::{Compiled, Patterns};
use super::number::Decimal;
use super::{resolve, types, Ty};
use crate::json::{Map, Value};
use core::cell::Cell;

/// What kind of problem an issue is (maps to a diagnostic label).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A `required` property (or one a `dependencies` entry requires) is absent (`missing_required`).
    Missing,
    /// A property the schema does not allow (`additionalProperties: false`; `hallucinated_param`).
    Extra,
    /// A property the schema does not declare, allowed by JSON Schema (`hallucinated_param`,
    /// advice: see the module docs).
    Undeclared,
    /// A value of the wrong JSON type (`type_coercion`).
    Type,
    /// Any other constraint (`schema_violation`).
    Violation,
    /// A keyword that could not be checked (a pattern regex-lite cannot compile); reported once.
    Unchecked,
}

/// One problem. `path` is where it is, as `.`-joined backquoted keys and `[i]` indices
/// (e.g. "`loc`.`lat`", "`tags`[2]"); empty for the arguments object itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub kind: Kind,
    pub path: String,
    pub message: String,
}

impl Issue {
    /// True when JSON Schema says the value is invalid (not advice, not a note).
    pub fn is_failure(&self) -> bool {
        !matches!(self.kind, Kind::Undeclared | Kind::Unchecked)
    }
}

/// What to check.
#[derive(Clone, Copy, Debug, Default)]
pub struct Check<'a> {
    /// Skip `required` (the arguments were cut off: missing keys are expected).
    pub skip_required: bool,
    /// Patterns compiled in advance (`Tools` compiles a tool's patterns once); others are
    /// compiled for this call.
    pub patterns: Option<&'a Patterns>,
    /// Whether the "not checked" note of each pattern of `patterns` was given (by position;
    /// the parser's own state, so a note comes once per parser). Missing flags: a note each
    /// call.
    pub reported: &'a [Cell<bool>],
}

const MAX_DEPTH: usize = 128;
const MAX_VISITS: usize = 100_000;
const MAX_UNIQUE: usize = 256;

/// Validates `value` against `schema` (`$ref`s resolve against `root`).
pub fn validate(value: &Value, schema: &Value, root: &Value, check: Check) -> Vec<Issue> {
    let mut v = Validator { root, check, visits: 0, out: Vec::new(), notes: Vec::new(), own: Patterns::new(), own_reported: Vec::new() };
    let mut path = String::new();
    v.value(value, schema, &mut path, 0, false);
    let mut out = v.notes;
    out.extend(v.out);
    out
}

struct Validator<'a> {
    root: &'a Value,
    check: Check<'a>,
    visits: usize,
    out: Vec<Issue>,
    /// `Unchecked` notes: kept apart from `out`, so that combinators never count them.
    notes: Vec<Issue>,
    /// Patterns not compiled in advance, and whether their note was given (by position).
    own: Patterns,
    own_reported: Vec<Cell<bool>>,
}

impl<'a> Validator<'a> {
    fn issue(&mut self, kind: Kind, path: &str, message: String) {
        self.out.push(Issue { kind, path: path.to_string(), message });
    }

    /// Issues of `value` against `schema`, collected apart (for combinators); advice left out.
    fn apart(&mut self, value: &Value, schema: &'a Value, path: &mut String, depth: usize) -> Vec<Issue> {
        let saved = core::mem::take(&mut self.out);
        self.value(value, schema, path, depth + 1, true);
        let mut got = core::mem::replace(&mut self.out, saved);
        got.retain(Issue::is_failure);
        got
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
                Some(Value::Bool(false)) => return self.issue(Kind::Violation, path, "no value is allowed here".into()),
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
            Some(Value::Array(a)) => {
                // Plain loops in these messages: iterator adapters are a copy per use in the wasm.
                for v in a {
                    allowed.extend(v.as_str().and_then(Ty::from_name));
                }
            }
            _ => return true,
        }
        if allowed.is_empty() || allowed.iter().any(|t| has_type(value, *t)) {
            return true;
        }
        if value.is_null() && schema.get("nullable") == Some(&Value::Bool(true)) {
            return true;
        }
        let mut names = Vec::with_capacity(allowed.len());
        for t in &allowed {
            names.push(t.name());
        }
        self.issue(Kind::Type, path, format!("expected {}, got {}", crate::small::join(&names, " or "), show(value)));
        false
    }

    fn enum_const(&mut self, value: &Value, schema: &Value, path: &str) {
        let explicit_type = schema.get("type").is_some();
        if let Some(list) = schema.get("enum").and_then(Value::as_array) {
            if !list.iter().any(|x| same(x, value)) {
                let kind = if !explicit_type && !list.iter().any(|x| same_type(x, value)) { Kind::Type } else { Kind::Violation };
                let mut shown = Vec::new();
                for x in &list[..list.len().min(12)] {
                    shown.push(show(x));
                }
                let more = if list.len() > 12 { ", …" } else { "" };
                self.issue(kind, path, format!("expected one of {}{more}, got {}", crate::small::join(&shown, ", "), show(value)));
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
        // Counted only for a length keyword (arguments can be whole files).
        let chars = || s.chars().count() as u64;
        if let Some(m) = schema.get("minLength").and_then(crate::json::as_u64) {
            let len = chars();
            if len < m {
                self.issue(Kind::Violation, path, format!("expected at least {m} characters, got {len}"));
            }
        }
        if let Some(m) = schema.get("maxLength").and_then(crate::json::as_u64) {
            let len = chars();
            if len > m {
                self.issue(Kind::Violation, path, format!("expected at most {m} characters, got {len}"));
            }
        }
        if let Some(p) = schema.get("pattern").and_then(Value::as_str) {
            if self.pattern(p, s, path) == Some(false) {
                let mut shown = String::new();
                crate::json::push_json_string(&mut shown, p);
                self.issue(Kind::Violation, path, format!("expected a string matching {shown}, got {}", show(&Value::String(s.into()))));
            }
        }
        if let Some(f) = schema.get("format").and_then(Value::as_str) {
            let host = self.check.patterns.and_then(Patterns::format_engine);
            if super::format::check_with(f, s, host) == Some(false) {
                let what = super::format::describe(f);
                self.issue(Kind::Violation, path, format!("expected {what}, got {}", show(&Value::String(s.into()))));
            }
        }
    }

    fn array(&mut self, a: &[Value], schema: &'a Value, path: &mut String, depth: usize) {
        let n = a.len() as u64;
        if let Some(m) = schema.get("minItems").and_then(crate::json::as_u64) {
            if n < m {
                self.issue(Kind::Violation, path, format!("expected at least {m} items, got {n}"));
            }
        }
        if let Some(m) = schema.get("maxItems").and_then(crate::json::as_u64) {
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
        // Tuple items: `prefixItems`, or draft-4 `items: [...]`; the rest follow `items` (a
        // schema), or `additionalItems` after a tuple `items`.
        let items = schema.get("items");
        let tuple = schema.get("prefixItems").or_else(|| items.filter(|i| i.is_array())).and_then(Value::as_array);
        let rest = match items {
            Some(i) if !i.is_array() => Some(i),
            _ => schema.get("additionalItems").filter(|_| tuple.is_some()),
        };
        let fixed = tuple.map_or(0, Vec::len);
        if a.len() > fixed && rest.is_some_and(|r| resolve(r, self.root) == Some(&Value::Bool(false))) {
            let key = if items.is_some_and(|i| !i.is_array()) { "items" } else { "additionalItems" };
            self.issue(Kind::Violation, path, format!("expected at most {fixed} items (`{key}`: false), got {n}"));
        } else {
            for (i, x) in a.iter().enumerate() {
                let Some(item_schema) = tuple.and_then(|t| t.get(i)).or(rest) else { continue };
                let len = path.len();
                push_index(path, i);
                self.value(x, item_schema, path, depth + 1, false);
                path.truncate(len);
            }
        }
        if let Some(c) = schema.get("contains") {
            let min = schema.get("minContains").and_then(crate::json::as_u64).unwrap_or(1);
            let max = schema.get("maxContains").and_then(crate::json::as_u64);
            let mut found = 0u64;
            for x in a {
                if self.apart(x, c, path, depth).is_empty() {
                    found += 1;
                }
            }
            if found < min || max.is_some_and(|m| found > m) {
                let want = match max {
                    Some(m) => format!("between {min} and {m}"),
                    None => format!("at least {min}"),
                };
                self.issue(Kind::Violation, path, format!("expected {want} items matching `contains`, got {found}"));
            }
        }
    }

    fn object(&mut self, o: &Map, schema: &'a Value, path: &mut String, depth: usize, branch: bool) {
        let n = o.len() as u64;
        if let Some(m) = schema.get("minProperties").and_then(crate::json::as_u64) {
            if n < m {
                self.issue(Kind::Violation, path, format!("expected at least {m} properties, got {n}"));
            }
        }
        if let Some(m) = schema.get("maxProperties").and_then(crate::json::as_u64) {
            if n > m {
                self.issue(Kind::Violation, path, format!("expected at most {m} properties, got {n}"));
            }
        }
        let what = if path.is_empty() { "parameter" } else { "property" };
        if !self.check.skip_required {
            if let Some(req) = schema.get("required").and_then(Value::as_array) {
                for k in req.iter().filter_map(Value::as_str) {
                    if !o.contains_key(k) {
                        self.issue(Kind::Missing, path, format!("missing required {what} `{k}`"));
                    }
                }
            }
        }
        // `dependencies` (draft 4-7: a list of names or a schema), `dependentRequired`,
        // `dependentSchemas` (2019-09 on): they apply when their key is present.
        for kw in ["dependencies", "dependentRequired", "dependentSchemas"] {
            let Some(deps) = schema.get(kw).and_then(Value::as_object) else { continue };
            for (k, dep) in deps {
                if !o.contains_key(k) {
                    continue;
                }
                match dep {
                    Value::Array(names) => {
                        if self.check.skip_required {
                            continue;
                        }
                        for d in names.iter().filter_map(Value::as_str).filter(|d| !o.contains_key(*d)) {
                            self.issue(Kind::Missing, path, format!("missing {what} `{d}`, required with `{k}`"));
                        }
                    }
                    s => {
                        let issues = self.apart_object(o, s, path, depth);
                        self.out.extend(issues);
                    }
                }
            }
        }
        let props = schema.get("properties").and_then(Value::as_object);
        let patterns = schema.get("patternProperties").and_then(Value::as_object);
        let additional = schema.get("additionalProperties");
        let names = schema.get("propertyNames");
        let declares = !branch && declares_properties(schema, self.root, 0);
        for (k, x) in o {
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            path.push('`');
            path.push_str(k);
            path.push('`');
            if let Some(s) = names {
                let issues = self.apart(&Value::String(k.clone()), s, path, depth);
                for i in issues {
                    self.issue(Kind::Violation, path, format!("the name {}", crate::text::replace(&i.message, "got ", "got the name ")));
                }
            }
            // A key that `dependencies` names is declared too.
            let mut known = ["dependencies", "dependentRequired", "dependentSchemas"]
                .iter()
                .any(|kw| schema.get(*kw).and_then(Value::as_object).is_some_and(|d| d.contains_key(k)));
            if let Some(s) = props.and_then(|p| p.get(k)) {
                known = true;
                self.value(x, s, path, depth + 1, false);
            }
            for (p, s) in patterns.into_iter().flatten() {
                match self.pattern(p, k, path) {
                    Some(true) => {
                        known = true;
                        self.value(x, s, path, depth + 1, false);
                    }
                    Some(false) => {}
                    // Not checked: nothing is invented about this key.
                    None => known = true,
                }
            }
            if !known {
                match additional {
                    Some(Value::Bool(false)) => self.extra(schema, path, Kind::Extra),
                    Some(s @ Value::Object(_)) => self.value(x, s, path, depth + 1, false),
                    None if declares && super::property(schema, k, self.root).is_none() => self.extra(schema, path, Kind::Undeclared),
                    _ => {}
                }
            }
            path.truncate(len);
        }
    }

    /// Issues of object `o` against `schema` (a schema dependency), as a branch.
    fn apart_object(&mut self, o: &Map, schema: &'a Value, path: &mut String, depth: usize) -> Vec<Issue> {
        let v = Value::Object(o.clone());
        self.apart(&v, schema, path, depth)
    }

    fn extra(&mut self, schema: &Value, path: &str, kind: Kind) {
        let mut names = Vec::new();
        declared_names(schema, self.root, 0, &mut names);
        let what = if path.bytes().filter(|&b| b == b'`').count() <= 2 { "parameter" } else { "property" };
        let mut list = String::new();
        for n in &names {
            list.push_str(if list.is_empty() { "`" } else { ", `" });
            list.push_str(n);
            list.push('`');
        }
        if list.is_empty() {
            list.push_str("none");
        }
        let why = if kind == Kind::Extra { "not allowed: not a declared" } else { "not a declared" };
        self.issue(kind, path, format!("{why} {what} (declared: {list})"));
    }

    /// Whether `s` matches ECMA-262 pattern `p`; `None` when the pattern cannot be checked (a
    /// note is given the first time, see `Kind::Unchecked`).
    fn pattern(&mut self, p: &str, s: &str, path: &str) -> Option<bool> {
        let shared = self.check.patterns.and_then(|ps| ps.get(p));
        if shared.is_none() && self.own.get(p).is_none() {
            self.own.collect_one(p);
            self.own_reported.resize(self.own.len(), Cell::new(false));
        }
        let (compiled, reported): (&Compiled, Option<&Cell<bool>>) = match shared {
            Some((i, c)) => (c, self.check.reported.get(i)),
            None => {
                let (i, c) = self.own.get(p)?;
                (c, self.own_reported.get(i))
            }
        };
        if let Some(r) = compiled.is_match(s) {
            return Some(r);
        }
        if !reported.is_some_and(|r| r.replace(true)) {
            let why = compiled.unsupported().unwrap_or("").to_string();
            let mut shown = String::new();
            crate::json::push_json_string(&mut shown, p);
            self.notes.push(Issue { kind: Kind::Unchecked, path: path.to_string(), message: format!("not checked: pattern {shown} ({why})") });
        }
        None
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
            let mut matched = Vec::new();
            for (i, s) in list.iter().enumerate() {
                let issues = self.apart(value, s, path, depth);
                if issues.is_empty() {
                    matched.push(i);
                    // `anyOf` needs one; `oneOf` must know whether there is a second.
                    if key == "anyOf" || matched.len() > 1 {
                        break;
                    }
                }
                failures.push(issues);
            }
            if matched.len() > 1 {
                self.issue(
                    Kind::Violation,
                    path,
                    format!("expected exactly one `oneOf` alternative to match, got #{} and #{} for {}", matched[0], matched[1], show(value)),
                );
                continue;
            }
            if !matched.is_empty() {
                continue;
            }
            // Alternatives of the value's type: one → its issues say most; none → a type issue.
            let mut typed = Vec::new();
            for (i, f) in failures.iter().enumerate() {
                if !is_root_type_failure(f, path) {
                    typed.push(i);
                }
            }
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
        if let Some(cond) = schema.get("if") {
            let branch = if self.apart(value, cond, path, depth).is_empty() { schema.get("then") } else { schema.get("else") };
            if let Some(b) = branch {
                let issues = self.apart(value, b, path, depth);
                self.out.extend(issues);
            }
        }
    }
}

fn push_index(path: &mut String, i: usize) {
    path.push('[');
    crate::event::push_usize(path, i);
    path.push(']');
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
        || super::any_branch(s, &mut |b| declares_properties(b, root, depth + 1))
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
    super::any_branch(s, &mut |b| {
        declared_names(b, root, depth + 1, out);
        false
    });
}

/// A value as JSON, shortened to about 40 characters.
fn show(v: &Value) -> String {
    let s = crate::json::to_text(v);
    if s.chars().count() <= 40 {
        return s;
    }
    let mut t: String = s.chars().take(37).collect();
    t.push('…');
    t
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
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
            (weather.clone(), json!({"city": "Paris", "unit": "C"}), vec![Undeclared]),
            (weather.clone(), json!({"city": 5, "x": 1}), vec![Type, Undeclared]),
            (json!({"type": "object", "properties": {"a": {}}, "additionalProperties": true}), json!({"b": 1}), vec![]),
            (json!({"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "string"}}), json!({"b": 1}), vec![Type]),
            (json!({"type": "object", "additionalProperties": false}), json!({"b": 1}), vec![Extra]),
            (json!({"type": "object"}), json!({"b": 1}), vec![]),
            (json!({"type": "object", "properties": {}, "patternProperties": {"^x_": {"type": "integer"}}}), json!({"x_a": 1, "y": 2}), vec![Undeclared]),
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
            (json!({"type": "string", "pattern": "^[A-Z]{3}$"}), json!("euro"), vec![Violation]),
            (json!({"type": "string", "pattern": "(?<=x)"}), json!("y"), vec![Unchecked]),
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
            (json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}), json!(3), vec![Violation]),
            (json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}), json!(3.5), vec![]),
            // The keywords of draft 2019-09/2020-12 and their draft-4 spellings.
            (json!({"type": "object", "properties": {}, "patternProperties": {"^x_": {"type": "integer"}}}), json!({"x_a": "1"}), vec![Type]),
            (json!({"type": "object", "patternProperties": {"^x_": {}}, "additionalProperties": false}), json!({"x_a": 1, "y": 2}), vec![Extra]),
            (json!({"dependencies": {"a": ["b"]}}), json!({"a": 1}), vec![Missing]),
            (json!({"dependentRequired": {"a": ["b"]}}), json!({"a": 1, "b": 2}), vec![]),
            (json!({"dependentSchemas": {"a": {"properties": {"b": {"type": "string"}}}}}), json!({"a": 1, "b": 2}), vec![Type]),
            (json!({"dependencies": {"a": {"required": ["c"]}}}), json!({"b": 1}), vec![]),
            (json!({"items": [{"type": "string"}], "additionalItems": false}), json!(["a", 1]), vec![Violation]),
            (json!({"items": [{"type": "string"}], "additionalItems": {"type": "integer"}}), json!(["a", 1, "x"]), vec![Type]),
            (json!({"prefixItems": [{"type": "string"}], "items": false}), json!(["a", 1]), vec![Violation]),
            (json!({"contains": {"type": "integer"}}), json!(["a", "b"]), vec![Violation]),
            (json!({"contains": {"type": "integer"}, "maxContains": 1}), json!([1, 2]), vec![Violation]),
            (json!({"propertyNames": {"maxLength": 2}}), json!({"abc": 1}), vec![Violation]),
            (json!({"if": {"properties": {"u": {"const": "f"}}}, "then": {"properties": {"t": {"maximum": 200}}}, "else": {"properties": {"t": {"maximum": 100}}}}), json!({"u": "f", "t": 150}), vec![]),
            (json!({"if": {"properties": {"u": {"const": "f"}}}, "then": {"properties": {"t": {"maximum": 200}}}, "else": {"properties": {"t": {"maximum": 100}}}}), json!({"u": "c", "t": 150}), vec![Violation]),
            (json!({"type": "object", "properties": {"u": {}}, "if": {"required": ["u"]}, "then": {"properties": {"t": {}}}}), json!({"u": 1, "t": 2}), vec![]),
            (json!({"type": "string", "format": "date"}), json!("2024-02-30"), vec![Violation]),
            (json!({"type": "string", "format": "color"}), json!("red"), vec![]),
            (json!({"$defs": {"A": {"type": "integer"}}, "$ref": "#/$defs/A"}), json!("x"), vec![Type]),
            (json!({"definitions": {"a b": {"type": "integer"}}, "$ref": "#/definitions/a%20b"}), json!("x"), vec![Type]),
            (json!({"allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]}), json!({"a": "x", "b": 1}), vec![]),
            (json!({"allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]}), json!({"a": "x", "c": 1}), vec![Undeclared, Missing]),
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
                (Undeclared, "`loc`.`lon`".into(), "not a declared property (declared: `lat`)".into()),
                (Violation, "`tags`[1]".into(), "expected at most 3 characters, got 4".into()),
                (Undeclared, "`zz`".into(), "not a declared parameter (declared: `days`, `loc`, `tags`)".into()),
            ]
        );
    }

    #[test]
    fn skip_required_and_recursion_bounds() {
        let schema = json!({"type": "object", "properties": {"a": {}}, "required": ["a"]});
        assert!(validate(&json!({}), &schema, &schema, Check { skip_required: true, ..Check::default() }).is_empty());
        // A schema that refers to itself without consuming the value terminates.
        let looped = json!({"anyOf": [{"$ref": "#"}, {"allOf": [{"$ref": "#"}]}]});
        let _ = validate(&json!(1), &looped, &looped, Check::default());
        let tree = json!({"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}}});
        assert!(validate(&json!({"kids": [{"kids": []}]}), &tree, &tree, Check::default()).is_empty());
        assert_eq!(kinds(tree, json!({"kids": [{"kids": [1]}]})), vec![Type]);
    }
}
