//! A server-sent events decoder for a rewriting proxy (WHATWG HTML, "Parsing an event stream").
//!
//! Contract:
//! - Input: bytes in chunks of any size. Lines end with CRLF, LF or CR (a CRLF split across
//!   chunks is one line end). A UTF-8 byte order mark at the start of the stream is dropped.
//!   Lines are decoded as UTF-8 once complete (invalid bytes become U+FFFD), so a code point
//!   split across chunks is never broken.
//! - Output, in stream order: `Item::Event` for every block ended by a blank line (with its
//!   lines verbatim, `data` joined per the spec, `event`, `id`, `retry`), `Item::Line` for a
//!   comment or blank line outside an event (forwarded at once, e.g. keep-alives).
//! - Memory: one event (its lines plus the line being read) is kept up to `max_event_bytes`.
//!   Past that the decoder reports `Item::Overflow` and forwards the event's bytes unparsed as
//!   `Item::Raw` (verbatim, as they arrive) until the blank line that ends it: bounded memory,
//!   nothing lost.
//! - `finish` reports an event cut off by the end of the stream as `Item::Incomplete` (its bytes;
//!   per the spec a client does not dispatch it).
//!
//! Decisions depend only on the bytes, never on chunk boundaries.

use crate::prelude::*;
/// A complete event block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Event {
    /// Every line of the block (fields and comments), each followed by `\n`.
    pub raw: String,
    /// The `data` fields joined with `\n`; `None` when the block had no `data` field.
    pub data: Option<String>,
    /// The `event` field (the last one); `None` when absent or empty (a `message` event).
    pub kind: Option<String>,
    /// The `id` field (the last one without a NUL), as a client would set its last event id.
    pub id: Option<String>,
    /// The `retry` field when it is all ASCII digits.
    pub retry: Option<u64>,
}

impl Event {
    /// The data when the block is that one line, `data: ` + data + `\n` (the usual event): an
    /// output may then be written from the block's bytes around spans of the data.
    pub fn one_data_line(&self) -> Option<&str> {
        let data = self.data.as_deref()?;
        (self.raw.len() == data.len() + 7 && self.raw.starts_with("data: ") && self.raw.get(6..6 + data.len()) == Some(data)).then_some(data)
    }

    /// The lines of the block that are not `data` fields (comments, `id`, `event`, `retry`,
    /// unknown fields), each followed by `\n`.
    pub fn non_data_lines(&self) -> String {
        let mut out = String::new();
        // The common event: one `data:` line.
        if self.raw.starts_with("data:") && crate::text::find_byte(&self.raw, b'\n') == Some(self.raw.len() - 1) {
            return out;
        }
        for line in self.raw.split_inclusive('\n') {
            if field_name(line.trim_end_matches('\n')) != "data" {
                out.push_str(line);
            }
        }
        out
    }
}

/// What the decoder produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Event(Event),
    /// A comment line or a blank line outside an event, without its line end.
    Line(String),
    /// The event being read exceeded `max_event_bytes`; its bytes follow as `Raw`.
    Overflow,
    /// Bytes of an oversized event, verbatim.
    Raw(Vec<u8>),
    /// The bytes of an event the stream ended inside (lines normalized to `\n`).
    Incomplete(Vec<u8>),
}

/// The field name of a line: up to the first `:` (empty for a comment).
pub fn field_name(line: &str) -> &str {
    &line[..crate::text::find_byte(line, b':').unwrap_or(line.len())]
}

#[derive(Clone, Debug)]
pub struct Decoder {
    max_event_bytes: usize,
    /// The line being read.
    line: Vec<u8>,
    /// The last line ended with CR: a following LF belongs to it.
    after_cr: bool,
    /// That CR ended an oversized event: its LF is forwarded too.
    lf_raw: bool,
    /// No line completed yet (a BOM may start the first).
    first_line: bool,
    /// The event being assembled; `pending` once it has a line.
    event: Event,
    pending: bool,
    data: String,
    has_data: bool,
    /// Forwarding an oversized event; `line_len` tracks its current line to find the blank one.
    overflow: bool,
    line_len: usize,
}

impl Decoder {
    pub fn new(max_event_bytes: usize) -> Decoder {
        Decoder {
            max_event_bytes: max_event_bytes.max(1),
            line: Vec::new(),
            after_cr: false,
            lf_raw: false,
            first_line: true,
            event: Event::default(),
            pending: false,
            data: String::new(),
            has_data: false,
            overflow: false,
            line_len: 0,
        }
    }

    /// Bytes held between pushes: the event being read, its current line and its joined
    /// `data`; at most twice `max_event_bytes` after every `push`.
    pub fn held_len(&self) -> usize {
        self.event.raw.len() + self.line.len() + self.data.len()
    }

    /// Between events: nothing held, the next byte starts a line of a new event.
    pub fn is_idle(&self) -> bool {
        self.held_len() == 0 && !self.pending && !self.after_cr && !self.first_line && !self.overflow && !self.has_data
    }

    /// Decodes the next chunk, appending what it completes to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Item>) {
        let mut rest = bytes;
        while !rest.is_empty() {
            if self.overflow {
                rest = self.forward(rest, out);
                continue;
            }
            if self.after_cr {
                self.after_cr = false;
                let raw = core::mem::take(&mut self.lf_raw);
                if rest[0] == b'\n' {
                    if raw {
                        out.push(Item::Raw(b"\n".to_vec()));
                    }
                    rest = &rest[1..];
                    continue;
                }
            }
            let end = crate::text::scan_until(rest, 0, crate::text::Stops::bytes(b'\n', b'\r'));
            match (end < rest.len()).then_some(end) {
                Some(i) => {
                    self.after_cr = rest[i] == b'\r';
                    let head = &rest[..i];
                    rest = &rest[i + 1..];
                    // A line begun in an earlier chunk is joined in the line buffer (which
                    // keeps its capacity from line to line); a whole one is read in place.
                    let mut held = core::mem::take(&mut self.line);
                    let line: &[u8] = if held.is_empty() {
                        head
                    } else {
                        held.extend_from_slice(head);
                        &held
                    };
                    if self.line(line, out) {
                        held.clear();
                        self.line = held;
                        continue;
                    }
                    if held.is_empty() {
                        held.extend_from_slice(head);
                    }
                    self.line = held;
                    // The line just ended (it is not blank: a blank line adds nothing); the
                    // overflow goes on from the next line.
                    self.start_overflow(out);
                    self.line_len = 0;
                    out.push(Item::Raw(if self.after_cr { b"\r".to_vec() } else { b"\n".to_vec() }));
                }
                None => {
                    self.line.extend_from_slice(rest);
                    rest = &[];
                    // A partial line counts by its bytes (checked on every push, so in
                    // constant time).
                    if self.event.raw.len() + self.line.len() > self.max_event_bytes {
                        self.start_overflow(out);
                    }
                }
            }
        }
    }

    /// Ends the stream: an event cut off by the end comes back as `Item::Incomplete`.
    pub fn finish(&mut self, out: &mut Vec<Item>) {
        if self.overflow {
            self.overflow = false;
            return;
        }
        if self.pending || !self.line.is_empty() {
            let mut bytes = core::mem::take(&mut self.event.raw).into_bytes();
            bytes.append(&mut self.line);
            out.push(Item::Incomplete(bytes));
        }
        self.reset_event();
    }

    /// Switches to forwarding the current event verbatim.
    fn start_overflow(&mut self, out: &mut Vec<Item>) {
        out.push(Item::Overflow);
        let mut bytes = core::mem::take(&mut self.event.raw).into_bytes();
        self.line_len = self.line.len();
        bytes.append(&mut self.line);
        out.push(Item::Raw(bytes));
        self.reset_event();
        self.overflow = true;
    }

    /// Forwards bytes of an oversized event up to and including its blank line.
    fn forward<'a>(&mut self, rest: &'a [u8], out: &mut Vec<Item>) -> &'a [u8] {
        let mut i = 0;
        while i < rest.len() {
            let b = rest[i];
            i += 1;
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            if b == b'\n' || b == b'\r' {
                self.after_cr = b == b'\r';
                let blank = self.line_len == 0;
                self.line_len = 0;
                if blank {
                    // The event ended; an LF after this CR is forwarded by `push`.
                    self.overflow = false;
                    self.lf_raw = self.after_cr;
                    break;
                }
            } else {
                self.line_len += 1;
            }
        }
        out.push(Item::Raw(rest[..i].to_vec()));
        &rest[i..]
    }

    fn reset_event(&mut self) {
        self.event = Event::default();
        self.pending = false;
        self.data.clear();
        self.has_data = false;
    }

    /// Handles one complete line (without its line end); false, with nothing done, when the
    /// event with it would exceed `max_event_bytes` (the line counts as it is kept: invalid
    /// UTF-8 becomes U+FFFD, up to three times its bytes).
    fn line(&mut self, bytes: &[u8], out: &mut Vec<Item>) -> bool {
        // Valid UTF-8 (the common case) is checked once, without the lossy decoder's iterator.
        let text = match core::str::from_utf8(bytes) {
            Ok(s) => alloc::borrow::Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(bytes),
        };
        if self.event.raw.len() + text.len() > self.max_event_bytes {
            return false;
        }
        let mut line: &str = &text;
        if self.first_line {
            self.first_line = false;
            line = line.strip_prefix('\u{FEFF}').unwrap_or(line);
        }
        if line.is_empty() {
            if self.pending {
                let mut ev = core::mem::take(&mut self.event);
                if self.has_data {
                    ev.data = Some(core::mem::take(&mut self.data));
                }
                self.reset_event();
                out.push(Item::Event(ev));
            } else {
                out.push(Item::Line(String::new()));
            }
            return true;
        }
        if line.starts_with(':') && !self.pending {
            out.push(Item::Line(line.to_string()));
            return true;
        }
        self.pending = true;
        self.event.raw.reserve(line.len() + 1);
        self.event.raw.push_str(line);
        self.event.raw.push('\n');
        if line.starts_with(':') {
            return true;
        }
        let (name, value) = match crate::text::split_once_byte(line, b':') {
            Some((n, v)) => (n, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match name {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event.kind = if value.is_empty() { None } else { Some(value.to_string()) },
            "id" if !value.contains('\0') => self.event.id = Some(value.to_string()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.event.retry = crate::text::parse_u64(value, 10);
            }
            _ => {}
        }
        true
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;

    fn decode_chunks(chunks: &[&[u8]], max: usize) -> Vec<Item> {
        let mut d = Decoder::new(max);
        let mut out = Vec::new();
        for c in chunks {
            d.push(c, &mut out);
            assert!(d.held_len() <= 2 * max, "held {} bytes past twice the limit {max}", d.held_len());
        }
        d.finish(&mut out);
        // Merge adjacent Raw items (their split depends on the chunking).
        let mut merged: Vec<Item> = Vec::new();
        for item in out {
            match (merged.last_mut(), item) {
                (Some(Item::Raw(a)), Item::Raw(b)) => a.extend_from_slice(&b),
                (_, item) => merged.push(item),
            }
        }
        merged
    }

    /// Decodes `input` whole, split at every byte, and byte by byte; all must agree.
    fn decode(input: &[u8], max: usize) -> Vec<Item> {
        let whole = decode_chunks(&[input], max);
        for cut in 0..=input.len() {
            assert_eq!(decode_chunks(&[&input[..cut], &input[cut..]], max), whole, "split at {cut}");
        }
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        assert_eq!(decode_chunks(&bytes, max), whole, "byte by byte");
        whole
    }

    fn events(items: &[Item]) -> Vec<&Event> {
        items.iter().filter_map(|i| if let Item::Event(e) = i { Some(e) } else { None }).collect()
    }

    #[test]
    fn line_ends_cr_lf_crlf() {
        let items = decode(b"data: a\r\n\r\ndata: b\n\ndata: c\r\rdata: d\r\n\n", 1024);
        let data: Vec<_> = events(&items).iter().map(|e| e.data.clone().unwrap()).collect();
        assert_eq!(data, ["a", "b", "c", "d"]);
    }

    #[test]
    fn multi_line_data_and_fields() {
        let items = decode(b"event: update\nid: 7\nretry: 3000\ndata: {\"a\":\ndata:1}\nfoo: bar\n\n", 1024);
        let e = events(&items)[0];
        assert_eq!(e.data.as_deref(), Some("{\"a\":\n1}"));
        assert_eq!(e.kind.as_deref(), Some("update"));
        assert_eq!(e.id.as_deref(), Some("7"));
        assert_eq!(e.retry, Some(3000));
        assert_eq!(e.raw, "event: update\nid: 7\nretry: 3000\ndata: {\"a\":\ndata:1}\nfoo: bar\n");
        assert_eq!(e.non_data_lines(), "event: update\nid: 7\nretry: 3000\nfoo: bar\n");
    }

    #[test]
    fn spec_edge_cases() {
        // Empty data field dispatches "", a field with no colon is a name with an empty value,
        // a bad retry and an id with NUL are ignored, only one leading space is stripped.
        let items = decode(b"data\n\ndata:  two\nretry: 1x\nid: a\0b\n\n", 1024);
        let ev = events(&items);
        assert_eq!(ev[0].data.as_deref(), Some(""));
        assert_eq!(ev[1].data.as_deref(), Some(" two"));
        assert_eq!(ev[1].retry, None);
        assert_eq!(ev[1].id, None);
        // A block without data is still reported (a proxy forwards its lines).
        let items = decode(b"id: 5\n\n", 1024);
        assert_eq!(events(&items)[0].data, None);
    }

    #[test]
    fn comments_outside_events_are_forwarded_at_once() {
        let items = decode(b": ping\n\ndata: x\n: inside\n\n", 1024);
        assert_eq!(items[0], Item::Line(": ping".into()));
        assert_eq!(items[1], Item::Line(String::new()));
        let e = events(&items)[0];
        assert_eq!(e.raw, "data: x\n: inside\n");
        assert_eq!(e.non_data_lines(), ": inside\n");
    }

    #[test]
    fn bom_and_utf8_split_across_chunks() {
        let items = decode("\u{FEFF}data: é😀\n\n".as_bytes(), 1024);
        assert_eq!(events(&items)[0].data.as_deref(), Some("é😀"));
        // Invalid bytes become U+FFFD.
        let items = decode(b"data: a\xFFb\n\n", 1024);
        assert_eq!(events(&items)[0].data.as_deref(), Some("a\u{FFFD}b"));
    }

    #[test]
    fn an_event_cut_off_by_the_end_is_incomplete() {
        let items = decode(b"data: a\n\ndata: b\ndata: c", 1024);
        assert_eq!(events(&items).len(), 1);
        assert_eq!(items.last(), Some(&Item::Incomplete(b"data: b\ndata: c".to_vec())));
    }

    #[test]
    fn oversized_events_are_forwarded_verbatim() {
        let big = format!("data: {}\r\ndata: more\r\n\r\n", "x".repeat(40));
        let input = format!("data: a\n\n{big}data: b\n\n");
        let items = decode(input.as_bytes(), 32);
        assert_eq!(items.len(), 4, "{items:?}");
        assert_eq!(events(&items).iter().map(|e| e.data.clone().unwrap()).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(items[1], Item::Overflow);
        assert_eq!(items[2], Item::Raw(big.into_bytes()));
        // Memory stays bounded on an endless line.
        let mut d = Decoder::new(64);
        let mut out = Vec::new();
        for _ in 0..1000 {
            d.push(&[b'x'; 100], &mut out);
        }
        assert!(d.line.len() <= 64 && d.event.raw.len() <= 64);
    }

    /// Found by fuzzing: invalid UTF-8 grows threefold as U+FFFD, so a line under the limit in
    /// bytes could push the kept event past it; the limit counts the line as kept.
    #[test]
    fn invalid_utf8_counts_as_replaced() {
        let mut input = b"data: ".to_vec();
        input.extend_from_slice(&[0xff; 40]);
        input.extend_from_slice(b"\ndata: x\n\n");
        let items = decode(&input, 64);
        assert_eq!(items.first(), Some(&Item::Overflow), "{items:?}");
        let raw: Vec<u8> = items.iter().filter_map(|i| if let Item::Raw(b) = i { Some(b.clone()) } else { None }).flatten().collect();
        assert_eq!(raw, input, "the oversized event is forwarded verbatim");
    }
}
