//! JSON Schema, as far as tool arguments need it: the types a schema allows (vLLM's
//! `extract_types_from_schema`), local `$ref` resolution, coercion (`coerce`) and validation
//! (`validate`).

use crate::prelude::*;
pub mod coerce;
pub mod flat;
pub mod format;
pub mod number;
pub mod pattern;
pub mod validate;

/// What the host supplies for what a build leaves out: a `pattern` engine when regex-lite is
/// not built in, a `format` checker without the `formats` feature (the package's wasm: the
/// JavaScript `RegExp` and pkg-template/formats.js). Unused where the build has its own.
#[derive(Clone, Copy, Debug, Default)]
pub struct Engines {
    pub pattern: Option<pattern::HostEngine>,
    pub format: Option<format::HostFormat>,
}

use crate::json::Value;

/// A JSON type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Null,
    Integer,
    Number,
    Boolean,
    Object,
    Array,
    String,
}

impl Ty {
    /// vLLM's coercion priority: null > integer > number > boolean > object > array > string.
    pub const LADDER: [Ty; 7] = [Ty::Null, Ty::Integer, Ty::Number, Ty::Boolean, Ty::Object, Ty::Array, Ty::String];

    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    pub fn name(self) -> &'static str {
        match self {
            Ty::Null => "null",
            Ty::Integer => "integer",
            Ty::Number => "number",
            Ty::Boolean => "boolean",
            Ty::Object => "object",
            Ty::Array => "array",
            Ty::String => "string",
        }
    }

    /// A type name with vLLM's aliases normalised (`int64` → integer, `dict` → object, ...).
    pub fn from_name(name: &str) -> Option<Ty> {
        let n = name.trim().to_ascii_lowercase();
        Some(match n.as_str() {
            "null" | "none" => Ty::Null,
            "string" | "str" | "text" | "varchar" | "char" | "enum" => Ty::String,
            "integer" | "int" | "int32" | "int64" | "uint" | "long" | "short" | "unsigned" => Ty::Integer,
            "number" | "float" | "double" | "float32" | "float64" | "num" => Ty::Number,
            "boolean" | "bool" => Ty::Boolean,
            "object" | "dict" => Ty::Object,
            "array" | "arr" | "list" | "sequence" => Ty::Array,
            _ => return None,
        })
    }

    /// The type of a JSON value (integral numbers are integers).
    pub fn of(v: &Value) -> Ty {
        match v {
            Value::Null => Ty::Null,
            Value::Bool(_) => Ty::Boolean,
            Value::Number(n) => {
                if crate::json::is_integer(n) {
                    Ty::Integer
                } else {
                    Ty::Number
                }
            }
            Value::String(_) => Ty::String,
            Value::Array(_) => Ty::Array,
            Value::Object(_) => Ty::Object,
        }
    }
}

/// A set of types.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Types(u8);

impl Types {
    pub const NONE: Types = Types(0);

    pub fn with(self, t: Ty) -> Types {
        Types(self.0 | t.bit())
    }

    pub fn has(self, t: Ty) -> bool {
        self.0 & t.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Only `string` (the value streams as a string).
    pub fn only_string(self) -> bool {
        self == Types::NONE.with(Ty::String)
    }

    pub fn iter(self) -> impl Iterator<Item = Ty> {
        Ty::LADDER.into_iter().filter(move |t| self.has(*t))
    }

    pub fn names(self) -> String {
        let mut names = Vec::new();
        for t in self.iter() {
            names.push(t.name());
        }
        crate::small::join(&names, " or ")
    }
}

/// Resolves a local `$ref` (`#/$defs/X`, `#/definitions/X`, any `#/a/b` JSON Pointer, `~0`/`~1`
/// and `%XX` escapes decoded) against `root`, following chains up to 16 deep. Non-local refs
/// resolve to `None`.
pub fn resolve<'a>(schema: &'a Value, root: &'a Value) -> Option<&'a Value> {
    let mut s = schema;
    for _ in 0..16 {
        let Some(r) = s.get("$ref").and_then(Value::as_str) else { return Some(s) };
        let ptr = r.strip_prefix('#')?;
        s = if ptr.contains('%') { pointer(root, &percent_decode(ptr)?)? } else { pointer(root, ptr)? };
    }
    None
}

/// The value at JSON Pointer `ptr` (RFC 6901) in `root`, as serde_json's `Value::pointer` finds
/// it (`~1` is `/`, `~0` is `~`; an array index is digits without a leading `+` or `0`), read
/// token by token without `str::replace` (its substring searcher is wasm bytes).
fn pointer<'a>(root: &'a Value, ptr: &str) -> Option<&'a Value> {
    if ptr.is_empty() {
        return Some(root);
    }
    let mut token = String::new();
    let mut v = root;
    let mut rest = Some(ptr.strip_prefix('/')?);
    while let Some(r) = rest {
        // Tokens split at `/` as bytes (no char searcher in the wasm).
        let (raw, more) = crate::text::split_once_byte(r, b'/').map_or((r, None), |(a, b)| (a, Some(b)));
        rest = more;
        token.clear();
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            match (c, chars.clone().next()) {
                ('~', Some(e @ ('0' | '1'))) => {
                    token.push(if e == '1' { '/' } else { '~' });
                    chars.next();
                }
                _ => token.push(c),
            }
        }
        v = match v {
            Value::Object(m) => m.get(token.as_str())?,
            Value::Array(a) => {
                let index = token.as_bytes();
                let plain = !index.is_empty() && index.iter().all(u8::is_ascii_digit) && (index[0] != b'0' || index.len() == 1);
                a.get(usize::try_from(crate::text::parse_u64(&token, 10).filter(|_| plain)?).ok()?)?
            }
            _ => return None,
        };
    }
    Some(v)
}

/// Decodes `%XX` escapes (a URI fragment); `None` when the result is not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (b[i], b.get(i + 1).copied().and_then(hex), b.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, ..) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Calls `f` on the subschemas that apply to the same value under some condition, in this
/// order, until it returns true (then true): `allOf`, `anyOf`, `oneOf` members, `if`, `then`,
/// `else`, and the object schemas of `dependentSchemas`/`dependencies`. Used to find what an
/// object schema declares. One function for every use (an iterator chain was a copy of its
/// adapters per use in the wasm).
pub fn any_branch<'a>(schema: &'a Value, f: &mut dyn FnMut(&'a Value) -> bool) -> bool {
    for k in ["allOf", "anyOf", "oneOf"] {
        for s in schema.get(k).and_then(Value::as_array).map_or(&[][..], Vec::as_slice) {
            if f(s) {
                return true;
            }
        }
    }
    for k in ["if", "then", "else"] {
        if schema.get(k).is_some_and(&mut *f) {
            return true;
        }
    }
    for k in ["dependentSchemas", "dependencies"] {
        if let Some(m) = schema.get(k).and_then(Value::as_object) {
            for s in m.values() {
                if s.is_object() && f(s) {
                    return true;
                }
            }
        }
    }
    false
}

/// The types `schema` allows: `type` (string or list, aliases normalised), the types of `enum`
/// and `const` values, and the union over `anyOf`/`oneOf`/`allOf`. Empty when the schema says
/// nothing about types.
pub fn types(schema: &Value, root: &Value) -> Types {
    types_depth(schema, root, 0)
}

fn types_depth(schema: &Value, root: &Value, depth: usize) -> Types {
    let mut t = Types::NONE;
    if depth > 16 {
        return t;
    }
    let Some(schema) = resolve(schema, root) else { return t };
    match schema.get("type") {
        Some(Value::String(s)) => {
            if let Some(x) = Ty::from_name(s) {
                t = t.with(x);
            }
        }
        Some(Value::Array(a)) => {
            for x in a.iter().filter_map(Value::as_str).filter_map(Ty::from_name) {
                t = t.with(x);
            }
        }
        _ => {}
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        for v in e {
            t = t.with(Ty::of(v));
        }
    }
    if let Some(c) = schema.get("const") {
        t = t.with(Ty::of(c));
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(list) = schema.get(key).and_then(Value::as_array) {
            for s in list {
                t = Types(t.0 | types_depth(s, root, depth + 1).0);
            }
        }
    }
    // `integer` values are valid `number` values.
    t
}

/// The schema of property `key` of an object schema (through `$ref` and `anyOf`/`oneOf`/`allOf`
/// branches that declare it).
pub fn property<'a>(schema: &'a Value, key: &str, root: &'a Value) -> Option<&'a Value> {
    property_depth(schema, key, root, 0)
}

fn property_depth<'a>(schema: &'a Value, key: &str, root: &'a Value, depth: usize) -> Option<&'a Value> {
    if depth > 16 {
        return None;
    }
    let schema = resolve(schema, root)?;
    if let Some(p) = schema.get("properties").and_then(|p| p.get(key)) {
        return Some(p);
    }
    let mut found = None;
    any_branch(schema, &mut |s| {
        found = property_depth(s, key, root, depth + 1);
        found.is_some()
    });
    found
}

/// The schema of array items (`items`, or the first `prefixItems`).
pub fn items<'a>(schema: &'a Value, root: &'a Value) -> Option<&'a Value> {
    let schema = resolve(schema, root)?;
    schema.get("items").filter(|i| i.is_object()).or_else(|| schema.get("prefixItems")?.get(0))
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;
    use crate::json::json;

    #[test]
    fn types_from_type_enum_and_unions() {
        let root = json!({"$defs": {"N": {"type": "int64"}}});
        assert!(types(&json!({"type": "string"}), &root).only_string());
        assert_eq!(types(&json!({"type": ["integer", "null"]}), &root), Types::NONE.with(Ty::Integer).with(Ty::Null));
        assert_eq!(types(&json!({"enum": ["a", 1]}), &root), Types::NONE.with(Ty::String).with(Ty::Integer));
        assert_eq!(types(&json!({"anyOf": [{"type": "dict"}, {"$ref": "#/$defs/N"}]}), &root), Types::NONE.with(Ty::Object).with(Ty::Integer));
        assert!(types(&json!({}), &root).is_empty());
    }

    #[test]
    fn pointer_is_serde_jsons() {
        let root = json!({"a/b": {"~": [10, 11, {"": 12}]}, "~1": 1, "~01": 2, "": {"x": 3}, "0": [4]});
        let ptrs = ["", "/", "/a~1b", "/a~1b/~0", "/a~1b/~0/1", "/a~1b/~0/01", "/a~1b/~0/+1", "/a~1b/~0/-1", "/a~1b/~0/2/", "/a~1b/~0/3", "/~01", "/~001", "/~1", "/~", "//x", "/0/0", "/0/00", "a", "/a~2b", "/a~1b/~0/18446744073709551617"];
        for p in ptrs {
            assert_eq!(pointer(&root, p), root.pointer(p), "{p:?}");
        }
    }

    #[test]
    fn property_through_refs() {
        let root = json!({"type": "object", "properties": {"a": {"$ref": "#/definitions/A"}}, "definitions": {"A": {"type": "object", "properties": {"b": {"type": "number"}}}}});
        let a = property(&root, "a", &root).unwrap();
        let b = property(a, "b", &root).unwrap();
        assert_eq!(types(b, &root), Types::NONE.with(Ty::Number));
    }
}
