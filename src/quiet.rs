//! The quiet-run hint: between pushes, what the next input may be for the parser to do
//! nothing with it but report it as one event.
//!
//! After a push, `ToolCallParser::quiet` may say: "nothing is held, and any chunk of ASCII bytes
//! outside `stop`, at most `budget` bytes in all, would give exactly one event: the chunk itself
//! as text (`Text`), as reasoning (`Reasoning`) or as an arguments fragment of call `index`
//! (`Args`), and leave the parser in the same quiet state with `budget` that much smaller".
//! The JS package uses it to answer such pushes without entering the wasm: it reports the
//! event itself and hands the bytes to the parser with the next real push
//! (`ToolCallParser::push_after_quiet`), so every decision the parser makes (offsets, limits,
//! validation, a left-out call's markup) still sees every byte.

/// The ASCII bytes that end a quiet run, as a bit set (bit `b` for byte `b < 128`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stop(pub u128);

impl Stop {
    /// Bytes that a JSON string does not carry as they are: `"`, `\` and the control characters.
    pub const JSON_STRING: Stop = Stop((1 << b'"') | (1 << b'\\') | 0xffff_ffff);
    /// ASCII whitespace as `u8::is_ascii_whitespace` has it (space, `\t`, `\n`, `\x0c`, `\r`).
    pub const ASCII_WS: Stop = Stop((1 << b' ') | (1 << b'\t') | (1 << b'\n') | (1 << 0x0c) | (1 << b'\r'));

    /// In a reader's hint (`Reader::quiet`) for its own output: the output is reasoning, not
    /// text. The bit of NUL, a control character: a run it stops is never quiet anyway in a
    /// JSON string, and in a message body it only makes NUL end the run.
    pub const REASONING: Stop = Stop(1);

    /// Both sets.
    pub const fn or(self, other: Stop) -> Stop {
        Stop(self.0 | other.0)
    }

    /// True when `b` ends the run (any non-ASCII byte does). Reads one 64-bit half: a `u128`
    /// shift by a variable is a call in the wasm build (the SSE quiet path runs this per byte).
    #[inline]
    pub fn has(self, b: u8) -> bool {
        let half = if b < 64 { self.0 as u64 } else { (self.0 >> 64) as u64 };
        b >= 0x80 || half >> (b & 63) & 1 != 0
    }
}

/// What a quiet chunk becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuietKind {
    Text,
    Reasoning,
    /// An arguments fragment of the call with this index.
    Args(usize),
}

/// See the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quiet {
    pub kind: QuietKind,
    pub stop: Stop,
    /// Bytes that may come quietly before a limit could be reached.
    pub budget: usize,
}

impl Quiet {
    /// True when `chunk` (of at most `budget` bytes) is quiet: no byte in `stop`, none non-ASCII.
    pub fn admits(&self, chunk: &str) -> bool {
        chunk.len() <= self.budget && !chunk.bytes().any(|b| self.stop.has(b))
    }
}

#[cfg(test)]
mod tests {
    use super::Stop;

    /// `has` reads the bit of `b` in the `u128` set, every byte outside ASCII stopping.
    #[test]
    fn has_is_the_bit_of_the_byte() {
        let sets = [Stop::JSON_STRING, Stop::ASCII_WS, Stop::REASONING, Stop(1 << 63), Stop(1 << 64), Stop(1 << 127), Stop(u128::MAX), Stop(0)];
        for s in sets {
            for b in 0..=255u8 {
                assert_eq!(s.has(b), b >= 0x80 || (s.0 >> b) & 1 == 1, "{s:?} {b}");
            }
        }
    }
}
