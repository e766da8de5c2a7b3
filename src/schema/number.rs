//! Exact decimal arithmetic on JSON numbers as their text (serde_json's `Number` with
//! `arbitrary_precision`): comparisons, integrality, range and `multipleOf`, with no float
//! parsing or formatting code. `1` == `1.0` == `10e-1`; `1e400` is beyond f64 (not finite).

use crate::prelude::*;
use crate::json::Number;

/// Decimal queries on a JSON number.
pub trait Decimal {
    /// A number from JSON number text; `None` when `text` is not one.
    fn from_text(text: &str) -> Option<Number>;
    /// True when the value has no fractional part (`2`, `2.0`, `1e3`).
    fn is_integral(&self) -> bool;
    /// True when the value is within the f64 range (`1e400` is not).
    fn is_finite(&self) -> bool;
    /// Compares values exactly.
    fn cmp_value(&self, other: &Number) -> core::cmp::Ordering;
    /// Whether the value is an integer multiple of `m` (exact). `None` when `m` is not positive
    /// or the numbers are too large to tell cheaply.
    fn is_multiple_of(&self, m: &Number) -> Option<bool>;
}

impl Decimal for Number {
    fn from_text(text: &str) -> Option<Number> {
        match crate::json::parse(text) {
            Ok(crate::json::Value::Number(n)) => Some(n),
            _ => None,
        }
    }

    fn is_integral(&self) -> bool {
        // Without a fraction or an exponent, JSON number text is an integer.
        if !self.as_str().bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
            return true;
        }
        let d = Dec::of(self.as_str());
        d.point >= d.digits.len() as i64
    }

    fn is_finite(&self) -> bool {
        let d = Dec::of(self.as_str());
        d.digits.is_empty() || d.point < 309 || (d.point == 309 && d.digits.as_slice() <= b"17976931348623157".as_slice())
    }

    fn cmp_value(&self, other: &Number) -> core::cmp::Ordering {
        Dec::of(self.as_str()).cmp(&Dec::of(other.as_str()))
    }

    fn is_multiple_of(&self, m: &Number) -> Option<bool> {
        let (x, m) = (Dec::of(self.as_str()), Dec::of(m.as_str()));
        if m.neg || m.digits.is_empty() {
            return None;
        }
        if x.digits.is_empty() {
            return Some(true);
        }
        // x = X × 10^ex and m = M × 10^em with X, M the digit strings as integers.
        let ex = x.point - x.digits.len() as i64;
        let em = m.point - m.digits.len() as i64;
        let mut modulus = Dec::small_int(&m.digits)?;
        let shift = ex - em;
        for _ in 0..(-shift).clamp(0, 19) {
            modulus = modulus.checked_mul(10)?;
        }
        if shift < -19 {
            return None;
        }
        if modulus == 0 {
            return None;
        }
        let mut r = 0;
        for d in &x.digits {
            r = shift_mod(r, (d - b'0') as u64, modulus);
        }
        for _ in 0..shift.clamp(0, 1000) {
            r = shift_mod(r, 0, modulus);
        }
        Some(r == 0)
    }
}

/// `(r × 10 + d) mod m` for `r < m`, in u64 without overflow (no u128 division: it costs the
/// wasm a kilobyte of compiler builtins).
fn shift_mod(r: u64, d: u64, m: u64) -> u64 {
    let add = |a: u64, b: u64| if a >= m - b { a - (m - b) } else { a + b };
    let mut acc = d % m;
    for _ in 0..10 {
        acc = add(acc, r);
    }
    acc
}

/// A JSON number as an exact decimal: value = ±0.DIGITS × 10^point, `digits` without leading
/// or trailing zeros (empty for zero). Comparing these needs no float parsing code.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Dec {
    neg: bool,
    digits: Vec<u8>,
    point: i64,
}

impl Dec {
    /// From valid JSON number text.
    fn of(text: &str) -> Dec {
        let (neg, t) = match text.strip_prefix('-') {
            Some(t) => (true, t),
            None => (false, text),
        };
        let (mantissa, exp) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], &t[i + 1..]),
            None => (t, ""),
        };
        let (int, frac) = crate::text::split_once_byte(mantissa, b'.').unwrap_or((mantissa, ""));
        let exp = {
            let (eneg, e) = match exp.as_bytes().first() {
                Some(b'-') => (true, &exp[1..]),
                Some(b'+') => (false, &exp[1..]),
                _ => (false, exp),
            };
            let e = e.trim_start_matches('0');
            // Far beyond any f64 either way: saturate.
            let n: i64 = if e.len() > 12 { 1_000_000_000_000 } else { crate::text::parse_u64(e, 10).map_or(0, |n| n as i64) };
            if eneg { -n } else { n }
        };
        let mut digits: Vec<u8> = Vec::with_capacity(int.len() + frac.len());
        digits.extend_from_slice(int.as_bytes());
        digits.extend_from_slice(frac.as_bytes());
        let lead = digits.iter().take_while(|d| **d == b'0').count();
        digits.drain(..lead);
        while digits.last() == Some(&b'0') {
            digits.pop();
        }
        let point = int.len() as i64 - lead as i64 + exp;
        Dec { neg: neg && !digits.is_empty(), digits, point }
    }

    /// The digits as an integer, when it fits in a u64.
    fn small_int(digits: &[u8]) -> Option<u64> {
        let mut v: u64 = 0;
        for d in digits {
            v = v.checked_mul(10)?.checked_add((d - b'0') as u64)?;
        }
        Some(v)
    }
}

impl Ord for Dec {
    fn cmp(&self, other: &Dec) -> core::cmp::Ordering {
        use core::cmp::Ordering::*;
        let magnitude = |a: &Dec, b: &Dec| match (a.digits.is_empty(), b.digits.is_empty()) {
            (true, true) => Equal,
            (true, false) => Less,
            (false, true) => Greater,
            _ => a.point.cmp(&b.point).then_with(|| a.digits.cmp(&b.digits)),
        };
        match (self.neg, other.neg) {
            (false, false) => magnitude(self, other),
            (true, true) => magnitude(other, self),
            (false, true) => Greater,
            (true, false) => Less,
        }
    }
}

impl PartialOrd for Dec {
    fn partial_cmp(&self, other: &Dec) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;

    #[test]
    fn decimal_arithmetic() {
        let n = |s: &str| Number::from_text(s).unwrap();
        use core::cmp::Ordering::*;
        for (a, b, o) in [
            ("1", "1.0", Equal), ("10e-1", "1", Equal), ("0", "-0.0", Equal), ("-1", "0", Less), ("2", "10", Less),
            ("0.25", "0.3", Less), ("-0.25", "-0.3", Greater), ("1e3", "999.999", Greater), ("123", "12.3e1", Equal),
            ("1e-400", "0", Greater), ("-5", "-5.0001", Greater),
        ] {
            assert_eq!(n(a).cmp_value(&n(b)), o, "{a} vs {b}");
        }
        for (v, i) in [("2", true), ("2.0", true), ("1e3", true), ("2.5", false), ("1.5e1", true), ("1e-1", false), ("0", true)] {
            assert_eq!(n(v).is_integral(), i, "{v}");
        }
        for (v, f) in [("1e308", true), ("1.7976931348623157e308", true), ("1.8e308", false), ("1e400", false), ("-1e400", false), ("1e-400", true)] {
            assert_eq!(n(v).is_finite(), f, "{v}");
        }
        for (x, m, r) in [("10", "5", Some(true)), ("0.3", "0.1", Some(true)), ("7", "2", Some(false)), ("4.5", "1.5", Some(true)), ("1e30", "3", Some(false)), ("1e30", "5", Some(true)), ("0", "7", Some(true)), ("5", "0", None), ("5", "-1", None), ("36893488147419103230", "18446744073709551615", Some(true)), ("36893488147419103231", "18446744073709551615", Some(false)), ("1.8446744073709551615e21", "18446744073709551615", Some(true))] {
            assert_eq!(n(x).is_multiple_of(&n(m)), r, "{x} multipleOf {m}");
        }
    }
}
