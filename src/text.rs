//! Char-boundary helpers for cutting `str`s at byte offsets (limits, look-ahead windows).

/// The largest char boundary `<= at` (or the length).
pub fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest char boundary `>= at` (or the length).
pub fn ceil_char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// The offset of the first byte at or after `i` that is not ASCII whitespace (space, `\t`,
/// `\n`, `\x0C`, `\r`), or `b.len()`.
#[inline]
pub fn skip_ascii_ws(b: &[u8], mut i: usize) -> usize {
    // Mostly there is none: every ASCII whitespace byte is at most a space (natively only:
    // the wasm keeps to its size budget).
    if cfg!(not(target_arch = "wasm32")) && b.get(i).is_some_and(|&c| c > b' ') {
        return i;
    }
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The bytes `scan_until` stops at: a byte equal to `a` or `b`, or below `below`
/// (`below <= 128`; 0: none). Its constants fold where `scan_until` is inlined (two fields,
/// not an array: natively `byte`'s two equal tests of a byte known at run time were not merged).
#[derive(Clone, Copy)]
pub struct Stops {
    a: u8,
    b: u8,
    below: u8,
}

impl Stops {
    /// `"`, `\\` and the control bytes below 0x20: what JSON escaping escapes.
    pub const ESCAPE: Stops = Stops { a: b'"', b: b'\\', below: 0x20 };

    /// The byte `b`.
    pub const fn byte(b: u8) -> Stops {
        Stops { a: b, b, below: 0 }
    }

    /// The bytes `a` and `b`.
    pub const fn bytes(a: u8, b: u8) -> Stops {
        Stops { a, b, below: 0 }
    }

    /// Whether `c` is one of the stops.
    #[inline]
    pub fn has(self, c: u8) -> bool {
        c == self.a || c == self.b || c < self.below
    }

    /// The high bit of the bytes of the word `w` that are stops: the lowest exactly, none when
    /// no byte is (a borrow only flags bytes above a true one).
    #[inline]
    pub fn word_flags(self, w: u64) -> u64 {
        word_less_flags(w, self.below) | word_eq_flags(w, self.a) | word_eq_flags(w, self.b)
    }

    /// Bit `i` set for each byte `i` of `chunk` that is a stop.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[inline]
    fn chunk_mask(self, chunk: &[u8; 16]) -> u16 {
        use core::arch::wasm32::{u8x16_bitmask, u8x16_eq, u8x16_lt, u8x16_splat, v128_load, v128_or};
        // SAFETY: `chunk` is sixteen readable bytes; `v128_load` has no alignment requirement.
        let v = unsafe { v128_load(chunk.as_ptr().cast()) };
        let eq = v128_or(u8x16_eq(v, u8x16_splat(self.a)), u8x16_eq(v, u8x16_splat(self.b)));
        u8x16_bitmask(v128_or(eq, u8x16_lt(v, u8x16_splat(self.below))))
    }
}

/// The offset of the first byte of `b` at or after `at` that is one of `stops`, or `b.len()`
/// (the SSE decoder's line ends, the SSE fast path's string ends, JSON escaping, the JSON
/// scanner's string bodies): with wasm SIMD sixteen bytes a step, then eight a step
/// (`Stops::word_flags`), then a byte at a time.
#[inline]
pub fn scan_until(b: &[u8], mut at: usize, stops: Stops) -> usize {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    while let Some(chunk) = b.get(at..).and_then(<[u8]>::first_chunk::<16>) {
        let mask = stops.chunk_mask(chunk);
        if mask != 0 {
            return at + mask.trailing_zeros() as usize;
        }
        at += 16;
    }
    while let Some(w) = word_at(b, at) {
        let flags = stops.word_flags(w);
        if flags != 0 {
            return at + (flags.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while b.get(at).is_some_and(|&c| !stops.has(c)) {
        at += 1;
    }
    at
}

/// The eight bytes of `b` at `at` as a little-endian word, if there are eight. A fixed-size
/// chunk is one 8-byte load: a slice's `copy_from_slice`/`try_into` was a call to a byte-copy
/// routine per word in the size-optimized wasm (word scans three times slower).
#[inline]
pub fn word_at(b: &[u8], at: usize) -> Option<u64> {
    b.get(at..).and_then(<[u8]>::first_chunk::<8>).map(|w| u64::from_le_bytes(*w))
}

/// The high bit of the bytes of `w` below `n` (`n <= 128`; exact for the lowest, see
/// `Stops::word_flags`); 0 when none is.
#[inline]
pub fn word_less_flags(w: u64, n: u8) -> u64 {
    const ONES: u64 = u64::MAX / 255;
    w.wrapping_sub(ONES * n as u64) & !w & (ONES * 128)
}

/// The high bit of the bytes of `w` equal to `c` (exact for the lowest); 0 when none is.
#[inline]
pub fn word_eq_flags(w: u64, c: u8) -> u64 {
    word_less_flags(w ^ (u64::MAX / 255 * c as u64), 1)
}

/// Trims `s`'s leading and trailing whitespace (as `str::trim`) in place, keeping its buffer.
pub fn trim_in_place(s: &mut alloc::string::String) {
    s.truncate(s.trim_end().len());
    let lead = s.len() - s.trim_start().len();
    if lead > 0 {
        s.drain(..lead);
    }
}

/// The offset of the first `needle` in `hay` (`str::find` with a `&str`; `Some(0)` for an empty
/// needle): each place the needle's first byte is found, compared whole. For the cold searches
/// (model names, marker sniffing, a template, a message): core's two-way searcher, which every
/// `&str` pattern links, is about 1 KiB of the package's gzip.
pub fn find(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let Some(&first) = n.first() else { return Some(0) };
    let last = h.len().checked_sub(n.len())?;
    let mut at = 0;
    while at <= last {
        at += h[at..=last].iter().position(|&b| b == first)?;
        if h[at..].starts_with(n) {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// `hay` with every `from` replaced by `to` (`str::replace` with `&str` patterns, through `find`).
pub fn replace(hay: &str, from: &str, to: &str) -> alloc::string::String {
    let mut out = alloc::string::String::with_capacity(hay.len());
    let mut rest = hay;
    while let Some(at) = find(rest, from).filter(|_| !from.is_empty()) {
        out.push_str(&rest[..at]);
        out.push_str(to);
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

/// `s.find(b as char)` for an ASCII byte `b`, found as a byte: no char searcher in the wasm.
#[inline]
pub fn find_byte(s: &str, b: u8) -> Option<usize> {
    s.bytes().position(|c| c == b)
}

/// `s.rfind(b as char)` for an ASCII byte `b` (one copy for every use).
pub fn rfind_byte(s: &str, b: u8) -> Option<usize> {
    s.bytes().rposition(|c| c == b)
}

/// `s.split_once(b as char)` for an ASCII byte `b` (through `find_byte`).
pub fn split_once_byte(s: &str, b: u8) -> Option<(&str, &str)> {
    let at = find_byte(s, b)?;
    Some((&s[..at], &s[at + 1..]))
}

/// `s` as a `u64` in `radix` as `u64::from_str_radix` reads it (digits after an optional `+`,
/// `None` on overflow): one small loop for the few numbers the core reads from text, where
/// std's `FromStr` is a routine per integer type in the wasm.
pub fn parse_u64(s: &str, radix: u32) -> Option<u64> {
    let digits = s.strip_prefix('+').unwrap_or(s);
    if digits.is_empty() {
        return None;
    }
    digits.bytes().try_fold(0u64, |n, b| n.checked_mul(u64::from(radix))?.checked_add(u64::from((b as char).to_digit(radix)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_until_is_a_byte_loop() {
        crate::testing::check_scan_until(300).unwrap();
        assert!(word_less_flags(u64::from_le_bytes(*b"\x1fzzzzzzz"), 0x20) != 0 && word_less_flags(u64::from_le_bytes(*b"\xffzzz zzz"), 0x20) == 0);
    }

    #[test]
    fn find_and_replace_agree_with_str() {
        let hays = ["", "a", "aab", "abab", "xx<|yy<|", "é<|é", "got 1, got 2", "~~1~01"];
        let needles = ["", "a", "ab", "b", "<|", "é", "got ", "~1", "aab", "abab!"];
        for h in hays {
            for n in needles {
                assert_eq!(find(h, n), h.find(n), "{h:?} {n:?}");
                if !n.is_empty() {
                    assert_eq!(replace(h, n, "[x]"), h.replace(n, "[x]"), "{h:?} {n:?}");
                }
            }
        }
    }

    #[test]
    fn parse_u64_is_from_str() {
        for s in ["", "+", "0", "+0", "007", "42", "-1", "1 ", " 1", "1.0", "18446744073709551615", "18446744073709551616", "99999999999999999999", "١", "+-1", "1_0"] {
            assert_eq!(parse_u64(s, 10), s.parse::<u64>().ok(), "{s:?}");
        }
        for s in ["", "+", "0", "fF", "+aB9", "-1", "g", "ffffffffffffffff", "10000000000000000", "١"] {
            assert_eq!(parse_u64(s, 16), u64::from_str_radix(s, 16).ok(), "{s:?}");
        }
    }
}
