//! Native benchmark tables (`cargo bench --bench native`; `make bench` runs it first).
//!
//! No framework: each figure is the fastest of `REPS` timed runs (wall clock; the others are
//! slowed by other processes on a shared machine) in this process, but the whole-input figures
//! of goal 4's inputs (below): the fastest of `GOAL_ROUNDS` runs taken in rounds over all of
//! them (`Whole::measure`), as tables 1, 2 and 4 show them. Streams come from
//! `benches/streams.json` (shared with the Node bench). Prints markdown tables:
//! 1. per payload kind: MB/s for plain text, text dense with calls, one 1 MB argument (whole
//!    input and in 4-byte chunks), the 10x/1x time ratio at 1-byte chunks, peak heap;
//! 2. every registered family on its first plain case (tests/data/<id>/) repeated to 1 MB: the
//!    slowest ones;
//! 3. the SSE rewrite (`SseRewriter`): ns per upstream event of a vLLM-like chunk stream, against
//!    the SSE decoder alone (the floor: splitting events, no JSON) and the general path alone
//!    (every event through serde_json, no fast path).
//!
//! 4. issue 14's goal 4 as rows `| 4 | what | measured | target | met |` (benches/run.mjs puts
//!    them in its goals table): every family at least 100 MB/s on its plain case (whole input),
//!    dense calls at least 300 MB/s (JSON kinds) and 150 MB/s (XML and pythonic kinds).
//!
//! Events are read as borrowed views (`push_with`, as the wasm binding and the SSE rewriter do);
//! `--owned` takes them as `Vec<Event>` (`push_into`) instead.
//!
//! Options (after `--`): `--quick` (fewer reps, smaller sizes), `--families N` (rows of table 2),
//! `--sse` (table 3 only), `--goals` (the goal rows only),
//! `--profile PARSER plain|dense|arg CHUNK` (one run of one stream, e.g. under callgrind),
//! `--profile-family PARSER CHUNK` (one run of a family's plain case, as in table 2),
//! `--chunk-prof FILE [PER]` (one SSE rewrite, each fixed chunk in its own function: see there),
//! `--package-prof PEER N` (N parses of the Node bench's 2 KB call as the package drives the
//! core, each call in its own function: see there).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::time::Instant;
use toolwire::{Event, EventRef, Options, ToolCallParser};

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

/// `--owned`: `run` takes the events as `Vec<Event>` (`push_into`) instead of borrowed views
/// (`push_with`, what the wasm binding and the SSE rewriter use).
static OWNED: AtomicBool = AtomicBool::new(false);

/// Streams `input` in `chunk`-byte pieces (at char boundaries), reading each event's size as
/// a streaming consumer would, then dropping it. Returns seconds and the number of events.
fn run(opts: &Options, input: &str, chunk: usize) -> (f64, usize) {
    let mut p = ToolCallParser::new(opts).unwrap();
    let (mut n, mut bytes) = (0, 0);
    let t = Instant::now();
    if OWNED.load(Relaxed) {
        let mut events: Vec<Event> = Vec::new();
        for piece in pieces(input, chunk) {
            p.push_into(piece, &mut events);
            n += events.len();
            events.clear();
        }
        p.finish_into(&mut events);
        n += events.len();
    } else {
        let mut seen = |e: EventRef<'_>| {
            n += 1;
            bytes += match e {
                EventRef::Text(t) | EventRef::Reasoning(t) | EventRef::ToolCallDelta { arguments_delta: t, .. } => t.len(),
                EventRef::ToolCallStart { name, .. } | EventRef::ToolCallEnd { name, .. } => name.len(),
                EventRef::Diagnostic { message, .. } => message.len(),
            };
        };
        for piece in pieces(input, chunk) {
            p.push_with(piece, &mut seen);
        }
        p.finish_with(&mut seen);
    }
    let secs = t.elapsed().as_secs_f64();
    std::hint::black_box(bytes);
    (secs, n)
}

/// `input` in `chunk`-byte pieces (each extended to a char boundary).
fn pieces(input: &str, chunk: usize) -> impl Iterator<Item = &str> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= input.len() {
            return None;
        }
        let mut end = at.saturating_add(chunk).min(input.len());
        while !input.is_char_boundary(end) {
            end += 1;
        }
        let piece = &input[at..end];
        at = end;
        Some(piece)
    })
}

/// Before a single profiled run: loading the cases and streams leaves thousands of small freed
/// chunks in glibc's fast bins, and the first large allocation of the run would pay for merging
/// them (`malloc_consolidate`, about 4% of a small family's instructions). One large
/// allocation (below the mmap threshold) here pays it outside the run.
fn settle_heap() {
    std::hint::black_box(Vec::<u8>::with_capacity(64 << 10));
}

/// The fastest of the runs: on a shared machine the others are slowed by other processes.
fn fastest(v: Vec<f64>) -> f64 {
    v.into_iter().fold(f64::INFINITY, f64::min)
}

fn time(cfg: &Cfg, opts: &Options, input: &str, chunk: usize) -> f64 {
    fastest((0..cfg.reps).map(|_| run(opts, input, chunk).0).collect())
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
    OWNED.store(args.iter().any(|a| a == "--owned"), Relaxed);
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
        settle_heap();
        let (secs, n) = run(&Options::new(parser), &input, size);
        println!("{parser} {which} in {size}-byte chunks: {:.1} MB/s, {n} events, {} bytes", input.len() as f64 / MB as f64 / secs, input.len());
        return;
    }

    // `--profile-family PARSER CHUNK`: one run of a family's plain case repeated to the size.
    if let Some(i) = args.iter().position(|a| a == "--profile-family") {
        let (parser, size): (&str, usize) = (&args[i + 1], args[i + 2].parse().unwrap());
        let input = family_input(&cfg, parser).expect("no plain case for this family");
        settle_heap();
        let (secs, n) = run(&Options::new(parser), &input, size);
        println!("{parser} plain case in {size}-byte chunks: {:.1} MB/s, {n} events, {} bytes", input.len() as f64 / MB as f64 / secs, input.len());
        return;
    }

    // `--profile-sse fast|general|answered plain|dense|FILE EVENTS [PER]`: one rewrite (for
    // callgrind); `answered` feeds PER whole events a push through `push_answered_over` (the
    // package's path: quiet events answered from the hint), the others 1 KiB pushes.
    if let Some(i) = args.iter().position(|a| a == "--profile-sse") {
        use toolwire::sse::{SseOptions, SseRewriter};
        let unit = get("kinds").as_array().unwrap()[0].as_object().unwrap().get("unit").unwrap().as_str().unwrap().replace("{V}", "Paris");
        let (stream, n) = match args[i + 2].as_str() {
            "plain" => sse_stream(prose, args[i + 3].parse().unwrap()),
            "dense" => sse_stream(&unit, args[i + 3].parse().unwrap()),
            file => (std::fs::read_to_string(file).unwrap(), 0),
        };
        let mut r = SseRewriter::new(SseOptions::new(Options::new("hermes")));
        r.set_general_only(args[i + 1] == "general");
        let mut out = Vec::new();
        if args[i + 1] == "answered" {
            let per: usize = args.get(i + 4).map_or(8, |p| p.parse().unwrap());
            let events: Vec<&str> = stream.split_inclusive("\n\n").collect();
            let (mut scratch, mut total) = (Vec::new(), 0);
            for group in events.chunks(per) {
                let (answer, len) = r.push_answered_over(group.concat().as_bytes(), &mut scratch);
                total += if answer == toolwire::sse::Answer::Verbatim { group.iter().map(|e| e.len()).sum() } else { len };
            }
            r.finish(&mut out);
            println!("{} events, {} chunks answered from the hint, {} bytes out", events.len(), r.quiet_chunks(), total + out.len());
            return;
        }
        for c in stream.as_bytes().chunks(1024) {
            r.push(c, &mut out);
        }
        r.finish(&mut out);
        println!("{n} events, {} through the fast path, {} bytes out", r.fast_events(), out.len());
        return;
    }
    // `--chunk-prof FILE [PER]`: one rewrite of an SSE file, PER events a push through
    // `push_answered_over` (the package's path), each fixed step in its own function (under
    // callgrind: `step_K`'s inclusive count is that step's instructions; K = 0 construction,
    // 1 to 4 the first four chunks, 98 chunks 5 to 7, 8 to 11 chunks 8 to 11, 96 the last, 97
    // `finish`, 99 the others: the steady chunks).
    if let Some(i) = args.iter().position(|a| a == "--chunk-prof") {
        use toolwire::sse::{Answer, SseOptions, SseRewriter};
        /// One fixed step, called through `step_K` (callgrind tells the instantiations apart by name).
        fn step(k: usize, r: &mut Option<SseRewriter>, bytes: &[u8], scratch: &mut Vec<u8>) -> usize {
            match r {
                None => {
                    *r = Some(SseRewriter::new(SseOptions::new(Options::new("hermes"))));
                    0
                }
                Some(r) if k == 97 => {
                    r.finish(scratch);
                    scratch.len()
                }
                Some(r) => match r.push_answered_over(bytes, scratch) {
                    (Answer::Verbatim, _) => bytes.len(),
                    (_, len) => len,
                },
            }
        }
        macro_rules! steps {
            ($($name:ident $k:literal),*) => {$(
                #[inline(never)]
                fn $name(r: &mut Option<SseRewriter>, bytes: &[u8], scratch: &mut Vec<u8>) -> usize {
                    step($k, r, bytes, scratch)
                }
            )*};
        }
        steps!(step_0 0, step_1 1, step_2 2, step_3 3, step_4 4, step_8 8, step_9 9, step_10 10, step_11 11, step_96 96, step_97 97, step_98 98, step_99 99);
        let stream = std::fs::read_to_string(&args[i + 1]).unwrap();
        let per: usize = args.get(i + 2).map_or(8, |p| p.parse().unwrap());
        let events: Vec<&str> = stream.split_inclusive("\n\n").collect();
        let chunks: Vec<String> = events.chunks(per).map(|g| g.concat()).collect();
        let (mut r, mut scratch, mut total) = (None, Vec::new(), 0);
        step_0(&mut r, b"", &mut scratch);
        for (k, c) in chunks.iter().enumerate() {
            let b = c.as_bytes();
            total += match k {
                0 => step_1(&mut r, b, &mut scratch),
                1 => step_2(&mut r, b, &mut scratch),
                2 => step_3(&mut r, b, &mut scratch),
                3 => step_4(&mut r, b, &mut scratch),
                8 => step_8(&mut r, b, &mut scratch),
                9 => step_9(&mut r, b, &mut scratch),
                10 => step_10(&mut r, b, &mut scratch),
                11 => step_11(&mut r, b, &mut scratch),
                k if k + 1 == chunks.len() => step_96(&mut r, b, &mut scratch),
                5..=7 => step_98(&mut r, b, &mut scratch),
                _ => step_99(&mut r, b, &mut scratch),
            };
        }
        scratch.clear();
        total += step_97(&mut r, b"", &mut scratch);
        println!("{} events in {} chunks, {total} bytes out", events.len(), chunks.len());
        return;
    }
    // `--package-prof PEER N`: N parses of the Node bench's 2 KB call of a peer row (`peers`
    // in streams.json: construction with `tools`, 4-byte chunks, finish) the way the package
    // drives the core: pushes the hints answer (quiet, held marker, held run) wait, the rest
    // go in with what waited (`push_after_quiet_with`, then the hints, as `pushInput`). Each
    // call into the core is `call_K` (K its rank in the parse, 15 for the later ones, 16 the
    // finish, 17 the construction, given the last parser's buffers as the package's pool
    // does): under callgrind, its inclusive count over N parses.
    if let Some(i) = args.iter().position(|a| a == "--package-prof") {
        use toolwire::{Quiet, Stop};
        type Hints = (Option<Quiet>, Option<Vec<u8>>, Option<(&'static [u8], Stop, usize)>);
        fn call(p: &mut ToolCallParser, text: &str, skipped: usize, events: &mut usize) -> Hints {
            p.push_after_quiet_with(text, skipped, |_| *events += 1);
            (p.quiet(), p.held_marker().map(<[u8]>::to_vec), p.held_run())
        }
        macro_rules! calls {
            ($($name:ident $k:literal),*) => {$(
                #[inline(never)]
                fn $name(p: &mut ToolCallParser, text: &str, skipped: usize, events: &mut usize) -> Hints {
                    // (The rank keeps the bodies apart: identical functions are folded into one.)
                    std::hint::black_box($k);
                    call(p, text, skipped, events)
                }
            )*};
        }
        calls!(call_0 0, call_1 1, call_2 2, call_3 3, call_4 4, call_5 5, call_6 6, call_7 7, call_8 8, call_9 9, call_10 10, call_11 11, call_12 12, call_13 13, call_14 14, call_15 15);
        #[inline(never)]
        fn call_16(p: &mut ToolCallParser, events: &mut usize) {
            p.finish_with(|_| *events += 1);
        }
        /// A new parser given the last one's buffers (`recycle`: the package's pool).
        #[inline(never)]
        fn call_17(o: &Options, old: Option<ToolCallParser>) -> ToolCallParser {
            let mut p = ToolCallParser::new(o).unwrap();
            if let Some(old) = old {
                p.recycle(old);
            }
            p
        }
        let by_rank = [call_0, call_1, call_2, call_3, call_4, call_5, call_6, call_7, call_8, call_9, call_10, call_11, call_12, call_13, call_14, call_15];
        let peer = get("peers").as_array().unwrap().iter().map(|p| p.as_object().unwrap()).find(|p| p.get("name").unwrap().as_str() == Some(&args[i + 1])).unwrap();
        let mut o = toolwire::json::Map::new();
        o.insert("parser".into(), peer.get("parser").unwrap().clone());
        o.insert("tools".into(), get("tools").clone());
        let opts = Options::from_json(&toolwire::json::Value::Object(o)).unwrap();
        let text = peer.get("unit").unwrap().as_str().unwrap().replace("{V}", &repeat_to(get("value").as_str().unwrap(), 2048)[..2048]);
        let (n, mut events, mut calls, mut last) = (args[i + 2].parse::<usize>().unwrap(), 0, 0, None);
        for _ in 0..n {
            let mut p = call_17(&opts, last.take());
            let (mut hints, mut pending, mut answered, mut rank) = ((p.quiet(), p.held_marker().map(<[u8]>::to_vec), p.held_run()), String::new(), 0, 0);
            for c in pieces(&text, 4) {
                let waits = match &mut hints {
                    (Some(q), ..) if q.admits(c) && pending.len() + c.len() <= q.budget.min(1 << 16) => {
                        answered += c.len();
                        *q = q.after();
                        true
                    }
                    (None, Some(rest), _) if rest.starts_with(c.as_bytes()) => {
                        rest.drain(..c.len());
                        true
                    }
                    (None, None, Some((lead, stop, budget))) => {
                        let k = c.len().min(lead.len());
                        let ok = c.len() <= lead.len() + *budget && c.as_bytes()[..k] == lead[..k] && c.bytes().skip(k).all(|b| !stop.has(b));
                        if ok {
                            (*lead, *budget) = (&lead[k..], *budget - (c.len() - k));
                        }
                        ok
                    }
                    _ => false,
                };
                pending.push_str(c);
                if !waits {
                    hints = by_rank[rank.min(15)](&mut p, &pending, answered, &mut events);
                    (rank, answered) = (rank + 1, 0);
                    pending.clear();
                }
            }
            if !pending.is_empty() {
                by_rank[15](&mut p, &pending, answered, &mut events);
            }
            call_16(&mut p, &mut events);
            calls += rank + 1;
            last = Some(p);
        }
        println!("{n} parses, {} calls into the core each, {events} events", calls / n);
        return;
    }
    if args.iter().any(|a| a == "--sse") {
        let unit = get("kinds").as_array().unwrap()[0].as_object().unwrap().get("unit").unwrap().as_str().unwrap().replace("{V}", "Paris");
        return sse_table(&cfg, prose, &unit);
    }
    // Goal 4's inputs: every family's plain case, each kind's dense calls (whole input).
    let dense: Vec<(String, String)> = get("kinds").as_array().unwrap().iter().map(|k| {
        let k = k.as_object().unwrap();
        (k.get("parser").unwrap().as_str().unwrap().to_string(), repeat_to(&k.get("unit").unwrap().as_str().unwrap().replace("{V}", "Paris"), cfg.size))
    }).collect();
    let whole = Whole::measure(&cfg, &dense);
    if args.iter().any(|a| a == "--goals") {
        return goals_table(&cfg, &whole);
    }
    println!("## Native (Rust, `cargo bench`, release + LTO), MB/s; fastest of {} runs (dense calls whole: of {GOAL_ROUNDS}, in rounds as goal 4's)", cfg.reps);
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
        for (input, measured) in [(&plain, None), (&dense, Some(Whole::of(&whole.dense, parser))), (&big, None)] {
            cells.push(measured.map_or_else(|| mbps(input.len(), time(&cfg, &opts, input, usize::MAX)), |v| format!("{v:.0}")));
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
    let rows = family_rows(&cfg, &whole);
    families_table(&cfg, &rows);
    println!();
    let unit = get("kinds").as_array().unwrap()[0].as_object().unwrap().get("unit").unwrap().as_str().unwrap().replace("{V}", "Paris");
    sse_table(&cfg, prose, &unit);
    println!();
    goals_table(&cfg, &whole);
}

/// Rounds of the whole-input measurement of goal 4's inputs (`Whole::measure`).
const GOAL_ROUNDS: usize = 15;

/// Whole-input MB/s of goal 4's inputs: every family's plain case and each kind's dense
/// calls, as (parser, MB/s).
struct Whole {
    plain: Vec<(String, f64)>,
    dense: Vec<(String, f64)>,
}

impl Whole {
    /// Measured in `GOAL_ROUNDS` rounds, each one run of every input, the fastest run of each:
    /// this machine's speed changes for seconds at a time (back-to-back runs of `--goals` read
    /// 1.8x apart with the same code), so consecutive runs of one input can all fall in a slow
    /// stretch; rounds spread them over the pass (~5 s). `dense`: (parser, input) per kind.
    fn measure(cfg: &Cfg, dense: &[(String, String)]) -> Whole {
        let (cases, _) = data::load_cases(&data::StdFs(data::data_dir()));
        let plain: Vec<(String, String)> = toolwire::registry::all().filter_map(|f| Some((f.id.to_string(), plain_input(cfg, &cases, f.id)?))).collect();
        let inputs: Vec<(Options, &str)> = plain.iter().chain(dense).map(|(p, input)| (Options::new(p), input.as_str())).collect();
        let mut best = vec![f64::INFINITY; inputs.len()];
        for _ in 0..GOAL_ROUNDS {
            for (b, (opts, input)) in best.iter_mut().zip(&inputs) {
                *b = b.min(run(opts, input, usize::MAX).0);
            }
        }
        let mut mbs = plain.iter().chain(dense).zip(&best).map(|((p, input), secs)| (p.clone(), input.len() as f64 / MB as f64 / secs));
        Whole { plain: mbs.by_ref().take(plain.len()).collect(), dense: mbs.collect() }
    }

    /// `parser`'s figure in `list`.
    fn of(list: &[(String, f64)], parser: &str) -> f64 {
        list.iter().find(|(p, _)| p == parser).map_or(f64::NAN, |(_, v)| *v)
    }
}

/// Goal 4 of issue 14 as rows of the goals table (see the module doc).
fn goals_table(cfg: &Cfg, whole: &Whole) {
    let (rows, dense_whole) = (&whole.plain, &whole.dense);
    println!("## Goal 4 (native, whole input; fastest of {GOAL_ROUNDS} runs, one in each of {GOAL_ROUNDS} rounds over every goal input)");
    println!();
    println!("| goal | what | measured | target | met |");
    println!("|---|---|---|---|---|");
    let slow: Vec<String> = rows.iter().filter(|(_, v)| *v < 100.0).map(|(p, v)| format!("`{p}` {v:.0}")).collect();
    let (parser, min) = rows.iter().min_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    let measured = if slow.is_empty() { format!("slowest `{parser}` {min:.0} MB/s") } else { format!("{} below: {}", slow.len(), slow.join(", ")) };
    let met = |ok: bool| if ok { "yes" } else { "no" };
    println!("| 4 | every family ({}) on its plain case repeated to {} | {measured} | >= 100 MB/s | {} |", rows.len(), kib(cfg.size), met(slow.is_empty()));
    // The kinds whose arguments are the model's JSON, and the ones whose JSON is synthesized.
    for (what, kinds, target) in [("JSON", ["hermes", "mistral", "openai"], 300.0), ("XML / pythonic / key-value", ["qwen3_coder", "pythonic", "gemma4"], 150.0)] {
        let got: Vec<&(String, f64)> = dense_whole.iter().filter(|(p, _)| kinds.contains(&p.as_str())).collect();
        let list = got.iter().map(|(p, v)| format!("`{p}` {v:.0}")).collect::<Vec<_>>().join(", ");
        println!("| 4 | dense calls, {what} | {list} MB/s | >= {target:.0} MB/s | {} |", met(got.iter().all(|(_, v)| *v >= target)));
    }
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
    println!("## SSE rewrite (`SseRewriter`, `hermes`): ns per upstream event (vLLM-like chunks of 4 characters, {events} events, pushed 1 KiB at a time); fastest of {} runs", cfg.reps);
    println!();
    println!("| stream | decoder alone (ns/event) | rewrite (ns/event) | general path only (serde_json, ns/event) | rewrite MB/s |");
    println!("|---|---|---|---|---|");
    for (name, text) in [("plain text", prose), ("dense calls", unit)] {
        let (stream, n) = sse_stream(text, events);
        let bytes = stream.as_bytes();
        let decode = fastest((0..cfg.reps).map(|_| {
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
        let rewrite = |general_only: bool| fastest((0..cfg.reps).map(|_| {
            let t = Instant::now();
            let mut r = SseRewriter::new(SseOptions::new(Options::new("hermes")));
            r.set_general_only(general_only);
            let mut out = Vec::with_capacity(bytes.len() * 2);
            for c in bytes.chunks(1024) {
                r.push(c, &mut out);
            }
            r.finish(&mut out);
            std::hint::black_box(out.len());
            t.elapsed().as_secs_f64()
        }).collect());
        let (fast, general) = (rewrite(false), rewrite(true));
        let ns = |secs: f64| format!("{:.0}", secs * 1e9 / n as f64);
        println!("| {name} | {} | {} | {} | {} |", ns(decode), ns(fast), ns(general), mbps(bytes.len(), fast));
    }
}

/// One family on its plain case: MB/s whole and at 4-byte chunks, 10x/1x at 1-byte chunks.
struct FamilyRow {
    parser: String,
    whole: f64,
    four: f64,
    lin: f64,
}

/// Every registered family on its first case (`tests/data/<id>/`, sorted by name) that has
/// no options, calls and no diagnostics, repeated to the bench size; its whole-input figure from
/// `measured`.
fn family_rows(cfg: &Cfg, measured: &Whole) -> Vec<FamilyRow> {
    let (cases, _) = data::load_cases(&data::StdFs(data::data_dir()));
    let mut rows = Vec::new();
    for family in toolwire::registry::all() {
        let Some(input) = plain_input(cfg, &cases, family.id) else { continue };
        let parser = family.id.to_string();
        let opts = Options::new(&parser);
        let mbs = |secs: f64| input.len() as f64 / MB as f64 / secs;
        let whole = Whole::of(&measured.plain, &parser);
        let four = mbs(time(cfg, &opts, &input, 4));
        let small = &input[..floor(&input, cfg.lin)];
        let large = repeat_to(small, cfg.lin * 10);
        let lin = time(cfg, &opts, &large, 1) / time(cfg, &opts, small, 1) * small.len() as f64 * 10.0 / large.len() as f64;
        rows.push(FamilyRow { parser, whole, four, lin });
    }
    rows
}

/// `parser`'s first case (sorted by name) with no options, calls and no diagnostics, followed
/// by a newline and repeated to the bench size.
fn plain_input(cfg: &Cfg, cases: &[data::Case], parser: &str) -> Option<String> {
    let plain = |c: &&data::Case| {
        let e = c.expect.as_ref();
        c.parser == parser
            && e.is_some_and(|e| e.options().is_ok_and(|o| o.is_empty()))
            && e.is_some_and(|e| e.events.contains("tool-call-start ") && !e.events.contains("diagnostic "))
    };
    cases.iter().find(plain).map(|case| repeat_to(&(case.input.clone() + "\n"), cfg.size))
}

fn family_input(cfg: &Cfg, parser: &str) -> Option<String> {
    let (cases, _) = data::load_cases(&data::StdFs(data::data_dir()));
    plain_input(cfg, &cases, parser)
}

/// The slowest `cfg.families` of `rows` by 4-byte-chunk throughput.
fn families_table(cfg: &Cfg, rows: &[FamilyRow]) {
    let mut rows: Vec<&FamilyRow> = rows.iter().collect();
    rows.sort_by(|a, b| a.four.partial_cmp(&b.four).unwrap());
    let worst_lin = rows.iter().map(|r| r.lin).fold(0.0, f64::max);
    println!(
        "## Every family ({} measured) on its first plain case repeated to {}: the {} slowest at 4 B chunks (whole: fastest of {GOAL_ROUNDS}, in rounds); largest 10x/1x of all: {worst_lin:.1}",
        rows.len(),
        kib(cfg.size),
        cfg.families
    );
    println!();
    println!("| parser | MB/s whole | MB/s 4 B chunks | 10x/1x at 1 B chunks |");
    println!("|---|---|---|---|");
    for r in rows.iter().take(cfg.families) {
        println!("| `{}` | {:.0} | {:.0} | {:.1} |", r.parser, r.whole, r.four, r.lin);
    }
}
