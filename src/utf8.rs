//! Bytes to text across chunk boundaries.
//!
//! Contract: `decode` appends the text of `bytes` to `out`, keeping at most 3 bytes of a code
//! point split across chunks until the next call. Invalid sequences become U+FFFD, as
//! `TextDecoder` does. `finish` flushes a dangling partial sequence as U+FFFD.

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

    pub fn decode(&mut self, bytes: &[u8], out: &mut String) {
        let mut bytes = bytes;
        // Complete a code point left over from the previous chunk.
        while !self.pending.is_empty() && !bytes.is_empty() {
            let need = seq_len(self.pending[0]);
            let take = (need - self.pending.len()).min(bytes.len());
            self.pending.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.pending.len() < need {
                // Still incomplete, unless the new bytes already break the sequence.
                if core::str::from_utf8(&self.pending).is_err_and(|e| e.error_len().is_some()) {
                    let p = core::mem::take(&mut self.pending);
                    out.push_str(&String::from_utf8_lossy(&p));
                }
                continue;
            }
            let p = core::mem::take(&mut self.pending);
            out.push_str(&String::from_utf8_lossy(&p));
        }
        // Keep an incomplete trailing sequence for the next chunk.
        let mut keep = 0;
        for back in 1..=bytes.len().min(3) {
            let b = bytes[bytes.len() - back];
            if b & 0xC0 == 0x80 {
                continue;
            }
            let need = seq_len(b);
            if need > back {
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
}
