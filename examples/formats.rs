//! Prints a corpus of `format` checks as JSON, `[[format, string, answer], ...]` (answer 0: not
//! checked, 1: invalid, 2: valid), answered by the Rust checks (`schema::format`). The strings are
//! the seeds below and every one-character deletion and substitution of them, each checked as
//! every format. tests/js/formats.test.mjs runs it and compares pkg/formats.js, which the
//! package's wasm uses instead, on every entry.
use toolwire::check_format as check;

const FORMATS: &[&str] = &["date-time", "date", "time", "email", "hostname", "uuid", "uri", "ipv4", "ipv6", "color"];

/// Valid and nearly valid strings of every format, and the edges the rules name.
const SEEDS: &[&str] = &[
    "1963-06-19T08:30:06.283185Z",
    "1963-06-19t08:30:06Z",
    "1963-06-19 08:30:06+02:00",
    "1998-12-31T23:59:60Z",
    "1998-12-31T15:59:60-08:00",
    "1990-12-31T15:59:60-0800",
    "2020-02-29",
    "2000-02-29",
    "1900-02-28",
    "2021-04-30",
    "08:30:06Z",
    "08:30:06+0200",
    "23:59:60+00",
    "00:00:00.5-23:59",
    "joe.bloggs@example.com",
    "a!#$%&'*+/=?^_`{|}~-@x-y.example",
    "www.example.com",
    "example.com.",
    "a-b.c-d",
    "2EB8AA08-AA98-11EA-B4AA-73B441D16380",
    "urn:uuid:2eb8aa08-aa98-11ea-b4aa-73b441d16380",
    "URN:UUID:2eb8aa08-aa98-11ea-b4aa-73b441d16380",
    "http://foo.bar/?baz=qux#quux",
    "mailto:joe@example.com",
    "urn:isbn:0451450523",
    "http://[2001:db8::7]:80/c=GB?objectClass?one",
    "http://[v1.fe80::a+en1]/",
    "https://user:pw@host:8080/p/a%20th?q#f",
    "ftp://h/%7e",
    "192.168.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "::1",
    "::",
    "1:2:3:4:5:6:7:8",
    "::ffff:192.168.0.1",
    "1:2:3:4:5:6:1.2.3.4",
    "1:2:3:4:5:6:7::",
    "fe80::1:2",
    "a:b::c:d:e",
    "00:00:00.123456789012345678901234567890Z",
    "0000:0000:0000:0000:0000:ffff:192.168.100.228",
    "x",
    "",
];

/// Characters put in every position: digits, separators, letters the rules name, non-ASCII
/// (two and four bytes of UTF-8: byte and UTF-16 lengths differ from the character count).
const CHARS: &[&str] = &["0", "9", "a", "F", "g", "T", "z", ":", "-", ".", "+", "@", "/", "%", "[", "]", "#", "?", " ", "é", "😀"];

fn main() {
    let mut strings: Vec<String> = Vec::new();
    for seed in SEEDS {
        strings.push(seed.to_string());
        let chars: Vec<char> = seed.chars().collect();
        for i in 0..chars.len() {
            let mut del = chars.clone();
            del.remove(i);
            strings.push(del.into_iter().collect());
            for c in CHARS {
                let mut sub: String = chars[..i].iter().collect();
                sub.push_str(c);
                sub.extend(&chars[i + 1..]);
                strings.push(sub);
            }
        }
        strings.push(format!("{seed}{seed}"));
    }
    strings.push("a".repeat(63) + ".com");
    strings.push("a".repeat(64) + ".com");
    // Hostnames of 252 to 255 characters (the limit is 253, a trailing dot aside).
    for n in 252..=255 {
        let host = vec!["a".repeat(62); 5].join(".");
        strings.push(host[..n - 1].to_string() + "b");
        strings.push(host[..n - 1].to_string() + ".");
    }
    strings.sort();
    strings.dedup();
    let mut out = String::from("[");
    for s in &strings {
        for f in FORMATS {
            let answer = match check(f, s) {
                None => 0,
                Some(false) => 1,
                Some(true) => 2,
            };
            if out.len() > 1 {
                out.push(',');
            }
            out.push_str(&format!("[{},{},{answer}]", json(f), json(s)));
        }
    }
    out.push(']');
    println!("{out}");
}

fn json(s: &str) -> String {
    toolwire::json::to_text(&toolwire::json::Value::String(s.to_string()))
}
