//! `format`: the formats tool schemas use, checked as Ajv's ajv-formats does in its default
//! ("full") mode, by hand (no regex, so also without `std`).
//!
//! Checked: `date-time`, `date`, `time` (RFC 3339; a time zone is required, `T`, `t` or a space
//! between date and time, leap seconds only at 23:59:60 UTC), `email`, `hostname`, `uuid`,
//! `uri` (absolute, RFC 3986), `ipv4` (no leading zeros), `ipv6`. Any other format is not
//! checked (`check` gives `None`), as JSON Schema allows.
//!
//! With the `formats` feature (default). The npm package's wasm is built without it and its
//! binding supplies pkg-template/formats.js, the same rules in JavaScript, as a `HostFormat`
//! (`schema::Engines`); tests/js/formats.test.mjs checks that both give the same answer on
//! every string of a generated corpus (`cargo run --example formats`).

#![cfg_attr(not(feature = "formats"), allow(dead_code))]

use crate::prelude::*;

/// A format checker the host supplies: `check`'s contract.
pub type HostFormat = fn(&str, &str) -> Option<bool>;

/// `check` where the build has it, else the host's checker; `None` (not checked) with neither.
pub fn check_with(format: &str, s: &str, host: Option<HostFormat>) -> Option<bool> {
    #[cfg(feature = "formats")]
    {
        let _ = host;
        check(format, s)
    }
    #[cfg(not(feature = "formats"))]
    {
        host.and_then(|h| h(format, s))
    }
}

/// `Some(valid)` for a checked format, `None` for one not checked.
#[cfg(feature = "formats")]
pub fn check(format: &str, s: &str) -> Option<bool> {
    Some(match format {
        "date-time" => date_time(s),
        "date" => date(s),
        "time" => time(s),
        "email" => email(s),
        "hostname" => hostname(s),
        "uuid" => uuid(s),
        "uri" => uri(s),
        "ipv4" => ipv4(s),
        "ipv6" => ipv6(s),
        _ => return None,
    })
}

/// What a format expects, for messages.
pub fn describe(format: &str) -> &'static str {
    match format {
        "date-time" => "a date-time (RFC 3339, e.g. 2024-05-01T12:00:00Z)",
        "date" => "a date (YYYY-MM-DD)",
        "time" => "a time with a time zone (e.g. 12:00:00Z)",
        "email" => "an email address",
        "hostname" => "a hostname",
        "uuid" => "a UUID",
        "uri" => "an absolute URI",
        "ipv4" => "an IPv4 address",
        "ipv6" => "an IPv6 address",
        _ => "a value of this format",
    }
}

fn digits(s: &[u8]) -> Option<u32> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0u32, |v, d| v.saturating_mul(10).saturating_add((d - b'0') as u32)))
}

fn date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (digits(&b[..4]), digits(&b[5..7]), digits(&b[8..])) else { return false };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// `HH:MM:SS[.frac](Z|±HH[[:]MM])`, time zone required.
fn time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(h), Some(m), Some(sec)) = (digits(&b[..2]), digits(&b[3..5]), digits(&b[6..8])) else { return false };
    let mut i = 8;
    if b.get(i) == Some(&b'.') {
        let n = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        i += 1 + n;
    }
    let (sign, tz_h, tz_m) = match &b[i..] {
        [b'z' | b'Z'] => (0i32, 0, 0),
        [sg @ (b'+' | b'-'), rest @ ..] => {
            let (hh, mm) = match rest {
                [a, b2] => (digits(&[*a, *b2]), Some(0)),
                [a, b2, c, d] => (digits(&[*a, *b2]), digits(&[*c, *d])),
                [a, b2, b':', c, d] => (digits(&[*a, *b2]), digits(&[*c, *d])),
                _ => return false,
            };
            let (Some(hh), Some(mm)) = (hh, mm) else { return false };
            (if *sg == b'+' { 1 } else { -1 }, hh, mm)
        }
        _ => return false,
    };
    if h > 23 || m > 59 || tz_h > 23 || tz_m > 59 {
        return false;
    }
    if sec < 60 {
        return true;
    }
    // A leap second: 23:59:60 in UTC.
    let utc = (h as i32 * 60 + m as i32 - sign * (tz_h as i32 * 60 + tz_m as i32)).rem_euclid(24 * 60);
    sec == 60 && utc == 23 * 60 + 59
}

fn date_time(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() > 11 && matches!(b[10], b'T' | b't' | b' ') && s.is_char_boundary(10) && date(&s[..10]) && time(&s[11..])
}

/// `local@domain`: local of atext and dots (no empty atoms), domain of LDH labels with a dot.
fn email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else { return false };
    let atext = |c: u8| c.is_ascii_alphanumeric() || b"!#$%&'*+/=?^_`{|}~-".contains(&c);
    !local.is_empty()
        && local.split('.').all(|a| !a.is_empty() && a.bytes().all(atext))
        && domain.contains('.')
        && domain.split('.').all(|l| !l.is_empty() && label(l))
}

/// A hostname label: letters, digits, inner hyphens, at most 63.
fn label(l: &str) -> bool {
    let b = l.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

fn hostname(s: &str) -> bool {
    let t = s.strip_suffix('.').unwrap_or(s);
    !t.is_empty() && s.len() <= 253 && t.split('.').all(label)
}

fn uuid(s: &str) -> bool {
    let s = s.get(..9).filter(|p| p.eq_ignore_ascii_case("urn:uuid:")).map_or(s, |_| &s[9..]);
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| if matches!(i, 8 | 13 | 18 | 23) { *c == b'-' } else { c.is_ascii_hexdigit() })
}

fn ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            p.len() <= 3 && (p.len() == 1 || !p.starts_with('0')) && digits(p.as_bytes()).is_some_and(|n| n <= 255)
        })
}

fn ipv6(s: &str) -> bool {
    if s.is_empty() || s.len() > 45 {
        return false;
    }
    // An IPv4 tail counts as two groups.
    let (head, need) = match s.rfind(':') {
        Some(i) if s[i + 1..].contains('.') => {
            if !ipv4(&s[i + 1..]) {
                return false;
            }
            let head = &s[..=i];
            (if head.ends_with("::") { head } else { &head[..i] }, 6)
        }
        _ => (s, 8),
    };
    let group = |g: &str| (1..=4).contains(&g.len()) && g.bytes().all(|c| c.is_ascii_hexdigit());
    let groups = |p: &str| -> Option<usize> {
        if p.is_empty() {
            return Some(0);
        }
        p.split(':').try_fold(0, |n, g| group(g).then_some(n + 1))
    };
    match head.find("::") {
        // `::` stands for one group or more.
        Some(i) => {
            let (l, r) = (&head[..i], &head[i + 2..]);
            !r.contains("::") && matches!((groups(l), groups(r)), (Some(a), Some(b)) if a + b < need)
        }
        None => !head.is_empty() && groups(head) == Some(need),
    }
}

/// An absolute URI (RFC 3986): `scheme:` then characters allowed in a URI with valid `%XX`
/// escapes, one `#` at most, and after `//` an authority whose host may be an `[IP literal]`
/// and whose port is digits.
fn uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else { return false };
    let sb = scheme.as_bytes();
    if sb.is_empty() || !sb[0].is_ascii_alphabetic() || !sb.iter().all(|c| c.is_ascii_alphanumeric() || b"+-.".contains(c)) {
        return false;
    }
    let b = rest.as_bytes();
    let allowed = |c: &u8| c.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?#%[]".contains(c);
    if !b.iter().all(allowed) || rest.matches('#').count() > 1 {
        return false;
    }
    let escapes_ok = b.iter().enumerate().filter(|(_, c)| **c == b'%').all(|(i, _)| {
        b.get(i + 1).is_some_and(u8::is_ascii_hexdigit) && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
    });
    if !escapes_ok {
        return false;
    }
    let (hier, tail) = rest.split_at(rest.find(['?', '#']).unwrap_or(rest.len()));
    if tail.contains(['[', ']']) {
        return false;
    }
    let Some(h) = hier.strip_prefix("//") else { return !hier.contains(['[', ']']) };
    let (authority, path) = h.split_at(h.find('/').unwrap_or(h.len()));
    if path.contains(['[', ']']) {
        return false;
    }
    let hostport = match authority.rsplit_once('@') {
        Some((user, _)) if user.contains(['[', ']']) => return false,
        Some((_, hp)) => hp,
        None => authority,
    };
    let port = if let Some(r) = hostport.strip_prefix('[') {
        let Some((lit, after)) = r.split_once(']') else { return false };
        if !(ipv6(lit) || lit.starts_with(['v', 'V'])) {
            return false;
        }
        match after.strip_prefix(':') {
            Some(p) => p,
            None if after.is_empty() => "",
            None => return false,
        }
    } else if hostport.contains(['[', ']']) {
        return false;
    } else {
        hostport.split_once(':').map_or("", |(_, p)| p)
    };
    port.bytes().all(|c| c.is_ascii_digit())
}

#[cfg(all(test, feature = "formats"))]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;

    #[test]
    fn formats_as_ajv_formats_checks_them() {
        let cases: &[(&str, &str, bool)] = &[
            ("date-time", "1963-06-19T08:30:06.283185Z", true),
            ("date-time", "1963-06-19t08:30:06Z", true),
            ("date-time", "1963-06-19 08:30:06+02:00", true),
            ("date-time", "1963-06-19T08:30:06", false),
            ("date-time", "06/19/1963 08:30:06 PST", false),
            ("date-time", "2013-350T01:01:01", false),
            ("date-time", "1998-12-31T23:59:60Z", true),
            ("date-time", "1998-12-31T15:59:60-08:00", true),
            ("date-time", "1998-12-31T23:58:60Z", false),
            ("date", "2020-02-29", true),
            ("date", "2021-02-29", false),
            ("date", "2020-13-01", false),
            ("date", "2020-1-01", false),
            ("time", "08:30:06Z", true),
            ("time", "08:30:06+0200", true),
            ("time", "08:30:06", false),
            ("time", "24:00:00Z", false),
            ("email", "joe.bloggs@example.com", true),
            ("email", "2962", false),
            ("email", "a..b@example.com", false),
            ("email", "a@localhost", false),
            ("hostname", "www.example.com", true),
            ("hostname", "-a-host-name-that-starts-with--", false),
            ("hostname", "not_a_valid_host_name", false),
            ("hostname", &"a".repeat(64), false),
            ("uuid", "2EB8AA08-AA98-11EA-B4AA-73B441D16380", true),
            ("uuid", "urn:uuid:2eb8aa08-aa98-11ea-b4aa-73b441d16380", true),
            ("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d1638", false),
            ("uri", "http://foo.bar/?baz=qux#quux", true),
            ("uri", "mailto:joe@example.com", true),
            ("uri", "urn:isbn:0451450523", true),
            ("uri", "http://[2001:db8::7]:80/c=GB?objectClass?one", true),
            ("uri", "//foo.bar/?baz=qux#quux", false),
            ("uri", "http://example.com/a b", false),
            ("uri", "http://example.com/%zz", false),
            ("uri", "http://example.com:8x/", false),
            ("uri", "abc", false),
            ("ipv4", "192.168.0.1", true),
            ("ipv4", "127.0.0.0.1", false),
            ("ipv4", "256.256.256.256", false),
            ("ipv4", "087.10.0.1", false),
            ("ipv6", "::1", true),
            ("ipv6", "::", true),
            ("ipv6", "1:2:3:4:5:6:7:8", true),
            ("ipv6", "::ffff:192.168.0.1", true),
            ("ipv6", "1::2::3", false),
            ("ipv6", "12345::", false),
            ("ipv6", "1:2:3:4:5:6:7:8:9", false),
            ("ipv6", "::laptop", false),
            ("ipv6", "1:2:3:4:5:6:7::", true),
            ("ipv6", "1:2:3:4:5:6:7:8::", false),
        ];
        for (f, s, want) in cases {
            assert_eq!(check(f, s), Some(*want), "{f} {s:?}");
        }
        assert_eq!(check("color", "red"), None);
    }
}
