//! Native benchmark tables (`cargo bench --bench native`; `make bench` runs it first).
//!
//! No framework: each figure is the median of `REPS` timed runs in this process. Streams come
//! from `benches/streams.json` (shared with the Node bench). Prints markdown tables:
//! 1. per payload kind: MB/s for plain text, text dense with calls, one 1 MB argument (whole
//!    input and in 4-byte chunks), the 10x/1x time ratio at 1-byte chunks, peak heap;
//! 2. every registered family on its first plain case (tests/data/<id>/) repeated to 1 MB: the
//!    slowest ones;
//! 3. the SSE rewrite (`SseRewriter`): ns per upstream event of a vLLM-like chunk stream, against
//!    the SSE decoder alone (the floor: splitting events, no JSON).
//!
//! Options (after `--`): `--quick` (fewer reps, smaller sizes), `--families N` (rows of table 2),
//! `--sse` (table 3 only),
//! `--profile PARSER plain|dense|arg CHUNK` (one run of one stream, e.g. under callgrind).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;
use toolwire::{Event, Options, ToolCallParser};

#[path = "../tests/common/data.rs"]
mod data;

/// Counts live heap bytes and their peak (for the peak-memory column).
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(live, Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > l.size() {
            let live = LIVE.fetch_add(new - l.size(), Relaxed) + new - l.size();
            PEAK.fetch_max(live, Relaxed);
        } else {
            LIVE.fetch_sub(l.size() - new, Relaxed);
        }
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const MB: usize = 1 << 20;

struct Cfg {
    reps: usize,
    /// Size of the 1x input of the linearity ratio (the 10x input is ten times that).
    lin: usize,
    /// Size of the throughput inputs.
    size: usize,
    families: usize,
}

/// Streams `input` in `chunk`-byte pieces (at char boundaries), dropping events as a
/// streaming consumer would. Returns seconds and the number of events.
fn run(opts: &Options, input: &str, chunk: usize) -> (f64, usize) {
    let mut p = ToolCallParser::new(opts).unwrap();
    let mut events: Vec<Event> = Vec::new();
    let mut n = 0;
    let t = Instant::now();
    let bytes = input.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let mut end = (at + chunk).min(bytes.len());
        while !input.is_char_boundary(end) {
            end += 1;
        }
        p.push_into(&input[at..end], &mut events);
        n += events.len();
        events.clear();
        at = end;
    }
    p.finish_into(&mut events);
    n += events.len();
    (t.elapsed().as_secs_f64(), n)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn time(cfg: &Cfg, opts: &Options, input: &str, chunk: usize) -> f64 {
    median((0..cfg.reps).map(|_| run(opts, input, chunk).0).collect())
}

fn mbps(bytes: usize, secs: f64) -> String {
    format!("{:.0}", bytes as f64 / MB as f64 / secs)
}

/// Peak heap while streaming `input` in 4-byte chunks, above what was live before.
fn peak(opts: &Options, input: &str) -> usize {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    run(opts, input, 4);
    PEAK.load(Relaxed) - base
}

fn kib(n: usize) -> String {
    if n >= MB { format!("{:.1} MiB", n as f64 / MB as f64) } else { format!("{:.0} KiB", n as f64 / 1024.0) }
}

/// The largest char boundary `<= at`.
fn floor(s: &str, mut at: usize) -> usize {
    at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn repeat_to(unit: &str, size: usize) -> String {
    let mut s = String::with_capacity(size + unit.len());
    while s.len() < size {
        s.push_str(unit);
    }
    s
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let families = args.iter().position(|a| a == "--families").and_then(|i| args.get(i + 1)).and_then(|n| n.parse().ok());
    let cfg = Cfg {
        reps: if quick { 3 } else { 7 },
        lin: if quick { 50_000 } else { 100_000 },
        size: if quick { MB / 4 } else { MB },
        families: families.unwrap_or(8),
    };
    let root = env!("CARGO_MANIFEST_DIR");
    let streams = toolwire::json::parse(&std::fs::read_to_string(format!("{root}/benches/streams.json")).unwrap()).unwrap();
    let get = |k: &str| streams.as_object().unwrap().get(k).unwrap();
    let prose = get("prose").as_str().unwrap();
    let value = repeat_to(get("value").as_str().unwrap(), cfg.size);
    // `--profile PARSER plain|dense|arg CHUNK`: one run of one stream (for callgrind/perf).
    if let Some(i) = args.iter().position(|a| a == "--profile") {
        let (parser, which, size) = (&args[i + 1], &args[i + 2], args[i + 3].parse().unwrap());
        let unit = get("kinds").as_array().unwrap().iter().find(|k| k.as_object().unwrap().get("parser").unwrap().as_str() == Some(parser)).map(|k| k.as_object().unwrap().get("unit").unwrap().as_str().unwrap().to_string()).unwrap_or_default();
        let input = match which.as_str() {
            "plain" => repeat_to(prose, cfg.size),
            "dense" => repeat_to(&unit.replace("{V}", "Paris"), cfg.size),
            _ => unit.replace("{V}", &value),
        };
        let (secs, n) = run(&Options::new(parser), &input, size);
        println!("{parser} {which} in {size}-byte chunks: {:.1} MB/s, {n} events", input.len() as f64 / MB as f64 / secs);
        return;
    }

    if args.iter().any(|a| a == "--sse") {
        let unit = get("kinds").as_array().unwrap()[0].as_object().unwrap().get("unit").unwrap().as_str().unwrap().replace("{V}", "Paris");
        return sse_table(&cfg, prose, &unit);
    }
    println!("## Native (Rust, `cargo bench`, release + LTO), MB/s; median of {} runs", cfg.reps);
    println!();
    println!("| stream | parser | plain text whole | plain text 4 B chunks | dense calls whole | dense calls 4 B | one {} arg whole | one arg 4 B | 10x/1x at 1 B chunks (text / dense / arg) | peak heap (dense / arg) |", kib(cfg.size));
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for k in get("kinds").as_array().unwrap() {
        let k = k.as_object().unwrap();
        let kind = k.get("kind").unwrap().as_str().unwrap();
        let parser = k.get("parser").unwrap().as_str().unwrap();
        let unit = k.get("unit").unwrap().as_str().unwrap();
        let opts = Options::new(parser);
        let plain = repeat_to(prose, cfg.size);
        let dense = repeat_to(&unit.replace("{V}", "Paris"), cfg.size);
        let big = unit.replace("{V}", &value);
        let mut cells = Vec::new();
        for input in [&plain, &dense, &big] {
            cells.push(mbps(input.len(), time(&cfg, &opts, input, usize::MAX)));
            cells.push(mbps(input.len(), time(&cfg, &opts, input, 4)));
        }
        let ratio = |input: &str| {
            let small = &input[..floor(input, cfg.lin)];
            let large = repeat_to(small, cfg.lin * 10);
            let (a, b) = (time(&cfg, &opts, small, 1), time(&cfg, &opts, &large, 1));
            format!("{:.1}", b / a * (cfg.lin * 10) as f64 / large.len() as f64)
        };
        // The one-argument stream at 1x/10x: a 1x-sized value, then ten times as much.
        let big_small = unit.replace("{V}", &value[..cfg.lin]);
        let big_large = unit.replace("{V}", &repeat_to(&value[..cfg.lin], cfg.lin * 10));
        let (a, b) = (time(&cfg, &opts, &big_small, 1), time(&cfg, &opts, &big_large, 1));
        let lin = format!("{} / {} / {:.1}", ratio(&plain), ratio(&dense), b / a * big_small.len() as f64 * 10.0 / big_large.len() as f64);
        let mem = format!("{} / {}", kib(peak(&opts, &dense)), kib(peak(&opts, &big)));
        println!("| {kind} | `{parser}` | {} | {lin} | {mem} |", cells.join(" | "));
    }
    println!();
    families_table(&cfg, root);
    println!();
    let unit = get("kinds").as_array().unwrap()[0].as_object().unwrap().get("unit").unwrap().as_str().unwrap().replace("{V}", "Paris");
    sse_table(&cfg, prose, &unit);
}

/// An upstream SSE stream as vLLM writes it without a tool parser: one chunk object per token
/// (4-byte pieces of `text`), then a finish chunk and `[DONE]`.
fn sse_stream(text: &str, events: usize) -> (String, usize) {
    let text = repeat_to(text, events * 4);
    let mut out = String::new();
    let mut n = 0;
    let mut i = 0;
    while i < text.len() {
        let j = ((i + 4).min(text.len())..=text.len()).find(|&k| text.is_char_boundary(k)).unwrap_or(text.len());
        let mut piece = String::new();
        for c in text[i..j].chars() {
            match c {
                '"' => piece.push_str("\\\""),
                '\\' => piece.push_str("\\\\"),
                '\n' => piece.push_str("\\n"),
                c if (c as u32) < 0x20 => piece.push_str(&format!("\\u{:04x}", c as u32)),
                c => piece.push(c),
            }
        }
        out.push_str(r#"data: {"id":"chatcmpl-7f3a9c2e41b84d0f","object":"chat.completion.chunk","created":1732300000,"model":"Qwen/Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"content":""#);
        out.push_str(&piece);
        out.push_str(r#""},"logprobs":null,"finish_reason":null}]}"#);
        out.push_str("\n\n");
        n += 1;
        i = j;
    }
    out.push_str(r#"data: {"id":"chatcmpl-7f3a9c2e41b84d0f","object":"chat.completion.chunk","created":1732300000,"model":"Qwen/Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":4000,"total_tokens":4012}}"#);
    out.push_str("\n\ndata: [DONE]\n\n");
    (out, n + 2)
}

/// ns per upstream event through `SseRewriter` (hermes) and through the decoder alone.
fn sse_table(cfg: &Cfg, prose: &str, unit: &str) {
    use toolwire::sse::{Decoder, SseOptions, SseRewriter};
    let events = if cfg.reps < 7 { 5_000 } else { 20_000 };
    println!("## SSE rewrite (`SseRewriter`, `hermes`): ns per upstream event (vLLM-like chunks of 4 characters, {events} events, pushed 1 KiB at a time); median of {} runs", cfg.reps);
    println!();
    println!("| stream | decoder alone (ns/event) | rewrite (ns/event) | rewrite MB/s |");
    println!("|---|---|---|---|");
    for (name, text) in [("plain text", prose), ("dense calls", unit)] {
        let (stream, n) = sse_stream(text, events);
        let bytes = stream.as_bytes();
        let decode = median((0..cfg.reps).map(|_| {
            let t = Instant::now();
            let mut d = Decoder::new(1 << 20);
            let mut items = Vec::new();
            let mut count = 0;
            for c in bytes.chunks(1024) {
                d.push(c, &mut items);
                count += items.len();
                items.clear();
            }
            std::hint::black_box(count);
            t.elapsed().as_secs_f64()
        }).collect());
        let rewrite = median((0..cfg.reps).map(|_| {
            let t = Instant::now();
            let mut r = SseRewriter::new(SseOptions::new(Options::new("hermes")));
            let mut out = Vec::with_capacity(bytes.len() * 2);
            for c in bytes.chunks(1024) {
                r.push(c, &mut out);
            }
            r.finish(&mut out);
            std::hint::black_box(out.len());
            t.elapsed().as_secs_f64()
        }).collect());
        let ns = |secs: f64| format!("{:.0}", secs * 1e9 / n as f64);
        println!("| {name} | {} | {} | {} |", ns(decode), ns(rewrite), mbps(bytes.len(), rewrite));
    }
}

/// Every registered family on its first case (`tests/data/<id>/`, sorted by name) that has
/// no options, calls and no diagnostics, repeated to the bench size: the slowest
/// `cfg.families` by 4-byte-chunk throughput.
fn families_table(cfg: &Cfg, _root: &str) {
    let (cases, _) = data::load_cases(&data::StdFs(data::data_dir()));
    let mut rows = Vec::new();
    for family in toolwire::registry::all() {
        let plain = |c: &&data::Case| {
            let e = c.expect.as_ref();
            c.parser == family.id
                && e.is_some_and(|e| e.options().is_ok_and(|o| o.is_empty()))
                && e.is_some_and(|e| e.events.contains("tool-call-start ") && !e.events.contains("diagnostic "))
        };
        let Some(case) = cases.iter().find(plain) else { continue };
        let parser = family.id.to_string();
        let opts = Options::new(&parser);
        let input = repeat_to(&(case.input.clone() + "\n"), cfg.size);
        let whole = time(cfg, &opts, &input, usize::MAX);
        let four = time(cfg, &opts, &input, 4);
        let small = &input[..floor(&input, cfg.lin)];
        let large = repeat_to(small, cfg.lin * 10);
        let lin = time(cfg, &opts, &large, 1) / time(cfg, &opts, small, 1) * small.len() as f64 * 10.0 / large.len() as f64;
        rows.push((parser, input.len() as f64 / MB as f64 / whole, input.len() as f64 / MB as f64 / four, lin));
    }
    rows.sort_by(|a, b| a.2.partial_cmp(&b.2).unwrap());
    let worst_lin = rows.iter().map(|r| r.3).fold(0.0, f64::max);
    println!(
        "## Every family ({} measured) on its first plain case repeated to {}: the {} slowest at 4 B chunks; largest 10x/1x of all: {worst_lin:.1}",
        rows.len(),
        kib(cfg.size),
        cfg.families
    );
    println!();
    println!("| parser | MB/s whole | MB/s 4 B chunks | 10x/1x at 1 B chunks |");
    println!("|---|---|---|---|");
    for (p, w, f, l) in rows.iter().take(cfg.families) {
        println!("| `{p}` | {w:.0} | {f:.0} | {l:.1} |");
    }
}
