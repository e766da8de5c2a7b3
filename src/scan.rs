//! Marker scanning with minimal hold-back.
//!
//! Contract: `find` looks for the earliest occurrence of any marker in `input`. Text before it is
//! safe to release. When the input ends inside what could still become a marker, `find` reports
//! `Hold` at that position: only that suffix (shorter than the longest marker) must be kept back.
//! At one position the longest complete marker wins, unless a longer marker could still match
//! once more input arrives (then `Hold`). Cost: one table lookup per byte, plus a comparison per
//! marker at bytes that can start one.

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

/// A set of literal markers, each with a meaning.
#[derive(Clone, Debug, Default)]
pub struct MarkerSet {
    markers: Vec<(String, Act)>,
    first: Vec<bool>,
    longest: usize,
}

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
    pub fn new() -> Self {
        MarkerSet { markers: Vec::new(), first: vec![false; 256], longest: 0 }
    }

    /// Adds a marker; empty markers and duplicates of an earlier marker are ignored.
    pub fn add(&mut self, text: &str, act: Act) -> &mut Self {
        if text.is_empty() || self.markers.iter().any(|(m, _)| m == text) {
            return self;
        }
        self.first[text.as_bytes()[0] as usize] = true;
        self.longest = self.longest.max(text.len());
        self.markers.push((text.to_string(), act));
        self
    }

    pub fn add_all(&mut self, texts: &[&str], act: Act) -> &mut Self {
        for t in texts {
            self.add(t, act);
        }
        self
    }

    pub fn is_empty(&self) -> bool {
        self.markers.is_empty()
    }

    /// Length of the longest marker (the hold-back bound).
    pub fn longest(&self) -> usize {
        self.longest
    }

    pub fn text(&self, idx: usize) -> &str {
        &self.markers[idx].0
    }

    pub fn act(&self, idx: usize) -> Act {
        self.markers[idx].1
    }

    /// See the module docs. With `eof`, partial markers at the end are not held.
    pub fn find(&self, input: &str, eof: bool) -> Hit {
        let bytes = input.as_bytes();
        for i in 0..bytes.len() {
            if !self.first[bytes[i] as usize] {
                continue;
            }
            match self.match_at(&bytes[i..], eof) {
                Err(()) => return Hit::Hold { at: i },
                Ok(Some(idx)) => return Hit::Found { at: i, idx },
                Ok(None) => {}
            }
        }
        Hit::None
    }

    /// If `input` starts with a marker, returns its index; `Err(())` when `input` is a proper
    /// prefix of some marker (more input needed) and `eof` is false.
    pub fn at_start(&self, input: &str, eof: bool) -> Result<Option<usize>, ()> {
        self.match_at(input.as_bytes(), eof)
    }

    /// The longest marker `rest` starts with, or `Err(())` when a longer one could still
    /// match once more input arrives (a partial marker is longer than any complete one here).
    fn match_at(&self, rest: &[u8], eof: bool) -> Result<Option<usize>, ()> {
        let mut best: Option<(usize, usize)> = None;
        let mut could_grow = false;
        for (idx, (m, _)) in self.markers.iter().enumerate() {
            let m = m.as_bytes();
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

    #[test]
    fn at_start() {
        let s = set(&["<a>", "<ab>"]);
        assert_eq!(s.at_start("<a>x", false), Ok(Some(0)));
        assert_eq!(s.at_start("<a", false), Err(()));
        assert_eq!(s.at_start("<a", true), Ok(None));
        assert_eq!(s.at_start("x", false), Ok(None));
    }
}
