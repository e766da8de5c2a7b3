//! Channel formats whose messages carry a header: Harmony (gpt-oss) and Muse through the one
//! message-header syntax (`message.rs`), and Inkling's optional message name. Block formats with fixed markers (Cohere) need no reader of their own: their
//! reasoning blocks are the format's `Syntax::reasoning` and their calls are JSON payloads.

pub mod inkling;
pub mod message;
