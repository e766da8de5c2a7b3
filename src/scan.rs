//! Marker scanning with minimal hold-back.
//!
//! Contract: `find` looks for the earliest occurrence of any marker in `input`. Text before it is
//! safe to release. When the input ends inside what could still become a marker, `find` reports
//! `Hold` at that position: only that suffix (shorter than the longest marker) must be kept back.
//! At one position the longest complete marker wins, unless a longer marker could still match
//! once more input arrives (then `Hold`). Cost: one table lookup per byte, plus a comparison per
//! marker at bytes that can start one.

use crate::prelude::*;
/// What a marker means to the sequencer. Payload readers use `Act::Other(n)` for their own
/// meanings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    /// Opens a section that holds calls.
    Section,
    /// Closes a section.
    SectionEnd,
    /// Opens a payload; the marker is consumed.
    Start,
    /// Opens a payload; the marker is part of the payload (e.g. `{` for bare JSON).
    Bare,
    /// Closes one call.
    End,
    /// Swallowed silently (role and turn tokens).
    Ignore,
    /// Opens reasoning.
    ThinkStart,
    /// Closes reasoning.
    ThinkEnd,
    /// Reader-defined.
    Other(u8),
}

/// One marker of a set, with its first (up to) sixteen bytes as two words and masks of the
/// bytes they hold, so a marker is told apart from the input in one or two comparisons.
#[derive(Clone, Debug)]
struct Marker {
    /// Where its text is in the set's `texts`.
    start: usize,
    len: usize,
    act: Act,
    head: [u64; 2],
    mask: [u64; 2],
    /// Another marker of the set starts with this one (and is longer): a match of this one is
    /// not the longest yet.
    extended: bool,
}

/// `HEAD` bytes of a marker are compared as words.
const HEAD: usize = 16;

/// A set of literal markers, each with a meaning.
#[derive(Clone, Debug)]
pub struct MarkerSet {
    /// Every marker's text, one after the other: one buffer per set, not one per marker (a
    /// reader builds its sets when a call opens; an allocation per marker was most of that).
    texts: String,
    markers: Vec<Marker>,
    /// Bytes that start a marker (a bit set).
    first: [u64; 4],
    /// The distinct first bytes (`needles[..n_needles]`) when there are at most `SWAR_MAX` of
    /// them: scanned a word at a time. `n_needles == 0`: scanned with the `first` table.
    needles: [u8; SWAR_MAX],
    n_needles: usize,
    longest: usize,
}

impl Default for MarkerSet {
    fn default() -> Self {
        MarkerSet::new()
    }
}

/// Up to this many distinct first bytes are searched eight bytes at a time.
const SWAR_MAX: usize = 3;

/// Result of `MarkerSet::find`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    /// Marker `idx` starts at `at`.
    Found { at: usize, idx: usize },
    /// `input[at..]` may be the start of a marker; everything before `at` is safe.
    Hold { at: usize },
    /// No marker starts anywhere in `input`.
    None,
}

impl MarkerSet {
    pub const fn new() -> Self {
        MarkerSet { texts: String::new(), markers: Vec::new(), first: [0; 4], needles: [0; SWAR_MAX], n_needles: 0, longest: 0 }
    }

    /// Adds a marker; empty markers and duplicates of an earlier marker are ignored.
    pub fn add(&mut self, text: &str, act: Act) -> &mut Self {
        if text.is_empty() || self.markers.iter().any(|m| self.bytes(m) == text.as_bytes()) {
            return self;
        }
        let b = text.as_bytes()[0];
        if !self.starts(b) {
            // A new first byte: scanned by word while there are few (the first marker's byte
            // always is; past `SWAR_MAX` the table is used).
            if self.n_needles < SWAR_MAX && (self.n_needles > 0 || self.markers.is_empty()) {
                self.needles[self.n_needles] = b;
                self.n_needles += 1;
            } else {
                self.n_needles = 0;
            }
        }
        self.first[(b >> 6) as usize] |= 1 << (b & 63);
        self.longest = self.longest.max(text.len());
        // The first `HEAD` bytes as little-endian words, and which bytes they hold.
        let (mut head, mut mask) = ([0u64; 2], [0u64; 2]);
        for (i, &c) in text.as_bytes().iter().take(HEAD).enumerate() {
            head[i / 8] |= (c as u64) << (8 * (i % 8));
            mask[i / 8] |= 0xFF << (8 * (i % 8));
        }
        let new = text.as_bytes();
        let texts = self.texts.as_bytes();
        let mut extended = false;
        for m in &mut self.markers {
            let t = texts.get(m.start..m.start + m.len).unwrap_or_default();
            extended |= t.len() > new.len() && t.starts_with(new);
            m.extended |= new.len() > t.len() && new.starts_with(t);
        }
        let start = self.texts.len();
        self.texts.push_str(text);
        self.markers.push(Marker { start, len: text.len(), act, head, mask, extended });
        self
    }

    pub fn add_all(&mut self, texts: &[&str], act: Act) -> &mut Self {
        for t in texts {
            self.add(t, act);
        }
        self
    }

    /// The text of `m`, one of the set's markers.
    fn text_of(&self, m: &Marker) -> &str {
        self.texts.get(m.start..m.start + m.len).unwrap_or_default()
    }

    /// `text_of` as bytes.
    fn bytes(&self, m: &Marker) -> &[u8] {
        self.text_of(m).as_bytes()
    }

    pub fn is_empty(&self) -> bool {
        self.markers.is_empty()
    }

    /// The ASCII bytes that start a marker (`Stop` of a quiet run: input without them holds no
    /// marker and nothing to hold back).
    pub fn ascii_firsts(&self) -> crate::quiet::Stop {
        crate::quiet::Stop(self.first[0] as u128 | (self.first[1] as u128) << 64)
    }

    /// No marker starts with a byte from 0x80 (then input of whole non-ASCII characters
    /// holds no marker's start either).
    pub fn ascii_starts(&self) -> bool {
        self.first[2] | self.first[3] == 0
    }

    /// Length of the longest marker (the hold-back bound).
    pub fn longest(&self) -> usize {
        self.longest
    }

    /// When `held` is a proper prefix of a marker (the first such), that marker's bytes after
    /// `held` but its last: `find` and `at_start` see `held` followed by any prefix of them
    /// as a marker yet to complete (`Hold` at 0, `Err`).
    pub fn continuation(&self, held: &str) -> Option<&[u8]> {
        let held = held.as_bytes();
        let t = self.markers.iter().map(|m| self.bytes(m)).find(|t| t.len() > held.len() && t.starts_with(held))?;
        (!held.is_empty()).then(|| &t[held.len()..t.len() - 1])
    }

    pub fn text(&self, idx: usize) -> &str {
        self.text_of(&self.markers[idx])
    }

    pub fn act(&self, idx: usize) -> Act {
        self.markers[idx].act
    }

    /// See the module docs. With `eof`, partial markers at the end are not held.
    pub fn find(&self, input: &str, eof: bool) -> Hit {
        let bytes = input.as_bytes();
        // One one-byte marker (pythonic's `[`): a byte that starts it is it (natively: the
        // wasm keeps one path).
        if cfg!(not(target_arch = "wasm32")) && self.longest == 1 && self.markers.len() == 1 {
            let b = self.texts.as_bytes()[0];
            let at = crate::text::scan_until(bytes, 0, crate::text::Stops::byte(b));
            return if at < bytes.len() { Hit::Found { at, idx: 0 } } else { Hit::None };
        }
        let mut i = 0;
        while let Some(at) = self.candidate(bytes, i) {
            match self.match_at(&bytes[at..], eof) {
                Err(()) => return Hit::Hold { at },
                Ok(Some(idx)) => return Hit::Found { at, idx },
                Ok(None) => i = at + 1,
            }
        }
        Hit::None
    }

    #[inline]
    fn starts(&self, b: u8) -> bool {
        self.first[(b >> 6) as usize] >> (b & 63) & 1 != 0
    }

    /// The first position `>= from` whose byte can start a marker (memchr-style: eight bytes
    /// at a time when the markers have few distinct first bytes).
    #[inline]
    fn candidate(&self, bytes: &[u8], mut i: usize) -> Option<usize> {
        const LO: u64 = 0x0101_0101_0101_0101;
        const HI: u64 = 0x8080_8080_8080_8080;
        if bytes.len().saturating_sub(i) >= 16 && self.n_needles > 0 {
            while let Some(w) = crate::text::word_at(bytes, i) {
                let mut hits = 0;
                for &n in &self.needles[..self.n_needles.min(SWAR_MAX)] {
                    // Zero bytes of `w ^ n..n` are matches; the lowest flagged byte is exact.
                    let x = w ^ (LO * n as u64);
                    hits |= x.wrapping_sub(LO) & !x & HI;
                }
                if hits != 0 {
                    return Some(i + (hits.trailing_zeros() / 8) as usize);
                }
                i += 8;
            }
        }
        while i < bytes.len() {
            if self.starts(bytes[i]) {
                return Some(i);
            }
            i += 1;
        }
        None
    }

    /// If `input` starts with a marker, returns its index; `Err(())` when `input` is a proper
    /// prefix of some marker (more input needed) and `eof` is false.
    pub fn at_start(&self, input: &str, eof: bool) -> Result<Option<usize>, ()> {
        // A first byte no marker starts with rules every marker out at once (most bytes
        // readers ask about start none).
        if input.as_bytes().first().is_some_and(|&b| !self.starts(b)) {
            return Ok(None);
        }
        self.match_at(input.as_bytes(), eof)
    }

    /// The longest marker `rest` starts with, or `Err(())` when a longer one could still
    /// match once more input arrives (a partial marker is longer than any complete one here).
    /// Inlined natively (a call per candidate byte was a fifth of its cost); one copy in the
    /// wasm (size).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn match_at(&self, rest: &[u8], eof: bool) -> Result<Option<usize>, ()> {
        if rest.len() >= HEAD {
            // Sixteen input bytes at hand: a marker that differs within its first sixteen bytes
            // is ruled out by a comparison or two, one of at most sixteen bytes matches by them,
            // and a longer one compares the rest (a marker longer than `rest` can still grow only
            // when `rest` is its prefix).
            let word = |k: usize| crate::text::word_at(rest, 8 * k).unwrap_or(0);
            let (w0, w1) = (word(0), word(1));
            let mut best: Option<(usize, usize)> = None;
            let mut could_grow = false;
            for (idx, m) in self.markers.iter().enumerate() {
                if w0 & m.mask[0] != m.head[0] || w1 & m.mask[1] != m.head[1] {
                    continue;
                }
                let t = self.bytes(m);
                if rest.len() >= t.len() {
                    if t.len() <= HEAD || rest[HEAD..t.len()] == t[HEAD..] {
                        // No marker extends this one: no other can match longer here, nor
                        // grow (it would have this one as a prefix).
                        if !m.extended {
                            return Ok(Some(idx));
                        }
                        if best.is_none_or(|(len, _)| t.len() > len) {
                            best = Some((t.len(), idx));
                        }
                    }
                } else if t[HEAD..rest.len()] == rest[HEAD..] {
                    could_grow = true;
                }
            }
            if could_grow && !eof {
                return Err(());
            }
            return Ok(best.map(|(_, idx)| idx));
        }
        let mut best: Option<(usize, usize)> = None;
        let mut could_grow = false;
        for (idx, m) in self.markers.iter().enumerate() {
            let m = self.bytes(m);
            // Most markers differ from `rest` in their first two bytes: skip those inline.
            if rest.len() >= 2 && m.len() >= 2 && (m[0] != rest[0] || m[1] != rest[1]) {
                continue;
            }
            if rest.len() >= m.len() {
                if rest.starts_with(m) && best.is_none_or(|(len, _)| m.len() > len) {
                    best = Some((m.len(), idx));
                }
            } else if m.starts_with(rest) {
                could_grow = true;
            }
        }
        if could_grow && !eof {
            return Err(());
        }
        Ok(best.map(|(_, idx)| idx))
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;

    fn set(ms: &[&str]) -> MarkerSet {
        let mut s = MarkerSet::new();
        s.add_all(ms, Act::Start);
        s
    }

    #[test]
    fn finds_earliest_and_longest() {
        let s = set(&["<tool_call>", "<tool_calls>", "[X]"]);
        assert_eq!(s.find("ab<tool_calls>", false), Hit::Found { at: 2, idx: 1 });
        assert_eq!(s.find("a[X]b<tool_call>x", false), Hit::Found { at: 1, idx: 2 });
        assert_eq!(s.find("ab<tool_call>x", false), Hit::Found { at: 2, idx: 0 });
    }

    /// One one-byte marker: its first occurrence, short and long inputs alike.
    #[test]
    fn finds_a_single_one_byte_marker() {
        let s = set(&["["]);
        assert_eq!(s.find("ab[c[", false), Hit::Found { at: 2, idx: 0 });
        assert_eq!(s.find("[", false), Hit::Found { at: 0, idx: 0 });
        assert_eq!(s.find("abcdefghijklmnopqrstuvwxyz[", false), Hit::Found { at: 26, idx: 0 });
        assert_eq!(s.find("abcdéfgh[ijklmnopqrstuvwxyz[", false), Hit::Found { at: 9, idx: 0 });
        assert_eq!(s.find("abcdefg[[ijklmnopqrstuvwxyz", false), Hit::Found { at: 7, idx: 0 });
        assert_eq!(s.find("abcdefghijklmnopqrstuvwxyz", false), Hit::None);
        assert_eq!(s.find("", true), Hit::None);
    }

    #[test]
    fn holds_only_a_possible_prefix() {
        let s = set(&["<tool_call>", "<tool_calls>"]);
        assert_eq!(s.find("abc<tool", false), Hit::Hold { at: 3 });
        assert_eq!(s.find("abc<tool_call", false), Hit::Hold { at: 3 });
        // `<tool_call>` is complete and `<tool_calls>` can no longer match.
        assert_eq!(s.find("abc<tool_call>", false), Hit::Found { at: 3, idx: 0 });
        assert_eq!(s.find("a<b<tool_x", false), Hit::None);
        assert_eq!(s.find("abc<", true), Hit::None);
    }

    #[test]
    fn multibyte_markers() {
        let s = set(&["<｜tool▁calls▁begin｜>"]);
        let text = "héllo<｜tool▁calls▁begin｜>";
        assert_eq!(s.find(text, false), Hit::Found { at: 6, idx: 0 });
        assert_eq!(s.find("x<｜tool▁", false), Hit::Hold { at: 1 });
    }

    #[test]
    fn proper_prefix_marker_waits() {
        let s = set(&["<a>", "<a>b"]);
        assert_eq!(s.find("x<a>", false), Hit::Hold { at: 1 });
        assert_eq!(s.find("x<a>c", false), Hit::Found { at: 1, idx: 0 });
        assert_eq!(s.find("x<a>b", false), Hit::Found { at: 1, idx: 1 });
    }

    /// The word-at-a-time scan finds the same markers as a byte loop, at every alignment.
    #[test]
    fn word_scan_matches_byte_scan() {
        for ms in [&["<a>"][..], &["<a>", "[B]", "{"], &["<a>", "[B]", "{", "|x"]] {
            let s = set(ms);
            for pad in 0..20 {
                for tail in ["<a>", "[B]", "{", "|x", "<", "a<a>", "\u{80}<a>"] {
                    let text = format!("{}{tail}", "é.".repeat(pad).chars().take(pad).collect::<String>());
                    let want = (0..text.len()).find_map(|i| {
                        if !text.is_char_boundary(i) {
                            return None;
                        }
                        match s.match_at(&text.as_bytes()[i..], false) {
                            Err(()) => Some(Hit::Hold { at: i }),
                            Ok(Some(idx)) => Some(Hit::Found { at: i, idx }),
                            Ok(None) => None,
                        }
                    });
                    assert_eq!(s.find(&text, false), want.unwrap_or(Hit::None), "{ms:?} in {text:?}");
                }
            }
        }
    }

    /// The word comparison (sixteen input bytes at hand) decides as a plain prefix comparison
    /// does, for markers shorter than, as long as and longer than a word, and prefixes of each
    /// other, on inputs cut at every length.
    #[test]
    fn word_match_agrees_with_prefix_match() {
        let ms = ["<", "<a>", "<|tool|>", "<|tool|>x", "<|tool_call|>", "<|tool_calls|>", "<｜tool▁calls｜>", "[TOOL_CALLS]", "0123456789abcdef", "0123456789abcdefg", "0123456789abcdefgh"];
        let s = set(&ms);
        let reference = |rest: &[u8], eof: bool| {
            let mut best: Option<(usize, usize)> = None;
            let mut grow = false;
            for (idx, m) in ms.iter().enumerate() {
                let m = m.as_bytes();
                if rest.starts_with(m) && best.is_none_or(|(l, _)| m.len() > l) {
                    best = Some((m.len(), idx));
                } else if rest.len() < m.len() && m.starts_with(rest) {
                    grow = true;
                }
            }
            if grow && !eof { Err(()) } else { Ok(best.map(|(_, i)| i)) }
        };
        for m in ms {
            for tail in ["", "x", "s|>", "abcdefghij", "<|tool|>", "0123456789abcdefghijklmnop"] {
                let text = format!("{m}{tail}");
                for cut in 0..=text.len() {
                    for eof in [false, true] {
                        let rest = &text.as_bytes()[..cut];
                        assert_eq!(s.match_at(rest, eof), reference(rest, eof), "{text:?} cut at {cut}");
                    }
                }
            }
        }
    }

    #[test]
    fn at_start() {
        let s = set(&["<a>", "<ab>"]);
        assert_eq!(s.at_start("<a>x", false), Ok(Some(0)));
        assert_eq!(s.at_start("<a", false), Err(()));
        assert_eq!(s.at_start("<a", true), Ok(None));
        assert_eq!(s.at_start("x", false), Ok(None));
    }
}
