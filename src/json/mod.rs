//! Streaming JSON: a byte-level validator, writers, and the call readers built on them.

pub mod call;
pub mod named;
pub mod scanner;
pub mod write;
