//! JSON: whole documents through serde_json (`Value`, `parse`), and what no library does for
//! us: a byte-level streaming validator (`scanner`), incremental writers (`emit`), and the call
//! readers built on them.
//!
//! `Value` is serde_json's, with `preserve_order` (objects keep their key order; a repeated key
//! keeps its first position and its last value, as `JSON.parse` does) and `arbitrary_precision`
//! (numbers keep their JSON text: nothing is lost or reformatted; `schema::number` compares
//! them as exact decimals).

use crate::prelude::*;
pub(crate) mod call;
pub(crate) mod emit;
pub(crate) mod named;
pub(crate) mod scanner;

pub(crate) use emit::{escape_of, needs_escape, push_escaped, simple_escape_value, push_json_string, unescape, unescape_into, unescaped, ObjectWriter};
pub use serde_json::{Number, Value};

/// A JSON object (keys in insertion order).
pub type Map = serde_json::Map<String, Value>;

/// `v.as_u64()`: a number written as digits only that fits, read by `text::parse_u64` (with
/// `arbitrary_precision` serde_json reads the number's text with std's `FromStr`, a routine per
/// integer type in the wasm).
pub(crate) fn as_u64(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => crate::text::parse_u64(n.as_str(), 10),
        _ => None,
    }
}

/// `n.is_i64() || n.is_u64()`: an integer in `-2^63 ..= 2^64 - 1` written without a fraction
/// or an exponent (through `text::parse_u64`, as `as_u64`).
pub(crate) fn is_integer(n: &Number) -> bool {
    let t = n.as_str();
    match t.strip_prefix('-') {
        Some(digits) => crate::text::parse_u64(digits, 10).is_some_and(|m| m <= 1 << 63),
        None => crate::text::parse_u64(t, 10).is_some(),
    }
}

/// Parses one JSON document (RFC 8259, whitespace around allowed, nesting under 128 deep).
/// The error names the line and column.
pub fn parse(text: &str) -> Result<Value, String> {
    use serde_core::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_str(text);
    let value = ValueSeed.deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    value.map_err(|e| e.to_string())
}

/// Builds a `Value` the way serde_json's own `Deserialize for Value` does (same syntax checks,
/// depth limit and messages), but only through `deserialize_any`: serde_json's impl also reaches
/// its typed-error path (`invalid type: floating point …`), which links core's float formatting
/// (about 7 KiB of wasm) that no document needs. With `arbitrary_precision`, a number arrives
/// as a one-entry map keyed by serde_json's private token whose value is the number's text; an
/// input object spelled that way is read as that number too, like serde_json does, when the
/// value is a number as serde_json writes it; any other value under that key (a non-string,
/// `"x"`, `"1E3"`) stays an ordinary object, as in `JSON.parse` (serde_json rejects or rewrites
/// it).
struct ValueSeed;

/// serde_json's map key marking a number (`arbitrary_precision`).
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

impl<'de> serde_core::de::DeserializeSeed<'de> for ValueSeed {
    type Value = Value;
    fn deserialize<D: serde_core::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// A map key as an owned string, read through `deserialize_any`.
struct KeySeed;

impl<'de> serde_core::de::DeserializeSeed<'de> for KeySeed {
    type Value = String;
    fn deserialize<D: serde_core::Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde_core::de::Visitor<'de> for KeySeed {
    type Value = String;
    fn expecting(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str("a string key")
    }
    fn visit_str<E: serde_core::de::Error>(self, s: &str) -> Result<String, E> {
        Ok(s.to_owned())
    }
    fn visit_string<E: serde_core::de::Error>(self, s: String) -> Result<String, E> {
        Ok(s)
    }
}

impl<'de> serde_core::de::Visitor<'de> for ValueSeed {
    type Value = Value;
    fn expecting(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E: serde_core::de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    // Numbers mostly arrive as text (`visit_map` below); a few (`0`) come binary.
    fn visit_i64<E: serde_core::de::Error>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }
    fn visit_u64<E: serde_core::de::Error>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }
    // Never called: with `arbitrary_precision`, serde_json's `deserialize_any` gives every
    // non-integer as text. A `Number` from an f64 would link float formatting, and an error
    // here would link serde_json's message parsing (about 1 KiB) for a path no input takes.
    fn visit_f64<E: serde_core::de::Error>(self, _: f64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_str<E: serde_core::de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }
    fn visit_string<E: serde_core::de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E: serde_core::de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: serde_core::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(ValueSeed)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: serde_core::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        let Some(first) = map.next_key_seed(KeySeed)? else { return Ok(Value::Object(members)) };
        let first_value = map.next_value_seed(ValueSeed)?;
        if first == NUMBER_TOKEN {
            if let Value::String(text) = &first_value {
                if number_end(text.as_bytes(), 0) == Some(text.len()) {
                    // The text is a number as serde_json's scanner writes it, which is what its
                    // `FromStr` would give back; that `FromStr` also links float formatting
                    // (zmij, about 3 KiB of gzip wasm) for a branch `arbitrary_precision` never
                    // takes. `from_string_unchecked` is public but hidden: the checked spelling
                    // above is its contract.
                    return Ok(Value::Number(Number::from_string_unchecked(text.clone())));
                }
            }
        }
        members.insert(first, first_value);
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let v = map.next_value_seed(ValueSeed)?;
            members.insert(key, v);
        }
        Ok(Value::Object(members))
    }
}

/// The end of the JSON number at `i` spelled as serde_json writes it (`arbitrary_precision`
/// keeps that text): `-?(0|[1-9][0-9]*)(\.[0-9]+)?(e[+-][0-9]+)?`. `None` when there is none.
pub(crate) fn number_end(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |b: &[u8], mut i: usize| {
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > start).then_some(i)
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    i = match b.get(i)? {
        b'0' => i + 1,
        b'1'..=b'9' => digits(b, i)?,
        _ => return None,
    };
    if b.get(i) == Some(&b'.') {
        i = digits(b, i + 1)?;
    }
    // serde_json writes an exponent as `e` and a sign (`1E3` as `1e+3`).
    if matches!(b.get(i), Some(b'e' | b'E')) {
        if b[i] == b'E' || !matches!(b.get(i + 1), Some(b'+' | b'-')) {
            return None;
        }
        i = digits(b, i + 2)?;
    }
    Some(i)
}

/// Appends the compact JSON text of `v`: the bytes serde_json's `v.to_string()` gives (keys in
/// order, numbers as their text, strings escaped as `push_json_string` does). Ours rather than
/// serde_json's `Display`, which links its pretty printer and `core::fmt` plumbing into the wasm.
pub fn write_value(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(n.as_str()),
        Value::String(s) => push_json_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json_string(out, k);
                out.push(':');
                write_value(item, out);
            }
            out.push('}');
        }
    }
}

/// The compact JSON text of `v` (`write_value` into a new string).
pub fn to_text(v: &Value) -> String {
    let mut s = String::new();
    write_value(v, &mut s);
    s
}

/// `json!` for unit tests.
#[cfg(test)]
pub(crate) use serde_json::json;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_u64_and_is_integer_are_serde_jsons() {
        let nums = ["0", "-0", "7", "-7", "1.0", "1e2", "-1E2", "0.5", "18446744073709551615", "18446744073709551616", "9223372036854775807", "-9223372036854775808", "-9223372036854775809", "123456789012345678901234567890"];
        for t in nums {
            let v = parse(t).unwrap();
            assert_eq!(as_u64(&v), v.as_u64(), "{t}");
            let Value::Number(n) = &v else { panic!("{t}") };
            assert_eq!(is_integer(n), n.is_i64() || n.is_u64(), "{t}");
        }
        assert_eq!(as_u64(&Value::from("5")), None);
    }

    #[test]
    fn write_value_gives_serde_jsons_text() {
        let docs = [
            r#"{"b":[1,-2.50,1e+3,true,false,null],"a":{"":""},"s":"q\"\\\u0000\u001f\u007f\b\f\n\r\t/é😀"}"#,
            r#"[]"#,
            r#"{}"#,
            r#"[[[{"x":[{}]}]],"\ud83d\ude00",12345678901234567890123]"#,
            r#""\u2028""#,
            r#"0"#,
        ];
        for doc in docs {
            let v = parse(doc).unwrap();
            assert_eq!(to_text(&v), v.to_string(), "{doc}");
        }
    }
}
