//! Size and depth limits. Every limit yields a `limit_exceeded` (or `truncation`) diagnostic
//! and the parser continues; none panics.

/// Limits on what a parser buffers. Defaults are generous for real model output and small
/// enough that a hostile stream cannot exhaust a worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of one call's arguments JSON. Default 8 MiB.
    pub max_args_bytes: usize,
    /// Nesting depth of JSON and pythonic values. Default 128.
    pub max_depth: usize,
    /// Bytes a reader may hold undecided: an uncommitted call payload, a typed value waiting
    /// for its close tag, a name or key. Default 1 MiB.
    pub max_buffer_bytes: usize,
    /// Bytes of a tool name or parameter key. Default 512.
    pub max_name_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_args_bytes: 8 << 20, max_depth: 128, max_buffer_bytes: 1 << 20, max_name_bytes: 512 }
    }
}
