//! A fast "no issue" answer for the most common tool schema: an object whose properties are
//! typed by `type` alone (`{"type": "object", "properties": {"city": {"type": "string"}},
//! "required": ["city"]}`), read once per tool. `FlatSchema::passes` checks a call's arguments
//! text against it without building a `Value` (a whole file in a string argument is skipped,
//! not copied); when it cannot say "no issue" (any problem, anything unusual in the text), the
//! caller runs the full validator (`validate`), so the diagnostics are exactly the full
//! validator's.
//!
//! Why "no issue" is the full validator's answer too, when `passes` says so: the schema keys
//! allowed here are the ones `validate` reads for such a schema plus annotations it ignores; the
//! arguments are an object whose keys are distinct, unescaped, declared (or allowed by
//! `additionalProperties`) and cover `required`; each value's JSON type is one its property
//! allows. Text that `json::parse` rejects gets no issue from the full validator either, so the
//! skipping below only has to be right on valid JSON.

use crate::prelude::*;
use super::{Ty, Types};
use crate::json::Value;

/// An object schema whose properties are typed by `type` alone (see the module docs).
#[derive(Clone, Debug)]
pub struct FlatSchema {
    /// Declared properties: name and allowed types (empty: any).
    props: Vec<(String, Types)>,
    /// The required ones: bit `i` for `props[i]`.
    required: u64,
    /// Whether a key not in `properties` is allowed without an issue: `additionalProperties:
    /// true`, or absent when no `properties` is declared.
    others_allowed: bool,
}

/// The keys a flat schema's root may have; a property's from `PROPERTY_KEYS` on (`type` and
/// annotations, which `validate` does not read).
const KEYS: [&str; 10] = ["properties", "required", "additionalProperties", "$schema", "type", "description", "title", "default", "examples", "$comment"];
const PROPERTY_KEYS: usize = 4;
/// At most this many properties (a `u64` of seen keys).
const MAX_PROPS: usize = 64;
/// Nesting deeper than this is not skipped here (the full validator decides).
const MAX_DEPTH: usize = 64;
/// A key that `json::parse` reads as a number (`arbitrary_precision`, see `json::ValueSeed`):
/// an object holding it is not what it looks like here.
const NUMBER_TOKEN: &[u8] = b"$serde_json::private::Number";

impl FlatSchema {
    /// The flat reading of a tool's `parameters`, or `None` when the schema uses anything else.
    pub fn of(schema: &Value) -> Option<FlatSchema> {
        let root = schema.as_object().filter(|o| only(o, &KEYS))?;
        if root.get("type").is_some_and(|t| t.as_str() != Some("object")) {
            return None;
        }
        let mut props = Vec::new();
        if let Some(p) = root.get("properties") {
            for (name, p) in p.as_object()? {
                // A property schema of `type` and annotations only: the types it allows (empty:
                // any; unknown type names are left out, as by the full validator).
                p.as_object().filter(|o| only(o, &KEYS[PROPERTY_KEYS..]))?;
                props.push((name.clone(), super::types(p, p)));
            }
        }
        if props.len() > MAX_PROPS {
            return None;
        }
        // A required property that is not declared: not flat.
        let mut required = 0;
        if let Some(r) = root.get("required") {
            for r in r.as_array()? {
                required |= 1 << props.iter().position(|(n, _)| Some(n.as_str()) == r.as_str())?;
            }
        }
        let others_allowed = match root.get("additionalProperties") {
            None => !root.contains_key("properties"),
            Some(Value::Bool(b)) => *b,
            Some(_) => return None,
        };
        Some(FlatSchema { props, required, others_allowed })
    }

    /// The types property `key` allows (empty: any, or not declared).
    pub fn types_of(&self, key: &str) -> Types {
        self.props.iter().find(|(n, _)| n == key).map_or(Types::NONE, |(_, t)| *t)
    }

    /// True when the full validator finds no issue in `args` (see the module docs); false when
    /// it may find one. `repaired`: `required` is not checked.
    pub fn passes(&self, args: &str, repaired: bool) -> bool {
        let b = args.as_bytes();
        let mut at = ws(b, 0);
        if b.get(at) != Some(&b'{') {
            return false;
        }
        at = ws(b, at + 1);
        let mut seen = 0u64;
        if b.get(at) == Some(&b'}') {
            return repaired || seen & self.required == self.required;
        }
        loop {
            if b.get(at) != Some(&b'"') {
                return false;
            }
            let Some(end) = string_end(b, at + 1) else { return false };
            let key = &b[at + 1..end];
            if key.contains(&b'\\') {
                return false;
            }
            let allowed = match self.props.iter().position(|(n, _)| n.as_bytes() == key) {
                Some(i) => {
                    if seen & (1 << i) != 0 {
                        return false;
                    }
                    seen |= 1 << i;
                    Some(self.props[i].1)
                }
                None if self.others_allowed => None,
                None => return false,
            };
            at = ws(b, end + 1);
            if b.get(at) != Some(&b':') {
                return false;
            }
            at = ws(b, at + 1);
            let Some((found, next)) = skip_value(b, at, 0) else { return false };
            if allowed.is_some_and(|t| t.0 != 0 && t.0 & found.0 == 0) {
                return false;
            }
            at = ws(b, next);
            match b.get(at) {
                Some(b',') => at = ws(b, at + 1),
                Some(b'}') => return repaired || seen & self.required == self.required,
                _ => return false,
            }
        }
    }
}

/// True when every key of `o` is one of `keys`.
fn only(o: &crate::json::Map, keys: &[&str]) -> bool {
    o.len() == keys.iter().filter(|k| o.contains_key(**k)).count()
}

fn ws(b: &[u8], mut at: usize) -> usize {
    while b.get(at).is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The offset of the closing quote of the string whose body starts at `at`, or `None` (not
/// closed, or `NUMBER_TOKEN`).
fn string_end(b: &[u8], mut at: usize) -> Option<usize> {
    use crate::text::{scan_until, Stops};
    let start = at;
    loop {
        at = scan_until(b, at, Stops::bytes(b'"', b'\\'));
        match b.get(at)? {
            b'"' => return (&b[start..at] != NUMBER_TOKEN).then_some(at),
            _ => at += 2,
        }
    }
}

/// The types of the value starting at `at` (a number without a fraction or an exponent is an
/// integer and a number, as in `has_type`) and the offset after it, or `None` (not skipped).
fn skip_value(b: &[u8], at: usize, depth: usize) -> Option<(Types, usize)> {
    let c = *b.get(at)?;
    let one = |t: Ty| Types::NONE.with(t);
    Some(match c {
        b'"' => (one(Ty::String), string_end(b, at + 1)? + 1),
        b'{' | b'[' => (one(if c == b'{' { Ty::Object } else { Ty::Array }), skip_nested(b, at, depth)?),
        b't' => (one(Ty::Boolean), literal(b, at, b"true")?),
        b'f' => (one(Ty::Boolean), literal(b, at, b"false")?),
        b'n' => (one(Ty::Null), literal(b, at, b"null")?),
        b'-' | b'0'..=b'9' => {
            let mut end = at + 1;
            let mut integral = true;
            while let Some(&c) = b.get(end) {
                match c {
                    b'0'..=b'9' | b'-' | b'+' => {}
                    b'.' | b'e' | b'E' => integral = false,
                    _ => break,
                }
                end += 1;
            }
            (if integral { one(Ty::Integer).with(Ty::Number) } else { one(Ty::Number) }, end)
        }
        _ => return None,
    })
}

fn literal(b: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    b[at..].starts_with(word).then_some(at + word.len())
}

/// The offset after the object or array starting at `at` (its strings skipped whole, its
/// other bytes one by one), or `None`.
fn skip_nested(b: &[u8], mut at: usize, depth: usize) -> Option<usize> {
    let mut open = 0usize;
    loop {
        match *b.get(at)? {
            b'"' => {
                let end = string_end(b, at + 1)?;
                // A key spelled with escapes may be `NUMBER_TOKEN`.
                if b[at + 1..end].contains(&b'\\') && b.get(ws(b, end + 1)) == Some(&b':') {
                    return None;
                }
                at = end;
            }
            b'{' | b'[' => {
                open += 1;
                if depth + open > MAX_DEPTH {
                    return None;
                }
            }
            b'}' | b']' => {
                open -= 1;
                if open == 0 {
                    return Some(at + 1);
                }
            }
            _ => {}
        }
        at += 1;
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;
    use crate::json::json;
    use crate::schema::validate::{validate, Check};

    /// `passes` never says "no issue" where the full validator finds one, and says it for the
    /// plain valid calls.
    #[test]
    fn agrees_with_the_full_validator() {
        let schemas = [
            json!({"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}),
            json!({"required": ["a"], "properties": {"a": {"type": ["number", "null"], "description": "x"}, "b": {"type": "object"}}, "additionalProperties": false}),
            json!({"type": "object", "properties": {"a": {"type": "array"}, "b": {"type": "boolean"}, "c": {}}, "additionalProperties": true}),
            json!({"type": "object"}),
            json!({"type": "object", "properties": {"a": {"type": ["strang", "string"]}, "b": {"type": "strang"}}}),
        ];
        let args = [
            r#"{"city": "Paris", "days": 3}"#,
            r#"{"city": "Pa\"ris\\", "days": 3.5}"#,
            r#"{"city": "Paris", "days": 3e2}"#,
            r#"{"days": 3}"#,
            r#"{}"#,
            r#" { "a" : null , "b" : {"x": [1, "]"]} } "#,
            r#"{"a": 1, "a": 2}"#,
            r#"{"a": 1.5, "b": []}"#,
            r#"{"a": [1, {"b": "}"}], "b": true, "c": "x"}"#,
            r#"{"a": [], "b": false, "x": 1}"#,
            r#"{"a": {"$serde_json::private::Number": "1"}}"#,
            r#"{"b": {"$serde_json::private::Numb\u0065r": "1"}}"#,
            r#"{"$serde_json::private::Number": "1"}"#,
            r#"{"c\u0069ty": "Paris"}"#,
            r#"{"city": "Paris", "x": 1}"#,
            r#"{"city": "Paris",}"#,
            r#"["city"]"#,
            r#"{"city": "Paris"} x"#,
            r#"{"city": tru}"#,
        ];
        let mut passed = 0;
        for schema in &schemas {
            let flat = FlatSchema::of(schema).unwrap();
            for a in args {
                for repaired in [false, true] {
                    if !flat.passes(a, repaired) {
                        continue;
                    }
                    passed += 1;
                    let check = Check { skip_required: repaired, ..Check::default() };
                    if let Ok(value) = crate::json::parse(a) {
                        assert_eq!(validate(&value, schema, schema, check), vec![], "{schema} {a}");
                    }
                }
            }
        }
        assert!(passed >= 12, "{passed}");
        let get_weather = FlatSchema::of(&schemas[0]).unwrap();
        assert!(get_weather.passes(r#"{"city": "Pa\"ris", "days": 3}"#, false));
        assert!(!get_weather.passes(r#"{"days": 3}"#, false) && get_weather.passes(r#"{"days": 3}"#, true));
    }

    /// The same, over generated objects: every subset of keys in two orders, with values of
    /// every type (escapes, nesting, numbers spelled several ways).
    #[test]
    fn agrees_on_generated_arguments() {
        let schema = json!({"type": "object", "properties": {"s": {"type": "string"}, "i": {"type": "int"}, "n": {"type": ["number", "boolean"]}, "o": {"type": ["object", "array", "null"]}, "any": {"title": "t"}}, "required": ["s", "i"]});
        let flat = FlatSchema::of(&schema).unwrap();
        let keys = ["s", "i", "n", "o", "any", "x"];
        let values = [r#""a\"b\\""#, "7", "-0", "2.0", "1e3", "true", "null", r#"{"k": ["]", {"}": 1}]}"#, "[]", r#""""#];
        let (mut passed, mut seed) = (0, 1u32);
        for mask in 0u32..64 {
            for reverse in [false, true] {
                let mut picked: Vec<&str> = keys.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, k)| *k).collect();
                if reverse {
                    picked.reverse();
                }
                for _ in 0..8 {
                    let fields: Vec<String> = picked.iter().map(|k| {
                        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                        format!("\"{k}\": {}", values[(seed >> 16) as usize % values.len()])
                    }).collect();
                    let args = format!("{{{}}}", fields.join(", "));
                    for repaired in [false, true] {
                        if flat.passes(&args, repaired) {
                            passed += 1;
                            let check = Check { skip_required: repaired, ..Check::default() };
                            assert_eq!(validate(&crate::json::parse(&args).unwrap(), &schema, &schema, check), vec![], "{args}");
                        }
                    }
                }
            }
        }
        assert!(passed > 20, "{passed}");
    }

    #[test]
    fn only_flat_schemas() {
        for s in [
            json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/x"}}}),
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            json!({"type": "array"}),
            json!({"anyOf": []}),
            json!(true),
        ] {
            assert!(FlatSchema::of(&s).is_none(), "{s}");
        }
    }
}
