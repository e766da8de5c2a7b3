//! The SSE rewrite's fast path: a `chat.completion.chunk` read in place, without building a
//! JSON tree (the rewrite's per-event cost; numbers in the README's benchmark section).
//!
//! `read` accepts only what it can copy back byte for byte as `serde_json` would write it:
//! compact JSON (no whitespace between tokens), no escapes in any string but the delta's
//! `content`, no repeated keys (at most 16 keys in a nested object), one choice with a `delta` object
//! and no native `tool_calls`. Anything else (and anything invalid) is `None`, and the rewriter
//! takes its general path through `serde_json`, so both paths give the same output
//! (tests/sse_fast.rs compares them).

use crate::prelude::*;

/// An object's fields in order: (key, the value's JSON text as written upstream).
pub(super) type Fields<'a> = Vec<(&'a str, &'a str)>;

/// A chat chunk with one choice, cut into the spans the rewrite needs.
pub(super) struct ChatChunk<'a> {
    /// The top-level fields (`choices` among them).
    pub chunk: Fields<'a>,
    /// The one choice's fields (`delta` among them).
    pub choice: Fields<'a>,
    /// The delta's fields.
    pub delta: Fields<'a>,
}

/// Nesting the fast path reads; deeper values go the general way (serde_json's limit is 128).
const MAX_DEPTH: usize = 64;
/// Keys of a nested object the fast path reads; more go the general way.
const MAX_KEYS: usize = 16;

/// The value of `key` in `fields`.
pub(super) fn get<'a>(fields: &Fields<'a>, key: &str) -> Option<&'a str> {
    fields.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

/// A field of a chunk read before, as byte ranges of its text: (key start, key end, value
/// start, value end).
type Span = (usize, usize, usize, usize);

/// What the text of the last chunk read in full holds before its delta: the next chunk that
/// starts with the same bytes is read from its delta on, the fields before taken from here
/// (OpenAI-compatible servers repeat the same envelope in every chunk; reading is left to
/// right, so the same bytes read the same way).
#[derive(Default)]
pub(super) struct Prefix {
    /// The chunk's text up to its delta's `{`.
    text: String,
    /// The top-level fields before `choices`, and where `choices`' `[` is.
    chunk: Vec<Span>,
    choices_at: usize,
    /// The choice's fields before `delta`.
    choice: Vec<Span>,
}

/// Reads `data` (an SSE event's data) as a chat chunk the fast path handles (see the module
/// doc), from its delta on when it starts with `prefix`; else in full, updating `prefix`.
pub(super) fn read<'a>(data: &'a str, prefix: &mut Prefix) -> Option<ChatChunk<'a>> {
    let mut r = Reader { text: data, choice: None, delta: None };
    let b = data.as_bytes();
    if !prefix.text.is_empty() && b.starts_with(prefix.text.as_bytes()) {
        // Room for the fields after the spans too (`members` adds them): no growing per event.
        let fields = |spans: &[Span]| -> Fields<'a> {
            let mut f = Vec::with_capacity(spans.len() + 8);
            f.extend(spans.iter().map(|&(ks, ke, vs, ve)| (&data[ks..ke], &data[vs..ve])));
            f
        };
        let at = prefix.text.len();
        let (delta, end) = r.object(at, Level::Delta)?;
        let mut choice = fields(&prefix.choice);
        choice.push(("delta", &data[at..end]));
        let (choice, end) = r.members(end, Level::Choice, choice, true)?;
        if b.get(end) != Some(&b']') {
            return None;
        }
        let mut chunk = fields(&prefix.chunk);
        chunk.push(("choices", &data[prefix.choices_at..end + 1]));
        let (chunk, end) = r.members(end + 1, Level::Chunk, chunk, true)?;
        return (end == data.len() && get(&delta, "tool_calls").is_none()).then_some(ChatChunk { chunk, choice, delta });
    }
    let (chunk, end) = r.object(0, Level::Chunk)?;
    if end != data.len() {
        return None;
    }
    let (choice, delta) = (r.choice?, r.delta?);
    // Offsets in `data` of the fields before `choices` and `delta`.
    let offset = |s: &str| s.as_ptr() as usize - data.as_ptr() as usize;
    let spans = |fields: &Fields, stop: &str| -> Option<(Vec<Span>, usize)> {
        let n = fields.iter().position(|(k, _)| *k == stop)?;
        let spans = fields[..n].iter().map(|(k, v)| (offset(k), offset(k) + k.len(), offset(v), offset(v) + v.len())).collect();
        Some((spans, offset(fields[n].1)))
    };
    if let (Some((chunk_spans, choices_at)), Some((choice_spans, delta_at))) = (spans(&chunk, "choices"), spans(&choice, "delta")) {
        prefix.text.clear();
        prefix.text.push_str(&data[..delta_at]);
        (prefix.chunk, prefix.choices_at, prefix.choice) = (chunk_spans, choices_at, choice_spans);
    }
    if get(&delta, "tool_calls").is_some() {
        return None;
    }
    Some(ChatChunk { chunk, choice, delta })
}

/// Which object `Reader::object` reads.
#[derive(Clone, Copy, PartialEq)]
enum Level {
    Chunk,
    Choice,
    Delta,
}

/// One pass over a chunk: the top-level fields, and those of the one choice and its delta.
struct Reader<'a> {
    text: &'a str,
    choice: Option<Fields<'a>>,
    delta: Option<Fields<'a>>,
}

impl<'a> Reader<'a> {
    /// The fields of the compact object at `i` and its end (see `members`).
    fn object(&mut self, i: usize, level: Level) -> Option<(Fields<'a>, usize)> {
        let b = self.text.as_bytes();
        if b.get(i) != Some(&b'{') {
            return None;
        }
        if b.get(i + 1) == Some(&b'}') {
            return Some((Vec::new(), i + 2));
        }
        self.members(i + 1, level, Vec::with_capacity(8), false)
    }

    /// The members of an object from `j` (a key, or with `after_value` what follows a value)
    /// added to `fields`, and the end of the object. `choices` (one object), the choice's
    /// `delta` (an object) and the delta's `content` (escapes allowed) are read as they are
    /// met; a repeated key is `None`.
    fn members(&mut self, mut j: usize, level: Level, mut fields: Fields<'a>, mut after_value: bool) -> Option<(Fields<'a>, usize)> {
        let (text, b) = (self.text, self.text.as_bytes());
        loop {
            if after_value {
                match b.get(j) {
                    Some(b',') => j += 1,
                    Some(b'}') => return Some((fields, j + 1)),
                    _ => return None,
                }
            }
            after_value = true;
            let key_end = string(b, j, false)?;
            let key = &text[j + 1..key_end - 1];
            if b.get(key_end) != Some(&b':') || fields.iter().any(|(k, _)| *k == key) {
                return None;
            }
            let start = key_end + 1;
            j = match (level, key) {
                (Level::Chunk, "choices") => {
                    if b.get(start) != Some(&b'[') {
                        return None;
                    }
                    let (choice, end) = self.object(start + 1, Level::Choice)?;
                    if b.get(end) != Some(&b']') {
                        return None;
                    }
                    self.choice = Some(choice);
                    end + 1
                }
                (Level::Choice, "delta") => {
                    let (delta, end) = self.object(start, Level::Delta)?;
                    self.delta = Some(delta);
                    end
                }
                (Level::Delta, "content") => value(b, start, 1, true)?,
                _ => value(b, start, 1, false)?,
            };
            fields.push((key, &text[start..j]));
        }
    }
}

/// The end of the JSON value at `i` (compact; strings escaped only with `escapes`).
fn value(b: &[u8], i: usize, depth: usize, escapes: bool) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    match *b.get(i)? {
        b'"' => string(b, i, escapes),
        b'{' | b'[' => {
            let close = if b[i] == b'{' { b'}' } else { b']' };
            let mut j = i + 1;
            if b.get(j) == Some(&close) {
                return Some(j + 1);
            }
            // An object's keys, to refuse a repeated one (serde_json keeps the last value).
            let mut keys: [&[u8]; MAX_KEYS] = [&[]; MAX_KEYS];
            let mut n = 0;
            loop {
                if close == b'}' {
                    let start = j;
                    j = string(b, j, escapes)?;
                    let key = &b[start..j];
                    if n == MAX_KEYS || keys[..n].contains(&key) || b.get(j) != Some(&b':') {
                        return None;
                    }
                    keys[n] = key;
                    n += 1;
                    j += 1;
                }
                j = value(b, j, depth + 1, escapes)?;
                match *b.get(j)? {
                    b',' => j += 1,
                    c if c == close => return Some(j + 1),
                    _ => return None,
                }
            }
        }
        b't' => literal(b, i, b"true"),
        b'f' => literal(b, i, b"false"),
        b'n' => literal(b, i, b"null"),
        _ => crate::json::number_end(b, i),
    }
}

fn literal(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    b.get(i..i + word.len()).filter(|w| *w == word).map(|_| i + word.len())
}

/// The end (after the closing quote) of the string at `i`. Without `escapes` a backslash is
/// `None`; with it, escapes must be valid and `\u` surrogates paired (as serde_json requires).
pub(super) fn string(b: &[u8], i: usize, escapes: bool) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    loop {
        // Plain bytes first (most of every string), eight at a time.
        j = crate::text::scan_until(b, j, crate::text::Stops::ESCAPE);
        match *b.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' if escapes => {
                j += 1;
                match *b.get(j)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => j += 1,
                    b'u' => {
                        let u = hex4(b, j + 1)?;
                        j += 5;
                        if (0xDC00..0xE000).contains(&u) {
                            return None;
                        }
                        if (0xD800..0xDC00).contains(&u) {
                            if b.get(j..j + 2) != Some(b"\\u") || !(0xDC00..0xE000).contains(&hex4(b, j + 2)?) {
                                return None;
                            }
                            j += 6;
                        }
                    }
                    _ => return None,
                }
            }
            c if c < 0x20 || c == b'\\' => return None,
            _ => j += 1,
        }
    }
}

/// The four hex digits of a `\\u` escape at `b[i..]` as a number.
pub(super) fn hex4(b: &[u8], i: usize) -> Option<u32> {
    let mut v = 0;
    for &c in b.get(i..i + 4)? {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_compact_chunk_and_refuses_the_rest() {
        let c = read(r#"{"id":"x","choices":[{"index":0,"delta":{"content":"a\"\u00e9\ud83d\ude00"},"finish_reason":null}],"n":-1.5e+3}"#, &mut Prefix::default()).unwrap();
        assert_eq!(get(&c.chunk, "n"), Some("-1.5e+3"));
        assert_eq!(get(&c.choice, "finish_reason"), Some("null"));
        assert_eq!(get(&c.delta, "content"), Some(r#""a\"\u00e9\ud83d\ude00""#));
        for bad in [
            r#"{"id":"x", "choices":[{"delta":{}}]}"#,
            r#"{"id":"\u0078","choices":[{"delta":{}}]}"#,
            r#"{"choices":[{"delta":{}},{"delta":{}}]}"#,
            r#"{"choices":[{"delta":{"content":"\ud800"}}]}"#,
            r#"{"choices":[{"delta":{"content":"a","content":"b"}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[]}}]}"#,
            r#"{"choices":[{"text":"a"}]}"#,
            r#"{"choices":[{"delta":{}}],"n":01}"#,
            r#"{"choices":[{"delta":{}}],"n":1E+3}"#,
            r#"{"choices":[{"delta":{}}],"n":1e3}"#,
            r#"{"choices":[{"delta":{}}]}x"#,
            r#"{"choices":[{"delta":{}}],"usage":{"a":1,"a":2}}"#,
            r#"{"choices":[{"delta":{"content":"a
"}}]}"#,
        ] {
            assert!(read(bad, &mut Prefix::default()).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_repeated_envelope_reads_as_in_full() {
        let chunks = [
            r#"{"id":"x","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"m":1}"#,
            r#"{"id":"x","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"m":1}"#,
            r#"{"id":"x","choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}"#,
            r#"{"id":"x","choices":[{"index":0,"delta":{"content":"b"},"delta":{}}]}"#,
            r#"{"id":"x","choices":[{"index":0,"delta":{"content":"c"}}],"choices":[]}"#,
            r#"{"id":"x","choices":[{"index":0,"delta":{"content":"c"}}],"id":"y"}"#,
            r#"{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[]}}]}"#,
            r#"{"id":"x","choices":[{"index":0,"delta":null}]}"#,
            r#"{"id":"x","choices":[{"index":0,"delta":{"content":"d"}},{"index":1,"delta":{}}]}"#,
            r#"{"id":"x","choices":[{"index":0,"delta":{"content":"e"}}]} "#,
            r#"{"id":"z","choices":[{"index":0,"delta":{"content":"f"}}]}"#,
            r#"{"id":"z","choices":[{"index":0,"delta":{"content":"g"}}]}"#,
        ];
        let mut prefix = Prefix::default();
        for c in chunks {
            let (full, resumed) = (read(c, &mut Prefix::default()), read(c, &mut prefix));
            let show = |r: Option<ChatChunk<'static>>| r.map(|r| (r.chunk, r.choice, r.delta));
            assert_eq!(show(resumed), show(full), "{c}");
        }
    }
}
