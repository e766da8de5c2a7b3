//! Tag headers: the text between an opening marker and the tag end, e.g. `get_weather` in
//! `<function=get_weather>`, `"city" string="true"` in `<｜DSML｜parameter name="city" string="true">`
//! or ` key="city" type="string"` in `<|open|>argument key="city" type="string"<|sep|>`.
//!
//! Grammar: `ws* [PRIMARY] (ws+ KEY=VALUE)* ws*`, where PRIMARY is a quoted value or a bare
//! token without `=`, and VALUE is quoted (`"` or `'`) or bare. Quoted values are XML-unescaped
//! (`&quot;`, `&amp;`, `&lt;`, `&gt;`, `&apos;`, `&#N;`). Anything else is not a header.

use crate::prelude::*;
use alloc::borrow::Cow;

/// A parsed tag header, borrowing the header text (a value is owned only when it held an
/// entity).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header<'a> {
    pub primary: Option<Cow<'a, str>>,
    pub attrs: Vec<(&'a str, Cow<'a, str>)>,
}

impl<'a> Header<'a> {
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| *k == key).map(|(_, v)| v.as_ref())
    }

    /// The call name or parameter key: the primary value, else a `name`, `key` or `tool`
    /// attribute.
    pub fn ident(&self) -> Option<&str> {
        self.primary.as_deref().or_else(|| self.attr("name")).or_else(|| self.attr("key")).or_else(|| self.attr("tool"))
    }

    /// `ident`, taken out of the header (still borrowing the header text).
    pub fn ident_owned(mut self) -> Option<Cow<'a, str>> {
        if let Some(p) = self.primary.take() {
            return Some(p);
        }
        let at = ["name", "key", "tool"].iter().find_map(|k| self.attrs.iter().position(|(a, _)| a == k))?;
        Some(self.attrs.swap_remove(at).1)
    }
}

fn is_ws(b: u8) -> bool {
    b.is_ascii_whitespace()
}

/// Parses a header. With `spaces`, a header without `=` or quotes is one primary value that
/// may contain spaces (Qwen keys like `<parameter=my key>`).
pub fn parse(h: &str, spaces: bool) -> Option<Header<'_>> {
    let t = h.trim();
    let mut out = Header::default();
    if t.is_empty() {
        return Some(out);
    }
    if spaces && !t.contains(['=', '"', '\'']) {
        out.primary = Some(Cow::Borrowed(t));
        return Some(out);
    }
    let b = t.as_bytes();
    let mut i = 0;
    if b[0] == b'"' || b[0] == b'\'' {
        let (v, n) = quoted(t, 0)?;
        out.primary = Some(v);
        i = n;
    } else {
        let end = token_end(t, 0);
        if !t[..end].contains('=') {
            out.primary = Some(Cow::Borrowed(&t[..end]));
            i = end;
        }
    }
    loop {
        let j = crate::text::skip_ascii_ws(t.as_bytes(), i);
        if j == b.len() {
            break;
        }
        if j == i && i > 0 {
            return None;
        }
        i = j;
        let ks = i;
        while i < b.len() && b[i] != b'=' && !is_ws(b[i]) {
            i += 1;
        }
        if i == ks || i == b.len() || b[i] != b'=' {
            return None;
        }
        let key = &t[ks..i];
        i += 1;
        let (v, n) = if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
            quoted(t, i)?
        } else {
            let e = token_end(t, i);
            (Cow::Borrowed(&t[i..e]), e)
        };
        out.attrs.push((key, v));
        i = n;
    }
    Some(out)
}

fn token_end(t: &str, mut i: usize) -> usize {
    let b = t.as_bytes();
    while i < b.len() && !is_ws(b[i]) {
        i += 1;
    }
    i
}

/// A quoted value starting at `t[i]` (the quote): (unescaped value, index after the closing quote).
fn quoted(t: &str, i: usize) -> Option<(Cow<'_, str>, usize)> {
    let q = t.as_bytes()[i];
    let body = &t[i + 1..];
    let end = body.bytes().position(|b| b == q)?;
    Some((unescape_entities(&body[..end]), i + 1 + end + 1))
}

/// Decodes the XML entities of attribute values; unknown entities stay as written.
pub fn unescape_entities(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = crate::text::find_byte(rest, b'&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let semi = rest.bytes().take(12).position(|b| b == b';');
        let decoded = semi.and_then(|n| {
            let c = match &rest[1..n] {
                "quot" => '"',
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "apos" => '\'',
                e => {
                    let num = e.strip_prefix('#')?;
                    let v = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::try_from(crate::text::parse_u64(hex, 16)?).ok()?,
                        None => u32::try_from(crate::text::parse_u64(num, 10)?).ok()?,
                    };
                    char::from_u32(v)?
                }
            };
            Some((c, n + 1))
        });
        match decoded {
            Some((c, n)) => {
                out.push(c);
                rest = &rest[n..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;

    fn h(s: &str) -> Option<Header<'_>> {
        parse(s, false)
    }

    fn hd<'a>(primary: Option<&'a str>, attrs: &[(&'a str, &'a str)]) -> Option<Header<'a>> {
        Some(Header { primary: primary.map(Cow::Borrowed), attrs: attrs.iter().map(|&(k, v)| (k, Cow::Borrowed(v))).collect() })
    }

    #[test]
    fn headers() {
        assert_eq!(h("get_weather"), hd(Some("get_weather"), &[]));
        assert_eq!(h("\"a b\" string=\"true\""), hd(Some("a b"), &[("string", "true")]));
        assert_eq!(h(" key='k' type=\"string\""), hd(None, &[("key", "k"), ("type", "string")]));
        assert_eq!(h("tool=\"a&amp;b\" index=1"), hd(None, &[("tool", "a&b"), ("index", "1")]));
        assert_eq!(h("is a tag"), None);
        assert_eq!(h("\"x\"y=1"), None);
        assert_eq!(h("\"unclosed"), None);
        assert_eq!(parse("my key", true).unwrap().primary.as_deref(), Some("my key"));
        assert_eq!(parse("", false), Some(Header::default()));
    }

    #[test]
    fn entities() {
        assert_eq!(unescape_entities("&quot;a&quot; &lt;b&gt; &#65;&#x42; &bogus; &"), "\"a\" <b> AB &bogus; &");
    }
}
