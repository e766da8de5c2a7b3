//! The arguments guard of one call: whatever fragments a reader sends, what it lets through
//! concatenates to a prefix of one JSON object, at most `max_args_bytes` long, and `close`
//! completes that prefix append-only.

use crate::prelude::*;
use crate::json::scanner::{is_ws, Expect, JsonScanner, Progress};

/// What `ArgsGuard::take` did with a fragment.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Taken {
    /// All of it.
    All,
    /// Not a valid continuation of the JSON so far: refused whole.
    Invalid,
    /// Over the size limit: `kept` bytes of it were taken (`kept_valid` false when even
    /// those were refused as invalid), the rest and everything after it is dropped.
    Cut { kept: usize, kept_valid: bool },
    /// The limit was hit before: dropped.
    Dropped,
}

/// See the module docs.
pub(crate) struct ArgsGuard {
    /// The arguments so far.
    pub text: String,
    scanner: JsonScanner,
    /// `scanner` before the fragment being taken (restored when it is refused); kept to reuse
    /// its allocation.
    before: JsonScanner,
    /// Bytes past the size limit were dropped.
    pub overflowed: bool,
    /// A fragment was refused or cut: the text is no longer what a reader's scanner wrote
    /// (`take_read` scans again).
    diverged: bool,
}

impl ArgsGuard {
    /// Takes over `old`'s text buffer, cleared (`ToolCallParser::recycle`; this guard is new).
    pub fn recycle(&mut self, old: &mut ArgsGuard) {
        crate::small::Spare::spare(&mut self.text, &mut old.text);
    }

    /// Arguments nesting at most `max_depth` levels, the object itself counting as one (the
    /// depth `Limits::max_depth` means for every reader).
    pub fn new(max_depth: usize) -> ArgsGuard {
        let scanner = JsonScanner::new(Expect::Object, max_depth);
        // Room for a small call's arguments in one allocation.
        ArgsGuard { text: String::with_capacity(64), before: scanner.clone(), scanner, overflowed: false, diverged: false }
    }

    /// Makes this guard what `new(max_depth)` makes, keeping its allocations (`before` is a
    /// snapshot taken before each use: what it holds between uses does not matter).
    pub fn reset(&mut self, max_depth: usize) {
        self.text.clear();
        self.scanner = JsonScanner::new(Expect::Object, max_depth);
        self.overflowed = false;
        self.diverged = false;
    }

    /// Takes `s` (or what of it fits in `max` bytes) when it continues the JSON so far.
    pub fn take(&mut self, s: &str, max: usize) -> Taken {
        if self.overflowed {
            return Taken::Dropped;
        }
        if self.text.len() + s.len() > max {
            // Keep what fits (at a char boundary), so the cut falls at the same byte whatever
            // the fragments; the rest is dropped.
            let mut fit = crate::text::floor_char_boundary(s, max.saturating_sub(self.text.len()));
            // Not inside an escape (`\u00` then `":null}` would not close the string).
            let mut probe = self.scanner.clone();
            while fit > 0 && {
                probe.clone_from(&self.scanner);
                let _ = probe.feed(&s[..fit], None);
                probe.in_escape()
            } {
                fit = crate::text::floor_char_boundary(s, fit - 1);
            }
            let kept_valid = fit == 0 || self.take(&s[..fit], max) == Taken::All;
            self.overflowed = true;
            self.diverged = true;
            return Taken::Cut { kept: if kept_valid { fit } else { 0 }, kept_valid };
        }
        self.before.clone_from(&self.scanner);
        if !continues(&mut self.scanner, s) {
            core::mem::swap(&mut self.scanner, &mut self.before);
            self.diverged = true;
            return Taken::Invalid;
        }
        self.text.push_str(s);
        Taken::All
    }

    /// Like `take`, for a fragment that a reader's own scanner `read` wrote (its output,
    /// repaired or not), `read` having read from the arguments' first byte: `read` is then at
    /// the place in the grammar the arguments so far and `s` lead to, so the guard takes that
    /// place instead of scanning `s` again (the reader already did). It scans when `read` holds
    /// output back (inside an escape: what it wrote stops before the backslash), when a
    /// fragment was refused or cut before, or near the size limit.
    pub fn take_read(&mut self, s: &str, max: usize, read: &JsonScanner) -> Taken {
        if self.diverged || self.overflowed || read.in_escape() || self.text.len() + s.len() > max {
            return self.take(s, max);
        }
        debug_assert!(self.rescan_agrees(s, read), "a reader's scanner is not where its output {s:?} leads");
        self.scanner.take_place(read);
        self.text.push_str(s);
        Taken::All
    }

    /// Like `take`, for the whole arguments at once, `s` being a complete JSON object no
    /// deeper than `depth` levels (its `{` is level 1) that the reader wrote itself (pythonic
    /// arguments, whose JSON is synthesized): the guard takes the place after a complete
    /// object instead of scanning `s` (checked in debug builds, so the fixture harness and the
    /// fuzz targets check the reader's writer). It scans when anything was taken before,
    /// when a fragment was refused or cut, near the size limit, or when `depth` is more than
    /// the guard's own limit.
    pub fn take_whole(&mut self, s: &str, max: usize, depth: usize) -> Taken {
        if !self.text.is_empty() || self.diverged || self.overflowed || s.len() > max || depth > self.scanner.max_depth() || !self.scanner.at_start() {
            return self.take(s, max);
        }
        debug_assert!(self.rescan_is_whole(s), "a reader's whole arguments {s:?} are not one complete JSON object");
        self.scanner.take_done();
        self.text.push_str(s);
        Taken::All
    }

    /// Takes `s` after a `\\` when `held`: what a reader's scanner wrote for a quiet run of a
    /// string of the arguments (`JsonScanner::quiet_run`: string bytes and whole simple
    /// escapes, no `"`), without scanning it: the guard is inside that string and stays there.
    /// False, with nothing changed, when it cannot vouch for that: not in a plain string, a
    /// fragment refused or cut before, or past the size limit (the caller then sends it the
    /// usual way).
    pub fn take_quiet(&mut self, held: bool, s: &str, max: usize) -> bool {
        let held = if held { "\\" } else { "" };
        if self.diverged || self.overflowed || !self.scanner.in_plain_string() || self.text.len() + held.len() + s.len() > max {
            return false;
        }
        self.text.push_str(held);
        self.text.push_str(s);
        debug_assert!({
            let mut sc = self.scanner.clone();
            continues(&mut sc, &self.text[self.text.len() - held.len() - s.len()..]) && sc.same_place(&self.scanner)
        }, "a quiet run {s:?} is not string bytes");
        true
    }

    /// What `take_whole` trusts (checked in debug builds): scanning `s` from the start accepts
    /// all of it and ends after the object.
    fn rescan_is_whole(&self, s: &str) -> bool {
        let mut sc = self.scanner.clone();
        let (used, r) = sc.feed(s, None);
        used == s.len() && r == Ok(Progress::Done)
    }

    /// What `take_read` trusts (checked in debug builds): scanning `s` accepts it and ends
    /// where `read` is.
    fn rescan_agrees(&self, s: &str, read: &JsonScanner) -> bool {
        let mut sc = self.scanner.clone();
        continues(&mut sc, s) && sc.same_place(read)
    }

    /// True when the arguments form a complete JSON object.
    pub fn complete(&self) -> bool {
        self.scanner.is_done()
    }

    /// Completes the arguments (append-only); returns what was appended.
    pub fn close(&mut self) -> String {
        if self.scanner.is_done() {
            return String::new();
        }
        let tail = self.scanner.completion();
        self.text.push_str(&tail);
        tail
    }
}

/// Feeds `s` to `scanner`; true when all of it continues the JSON (whitespace may follow the end).
fn continues(scanner: &mut JsonScanner, s: &str) -> bool {
    let (used, r) = scanner.feed(s, None);
    match r {
        Ok(Progress::More) => used == s.len(),
        Ok(Progress::Done) => s[used..].bytes().all(is_ws),
        Err(_) => false,
    }
}
