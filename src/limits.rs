//! Size and depth limits (memory stays bounded whatever the input). Every limit, when hit, yields a diagnostic
//! (`limit_exceeded`) and the parser continues safely; none panics. Fixtures for each limit and
//! payload kind: the cases with a `limits:` option in `tests/data/`.
//!
//! | limit (JS `limits.*`) | default | when hit |
//! |---|---|---|
//! | `maxArgsBytes` | 8 MiB | the call's arguments are cut at a char boundary and closed (`repaired`); the rest of the payload is consumed |
//! | `maxDepth` | 127 | levels of the arguments, the object counting as the first (`Limits::depth`, at most `MAX_DEPTH`). JSON/pythonic/key-value arguments: closed at the limit, the rest is text; a typed XML value: kept as a string; MiniMax-M3 elements: the call ends |
//! | `maxBufferBytes` | 1 MiB | an undecided possible call is released as text; a typed value waiting for its close tag streams as a string |
//! | `maxNameBytes` | 512 | a tool name over it: the markup is text; a parameter key over it: that parameter is text |
//!
//! Fixed bounds, not options: the hold-back of text (a partial marker) is at most the longest
//! marker plus `reader::READER_LOOKAHEAD`; the SSE decoder's event (and line) size is the
//! stream option `maxEventBytes` (`sse::SseOptions`).

/// Limits on what a parser buffers. Defaults are generous for real model output and small
/// enough that a hostile stream cannot exhaust a worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of one call's arguments JSON. Default 8 MiB.
    pub max_args_bytes: usize,
    /// Nesting depth of a call's arguments, the arguments object counting as the first level
    /// (JSON, pythonic, key-value and typed XML values alike). Default 127; a larger value acts
    /// as `MAX_DEPTH` (read it through `depth`).
    pub max_depth: usize,
    /// Bytes held undecided: a possible call before it starts (its marker and what follows),
    /// a typed value waiting for its close tag. Default 1 MiB.
    pub max_buffer_bytes: usize,
    /// Bytes of a tool name or parameter key. Default 512.
    pub max_name_bytes: usize,
}

/// The deepest arguments `json::parse` reads back (serde_json's recursion limit: under 128
/// levels), so the deepest `max_depth` takes effect.
pub const MAX_DEPTH: usize = 127;

impl Limits {
    /// The depth limit in effect: `max_depth`, at most `MAX_DEPTH`.
    pub fn depth(&self) -> usize {
        self.max_depth.min(MAX_DEPTH)
    }

    /// Levels a value inside the arguments object may nest: the object is the first of
    /// `depth()`, so the whole arguments stay within it.
    pub fn value_depth(&self) -> usize {
        self.depth().saturating_sub(1)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_args_bytes: 8 << 20, max_depth: MAX_DEPTH, max_buffer_bytes: 1 << 20, max_name_bytes: 512 }
    }
}

/// For a token (name, key, identifier) of which `held` bytes were read before and
/// `input[start..end]` comes next: `Some(at)` when it goes over `max` bytes, `at` the start of
/// the character holding the byte that crosses the limit (never before `start`), so a limit is
/// hit at the same byte whatever the chunking.
pub fn crossing(input: &str, start: usize, end: usize, held: usize, max: usize) -> Option<usize> {
    (held + (end - start) > max).then(|| crate::text::floor_char_boundary(input, start + max.saturating_sub(held)).max(start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_the_object_and_stops_at_what_json_parse_reads() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(crate::json::parse(&deep(MAX_DEPTH)).is_ok());
        assert!(crate::json::parse(&deep(MAX_DEPTH + 1)).is_err());
        let l = Limits { max_depth: 1000, ..Limits::default() };
        assert_eq!((l.depth(), l.value_depth()), (MAX_DEPTH, MAX_DEPTH - 1));
        let l = Limits { max_depth: 1, ..Limits::default() };
        assert_eq!((l.depth(), l.value_depth()), (1, 0));
        assert_eq!(Limits::default().depth(), MAX_DEPTH);
    }
}
