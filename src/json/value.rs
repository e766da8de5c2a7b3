//! A small JSON value: what the core needs of a JSON tree (tool schemas, options, coerced
//! values, SSE chunks), without a serialization framework.
//!
//! - Objects keep their key order (a proxy passes fields through as they came); a repeated key
//!   keeps its first position and its last value, as `JSON.parse` does.
//! - Numbers keep their JSON text: nothing is lost or reformatted, and no float formatting code
//!   is needed. `as_f64`/`as_i64`/`as_u64` read them when a comparison needs it.
//! - `parse` accepts exactly RFC 8259 JSON (surrounding whitespace allowed), nesting at most
//!   `MAX_DEPTH` deep; errors name the byte offset.
//! - `Display` writes compact JSON (`{"a":1,"b":[true]}`).

use crate::json::write::{push_json_string, unescape};
use core::fmt;

/// Deepest nesting `parse` accepts.
pub const MAX_DEPTH: usize = 128;

#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Value>),
    Object(Map),
}

/// A JSON number, as its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Number(Box<str>);

impl Number {
    /// A number from JSON number text; `None` when `text` is not one.
    pub fn from_text(text: &str) -> Option<Number> {
        match parse(text) {
            Ok(Value::Number(n)) => Some(n),
            _ => None,
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when the text is an integer (no fraction or exponent).
    pub fn is_integer_text(&self) -> bool {
        !self.0.contains(['.', 'e', 'E'])
    }

    pub fn as_i64(&self) -> Option<i64> {
        if self.is_integer_text() { self.0.parse().ok() } else { None }
    }

    pub fn as_u64(&self) -> Option<u64> {
        if self.is_integer_text() { self.0.parse().ok() } else { None }
    }

    /// The value as a decimal (see `Dec`).
    fn dec(&self) -> Dec {
        Dec::of(&self.0)
    }

    /// True when the value has no fractional part (`2`, `2.0`, `1e3`).
    pub fn is_integral(&self) -> bool {
        let d = self.dec();
        d.point >= d.digits.len() as i64
    }

    /// True when the value is within the f64 range (`1e400` is not).
    pub fn is_finite(&self) -> bool {
        let d = self.dec();
        d.digits.is_empty() || d.point < 309 || (d.point == 309 && d.digits.as_slice() <= b"17976931348623157".as_slice())
    }

    /// Compares values exactly (`1` == `1.0` == `10e-1`).
    pub fn cmp_value(&self, other: &Number) -> core::cmp::Ordering {
        self.dec().cmp(&other.dec())
    }

    /// Whether the value is an integer multiple of `m` (exact decimal arithmetic). `None` when `m`
    /// is not positive or the numbers are too large to tell cheaply.
    pub fn is_multiple_of(&self, m: &Number) -> Option<bool> {
        let (x, m) = (self.dec(), m.dec());
        if m.neg || m.digits.is_empty() {
            return None;
        }
        if x.digits.is_empty() {
            return Some(true);
        }
        // x = X × 10^ex and m = M × 10^em with X, M the digit strings as integers.
        let ex = x.point - x.digits.len() as i64;
        let em = m.point - m.digits.len() as i64;
        let mut modulus = Dec::small_int(&m.digits)?;
        let shift = ex - em;
        for _ in 0..(-shift).clamp(0, 19) {
            modulus = modulus.checked_mul(10)?;
        }
        if shift < -19 {
            return None;
        }
        let mut r: u128 = 0;
        for d in &x.digits {
            r = (r * 10 + (d - b'0') as u128) % modulus as u128;
        }
        for _ in 0..shift.clamp(0, 1000) {
            r = r * 10 % modulus as u128;
        }
        Some(r == 0)
    }

    pub fn is_i64(&self) -> bool {
        self.as_i64().is_some()
    }

    pub fn is_u64(&self) -> bool {
        self.as_u64().is_some()
    }
}

impl From<i64> for Number {
    fn from(n: i64) -> Number {
        let mut s = String::new();
        if n < 0 {
            s.push('-');
        }
        crate::event::push_u64(&mut s, n.unsigned_abs());
        Number(s.into())
    }
}

impl From<u64> for Number {
    fn from(n: u64) -> Number {
        let mut s = String::new();
        crate::event::push_u64(&mut s, n);
        Number(s.into())
    }
}

/// A JSON number as an exact decimal: value = ±0.DIGITS × 10^point, `digits` without leading
/// or trailing zeros (empty for zero). Comparing these needs no float parsing code.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Dec {
    neg: bool,
    digits: Vec<u8>,
    point: i64,
}

impl Dec {
    /// From valid JSON number text.
    fn of(text: &str) -> Dec {
        let (neg, t) = match text.strip_prefix('-') {
            Some(t) => (true, t),
            None => (false, text),
        };
        let (mantissa, exp) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], &t[i + 1..]),
            None => (t, ""),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let exp = {
            let (eneg, e) = match exp.as_bytes().first() {
                Some(b'-') => (true, &exp[1..]),
                Some(b'+') => (false, &exp[1..]),
                _ => (false, exp),
            };
            let e = e.trim_start_matches('0');
            // Far beyond any f64 either way: saturate.
            let n: i64 = if e.len() > 12 { 1_000_000_000_000 } else { e.parse().unwrap_or(0) };
            if eneg { -n } else { n }
        };
        let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
        let lead = digits.iter().take_while(|d| **d == b'0').count();
        digits.drain(..lead);
        while digits.last() == Some(&b'0') {
            digits.pop();
        }
        let point = int.len() as i64 - lead as i64 + exp;
        Dec { neg: neg && !digits.is_empty(), digits, point }
    }

    /// The digits as an integer, when it fits in a u64.
    fn small_int(digits: &[u8]) -> Option<u64> {
        let mut v: u64 = 0;
        for d in digits {
            v = v.checked_mul(10)?.checked_add((d - b'0') as u64)?;
        }
        Some(v)
    }
}

impl Ord for Dec {
    fn cmp(&self, other: &Dec) -> core::cmp::Ordering {
        use core::cmp::Ordering::*;
        let magnitude = |a: &Dec, b: &Dec| match (a.digits.is_empty(), b.digits.is_empty()) {
            (true, true) => Equal,
            (true, false) => Less,
            (false, true) => Greater,
            _ => a.point.cmp(&b.point).then_with(|| a.digits.cmp(&b.digits)),
        };
        match (self.neg, other.neg) {
            (false, false) => magnitude(self, other),
            (true, true) => magnitude(other, self),
            (false, true) => Greater,
            (true, false) => Less,
        }
    }
}

impl PartialOrd for Dec {
    fn partial_cmp(&self, other: &Dec) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// An object: keys in insertion order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Map(Vec<(String, Value)>);

impl Map {
    pub fn new() -> Map {
        Map(Vec::new())
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key`; an existing key keeps its position. Returns the old value.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match self.get_mut(&key) {
            Some(slot) => Some(core::mem::replace(slot, value)),
            None => {
                self.0.push((key, value));
                None
            }
        }
    }

    /// The value at `key`, inserted with `make` at the end when absent.
    pub fn get_or_insert_with(&mut self, key: String, make: impl FnOnce() -> Value) -> &mut Value {
        let i = match self.0.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                self.0.push((key, make()));
                self.0.len() - 1
            }
        };
        &mut self.0[i].1
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Value> {
        self.0.iter_mut().map(|(_, v)| v)
    }

    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(i).1)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&String, &mut Value)> {
        self.0.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.0.iter().map(|(_, v)| v)
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a String, &'a Value);
    type IntoIter = core::iter::Map<core::slice::Iter<'a, (String, Value)>, fn(&'a (String, Value)) -> (&'a String, &'a Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Map {
        let mut m = Map::new();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

/// What `Value::get` can look up: an object key or an array index.
pub trait Index {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value>;
}

impl Index for str {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.as_object()?.get(self)
    }
}

impl Index for String {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        self.as_str().index_into(v)
    }
}

impl Index for usize {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.as_array()?.get(*self)
    }
}

impl<T: Index + ?Sized> Index for &T {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        (**self).index_into(v)
    }
}

static NULL: Value = Value::Null;

impl<I: Index> core::ops::Index<I> for Value {
    type Output = Value;
    /// Like `get`, but `null` when absent (serde_json's behaviour).
    fn index(&self, i: I) -> &Value {
        i.index_into(self).unwrap_or(&NULL)
    }
}

impl Value {
    pub const NULL: Value = Value::Null;

    pub fn get<I: Index>(&self, i: I) -> Option<&Value> {
        i.index_into(self)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        self.as_number()?.as_i64()
    }

    pub fn as_u64(&self) -> Option<u64> {
        self.as_number()?.as_u64()
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn is_boolean(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Value::Number(_))
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    /// Takes the value out, leaving `null`.
    pub fn take(&mut self) -> Value {
        core::mem::take(self)
    }

    /// Looks up a JSON Pointer (RFC 6901: `/a/0/b`, `~1` for `/`, `~0` for `~`).
    pub fn pointer(&self, ptr: &str) -> Option<&Value> {
        if ptr.is_empty() {
            return Some(self);
        }
        let mut v = self;
        for raw in ptr.strip_prefix('/')?.split('/') {
            let key = raw.replace("~1", "/").replace("~0", "~");
            v = match v {
                Value::Object(m) => m.get(&key)?,
                Value::Array(a) => a.get(key.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(v)
    }

    /// Appends the compact JSON text of this value.
    pub fn write(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => out.push_str(&n.0),
            Value::String(s) => push_json_string(out, s),
            Value::Array(a) => {
                out.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write(out);
                }
                out.push(']');
            }
            Value::Object(m) => {
                out.push('{');
                for (i, (k, v)) in m.0.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    push_json_string(out, k);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.write(&mut s);
        f.write_str(&s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Number(n.into())
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Value {
        Value::Number(n.into())
    }
}

impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<bool> for Value {
    fn eq(&self, other: &bool) -> bool {
        self.as_bool() == Some(*other)
    }
}

impl PartialEq<i64> for Value {
    fn eq(&self, other: &i64) -> bool {
        self.as_i64() == Some(*other)
    }
}

impl PartialEq<i32> for Value {
    fn eq(&self, other: &i32) -> bool {
        self.as_i64() == Some(*other as i64)
    }
}

impl core::str::FromStr for Value {
    type Err = String;
    fn from_str(s: &str) -> Result<Value, String> {
        parse(s)
    }
}

/// Parses one JSON value (see the module docs).
pub fn parse(text: &str) -> Result<Value, String> {
    let mut p = Parser { s: text.as_bytes(), text, i: 0, depth: 0 };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("trailing characters"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> String {
        let mut m = String::from(what);
        m.push_str(" at byte ");
        crate::event::push_usize(&mut m, self.i);
        m
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && crate::json::scanner::is_ws(self.s[self.i]) {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, b: u8) -> Result<(), String> {
        if self.peek() == Some(b) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.err(if self.peek().is_none() { "unexpected end" } else { "unexpected character" }))
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.peek() {
            None => Err(self.err("unexpected end")),
            Some(b'{') => self.nested(|p| {
                let mut m = Map::new();
                p.ws();
                if p.peek() == Some(b'}') {
                    p.i += 1;
                    return Ok(Value::Object(m));
                }
                loop {
                    p.ws();
                    let k = p.string()?;
                    p.ws();
                    p.eat(b':')?;
                    p.ws();
                    let v = p.value()?;
                    m.insert(k, v);
                    p.ws();
                    match p.peek() {
                        Some(b',') => p.i += 1,
                        Some(b'}') => {
                            p.i += 1;
                            return Ok(Value::Object(m));
                        }
                        _ => return Err(p.err("expected `,` or `}`")),
                    }
                }
            }),
            Some(b'[') => self.nested(|p| {
                let mut a = Vec::new();
                p.ws();
                if p.peek() == Some(b']') {
                    p.i += 1;
                    return Ok(Value::Array(a));
                }
                loop {
                    p.ws();
                    a.push(p.value()?);
                    p.ws();
                    match p.peek() {
                        Some(b',') => p.i += 1,
                        Some(b']') => {
                            p.i += 1;
                            return Ok(Value::Array(a));
                        }
                        _ => return Err(p.err("expected `,` or `]`")),
                    }
                }
            }),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.word("true", Value::Bool(true)),
            Some(b'f') => self.word("false", Value::Bool(false)),
            Some(b'n') => self.word("null", Value::Null),
            Some(_) => self.number(),
        }
    }

    fn nested(&mut self, f: impl FnOnce(&mut Self) -> Result<Value, String>) -> Result<Value, String> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err("nesting too deep"));
        }
        self.depth += 1;
        self.i += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn word(&mut self, w: &str, v: Value) -> Result<Value, String> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            Err(self.err("unexpected character"))
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let s = p.i;
            while p.peek().is_some_and(|b| b.is_ascii_digit()) {
                p.i += 1;
            }
            p.i > s
        };
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        if self.peek() == Some(b'0') {
            self.i += 1;
        } else if !digits(self) {
            return Err(self.err("unexpected character"));
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if !digits(self) {
                return Err(self.err("expected a digit"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if !digits(self) {
                return Err(self.err("expected a digit"));
            }
        }
        Ok(Value::Number(Number(self.text[start..self.i].into())))
    }

    fn string(&mut self) -> Result<String, String> {
        self.eat(b'"')?;
        let start = self.i;
        let mut escaped = false;
        loop {
            match self.peek() {
                None => return Err(self.err("unterminated string")),
                Some(b'"') => break,
                Some(b'\\') => {
                    escaped = true;
                    self.i += 2;
                }
                Some(b) if b < 0x20 => return Err(self.err("control character in a string")),
                Some(_) => self.i += 1,
            }
        }
        let body = self.text.get(start..self.i).ok_or_else(|| self.err("bad string"))?;
        self.i += 1;
        if !escaped {
            return Ok(body.to_string());
        }
        unescape(body).ok_or_else(|| self.err("invalid escape"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_compactly_and_keeps_order() {
        let text = r#" {"b": [1, -2.50e3, true, null], "a": {"x": "y\n\u00e9\ud83d\ude00"}, "c": ""} "#;
        let v = parse(text).unwrap();
        assert_eq!(v.to_string(), "{\"b\":[1,-2.50e3,true,null],\"a\":{\"x\":\"y\\né😀\"},\"c\":\"\"}");
        assert_eq!(v["a"]["x"].as_str(), Some("y\né😀"));
        assert_eq!(v["b"][1].as_number().unwrap().cmp_value(&Number::from_text("-2500").unwrap()), core::cmp::Ordering::Equal);
        assert_eq!(v["b"][0].as_u64(), Some(1));
        assert!(v["missing"].is_null());
        assert_eq!(v.pointer("/b/2"), Some(&Value::Bool(true)));
    }

    #[test]
    fn decimal_arithmetic() {
        let n = |s: &str| Number::from_text(s).unwrap();
        use core::cmp::Ordering::*;
        for (a, b, o) in [
            ("1", "1.0", Equal), ("10e-1", "1", Equal), ("0", "-0.0", Equal), ("-1", "0", Less), ("2", "10", Less),
            ("0.25", "0.3", Less), ("-0.25", "-0.3", Greater), ("1e3", "999.999", Greater), ("123", "12.3e1", Equal),
            ("1e-400", "0", Greater), ("-5", "-5.0001", Greater),
        ] {
            assert_eq!(n(a).cmp_value(&n(b)), o, "{a} vs {b}");
        }
        for (v, i) in [("2", true), ("2.0", true), ("1e3", true), ("2.5", false), ("1.5e1", true), ("1e-1", false), ("0", true)] {
            assert_eq!(n(v).is_integral(), i, "{v}");
        }
        for (v, f) in [("1e308", true), ("1.7976931348623157e308", true), ("1.8e308", false), ("1e400", false), ("-1e400", false), ("1e-400", true)] {
            assert_eq!(n(v).is_finite(), f, "{v}");
        }
        for (x, m, r) in [("10", "5", Some(true)), ("0.3", "0.1", Some(true)), ("7", "2", Some(false)), ("4.5", "1.5", Some(true)), ("1e30", "3", Some(false)), ("1e30", "5", Some(true)), ("0", "7", Some(true)), ("5", "0", None), ("5", "-1", None)] {
            assert_eq!(n(x).is_multiple_of(&n(m)), r, "{x} multipleOf {m}");
        }
    }

    #[test]
    fn repeated_keys_keep_the_last_value() {
        let v = parse(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
        assert_eq!(v.to_string(), r#"{"a":3,"b":2}"#);
    }

    #[test]
    fn rejects_invalid_json() {
        for s in ["", "{", "[1,]", "01", "\"\\q\"", "tru", "1 2", "{\"a\" 1}", "\"\u{1}\"", "-", "1.", "[1e]"] {
            assert!(parse(s).is_err(), "{s:?}");
        }
        let deep = "[".repeat(MAX_DEPTH + 1);
        assert!(parse(&deep).unwrap_err().contains("too deep"));
    }
}
