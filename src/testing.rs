//! Internals for the crate's own tests, benches, fuzz targets and examples (`toolwire::testing`).
//! Not API: hidden from the docs and free to change in any release. It sits above the parser
//! (it builds parsers); nothing in the crate imports it.

use crate::prelude::*;

pub use crate::json::scanner::{is_valid_json, is_ws, nests_within, Expect, JsonError, JsonScanner, Progress};
pub use crate::schema::number::Decimal;
pub use crate::schema::validate::{validate, Check};
#[cfg(feature = "spans")]
pub use crate::spans::check_conservation;
pub use crate::syntax::Payload;
pub use crate::tools::Tools;

/// `push_with` against `push_into` on one whole `input`: natively `push_with` reads a large
/// chunk in parts and drains at call ends (`Engine::push_pausing`); the events, unmerged, and
/// the spans must be `push_into`'s exactly. Used by the fixture harness and the fuzz targets
/// (each on an input repeated to a few hundred events, so that it pauses).
#[cfg(feature = "spans")]
pub fn check_pausing_push(opts: &crate::parser::Options, input: &str) -> Result<(), String> {
    let mut into = crate::parser::ToolCallParser::new(opts).map_err(|e| e.0)?;
    let mut with = crate::parser::ToolCallParser::new(opts).map_err(|e| e.0)?;
    into.record_spans();
    with.record_spans();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    into.push_into(input, &mut a);
    into.finish_into(&mut a);
    with.push_with(input, |e| b.push(e.to_event()));
    with.finish_with(|e| b.push(e.to_event()));
    if a != b {
        return Err("push_with's events differ from push_into's".into());
    }
    if into.spans() != with.spans() {
        return Err("push_with's spans differ from push_into's".into());
    }
    Ok(())
}

/// `ToolCallParser::recycle` against a new parser: for each of `before` (options, an input
/// and whether the parser was finished: a parser left in any state, a call open or not), a
/// new parser for `opts` given that parser's buffers reads `input` (whole, and in 3-byte
/// pieces) to exactly a new parser's events and spans. Used by the fixture harness and the
/// engine fuzz targets.
#[cfg(feature = "spans")]
pub fn check_recycled(opts: &crate::parser::Options, input: &str, before: &[(&crate::parser::Options, &str, bool)]) -> Result<(), String> {
    use crate::parser::ToolCallParser;
    let run = |p: &mut ToolCallParser, piece: usize| {
        p.record_spans();
        let (mut out, mut rest) = (Vec::new(), input);
        while !rest.is_empty() {
            let mut n = piece.min(rest.len());
            while !rest.is_char_boundary(n) {
                n += 1;
            }
            p.push_into(&rest[..n], &mut out);
            rest = &rest[n..];
        }
        p.finish_into(&mut out);
        (out, p.spans().to_vec())
    };
    for piece in [usize::MAX, 3] {
        let want = run(&mut ToolCallParser::new(opts).map_err(|e| e.0)?, piece);
        for (i, (old_opts, old_input, finish)) in before.iter().enumerate() {
            let mut old = ToolCallParser::new(old_opts).map_err(|e| e.0)?;
            let _ = old.push(old_input);
            if *finish {
                let _ = old.finish();
            }
            let mut p = ToolCallParser::new(opts).map_err(|e| e.0)?;
            p.recycle(old);
            let got = run(&mut p, piece);
            if got.0 != want.0 {
                return Err(format!("recycled from parser {i} of before, pieces of {piece}: events {:?}, a new parser's {:?}", got.0, want.0));
            }
            if got.1 != want.1 {
                return Err(format!("recycled from parser {i} of before, pieces of {piece}: spans {:?}, a new parser's {:?}", got.1, want.1));
            }
        }
    }
    Ok(())
}

/// An SSE event that may merge with its neighbours (see `merged_deltas`): the event with its
/// delta's text emptied, the text, and where the text's JSON string is in the event.
struct Mergeable {
    rest: crate::json::Value,
    text: String,
    at: usize,
    len: usize,
}

/// An event's one delta text (`content`, `reasoning_content`, or the `function.arguments` of one
/// tool call without its id, type and name) when that is all its one choice's delta holds.
fn mergeable(ev: &str) -> Option<Mergeable> {
    use crate::json::Value;
    let data = ev.strip_prefix("data: ")?.strip_suffix("\n\n")?;
    if data.contains('\n') {
        return None;
    }
    let mut v = crate::json::parse(data).ok()?;
    let choices = v.get_mut("choices")?.as_array_mut()?;
    let [choice] = choices.as_mut_slice() else { return None };
    let delta = choice.get_mut("delta")?.as_object_mut()?;
    if delta.len() != 1 {
        return None;
    }
    let (key, slot) = if delta.contains_key("tool_calls") {
        let calls = delta.get_mut("tool_calls")?.as_array_mut()?;
        let [call] = calls.as_mut_slice() else { return None };
        let call = call.as_object_mut()?;
        if call.len() != 2 || !call.contains_key("index") {
            return None;
        }
        let function = call.get_mut("function")?.as_object_mut()?;
        if function.len() != 1 {
            return None;
        }
        ("arguments", function.get_mut("arguments")?)
    } else if delta.contains_key("content") {
        ("content", delta.get_mut("content")?)
    } else {
        ("reasoning_content", delta.get_mut("reasoning_content")?)
    };
    let text = slot.as_str()?.to_string();
    *slot = Value::String(String::new());
    let mut literal = format!("\"{key}\":");
    crate::json::push_json_string(&mut literal, &text);
    let at = crate::text::find(ev, "\"delta\":")?;
    let at = at + crate::text::find(&ev[at..], &literal)? + key.len() + 3;
    Some(Mergeable { rest: v, text, at, len: literal.len() - key.len() - 3 })
}

/// `bytes` (whole SSE events) with each run of neighbouring events that differ only in their
/// one delta text (`content`, `reasoning_content`, or one tool call's `function.arguments`
/// without its id and name) written as one event, the texts joined. The SSE rewriter's
/// answered path (`push_answered`, the package's) sends a quiet run of such deltas within one
/// network chunk as one event; its output and the plain `push`'s agree once merged so.
pub fn merged_deltas(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    // Each event kept: its text, its mergeable form (the texts joined into it), whether joined.
    let mut kept: Vec<(&str, Option<Mergeable>, bool)> = Vec::new();
    for ev in text.split_inclusive("\n\n") {
        let m = mergeable(ev);
        if let (Some((_, Some(last), joined)), Some(m)) = (kept.last_mut(), &m) {
            if last.rest == m.rest {
                last.text.push_str(&m.text);
                *joined = true;
                continue;
            }
        }
        kept.push((ev, m, false));
    }
    let mut out = String::new();
    for (ev, m, joined) in kept {
        match m {
            Some(m) if joined => {
                out.push_str(&ev[..m.at]);
                crate::json::push_json_string(&mut out, &m.text);
                out.push_str(&ev[m.at + m.len..]);
            }
            _ => out.push_str(ev),
        }
    }
    out
}

/// `text::scan_until` against a byte loop: on `rounds` pseudo-random byte strings (up to 70
/// bytes, mostly stop bytes and their neighbours), from every start, for every `Stops` the
/// crate builds (`ESCAPE`, each byte, pairs). Natively the word path; in the wasm tests
/// (`tests/wasm.rs`) the SIMD path.
pub fn check_scan_until(rounds: usize) -> Result<(), String> {
    use crate::text::{scan_until, Stops};
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    // Each set with the bytes it should stop at: equal to either of two, or below a third.
    let mut sets = vec![(Stops::ESCAPE, [b'"', b'\\'], 0x20)];
    sets.extend((0..=255u8).map(|b| (Stops::byte(b), [b, b], 0)));
    sets.extend([[b'"', b'\\'], [b'\n', b'\r'], [b'\'', b'\\'], [0, 0xff], [0x7f, 0x80]].map(|[a, b]| (Stops::bytes(a, b), [a, b], 0)));
    // Bytes near every stop and every edge of the word flags (a borrow, a sign bit).
    let palette = [0u8, 1, 0x1f, 0x20, 0x21, b'\n', b'\r', b'"', b'\'', b'\\', b'a', 0x7f, 0x80, 0x81, 0xfe, 0xff];
    for _ in 0..rounds {
        let r = next();
        let len = (r % 71) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| {
            let r = next();
            if r & 3 == 0 { (r >> 8) as u8 } else { palette[(r >> 8) as usize % palette.len()] }
        }).collect();
        // Stops are rare in real text: a plain run with one byte of `bytes` in it.
        let sparse: Vec<u8> = (0..len).map(|i| if (r >> 16) as usize % 37 == i { bytes[i] } else { b'a' + (i % 26) as u8 }).collect();
        for b in [&bytes, &sparse] {
            for &(stops, eq, below) in &sets {
                let stop = |c: u8| eq.contains(&c) || c < below;
                for start in 0..=b.len() + 1 {
                    let want = b.get(start..).and_then(|t| t.iter().position(|&c| stop(c))).map_or(b.len().max(start), |i| start + i);
                    let got = scan_until(b, start, stops);
                    if got != want {
                        return Err(format!("scan_until({b:?}, {start}, {eq:?} or below {below}) = {got}, a byte loop {want}"));
                    }
                }
            }
        }
    }
    Ok(())
}
