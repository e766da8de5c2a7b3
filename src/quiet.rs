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

    /// In the hint of a reader that forwards a JSON string as it comes (arguments): a `\\`
    /// followed in the same input by one of `"\\/bfnrt` (a simple escape) is quiet too, both
    /// bytes forwarded as they are and the string back where it was. The bit of DEL, which
    /// then also ends the run: a reader of the set that does not read escapes (`has`) stops
    /// at DEL and at every `\\`, as before.
    pub const ESCAPES: Stop = Stop(1 << 127);
    /// `JSON_STRING` with `ESCAPES`: the hint of a JSON string forwarded raw.
    pub const JSON_STRING_ESCAPES: Stop = Stop::JSON_STRING.or(Stop::ESCAPES);

    /// Whether a simple escape is quiet (`ESCAPES`).
    pub const fn escapes(self) -> bool {
        self.0 & Stop::ESCAPES.0 != 0
    }

    /// True when a run may hold `bytes`: none ends it (`has`), but for the complete simple
    /// escapes the set admits (`ESCAPES`) and, with `utf8`, bytes from 0x80.
    pub fn admits(self, bytes: &[u8], utf8: bool) -> bool {
        let mut i = 0;
        while i < bytes.len() {
            if self.has(bytes[i]) && !(utf8 && bytes[i] >= 0x80) {
                if !(bytes[i] == b'\\' && self.escapes() && bytes.get(i + 1).is_some_and(|&e| is_simple_escape(e))) {
                    return false;
                }
                i += 1;
            }
            i += 1;
        }
        true
    }

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

/// The second byte of a JSON simple escape (`\\"`, `\\\\`, `\\/`, `\\b`, `\\f`, `\\n`, `\\r`, `\\t`).
pub fn is_simple_escape(b: u8) -> bool {
    crate::json::simple_escape_value(b).is_some()
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
    /// Non-ASCII characters are quiet too (whole ones: the input is text). A host that reads
    /// only `stop` (the package's JS) stops at every byte from 0x80.
    pub utf8: bool,
    /// In an arguments string (`Args`), the `\\` of an escape is held (a chunk ended with it):
    /// the next non-empty quiet chunk starts with a simple-escape byte (`is_simple_escape`),
    /// the rest as `stop` says, and its event is `\\` followed by the chunk; after it the hint
    /// is `after()`. `budget` counts the chunks' bytes, the held `\\` taken off already.
    pub backslash: bool,
}

impl Quiet {
    /// True when `chunk` (of at most `budget` bytes) is quiet: no byte in `stop`, none
    /// non-ASCII unless `utf8`, but for the escapes `stop` admits (`Stop::admits`); with
    /// `backslash`, a simple-escape byte first.
    pub fn admits(&self, chunk: &str) -> bool {
        let b = chunk.as_bytes();
        let rest = match (self.backslash, b.split_first()) {
            (false, _) | (true, None) => b,
            (true, Some((&e, rest))) if is_simple_escape(e) => rest,
            _ => return false,
        };
        chunk.len() <= self.budget && self.stop.admits(rest, self.utf8)
    }

    /// The hint after a non-empty quiet chunk (the held `\\` went out with it).
    pub fn after(self) -> Quiet {
        Quiet { backslash: false, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::Stop;

    /// `admits` refuses every stop byte, but a complete simple escape when the set says so.
    #[test]
    fn admits_whole_simple_escapes_only_with_escapes() {
        let (plain, esc) = (Stop::JSON_STRING, Stop::JSON_STRING_ESCAPES);
        for ok in ["abc", r#"a\nb"#, r#"\"\\\/\b\f\n\r\t"#, ""] {
            assert!(esc.admits(ok.as_bytes(), false), "{ok}");
            assert_eq!(plain.admits(ok.as_bytes(), false), !ok.contains('\\'), "{ok}");
        }
        for bad in [r#"a\"#, r#"\u0041"#, r#"\x"#, "a\"b", "a\nb", "caf\u{e9}", r#"\\\"#] {
            assert!(!esc.admits(bad.as_bytes(), false), "{bad}");
            assert!(!plain.admits(bad.as_bytes(), false), "{bad}");
        }
        assert!(esc.escapes() && !plain.escapes() && !esc.admits(b"\x7f", false) && plain.admits(b"\x7f", false));
        assert!(esc.admits("caf\u{e9}".as_bytes(), true) && !esc.admits("caf\u{e9}\\".as_bytes(), true));
    }

    /// With a held `\\`, a chunk is quiet only when it starts with a simple-escape byte, its
    /// rest as the stop set says; `after` is the plain hint.
    #[test]
    fn a_held_backslash_takes_a_simple_escape_byte_first() {
        let q = super::Quiet { kind: super::QuietKind::Args(0), stop: Stop::JSON_STRING_ESCAPES, budget: 8, utf8: true, backslash: true };
        for ok in ["n", "nabc", "\\\\n", "\"x", "t\\r", "\\", ""] {
            assert!(q.admits(ok), "{ok}");
        }
        for bad in ["a", "u0041", "x\\n", "n\\", "nnnnnnnnn"] {
            assert!(!q.admits(bad), "{bad}");
        }
        assert!(q.after().admits("abc") && !q.after().admits("n\\") && !q.after().backslash);
    }

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
