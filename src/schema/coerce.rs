//! vLLM's type ladder: turning parameter values given as text (XML, key-value formats) into
//! JSON of the declared type.
//!
//! The rule (vLLM's): with no schema, or a schema that names no type, a value
//! stays a string. Otherwise the allowed types are tried in the order null > integer > number >
//! boolean > object > array > string and the first that accepts the text wins. When none does,
//! the text is parsed as JSON if that works and `string` is not allowed, else kept as a string;
//! either way `Coerced::ok` is false so the caller can report `type_coercion`. Coercion never
//! fails and never drops a value.

use crate::prelude::*;
use super::number::Decimal;
use super::{items, property, resolve, types, Ty, Types};
use crate::json::{Map, Number, Value};

/// A coerced value.
#[derive(Clone, Debug, PartialEq)]
pub struct Coerced {
    pub value: Value,
    /// False when the value matches none of the declared types (raw value kept).
    pub ok: bool,
}

/// Coerces a textual value by `schema` (`None`: no schema, stays a string).
pub fn coerce_text(text: &str, schema: Option<&Value>, root: &Value) -> Coerced {
    coerce_typed(text, schema.map(|s| types(s, root)).unwrap_or_default(), schema, root)
}

/// `coerce_text` with the types `schema` allows known already (`allowed`); `schema` is read
/// only for an object or array value.
pub fn coerce_typed(text: &str, allowed: Types, schema: Option<&Value>, root: &Value) -> Coerced {
    if allowed.is_empty() {
        return Coerced { value: Value::String(text.to_string()), ok: true };
    }
    for ty in allowed.iter() {
        if let Some(v) = try_as(text, ty) {
            let v = match (ty, schema) {
                (Ty::Object | Ty::Array, Some(s)) => coerce_value(&v, s, root).value,
                _ => v,
            };
            return Coerced { value: v, ok: true };
        }
    }
    if !allowed.has(Ty::String) {
        if let Some(v) = finite_json(text) {
            return Coerced { value: v, ok: false };
        }
    }
    Coerced { value: Value::String(text.to_string()), ok: false }
}

/// Coerces a JSON value by `schema`: strings go through the ladder; other values of a type the
/// schema does not allow are re-serialised and coerced (a number under `string` becomes "5");
/// objects and arrays are coerced member by member.
pub fn coerce_value(v: &Value, schema: &Value, root: &Value) -> Coerced {
    let allowed = types(schema, root);
    let s = resolve(schema, root).unwrap_or(schema);
    match v {
        Value::String(text) => {
            if allowed.is_empty() || allowed.has(Ty::String) {
                return Coerced { value: v.clone(), ok: true };
            }
            coerce_text(text, Some(schema), root)
        }
        _ if !allowed.is_empty() && !type_allowed(v, allowed) => {
            let text = match v {
                Value::Null => "null".to_string(),
                other => crate::json::to_text(other),
            };
            coerce_text(&text, Some(schema), root)
        }
        Value::Object(m) => {
            let mut ok = true;
            let mut out = Map::new();
            for (k, x) in m {
                match property(s, k, root) {
                    Some(ps) => {
                        let c = coerce_value(x, ps, root);
                        ok &= c.ok;
                        out.insert(k.clone(), c.value);
                    }
                    None => {
                        out.insert(k.clone(), x.clone());
                    }
                }
            }
            Coerced { value: Value::Object(out), ok }
        }
        Value::Array(a) => match items(s, root) {
            Some(is) => {
                let mut ok = true;
                let mut out = Vec::with_capacity(a.len());
                for x in a {
                    let c = coerce_value(x, is, root);
                    ok &= c.ok;
                    out.push(c.value);
                }
                Coerced { value: Value::Array(out), ok }
            }
            None => Coerced { value: v.clone(), ok: true },
        },
        _ => Coerced { value: v.clone(), ok: true },
    }
}

/// JSON Schema typing: integers are numbers, and integral floats (`2.0`) are integers.
fn type_allowed(v: &Value, allowed: Types) -> bool {
    match Ty::of(v) {
        Ty::Integer => allowed.has(Ty::Integer) || allowed.has(Ty::Number),
        Ty::Number if v.as_number().is_some_and(Number::is_integral) => allowed.has(Ty::Integer) || allowed.has(Ty::Number),
        t => allowed.has(t),
    }
}

fn try_as(text: &str, ty: Ty) -> Option<Value> {
    match ty {
        Ty::Null => text.trim().eq_ignore_ascii_case("null").then_some(Value::Null),
        Ty::Integer => py_int(text).map(int_value),
        Ty::Number => py_int(text).map(int_value).or_else(|| py_float(text).map(Value::Number)),
        Ty::Boolean => match text.trim().to_ascii_lowercase().as_str() {
            "true" | "1" => Some(Value::Bool(true)),
            "false" | "0" => Some(Value::Bool(false)),
            _ => None,
        },
        Ty::Object => finite_json(text).filter(Value::is_object),
        Ty::Array => finite_json(text).filter(Value::is_array),
        Ty::String => Some(Value::String(text.to_string())),
    }
}

/// `text` parsed as JSON when every number in it is a finite f64 (vLLM: `json.loads` output
/// "containing only finite numbers"; `1e400` is not one).
fn finite_json(text: &str) -> Option<Value> {
    fn finite(v: &Value) -> bool {
        match v {
            Value::Number(n) => n.is_finite(),
            Value::Array(a) => a.iter().all(finite),
            Value::Object(m) => m.values().all(finite),
            _ => true,
        }
    }
    crate::json::parse(text).ok().filter(finite)
}

/// JSON for an integer given as normalised digits (`-` allowed), exactly.
fn int_value(digits: String) -> Value {
    Number::from_text(&digits).map(Value::Number).unwrap_or(Value::String(digits))
}

/// Python `int(text)`: surrounding whitespace, an optional sign, digits with single underscores
/// between them. Returns normalised digits (no `+`, no underscores, no leading zeros).
pub fn py_int(text: &str) -> Option<String> {
    let t = text.trim();
    let (neg, body) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = digits_with_underscores(body)?;
    let digits = digits.trim_start_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    Some(if neg && digits != "0" { format!("-{digits}") } else { digits.to_string() })
}

/// Digits with single underscores between them, underscores removed.
fn digits_with_underscores(s: &str) -> Option<String> {
    let b = s.as_bytes();
    if b.is_empty() || !b[0].is_ascii_digit() || !b[b.len() - 1].is_ascii_digit() {
        return None;
    }
    let mut out = String::with_capacity(b.len());
    let mut prev_us = false;
    for &c in b {
        if c == b'_' {
            if prev_us {
                return None;
            }
            prev_us = true;
        } else if c.is_ascii_digit() {
            prev_us = false;
            out.push(c as char);
        } else {
            return None;
        }
    }
    Some(out)
}

/// Python `float(text)` restricted to finite values, as JSON number text: integral values
/// are integers (vLLM returns an int), others decimals. Computed on the digits, so nothing is
/// rounded (`0.1` stays `0.1`) and no float formatting is needed. `None` for text Python
/// would reject, and for `inf`/`nan` and values beyond the f64 range.
pub fn py_float(text: &str) -> Option<Number> {
    let t = text.trim();
    let (neg, body) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = crate::text::split_once_byte(mantissa, b'.').unwrap_or((mantissa, ""));
    let int_d = if int.is_empty() { String::new() } else { digits_with_underscores(int)? };
    let frac_d = if frac.is_empty() { String::new() } else { digits_with_underscores(frac)? };
    if int_d.is_empty() && frac_d.is_empty() {
        return None;
    }
    let exp: i64 = match exp {
        None => 0,
        Some(e) => {
            let (eneg, ed) = match e.as_bytes().first()? {
                b'-' => (true, &e[1..]),
                b'+' => (false, &e[1..]),
                _ => (false, e),
            };
            let ed = digits_with_underscores(ed)?;
            let ed = ed.trim_start_matches('0');
            // Far beyond the f64 range either way; clamp.
            let n: i64 = if ed.len() > 6 { 1_000_000 } else { crate::text::parse_u64(ed, 10).map_or(0, |n| n as i64) };
            if eneg { -n } else { n }
        }
    };
    // value = 0.DIGITS × 10^point
    let all = format!("{int_d}{frac_d}");
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all[lead..].trim_end_matches('0');
    if digits.is_empty() {
        return Number::from_text("0");
    }
    let point = int_d.len() as i64 - lead as i64 + exp;
    if point > 309 {
        return None; // overflows f64: Python gives inf
    }
    if point < -330 {
        return Number::from_text("0"); // underflows to 0.0, an integral value
    }
    let n = digits.len() as i64;
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if point >= n {
        out.push_str(digits);
        out.extend(core::iter::repeat_n('0', (point - n) as usize));
    } else if point > 0 {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    } else if point > -20 {
        out.push_str("0.");
        out.extend(core::iter::repeat_n('0', (-point) as usize));
        out.push_str(digits);
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push_str(&(point - 1).to_string());
    }
    Number::from_text(&out)
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;
    use crate::json::json;

    fn c(text: &str, schema: Value) -> (Value, bool) {
        let r = coerce_text(text, Some(&schema), &schema);
        (r.value, r.ok)
    }

    #[test]
    fn ladder_table() {
        let cases: &[(&str, Value, Value, bool)] = &[
            ("42", json!({"type": "integer"}), json!(42), true),
            (" +4_2 ", json!({"type": "int"}), json!(42), true),
            ("007", json!({"type": "integer"}), json!(7), true),
            ("4.5", json!({"type": "integer"}), json!(4.5), false),
            ("abc", json!({"type": "integer"}), json!("abc"), false),
            ("3.0", json!({"type": "number"}), json!(3), true),
            ("1e3", json!({"type": "float"}), json!(1000), true),
            ("0.25", json!({"type": "number"}), json!(0.25), true),
            (".5", json!({"type": "double"}), json!(0.5), true),
            ("inf", json!({"type": "number"}), json!("inf"), false),
            ("nan", json!({"type": "number"}), json!("nan"), false),
            ("True", json!({"type": "boolean"}), json!(true), true),
            ("0", json!({"type": "bool"}), json!(false), true),
            ("yes", json!({"type": "boolean"}), json!("yes"), false),
            ("NULL", json!({"type": ["string", "null"]}), json!(null), true),
            ("null", json!({"type": "string"}), json!("null"), true),
            ("42", json!({"type": "string"}), json!("42"), true),
            ("{\"a\": 1}", json!({"type": "object"}), json!({"a": 1}), true),
            ("[1, 2]", json!({"type": "array"}), json!([1, 2]), true),
            ("[1, 2]", json!({"type": "object"}), json!([1, 2]), false),
            ("5", json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}), json!(5), true),
            ("x", json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}), json!("x"), true),
            ("b", json!({"enum": ["a", "b"]}), json!("b"), true),
            ("2", json!({"enum": [1, 2]}), json!(2), true),
            ("hi", json!({}), json!("hi"), true),
            ("12345678901234567890", json!({"type": "integer"}), json!(12345678901234567890u64), true),
            // vLLM's cases: trimming, signs and underscores (Python `int`/`float`).
            (" null ", json!({"type": ["integer", "null"]}), json!(null), true),
            ("-0", json!({"type": "integer"}), json!(0), true),
            (" 12 ", json!({"type": "long"}), json!(12), true),
            ("1_000", json!({"type": "integer"}), json!(1000), true),
            ("1__0", json!({"type": "integer"}), json!("1__0"), false),
            ("_1", json!({"type": "integer"}), json!("_1"), false),
            ("-2.50", json!({"type": "float64"}), json!(-2.5), true),
            ("1_0.5", json!({"type": "number"}), json!(10.5), true),
            ("1e400", json!({"type": "number"}), json!("1e400"), false),
            ("-inf", json!({"type": "number"}), json!("-inf"), false),
            (" TRUE ", json!({"type": "boolean"}), json!(true), true),
            // Priority null > integer > number > boolean > object > array > string.
            ("5", json!({"type": ["string", "integer"]}), json!(5), true),
            ("1", json!({"type": ["boolean", "integer"]}), json!(1), true),
            ("0", json!({"type": ["boolean", "number"]}), json!(0), true),
            ("true", json!({"type": ["boolean", "string"]}), json!(true), true),
            ("null", json!({"enum": ["a", null]}), json!(null), true),
            ("[1]", json!({"type": ["object", "array"]}), json!([1]), true),
            // No type matches: JSON when `string` is not allowed, else the raw text.
            ("[1]", json!({"type": "integer"}), json!([1]), false),
            ("\"x\"", json!({"type": "integer"}), json!("x"), false),
            ("{bad", json!({"type": "object"}), json!("{bad"), false),
            // Aliases and schemas without type information.
            ("{\"a\": 1}", json!({"type": "dict"}), json!({"a": 1}), true),
            ("[1]", json!({"type": "sequence"}), json!([1]), true),
            ("[1]", json!({"type": "list"}), json!([1]), true),
            ("5", json!({"type": "frobnicate"}), json!("5"), true),
            ("5", json!({"description": "a count"}), json!("5"), true),
            ("7", json!({"allOf": [{"type": "integer"}]}), json!(7), true),
            ("7", json!({"oneOf": [{"type": "string"}, {"type": "int32"}]}), json!(7), true),
        ];
        for (text, schema, want, ok) in cases {
            assert_eq!(c(text, schema.clone()), (want.clone(), *ok), "{text} as {schema}");
        }
    }

    #[test]
    fn no_schema_stays_string() {
        assert_eq!(coerce_text("42", None, &json!({})).value, json!("42"));
    }

    #[test]
    fn nested_and_non_string_values() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}, "l": {"type": "array", "items": {"type": "number"}}}});
        let r = coerce_value(&json!({"n": "5", "s": 5, "l": ["1.5", 2], "x": "keep"}), &schema, &schema);
        assert_eq!(r.value, json!({"n": 5, "s": "5", "l": [1.5, 2], "x": "keep"}));
        assert!(r.ok);
        let r = coerce_text("{\"n\": \"7\"}", Some(&schema), &schema);
        assert_eq!(r.value, json!({"n": 7}));
        // Non-string values are re-serialised and coerced.
        let s = json!({"type": "string"});
        assert_eq!(coerce_value(&json!(true), &s, &s), Coerced { value: json!("true"), ok: true });
        let i = json!({"type": "integer"});
        assert_eq!(coerce_value(&json!(null), &i, &i), Coerced { value: json!(null), ok: false });
        assert_eq!(coerce_value(&json!(2.0), &i, &i), Coerced { value: json!(2.0), ok: true });
        let n = json!({"type": "number"});
        assert_eq!(coerce_value(&json!(3), &n, &n), Coerced { value: json!(3), ok: true });
    }

    #[test]
    fn refs() {
        let root = json!({"properties": {"a": {"$ref": "#/$defs/Int"}}, "$defs": {"Int": {"type": "integer"}}});
        let a = property(&root, "a", &root).unwrap();
        assert_eq!(coerce_text("9", Some(a), &root).value, json!(9));
    }
}
