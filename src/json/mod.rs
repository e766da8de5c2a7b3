//! Streaming JSON: a byte-level validator, writers, and the call readers built on them.

pub mod call;
pub mod named;
pub mod scanner;
pub mod value;
pub mod write;

pub use value::{parse, Map, Number, Value};

/// `json!` for unit tests: serde_json's macro (a test-only dependency), converted.
#[cfg(test)]
macro_rules! json {
    ($($t:tt)+) => {
        $crate::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
    };
}
#[cfg(test)]
pub(crate) use json;
