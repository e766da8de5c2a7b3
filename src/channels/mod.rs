//! Channel formats whose messages carry a header: Harmony (gpt-oss). Block formats with fixed
//! markers (Inkling, Cohere) need no reader of their own: their reasoning blocks are the
//! format's `Syntax::reasoning` and their calls are JSON payloads.

pub mod harmony;
