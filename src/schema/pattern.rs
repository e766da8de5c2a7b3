//! `pattern` and `patternProperties`: ECMA-262 regular expressions (what JSON Schema says a
//! pattern is) run by regex-lite.
//!
//! Contract:
//! - A pattern is translated to regex-lite's syntax where the two differ (`.` does not match
//!   line terminators, `\s` includes the Unicode spaces ECMA-262 lists, `\uXXXX` and surrogate
//!   pairs, `\cX`, `\0`, escaped punctuation, a `{` or `}` that is not a quantifier, `[` `&` `~`
//!   inside a class) and compiled once (`Patterns::collect` at parser construction).
//!   `\d`, `\w`, `\b` are ASCII in both. Matching is a search (patterns are not anchored).
//! - A pattern that cannot be compiled (look-around, backreferences, `\p{…}`, a syntax error, over
//!   the size limit) is never a panic: `Compiled::Unsupported` carries the reason, and validation
//!   reports it once per parser as not checked (`Issue` of kind `Unchecked`) and skips it.
//! - Engines: regex-lite with the `regex` feature (default; natively and in the wasm tests). The
//!   npm package's wasm is built without it, within its size budget, and its binding supplies
//!   the JavaScript engine's own `RegExp` (flag `u`), the ECMA-262 engine JSON Schema names, as a
//!   `HostEngine` through `Options::engines`. With neither, every pattern is
//!   `Unsupported` ("no regex engine"), reported as not checked, never as passed.

use crate::prelude::*;
use crate::json::Value;
use alloc::rc::Rc;

/// A pattern engine the host supplies: compiles an ECMA-262 pattern to a matcher (a search, not
/// anchored), or says why it cannot.
pub type HostEngine = fn(&str) -> Result<Rc<dyn Fn(&str) -> bool>, String>;

/// Longest pattern compiled (bytes); a longer one is not checked.
pub const MAX_PATTERN_BYTES: usize = 4096;
/// regex-lite's limit on the compiled program (bytes).
const SIZE_LIMIT: usize = 1 << 20;
/// Most distinct patterns compiled per parser; later ones are not checked.
pub const MAX_PATTERNS: usize = 256;

/// One compiled pattern.
#[derive(Clone)]
pub enum Compiled {
    #[cfg(feature = "regex")]
    Regex(regex_lite::Regex),
    /// Compiled by the host's engine.
    Host(Rc<dyn Fn(&str) -> bool>),
    /// Not checked, and why.
    Unsupported(String),
}

impl core::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Compiled::Unsupported(why) => write!(f, "Unsupported({why:?})"),
            _ => f.write_str("Compiled"),
        }
    }
}

impl Compiled {
    /// Compiles an ECMA-262 pattern with regex-lite (see the module docs).
    pub fn new(pattern: &str) -> Compiled {
        Compiled::with(pattern, None)
    }

    /// Compiles with regex-lite when built in, else with `host`.
    pub fn with(pattern: &str, host: Option<HostEngine>) -> Compiled {
        if pattern.len() > MAX_PATTERN_BYTES {
            return Compiled::Unsupported(format!("longer than {MAX_PATTERN_BYTES} bytes"));
        }
        if let (false, Some(engine)) = (cfg!(feature = "regex"), host) {
            return match engine(pattern) {
                Ok(m) => Compiled::Host(m),
                Err(why) => Compiled::Unsupported(why),
            };
        }
        compile(pattern)
    }

    /// `Some(matches)`, or `None` when the pattern is not checked.
    pub fn is_match(&self, s: &str) -> Option<bool> {
        let _ = s;
        match self {
            #[cfg(feature = "regex")]
            Compiled::Regex(r) => Some(r.is_match(s)),
            Compiled::Host(m) => Some(m(s)),
            Compiled::Unsupported(_) => None,
        }
    }

    /// Why the pattern is not checked (`None` when it is).
    pub fn unsupported(&self) -> Option<&str> {
        match self {
            Compiled::Unsupported(why) => Some(why),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

/// Translates `pattern` and compiles it with regex-lite.
#[cfg(feature = "regex")]
fn compile(pattern: &str) -> Compiled {
    let translated = match translate(pattern) {
        Ok(t) => t,
        Err(e) => return Compiled::Unsupported(e),
    };
    match regex_lite::RegexBuilder::new(&translated).size_limit(SIZE_LIMIT).nest_limit(100).build() {
        Ok(r) => Compiled::Regex(r),
        Err(e) => Compiled::Unsupported(e.to_string()),
    }
}

/// No engine: nothing is translated (the translation is regex-lite's syntax), every pattern is
/// not checked.
#[cfg(not(feature = "regex"))]
fn compile(_pattern: &str) -> Compiled {
    let _ = SIZE_LIMIT;
    Compiled::Unsupported("no regex engine in this build".into())
}

/// The patterns of a set of schemas, compiled once, by position (whether a "not checked"
/// diagnostic was given is the caller's state, by the same position: `validate::Check`).
#[derive(Clone, Debug, Default)]
pub struct Patterns {
    list: Vec<(String, Compiled)>,
    engines: super::Engines,
}

impl Patterns {
    pub fn new() -> Patterns {
        Patterns::default()
    }

    /// Patterns compiled by the host's engine when regex-lite is not built in; the host's
    /// format checker kept for validation (`Patterns::format`).
    pub fn with_engines(engines: super::Engines) -> Patterns {
        Patterns { list: Vec::new(), engines }
    }

    /// The host's format checker (`None` when it gave none).
    pub fn format_engine(&self) -> Option<super::format::HostFormat> {
        self.engines.format
    }

    /// Compiles every `pattern` string and `patternProperties` key found in `schema` (walked to
    /// a bounded depth; at most `MAX_PATTERNS` patterns).
    pub fn collect(&mut self, schema: &Value) {
        self.walk(schema, 0);
    }

    fn walk(&mut self, v: &Value, depth: usize) {
        if depth > 64 {
            return;
        }
        match v {
            Value::Object(m) => {
                if let Some(Value::String(p)) = m.get("pattern") {
                    self.add(p);
                }
                if let Some(Value::Object(pp)) = m.get("patternProperties") {
                    for k in pp.keys() {
                        self.add(k);
                    }
                }
                for x in m.values() {
                    self.walk(x, depth + 1);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| self.walk(x, depth + 1)),
            _ => {}
        }
    }

    /// Compiles one pattern (when not there yet and under `MAX_PATTERNS`).
    pub fn collect_one(&mut self, p: &str) {
        self.add(p);
    }

    fn add(&mut self, p: &str) {
        if self.list.len() < MAX_PATTERNS && !self.list.iter().any(|(q, ..)| q == p) {
            self.list.push((p.to_string(), Compiled::with(p, self.engines.pattern)));
        }
    }

    /// The position of a collected pattern and its compiled form; `None` when it was not
    /// collected.
    pub fn get(&self, p: &str) -> Option<(usize, &Compiled)> {
        self.list.iter().position(|(q, _)| q == p).map(|i| (i, &self.list[i].1))
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// ECMA-262 whitespace beyond ASCII (`\s` in ECMA-262, regex-lite's `\s` being ASCII only).
#[cfg(feature = "regex")]
const ECMA_SPACES: &str = r"\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

/// Translates an ECMA-262 pattern to regex-lite syntax; `Err` names what cannot be expressed.
/// (Only with the `regex` feature: the package's wasm leaves it out.)
#[cfg(feature = "regex")]
pub fn translate(p: &str) -> Result<String, String> {
    let chars: Vec<char> = p.chars().collect();
    let mut out = String::with_capacity(p.len() + 16);
    let mut i = 0;
    let mut class = false;
    // Position just after the `[` / `[^` that opened the current class.
    let mut class_start = 0;
    let hex = |out: &mut String, cp: u32| {
        out.push_str("\\x{");
        push_hex(out, cp);
        out.push('}');
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let Some(&e) = chars.get(i + 1) else { return Err("ends with a lone backslash".into()) };
                i += 2;
                match e {
                    'd' | 'D' | 'w' | 'W' => {
                        out.push('\\');
                        out.push(e);
                    }
                    'b' | 'B' if !class => {
                        out.push('\\');
                        out.push(e);
                    }
                    'b' => out.push_str(r"\x{8}"),
                    's' if class => {
                        out.push_str(r"\s");
                        out.push_str(ECMA_SPACES);
                    }
                    's' => {
                        out.push_str(r"[\s");
                        out.push_str(ECMA_SPACES);
                        out.push(']');
                    }
                    // Inside a class a negated \S keeps regex-lite's meaning (ASCII spaces only).
                    'S' if class => out.push_str(r"\S"),
                    'S' => {
                        out.push_str(r"[^\s");
                        out.push_str(ECMA_SPACES);
                        out.push(']');
                    }
                    't' | 'n' | 'r' | 'f' | 'v' => {
                        out.push('\\');
                        out.push(e);
                    }
                    '0' if !chars.get(i).is_some_and(char::is_ascii_digit) => hex(&mut out, 0),
                    '1'..='9' => return Err("backreferences are not supported".into()),
                    'k' if chars.get(i) == Some(&'<') => return Err("named backreferences are not supported".into()),
                    'p' | 'P' => return Err("Unicode property classes (\\p{…}) are not supported".into()),
                    'c' => match chars.get(i) {
                        Some(l) if l.is_ascii_alphabetic() => {
                            hex(&mut out, *l as u32 % 32);
                            i += 1;
                        }
                        _ => out.push_str(r"\\c"),
                    },
                    'x' => {
                        let h: String = chars[i..].iter().take(2).collect();
                        match (h.len() == 2).then(|| u32::from_str_radix(&h, 16).ok()).flatten() {
                            Some(cp) => {
                                hex(&mut out, cp);
                                i += 2;
                            }
                            None => out.push('x'),
                        }
                    }
                    'u' => {
                        let (cp, used) = unicode_escape(&chars[i..])?;
                        hex(&mut out, cp);
                        i += used;
                    }
                    e if e.is_ascii_alphanumeric() => {
                        // ECMA-262 (Annex B) reads an unknown letter escape as the letter.
                        out.push(e);
                    }
                    e => hex(&mut out, e as u32),
                }
            }
            '[' if !class => {
                class = true;
                out.push('[');
                i += 1;
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                class_start = i;
                if chars.get(i) == Some(&']') {
                    // `[]` matches nothing, `[^]` anything.
                    let negated = out.ends_with('^');
                    out.truncate(out.len() - if negated { 2 } else { 1 });
                    out.push_str(if negated { r"[\s\S]" } else { r"[^\s\S]" });
                    class = false;
                    i += 1;
                }
            }
            ']' if class => {
                class = false;
                out.push(']');
                i += 1;
            }
            '[' | '&' | '~' if class => {
                hex(&mut out, c as u32);
                i += 1;
            }
            '-' if class && (i == class_start || chars.get(i + 1) == Some(&']')) => {
                hex(&mut out, c as u32);
                i += 1;
            }
            '.' if !class => {
                out.push_str(r"[^\n\r\x{2028}\x{2029}]");
                i += 1;
            }
            '{' if !class => match quantifier_len(&chars[i..]) {
                Some(n) => {
                    out.extend(&chars[i..i + n]);
                    i += n;
                }
                None => {
                    hex(&mut out, '{' as u32);
                    i += 1;
                }
            },
            '}' | ']' if !class => {
                hex(&mut out, c as u32);
                i += 1;
            }
            '(' if !class && chars.get(i + 1) == Some(&'?') => {
                let rest: String = chars[i + 2..].iter().take(2).collect();
                if rest.starts_with('=') || rest.starts_with('!') || rest == "<=" || rest == "<!" {
                    return Err("look-around is not supported".into());
                }
                out.push('(');
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    if class {
        return Err("unclosed character class".into());
    }
    Ok(out)
}

/// `\u` escapes after the `u`: `XXXX` (a surrogate pair `XXXX\uYYYY` combined) or `{X…}`.
/// Returns the code point and the characters used.
#[cfg(feature = "regex")]
fn unicode_escape(rest: &[char]) -> Result<(u32, usize), String> {
    let hex4 = |s: &[char]| -> Option<u32> {
        if s.len() < 4 {
            return None;
        }
        s[..4].iter().try_fold(0u32, |v, c| Some(v * 16 + c.to_digit(16)?))
    };
    if rest.first() == Some(&'{') {
        let end = rest.iter().position(|c| *c == '}').ok_or("unclosed \\u{…}")?;
        let digits: String = rest[1..end].iter().collect();
        let cp = u32::from_str_radix(&digits, 16).ok().filter(|cp| char::from_u32(*cp).is_some()).ok_or("invalid \\u{…} escape")?;
        return Ok((cp, end + 1));
    }
    let hi = hex4(rest).ok_or("invalid \\u escape")?;
    if (0xD800..0xDC00).contains(&hi) && rest.get(4) == Some(&'\\') && rest.get(5) == Some(&'u') {
        if let Some(lo) = hex4(&rest[6..]).filter(|lo| (0xDC00..0xE000).contains(lo)) {
            return Ok((0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00), 10));
        }
    }
    if (0xD800..0xE000).contains(&hi) {
        return Err("a lone surrogate (\\u{:04x}) cannot match UTF-8 text".replace("{:04x}", &{
            let mut s = String::new();
            push_hex(&mut s, hi);
            s
        }));
    }
    Ok((hi, 4))
}

/// Length of a valid quantifier `{n}`, `{n,}` or `{n,m}` at the start of `s`.
#[cfg(feature = "regex")]
fn quantifier_len(s: &[char]) -> Option<usize> {
    let end = s.iter().position(|c| *c == '}')?;
    let body: String = s[1..end].iter().collect();
    let (a, b) = match body.split_once(',') {
        Some((a, b)) => (a, Some(b)),
        None => (body.as_str(), None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    (digits(a) && b.is_none_or(|b| b.is_empty() || digits(b))).then_some(end + 1)
}

#[cfg(feature = "regex")]
fn push_hex(out: &mut String, cp: u32) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut started = false;
    for shift in (0..6).rev() {
        let d = (cp >> (shift * 4)) & 15;
        if d != 0 || started || shift == 0 {
            started = true;
            out.push(HEX[d as usize] as char);
        }
    }
}

#[cfg(all(test, feature = "regex"))]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;

    fn m(p: &str, s: &str) -> Option<bool> {
        Compiled::new(p).is_match(s)
    }

    #[test]
    fn ecma_semantics() {
        let cases: &[(&str, &str, bool)] = &[
            ("^[A-Z]{3}$", "EUR", true),
            ("^[A-Z]{3}$", "euro", false),
            ("^\\d{4}-\\d{2}-\\d{2}$", "2024-01-31", true),
            ("\\d", "٣", false), // \d is ASCII in ECMA-262
            ("^a.c$", "a\nc", false),
            ("^a.c$", "a\rc", false),
            ("^a.c$", "abc", true),
            ("^\\s$", "\u{a0}", true),
            ("^\\S$", "\u{a0}", false),
            ("^[\\s]$", "\u{2003}", true),
            ("^\\u00e9$", "é", true),
            ("^\\ud83d\\ude00$", "😀", true),
            ("^\\u{1F600}$", "😀", true),
            ("^a\\/b$", "a/b", true),
            ("^\\cJ$", "\n", true),
            ("^a{$", "a{", true),
            ("^a{2}$", "aa", true),
            ("^a{1,}$", "aaa", true),
            ("^{x}$", "{x}", true),
            ("^[[]$", "[", true),
            ("^[a-]$", "-", true),
            ("^[&&]$", "&", true),
            ("^[^]$", "\n", true),
            ("^[]$", "", false),
            ("^x$", "x\n", false), // `$` is the end of the input (no `m` flag)
            ("(?<year>\\d{4})", "in 2024", true),
            ("^\\x41$", "A", true),
            ("^\\0$", "\0", true),
            ("[\\b]", "\u{8}", true),
        ];
        for (p, s, want) in cases {
            assert_eq!(m(p, s), Some(*want), "{p:?} on {s:?} (translated {:?})", translate(p));
        }
    }

    #[test]
    fn unsupported_patterns_are_reported_not_panics() {
        for p in ["(?<=x)y", "(?!x)", "(a)\\1", "\\p{L}", "[a", "(", "*a", "\\ud800", "\\k<n>"] {
            let c = Compiled::new(p);
            assert!(c.unsupported().is_some(), "{p:?} compiled");
            assert_eq!(c.is_match("a"), None);
        }
        assert!(Compiled::new(&"a".repeat(MAX_PATTERN_BYTES + 1)).unsupported().is_some());
        assert!(Compiled::new("(((a{100}){100}){100})").unsupported().is_some(), "size limit");
    }
}
