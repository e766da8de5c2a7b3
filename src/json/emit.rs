//! Writing JSON text as it streams: string escaping (whole strings and fragments), decoding a
//! string body, and an incremental arguments-object writer. Whole documents are serde_json's.

use crate::prelude::*;
/// Appends `s` as a JSON string literal (quotes included). Non-ASCII is kept as is.
pub fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    push_escaped(out, s);
    out.push('"');
}

/// Appends the JSON-escaped body of `s` (no quotes).
pub fn push_escaped(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    // A short string (a key, a name) checked a byte at a time, without the word scan's setup.
    if bytes.len() < 16 && !bytes.iter().any(|&b| needs_escape(b)) {
        out.push_str(s);
        return;
    }
    let mut run = 0;
    loop {
        // Bytes that need no escape, eight at a time.
        let i = crate::text::scan_until(bytes, run, crate::text::Stops::ESCAPE);
        out.push_str(&s[run..i]);
        let Some(&b) = bytes.get(i) else { return };
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            _ => push_control_escape(out, b),
        }
        run = i + 1;
    }
}

/// Appends the escape of control byte `b` (below 0x20): its short form, else `\u00XX`.
pub(crate) fn push_control_escape(out: &mut String, b: u8) {
    let (e, n) = escape_of(b);
    // ASCII by construction.
    out.push_str(core::str::from_utf8(&e[..n]).unwrap_or_default());
}

/// How `push_escaped` writes byte `b` when it `needs_escape` (`"`, `\\`, a control
/// character): the bytes and their count (the short forms, else `\u00xx` in lowercase hex).
pub(crate) fn escape_of(b: u8) -> ([u8; 6], usize) {
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x08 => b'b',
        0x0c => b'f',
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            return ([b'\\', b'u', b'0', b'0', HEX[(b >> 4 & 15) as usize], HEX[(b & 15) as usize]], 6);
        }
    };
    ([b'\\', short, 0, 0, 0, 0], 2)
}

/// The byte that JSON's simple escape `\\` + `e` stands for (`e` one of `"\\/bfnrt`), or `None`
/// (for `u` and anything else): the one table the readers of escapes share.
pub(crate) fn simple_escape_value(e: u8) -> Option<u8> {
    Some(match e {
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 0x08,
        b'f' => 0x0c,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        _ => return None,
    })
}

/// A byte a JSON string cannot hold as it is: `"`, `\\` or a control character.
pub fn needs_escape(b: u8) -> bool {
    crate::text::Stops::ESCAPE.has(b)
}

/// Decodes the body of a JSON string literal (no quotes). Returns `None` on an invalid escape.
/// Lone surrogates decode to U+FFFD.
pub fn unescape(body: &str) -> Option<String> {
    let mut out = String::new();
    unescape_into(body, &mut out).map(|()| out)
}

/// `unescape`, borrowed when `body` holds no escape (no allocation for most strings).
pub fn unescaped(body: &str) -> Option<alloc::borrow::Cow<'_, str>> {
    if crate::text::find_byte(body, b'\\').is_some() {
        unescape(body).map(alloc::borrow::Cow::Owned)
    } else {
        Some(alloc::borrow::Cow::Borrowed(body))
    }
}

/// `unescape` appending to `out` (a reused buffer); `None` on an invalid escape, with `out`
/// holding what was decoded before it.
pub fn unescape_into(body: &str, out: &mut String) -> Option<()> {
    if !body.contains('\\') {
        out.push_str(body);
        return Some(());
    }
    out.reserve(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'u' => {
                let hi = hex4(&mut chars)?;
                if (0xD800..0xDC00).contains(&hi) {
                    let mut look = chars.clone();
                    if look.next() == Some('\\') && look.next() == Some('u') {
                        if let Some(lo) = hex4(&mut look) {
                            if (0xDC00..0xE000).contains(&lo) {
                                chars = look;
                                let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                                out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
                                continue;
                            }
                        }
                    }
                    out.push('\u{FFFD}');
                } else {
                    out.push(char::from_u32(hi).unwrap_or('\u{FFFD}'));
                }
            }
            e => out.push(char::from(u8::try_from(e).ok().and_then(simple_escape_value)?)),
        }
    }
    Some(())
}

fn hex4(chars: &mut core::str::Chars) -> Option<u32> {
    let mut v = 0;
    for _ in 0..4 {
        v = v * 16 + chars.next()?.to_digit(16)?;
    }
    Some(v)
}

/// Builds an arguments object `{"k": v, ...}` incrementally, for families whose arguments are
/// not JSON on the wire (XML parameters, pythonic, key-value). Each method appends the next
/// fragment to `out`; the fragments concatenate to one valid object once `close` is called.
#[derive(Clone, Debug, Default)]
pub struct ObjectWriter {
    /// Number of keys written.
    keys: usize,
    /// A string value is open.
    in_string: bool,
    closed: bool,
}

impl ObjectWriter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.keys == 0
    }

    /// Writes `{"key": ` or `, "key": `.
    pub fn key(&mut self, key: &str, out: &mut String) {
        debug_assert!(!self.in_string && !self.closed);
        out.push_str(if self.keys == 0 { "{" } else { ", " });
        push_json_string(out, key);
        out.push_str(": ");
        self.keys += 1;
    }

    /// Writes a complete JSON value after `key`.
    pub fn raw_value(&mut self, json: &str, out: &mut String) {
        out.push_str(json);
    }

    /// Opens a string value after `key`.
    pub fn open_string(&mut self, out: &mut String) {
        out.push('"');
        self.in_string = true;
    }

    /// Appends characters to the open string value, escaped.
    pub fn string_chunk(&mut self, s: &str, out: &mut String) {
        debug_assert!(self.in_string);
        push_escaped(out, s);
    }

    pub fn close_string(&mut self, out: &mut String) {
        out.push('"');
        self.in_string = false;
    }

    /// Closes the object: returns what closes it (an open string's quote, then `}`, or `{}`
    /// when no key was written; nothing once closed).
    pub fn closing(&mut self) -> &'static str {
        let tail = match (self.in_string, self.closed, self.keys == 0) {
            (true, true, _) => "\"",
            (true, false, true) => "\"{}",
            (true, false, false) => "\"}",
            (false, true, _) => "",
            (false, false, true) => "{}",
            (false, false, false) => "}",
        };
        self.in_string = false;
        self.closed = true;
        tail
    }

}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;

    #[test]
    fn escapes_and_unescapes() {
        let s = "a\"b\\c\nd\u{1}é😀";
        let mut out = String::new();
        push_json_string(&mut out, s);
        assert_eq!(out, "\"a\\\"b\\\\c\\nd\\u0001é😀\"");
        assert_eq!(unescape(&out[1..out.len() - 1]).as_deref(), Some(s));
        assert_eq!(unescape("\\ud83d\\ude00").as_deref(), Some("😀"));
        assert_eq!(unescape("\\q"), None);
    }

    #[test]
    fn object_writer_builds_valid_json() {
        let mut w = ObjectWriter::new();
        let mut out = String::new();
        out.push_str(w.closing());
        assert_eq!(out, "{}");
        let mut w = ObjectWriter::new();
        let mut out = String::new();
        w.key("city", &mut out);
        w.open_string(&mut out);
        w.string_chunk("Dal", &mut out);
        w.string_chunk("las\"", &mut out);
        w.close_string(&mut out);
        w.key("n", &mut out);
        w.raw_value("5", &mut out);
        out.push_str(w.closing());
        assert_eq!(out, "{\"city\": \"Dallas\\\"\", \"n\": 5}");
    }
}
