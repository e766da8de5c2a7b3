//! Python literal pieces as pure functions: identifiers, string prefixes, escapes, numbers,
//! named constants. Nothing is evaluated; each function maps source text to JSON text.

use crate::prelude::*;
use alloc::borrow::Cow;
/// Bytes of an identifier (ASCII letters, digits, `_`, and any non-ASCII byte, so that
/// Unicode identifiers are read whole and slices stay on char boundaries).
///
/// A table lookup: this test runs once per byte of every name and key, and the range tests
/// it replaces were a twentieth of a plain pythonic call's instructions (and took more wasm).
#[inline]
pub fn is_ident_byte(b: u8) -> bool {
    CLASS[b as usize] & IDENT != 0
}

/// A byte of a Python call name: identifier bytes and `.` (a dotted name keeps its dots).
#[inline]
pub fn is_name_byte(b: u8) -> bool {
    CLASS[b as usize] & NAME != 0
}

const IDENT: u8 = 1;
const NAME: u8 = 2;

/// `IDENT` and `NAME` flags of every byte.
static CLASS: [u8; 256] = {
    let mut class = [0u8; 256];
    let mut b = 0usize;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
            class[b] = IDENT | NAME;
        } else if c == b'.' {
            class[b] = NAME;
        }
        b += 1;
    }
    class
};

pub fn is_ident_start(b: u8) -> bool {
    is_ident_byte(b) && !b.is_ascii_digit()
}

/// Flags of a string prefix (`r`, `b`, `u`, `f` and their pairs, any case), or `None` when
/// `ident` is not a prefix.
pub fn str_prefix(ident: &str) -> Option<StrFlags> {
    if ident.len() > 2 {
        return None;
    }
    let mut f = StrFlags::default();
    for b in ident.bytes() {
        match b.to_ascii_lowercase() {
            b'r' if !f.raw => f.raw = true,
            b'f' if !f.fmt => f.fmt = true,
            b'b' | b'u' => {}
            _ => return None,
        }
    }
    (ident.len() == 1 || !ident.to_ascii_lowercase().contains('u')).then_some(f)
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StrFlags {
    /// Backslashes are literal.
    pub raw: bool,
    /// An f-string: `{{` and `}}` stand for one brace.
    pub fmt: bool,
}

/// JSON for a named constant: `True`/`False`/`None` and JSON's `true`/`false`/`null`.
pub fn constant(ident: &str) -> Option<&'static str> {
    match ident {
        "True" | "true" => Some("true"),
        "False" | "false" => Some("false"),
        "None" | "null" => Some("null"),
        _ => None,
    }
}

/// What a backslash escape stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Escape {
    /// A code point (may be a surrogate half, paired by the caller).
    Code(u32),
    /// A line continuation: nothing.
    Nothing,
    /// Not an escape: the backslash is a literal character.
    Literal,
}

/// Decodes the escape after a backslash; `rest` starts right after it. Returns the bytes of
/// `rest` used and the meaning, or `None` when `rest` is too short to decide (never at `eof`).
pub fn escape(rest: &[u8], eof: bool) -> Option<(usize, Escape)> {
    let Some(&c) = rest.first() else { return eof.then_some((0, Escape::Literal)) };
    let simple = |ch: char| Some((1, Escape::Code(ch as u32)));
    match c {
        b'\n' => Some((1, Escape::Nothing)),
        b'\r' => match rest.get(1) {
            Some(b'\n') => Some((2, Escape::Nothing)),
            None if !eof => None,
            _ => Some((1, Escape::Nothing)),
        },
        b'\\' => simple('\\'),
        b'\'' => simple('\''),
        b'"' => simple('"'),
        b'a' => simple('\u{7}'),
        b'b' => simple('\u{8}'),
        b'f' => simple('\u{c}'),
        b'n' => simple('\n'),
        b'r' => simple('\r'),
        b't' => simple('\t'),
        b'v' => simple('\u{b}'),
        b'0'..=b'7' => {
            let mut v = 0u32;
            let mut n = 0;
            while n < 3 {
                match rest.get(n) {
                    Some(d @ b'0'..=b'7') => v = v * 8 + (d - b'0') as u32,
                    Some(_) => break,
                    None if !eof => return None,
                    None => break,
                }
                n += 1;
            }
            Some((n, Escape::Code(v)))
        }
        b'x' | b'u' | b'U' => {
            let digits = match c {
                b'x' => 2,
                b'u' => 4,
                _ => 8,
            };
            let mut v = 0u32;
            for k in 0..digits {
                match rest.get(1 + k) {
                    Some(d) if d.is_ascii_hexdigit() => v = v * 16 + (*d as char).to_digit(16).unwrap_or(0),
                    None if !eof => return None,
                    _ => return Some((0, Escape::Literal)),
                }
            }
            Some((1 + digits, Escape::Code(v)))
        }
        _ => Some((0, Escape::Literal)),
    }
}

/// Bytes that may continue a number token after `prev`.
pub fn is_num_byte(b: u8, prev: u8, hex: bool) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || (matches!(b, b'+' | b'-') && !hex && matches!(prev, b'e' | b'E'))
}

/// `digits` (at least one, all of `radix`) as decimal text, of any length (Python integers are
/// unbounded); `None` otherwise. Digit by digit in base 10: no wide integer arithmetic (u128
/// formatting costs the wasm kilobytes).
fn to_decimal(digits: &str, radix: u32) -> Option<String> {
    if digits.is_empty() {
        return None;
    }
    // Base-10 digits, least significant first.
    let mut dec: Vec<u8> = vec![0];
    for c in digits.chars() {
        let mut carry = c.to_digit(radix)?;
        for d in dec.iter_mut() {
            let v = *d as u32 * radix + carry;
            *d = (v % 10) as u8;
            carry = v / 10;
        }
        while carry > 0 {
            dec.push((carry % 10) as u8);
            carry /= 10;
        }
    }
    while dec.len() > 1 && dec.last() == Some(&0) {
        dec.pop();
    }
    Some(dec.iter().rev().map(|d| (b'0' + d) as char).collect())
}

/// JSON for a Python number literal with an optional sign: underscores, hex/octal/binary
/// integers and leading zeros (`07`) are normalised; floats get digits around the point
/// (`1.` -> `1.0`, `.5` -> `0.5`). `None` when it is not a number (e.g. `1j`, `1.2.3`).
pub fn number(text: &str) -> Option<Cow<'_, str>> {
    // Plain decimal digits without a leading zero are already JSON.
    let b = text.as_bytes();
    if !b.is_empty() && b.iter().all(u8::is_ascii_digit) && (b[0] != b'0' || b.len() == 1) {
        return Some(Cow::Borrowed(text));
    }
    let (neg, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if body.is_empty() || body.starts_with('_') || body.ends_with('_') || crate::text::find(body, "__").is_some() {
        return None;
    }
    let body: String = body.chars().filter(|&c| c != '_').collect();
    let lower = body.to_ascii_lowercase();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(digits) = lower.strip_prefix(prefix) {
            out.push_str(&to_decimal(digits, radix)?);
            return Some(Cow::Owned(out));
        }
    }
    let (mant, exp) = match crate::text::find_byte(&lower, b'e') {
        Some(k) => (&lower[..k], Some(&lower[k + 1..])),
        None => (&lower[..], None),
    };
    let (int, frac) = match crate::text::find_byte(mant, b'.') {
        Some(k) => (&mant[..k], Some(&mant[k + 1..])),
        None => (mant, None),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int) || !frac.is_none_or(all_digits) || (int.is_empty() && frac.is_none_or(str::is_empty)) {
        return None;
    }
    let int = int.trim_start_matches('0');
    out.push_str(if int.is_empty() { "0" } else { int });
    if let Some(frac) = frac {
        out.push('.');
        out.push_str(if frac.is_empty() { "0" } else { frac });
    }
    if let Some(exp) = exp {
        let digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
        if digits.is_empty() || !all_digits(digits) {
            return None;
        }
        out.push('e');
        out.push_str(exp);
    }
    Some(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;

    /// The table holds exactly ASCII letters, digits, `_` and the non-ASCII bytes.
    #[test]
    fn ident_and_name_bytes() {
        for b in 0..=255u8 {
            let ident = b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
            assert_eq!(is_ident_byte(b), ident, "byte {b}");
            assert_eq!(is_name_byte(b), ident || b == b'.', "byte {b}");
        }
    }

    #[test]
    fn numbers() {
        let n = |s| number(s);
        assert_eq!(n("37").as_deref(), Some("37"));
        assert_eq!(n("-07").as_deref(), Some("-7"));
        assert_eq!(n("000").as_deref(), Some("0"));
        assert_eq!(n("1_000").as_deref(), Some("1000"));
        assert_eq!(n("0x1F").as_deref(), Some("31"));
        assert_eq!(n("-0b101").as_deref(), Some("-5"));
        assert_eq!(n("0o777").as_deref(), Some("511"));
        assert_eq!(n("0x0").as_deref(), Some("0"));
        assert_eq!(n("0xffffffffffffffffffffffffffffffff").as_deref(), Some("340282366920938463463374607431768211455"));
        assert_eq!(n("0x100000000000000000000000000000000").as_deref(), Some("340282366920938463463374607431768211456"));
        assert_eq!(n("0x"), None);
        assert_eq!(n("0xg"), None);
        assert_eq!(n("0b102"), None);
        assert_eq!(n("1.").as_deref(), Some("1.0"));
        assert_eq!(n(".5").as_deref(), Some("0.5"));
        assert_eq!(n("2.5E-3").as_deref(), Some("2.5e-3"));
        assert_eq!(n("1e5").as_deref(), Some("1e5"));
        for bad in ["1j", "1.2.3", ".", "-", "1e", "0x", "1__0", "_1", "abc", "1e+"] {
            assert_eq!(n(bad), None, "{bad}");
        }
    }

    #[test]
    fn escapes() {
        assert_eq!(escape(b"n", false), Some((1, Escape::Code(10))));
        assert_eq!(escape(b"x4", false), None);
        assert_eq!(escape(b"x41", false), Some((3, Escape::Code(0x41))));
        assert_eq!(escape(b"xZZ", false), Some((0, Escape::Literal)));
        assert_eq!(escape(b"u00e9", false), Some((5, Escape::Code(0xe9))));
        assert_eq!(escape(b"0", false), None);
        assert_eq!(escape(b"0", true), Some((1, Escape::Code(0))));
        assert_eq!(escape(b"101x", false), Some((3, Escape::Code(65))));
        assert_eq!(escape(b"\nabc", false), Some((1, Escape::Nothing)));
        assert_eq!(escape(b"q", false), Some((0, Escape::Literal)));
        assert_eq!(escape(b"", false), None);
    }

    #[test]
    fn prefixes_and_constants() {
        assert_eq!(str_prefix("r"), Some(StrFlags { raw: true, fmt: false }));
        assert_eq!(str_prefix("Rb"), Some(StrFlags { raw: true, fmt: false }));
        assert_eq!(str_prefix("f"), Some(StrFlags { raw: false, fmt: true }));
        assert_eq!(str_prefix("u"), Some(StrFlags::default()));
        assert_eq!(str_prefix("ur"), None);
        assert_eq!(str_prefix("x"), None);
        assert_eq!(constant("None"), Some("null"));
        assert_eq!(constant("none"), None);
    }
}
