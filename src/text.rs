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
