//! Bytes to text across chunk boundaries.
//!
//! Contract: `decode` appends the text of `bytes` to `out`, keeping at most 3 bytes of a code
//! point split across chunks until the next call. Invalid sequences become U+FFFD, as
//! `TextDecoder` does. `finish` flushes a dangling partial sequence as U+FFFD.

use crate::prelude::*;
#[derive(Clone, Debug, Default)]
pub struct Utf8Decoder {
    pending: Vec<u8>,
}

fn seq_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 0,
    }
}

impl Utf8Decoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// No partial code point is held.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    pub fn decode(&mut self, bytes: &[u8], out: &mut String) {
        let mut bytes = bytes;
        // Complete a code point left over from the previous chunk, one byte at a time: a byte
        // that cannot continue it ends it (one U+FFFD) and is read afresh, as in one chunk.
        while !self.pending.is_empty() && !bytes.is_empty() {
            self.pending.push(bytes[0]);
            match core::str::from_utf8(&self.pending) {
                Ok(s) => {
                    out.push_str(s);
                    self.pending.clear();
                    bytes = &bytes[1..];
                }
                Err(e) if e.error_len().is_some() => {
                    self.pending.pop();
                    out.push_str(&String::from_utf8_lossy(&self.pending));
                    self.pending.clear();
                }
                Err(_) => bytes = &bytes[1..],
            }
        }
        // Keep a trailing sequence that is an incomplete but valid start of a code point.
        let mut keep = 0;
        for back in 1..=bytes.len().min(3) {
            let b = bytes[bytes.len() - back];
            if b & 0xC0 == 0x80 {
                continue;
            }
            let tail = &bytes[bytes.len() - back..];
            if seq_len(b) > back && core::str::from_utf8(tail).is_err_and(|e| e.error_len().is_none()) {
                keep = back;
            }
            break;
        }
        let (now, later) = bytes.split_at(bytes.len() - keep);
        match core::str::from_utf8(now) {
            Ok(s) => out.push_str(s),
            Err(_) => out.push_str(&String::from_utf8_lossy(now)),
        }
        self.pending.extend_from_slice(later);
    }

    /// Flushes a dangling partial sequence as U+FFFD.
    pub fn finish(&mut self, out: &mut String) {
        if !self.pending.is_empty() {
            self.pending.clear();
            out.push('\u{FFFD}');
        }
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;

    #[test]
    fn every_split_decodes_the_same() {
        let text = "a€😀é<｜x";
        let bytes = text.as_bytes();
        for cut in 0..=bytes.len() {
            let mut d = Utf8Decoder::new();
            let mut out = String::new();
            d.decode(&bytes[..cut], &mut out);
            d.decode(&bytes[cut..], &mut out);
            d.finish(&mut out);
            assert_eq!(out, text, "cut {cut}");
        }
        // Byte by byte.
        let mut d = Utf8Decoder::new();
        let mut out = String::new();
        for b in bytes {
            d.decode(&[*b], &mut out);
        }
        assert_eq!(out, text);
    }

    #[test]
    fn invalid_bytes_become_replacement() {
        let mut d = Utf8Decoder::new();
        let mut out = String::new();
        d.decode(&[b'a', 0xFF, b'b', 0xE2, 0x82], &mut out);
        d.finish(&mut out);
        assert_eq!(out, "a\u{FFFD}b\u{FFFD}");
    }

    /// Any split of any bytes decodes as `String::from_utf8_lossy` of the whole (found by fuzzing:
    /// a byte that broke a split sequence swallowed the next code point's lead byte).
    #[test]
    fn splits_of_invalid_bytes_decode_as_one_chunk() {
        let cases: [&[u8]; 5] = [
            &[b'[', 0xE0, 0x84, 0xDD, 0x94, b'"'],
            &[0xF0, 0x80, 0x80, b'x'],
            &[0xF0, 0x90, 0x41, 0xE2, 0x82, 0xAC],
            &[0xED, 0xA0, 0x80, 0xC3],
            &[0xC3, 0xC3, 0xA9, 0xF4, 0x90],
        ];
        for bytes in cases {
            let want = String::from_utf8_lossy(bytes);
            for size in 1..=bytes.len() {
                let mut d = Utf8Decoder::new();
                let mut out = String::new();
                for c in bytes.chunks(size) {
                    d.decode(c, &mut out);
                }
                d.finish(&mut out);
                assert_eq!(out, want, "{bytes:x?} in chunks of {size}");
            }
        }
    }
}
