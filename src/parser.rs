//! The public streaming API: `ToolCallParser` and the one-shot `parse`.

use crate::quiet::Quiet;
use crate::prelude::*;
use crate::engine::Engine;
use crate::event::{Event, EventRef, ParseResult};
use crate::families;
use crate::limits::Limits;
use crate::reasoning;
use crate::sink::Sink;
use crate::syntax::{Family, Payload, Reasoning};
use crate::tools::Tools;
use crate::utf8::Utf8Decoder;

/// An error building a parser (unknown parser id, bad tools). The message names the valid
/// options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(pub String);

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl core::error::Error for Error {}

/// Parser options (JS: `{parser, model?, tools?, reasoning?, thinking?, idPrefix?, recover?, template?, limits?}`).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A family id or alias, or `"auto"` (detect from `model`, else `generic`).
    pub parser: String,
    /// The model name, used by `"auto"`.
    pub model: Option<String>,
    /// OpenAI tool definitions, as JSON.
    pub tools: Option<crate::json::Value>,
    /// A reasoning parser id (vLLM `--reasoning-parser`).
    pub reasoning: Option<String>,
    /// vLLM's `thinking`/`enable_thinking` switch; with the reasoning parser's `Thinking` it
    /// sets whether the output starts inside reasoning. `None`: the parser's vLLM default.
    pub thinking: Option<bool>,
    /// Keep calls whose arguments had to be closed by the parser (truncated or malformed) in
    /// `parse()` results. Default: the family's setting (off for most).
    pub recover: Option<bool>,
    /// The recovery policy: `policy`, `recoverTruncated`, `keepMalformed`, `bareJson` (see
    /// `policy.rs` for the defaults).
    pub policy: crate::policy::Policy,
    /// Prefix of generated call ids (`call_` by default): ids are `{prefix}{index}`.
    pub id_prefix: Option<String>,
    /// The response template of the template-driven families (`hf`, `beam`); see
    /// `crate::template`. Ignored by other families.
    pub template: Option<crate::json::Value>,
    pub limits: Limits,
    /// The host's `pattern` engine and `format` checker, for builds without regex-lite or the
    /// `formats` feature (the wasm binding supplies JavaScript's); see `crate::schema::Engines`.
    pub engines: crate::schema::Engines,
}

impl Options {
    pub fn new(parser: &str) -> Self {
        Options { parser: parser.to_string(), ..Default::default() }
    }

    /// Reads the JS options object: `{parser, model?, tools?, reasoning?, thinking?, idPrefix?, recover?, template?,
    /// policy?, recoverTruncated?, keepMalformed?, bareJson?,
    /// limits?: {maxArgsBytes?, maxDepth?, maxBufferBytes?, maxNameBytes?}}` (`OPTION_KEYS`). A
    /// missing `parser` means `auto`. An unknown key (a misspelled `parser` would silently mean
    /// `auto`) is an error naming the valid keys, in `limits` too.
    pub fn from_json(v: &crate::json::Value) -> Result<Options, Error> {
        Options::from_json_with(v, &[])
    }

    /// `from_json` for a caller that reads more keys from the same object (`extra`, e.g. the
    /// SSE rewriter's `cumulative`): those are valid too.
    pub fn from_json_with(v: &crate::json::Value, extra: &[&str]) -> Result<Options, Error> {
        use crate::json::Value;
        let obj = match v {
            Value::Null => return Ok(Options::new("auto")),
            Value::String(s) => return Ok(Options::new(s)),
            Value::Object(o) => o,
            _ => return Err(Error("options must be an object like {parser: \"hermes\"}".into())),
        };
        check_keys(obj, "option", OPTION_KEYS, extra)?;
        let string = |k: &str| -> Result<Option<String>, Error> {
            match obj.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(Error(format!("option `{k}` must be a string"))),
            }
        };
        let mut o = Options::new(&string("parser")?.unwrap_or_else(|| "auto".into()));
        o.model = string("model")?;
        o.reasoning = string("reasoning")?;
        o.id_prefix = string("idPrefix")?;
        o.tools = obj.get("tools").filter(|t| !t.is_null()).cloned();
        o.template = obj.get("template").filter(|t| !t.is_null()).cloned();
        o.recover = match obj.get("recover") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => return Err(Error("option `recover` must be a boolean".into())),
        };
        o.thinking = match obj.get("thinking") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => return Err(Error("option `thinking` must be a boolean".into())),
        };
        o.policy = crate::policy::Policy::from_json(obj).map_err(Error)?;
        if let Some(l) = obj.get("limits").filter(|l| !l.is_null()) {
            let l = l.as_object().ok_or_else(|| Error("option `limits` must be an object".into()))?;
            check_keys(l, "limit", LIMIT_KEYS, &[])?;
            let num = |k: &str, d: usize| -> Result<usize, Error> {
                match l.get(k) {
                    None | Some(Value::Null) => Ok(d),
                    Some(n) => crate::json::as_u64(n)
                        .filter(|n| *n > 0)
                        .map(|n| n as usize)
                        .ok_or_else(|| Error(format!("limit `{k}` must be a positive integer"))),
                }
            };
            let d = Limits::default();
            o.limits = Limits {
                max_args_bytes: num("maxArgsBytes", d.max_args_bytes)?,
                max_depth: num("maxDepth", d.max_depth)?,
                max_buffer_bytes: num("maxBufferBytes", d.max_buffer_bytes)?,
                max_name_bytes: num("maxNameBytes", d.max_name_bytes)?,
            };
        }
        Ok(o)
    }
}

/// The keys of the options object (`Options::from_json`).
pub const OPTION_KEYS: &[&str] = &[
    "parser", "model", "tools", "reasoning", "thinking", "idPrefix", "recover", "template", "policy", "recoverTruncated",
    "keepMalformed", "bareJson", "limits",
];

/// The keys of `limits`.
pub const LIMIT_KEYS: &[&str] = &["maxArgsBytes", "maxDepth", "maxBufferBytes", "maxNameBytes"];

/// Fails on the first key of `obj` that is neither in `valid` nor in `extra`, naming the valid
/// ones (and the closest, when one is close).
pub fn check_keys(obj: &crate::json::Map, what: &str, valid: &[&str], extra: &[&str]) -> Result<(), Error> {
    let Some(bad) = obj.keys().find(|k| !valid.contains(&k.as_str()) && !extra.contains(&k.as_str())) else { return Ok(()) };
    let mut all: Vec<&str> = valid.to_vec();
    all.extend_from_slice(extra);
    // The closest (then the first in order), in a loop: adapters are a copy per use in the wasm.
    let mut close: Option<(usize, &str)> = None;
    for &k in &all {
        let c = (edit_distance(bad, k), k);
        if close.is_none_or(|best| c < best) {
            close = Some(c);
        }
    }
    let close = close.filter(|(d, _)| *d <= 2);
    let hint = close.map(|(_, k)| format!(" (did you mean `{k}`?)")).unwrap_or_default();
    Err(Error(format!("unknown {what} `{bad}`{hint}; valid {what}s: {}", crate::small::join(&all, ", "))))
}

/// Levenshtein distance over chars (short option names only).
fn edit_distance(a: &str, b: &str) -> usize {
    let mut chars = Vec::with_capacity(b.len());
    for c in b.chars() {
        chars.push(c);
    }
    let b = chars;
    let mut row: Vec<usize> = Vec::with_capacity(b.len() + 1);
    for j in 0..b.len() + 1 {
        row.push(j);
    }
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + (ca != *cb) as usize).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Resolves a parser name (or `auto` + model) to a family.
pub fn resolve_family(parser: &str, model: Option<&str>) -> Result<&'static Family, Error> {
    if parser.trim().eq_ignore_ascii_case("auto") || parser.trim().is_empty() {
        let id = model.and_then(crate::detect::detect_parser).unwrap_or("generic");
        return families::find(id).ok_or_else(|| Error(format!("internal: detected parser `{id}` is not registered")));
    }
    families::find(parser).ok_or_else(|| {
        Error(format!("unknown parser `{parser}`; valid parsers: auto, {}", crate::small::join(&families::names(), ", ")))
    })
}

fn resolve_reasoning(name: Option<&str>) -> Result<Option<&'static Reasoning<'static>>, Error> {
    match name {
        None => Ok(None),
        Some(n) if n.trim().is_empty() => Ok(None),
        Some(n) => reasoning::find(n).map(Some).ok_or_else(|| {
            Error(format!("unknown reasoning parser `{n}`; valid reasoning parsers: {}", crate::small::join(&reasoning::names(), ", ")))
        }),
    }
}

/// A streaming parser: feed chunks of any size, get events; any chunking gives the same
/// merged events.
pub struct ToolCallParser {
    family: &'static Family,
    /// The engine reads the family's own payload (`family.syntax.payload`), not a template's.
    own_payload: bool,
    engine: Engine,
    sink: Sink,
    utf8: Utf8Decoder,
    scratch: String,
    finished: bool,
}

impl ToolCallParser {
    pub fn new(opts: &Options) -> Result<ToolCallParser, Error> {
        ToolCallParser::with_tools(opts, tools_of(opts)?)
    }

    /// Fails where `new` would, without building a parser: the family, the reasoning parser,
    /// the template and the tools are read (for hosts that check options before a parser is
    /// needed, as the SSE rewriter does at construction).
    pub fn check(opts: &Options) -> Result<(), Error> {
        let family = resolve_family(&opts.parser, opts.model.as_deref())?;
        let reasoning = resolve_reasoning(opts.reasoning.as_deref())?;
        // Builds an engine only for a template-driven family (the template is read there).
        crate::template::engine(family, opts.template.as_ref(), reasoning, opts.thinking).map_err(Error)?;
        tools_of(opts).map(|_| ())
    }

    /// `new` with `opts.tools` already read (`tools_of`; a host that builds many parsers from
    /// the same options reads them once and gives each parser `Tools::fresh`): `opts.tools`
    /// itself is not read.
    pub fn with_tools(opts: &Options, tools: Option<Tools>) -> Result<ToolCallParser, Error> {
        let family = resolve_family(&opts.parser, opts.model.as_deref())?;
        let reasoning = resolve_reasoning(opts.reasoning.as_deref())?;
        let policy = opts.policy.resolve(opts.recover, family.syntax.keep_repaired);
        // `bareJson`: a bare `{` in content opens a JSON call object, for families that have
        // calls but no bare opening marker of their own.
        let syntax = &family.syntax;
        let bare_json = policy.bare_json && syntax.bare.is_empty() && !matches!(syntax.payload, Payload::None);
        let templated = crate::template::engine(family, opts.template.as_ref(), reasoning, opts.thinking).map_err(Error)?;
        let own_payload = templated.is_none();
        let mut engine = match templated {
            Some(e) => e,
            None => Engine::for_family(&family.syntax, reasoning, opts.thinking, bare_json),
        };
        engine.set_recovery(!policy.keep_malformed, bare_json.then_some(Payload::BARE_JSON_CALL));
        let prefix = opts.id_prefix.clone().unwrap_or_else(|| "call_".to_string());
        let mut sink = Sink::new(opts.limits.clone(), tools, prefix, family.id_style);
        sink.strip_reasoning_tail(reasoning.is_some_and(|r| r.strip_tail));
        sink.keep = policy.keep;
        Ok(ToolCallParser { family, own_payload, engine, sink, utf8: Utf8Decoder::new(), scratch: String::new(), finished: false })
    }

    /// Gives this parser, new (`new`, `with_tools`), the allocations of `old`'s buffers
    /// (`old` in any state, from any options), cleared, up to 64 KiB each, and `old`'s spare
    /// payload reader when both read the same family's own payload (`Engine::recycle`): this
    /// parser stays what it was (a reader is reset for every payload after the first anyway),
    /// only its buffers do not grow from empty again. For a host that builds a parser per
    /// reply (the package's pool).
    pub fn recycle(&mut self, mut old: ToolCallParser) {
        let same_payload = core::ptr::eq(self.family, old.family) && self.own_payload && old.own_payload;
        self.engine.recycle(&mut old.engine, same_payload);
        self.sink.recycle(&mut old.sink);
    }

    /// The resolved family id.
    pub fn parser_id(&self) -> &'static str {
        self.family.id
    }

    /// Feeds a text chunk; returns the events it completes.
    pub fn push(&mut self, chunk: &str) -> Vec<Event> {
        let mut out = Vec::new();
        self.push_into(chunk, &mut out);
        out
    }

    /// Like `push`, appending to `out`.
    pub fn push_into(&mut self, chunk: &str, out: &mut Vec<Event>) {
        self.feed(chunk);
        self.sink.drain_into(out);
    }

    /// Like `push`, handing each event to `f` as a borrowed view (valid during the call): no
    /// string is allocated per event. The events are `push`'s, in the same order.
    ///
    /// Natively, a chunk with many calls is read in parts, the events drained between them at
    /// call ends (`Engine::push_pausing`): the same events, without queueing a large chunk's
    /// events all at once.
    pub fn push_with(&mut self, chunk: &str, f: impl FnMut(EventRef<'_>)) {
        #[cfg(not(target_arch = "wasm32"))]
        if !self.finished {
            let mut f = f;
            self.sink.reserve(chunk.len());
            let mut rest = chunk;
            while let Some(more) = self.engine.push_pausing(rest, &mut self.sink) {
                self.sink.drain_with(&mut f);
                rest = more;
            }
            return self.sink.drain_with(f);
        }
        self.feed(chunk);
        self.sink.drain_with(f);
    }

    /// Runs `chunk` through the engine; its events stay queued in the sink.
    pub(crate) fn feed(&mut self, chunk: &str) {
        if !self.finished {
            self.sink.reserve(chunk.len());
            self.engine.push(chunk, &mut self.sink);
        }
    }

    /// The quiet-run hint for the next input (see [`Quiet`]): `None` when the next input may do
    /// anything but come back as one event.
    pub fn quiet(&self) -> Option<Quiet> {
        if self.finished || !self.utf8.is_empty() {
            return None;
        }
        self.engine.quiet(&self.sink)
    }

    /// The held-marker hint for the next input: when all the parser holds is a proper prefix
    /// of a marker (`<too` of `<tool_call>`), the bytes that continue it without completing
    /// it. A chunk whose bytes begin them gives no event; a caller may hold such a chunk and
    /// push it, not as answered, before the next one (the hint then is what follows it).
    pub fn held_marker(&self) -> Option<&[u8]> {
        if self.finished || !self.utf8.is_empty() {
            return None;
        }
        self.engine.held_marker(&self.sink)
    }

    /// The held-run hint for the next input (`Reader::held_run`): a lead (exact bytes the
    /// header may go on with, maybe none), the ASCII bytes that end a run no event comes from
    /// (a header string) and the run's byte budget after the lead. A chunk of ASCII bytes
    /// that begin the lead, or are the whole lead followed by bytes outside the set within the
    /// budget, gives no event; a caller may hold it and push it, not as answered, before the
    /// next one (the hint then is what is left of the lead, and the budget that much smaller).
    pub fn held_run(&self) -> Option<(&'static [u8], crate::quiet::Stop, usize)> {
        if self.finished || !self.utf8.is_empty() {
            return None;
        }
        self.engine.held_run(&self.sink)
    }

    /// Like `push_into`, where the first `skipped` bytes of `chunk` were reported by the caller
    /// already, pushes answered by `quiet()` (each its own event of the promised kind): the
    /// events of those bytes are left out of `out`. `skipped` is at a char boundary.
    pub fn push_after_quiet(&mut self, chunk: &str, skipped: usize, out: &mut Vec<Event>) {
        self.feed_after_quiet(chunk, skipped);
        self.sink.drain_into(out);
    }

    /// `push_after_quiet` with borrowed views, as `push_with`.
    pub fn push_after_quiet_with(&mut self, chunk: &str, skipped: usize, f: impl FnMut(EventRef<'_>)) {
        self.feed_after_quiet(chunk, skipped);
        self.sink.drain_with(f);
    }

    /// `feed`, then the first `skipped` bytes' events are left out (`push_after_quiet`), with
    /// the `\\` held before them when the hint said so (`Quiet::backslash`).
    pub(crate) fn feed_after_quiet(&mut self, chunk: &str, skipped: usize) {
        let Some((head, rest)) = chunk.split_at_checked(skipped).filter(|(h, _)| !h.is_empty()) else {
            return self.feed(chunk);
        };
        // An arguments run is taken without being scanned again (`take_quiet_args`).
        if self.take_quiet_args(head) {
            return self.feed(rest);
        }
        // Quiet pushes came after a hint, so a `\\` held now is the hint's (`Quiet::backslash`).
        let backslash = self.engine.quiet_backslash();
        self.feed(chunk);
        if self.finished {
            return;
        }
        // A breach of `quiet()`'s promise (the harness's quiet driver trips it).
        let skipped = self.sink.skip_head(head, backslash);
        debug_assert!(skipped, "the events of a quiet run are not where quiet() said");
    }

    /// `push_after_quiet(run, n)` where `run` is a quiet run of arguments the caller answered
    /// (`quiet()` of kind `Args`, the runs pushed since, concatenated; `n` all of it but a
    /// `\\` it ends an escape with), with no events queued: the arguments take it without
    /// scanning it again and no event is made. False, with nothing changed, when the parser
    /// cannot take it so (then push it that way).
    pub fn take_quiet_args(&mut self, run: &str) -> bool {
        if self.finished || !self.utf8.is_empty() || self.sink.queued() > 0 {
            return false;
        }
        self.engine.take_quiet(run, &mut self.sink)
    }

    /// Feeds bytes; a UTF-8 sequence split across chunks is joined (invalid bytes become U+FFFD).
    pub fn push_bytes(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
        self.feed_bytes(bytes);
        self.sink.drain_into(out);
    }

    /// `push_bytes` with borrowed views, as `push_with`.
    pub fn push_bytes_with(&mut self, bytes: &[u8], f: impl FnMut(EventRef<'_>)) {
        self.feed_bytes(bytes);
        self.sink.drain_with(f);
    }

    pub(crate) fn feed_bytes(&mut self, bytes: &[u8]) {
        let mut text = core::mem::take(&mut self.scratch);
        text.clear();
        self.utf8.decode(bytes, &mut text);
        self.feed(&text);
        self.scratch = text;
    }

    /// Ends the input: flushes held text and ends an open call (reporting truncation).
    /// Later calls to `push` and `finish` return nothing.
    pub fn finish(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        self.finish_into(&mut out);
        out
    }

    pub fn finish_into(&mut self, out: &mut Vec<Event>) {
        self.end_input();
        self.sink.drain_into(out);
    }

    /// `finish` with borrowed views, as `push_with`.
    pub fn finish_with(&mut self, f: impl FnMut(EventRef<'_>)) {
        self.end_input();
        self.sink.drain_with(f);
    }

    pub(crate) fn end_input(&mut self) {
        if self.finished {
            return;
        }
        let mut tail = String::new();
        self.utf8.finish(&mut tail);
        if !tail.is_empty() {
            self.engine.push(&tail, &mut self.sink);
        }
        self.engine.finish(&mut self.sink);
        self.finished = true;
    }

    /// Events queued by the latest `feed*`/`end_input`, not drained yet (the binding's).
    #[cfg_attr(not(all(target_arch = "wasm32", feature = "std")), allow(dead_code))]
    pub(crate) fn queued(&self) -> usize {
        self.sink.queued()
    }

    /// The only queued event, when there is exactly one (the binding's short forms).
    pub(crate) fn single(&self) -> Option<EventRef<'_>> {
        self.sink.single()
    }

    /// Hands the queued events to `f` (`drain_with`).
    pub(crate) fn drain_with(&mut self, f: impl FnMut(EventRef<'_>)) {
        self.sink.drain_with(f);
    }

    /// Turns on byte accounting: `spans()` then tells where every consumed input byte went
    /// (nothing lost, `spans.rs`; used by the fixture harness, and for highlighting). Call before
    /// the first push; the list grows with the number of markers, not bytes.
    pub fn record_spans(&mut self) {
        self.sink.record_spans();
    }

    /// Where each byte of the (decoded) input went; see `crate::spans`. Complete after
    /// `finish`; while streaming, up to the end of the latest text or reasoning emitted (bytes
    /// consumed since may still come back as text).
    pub fn spans(&self) -> &[crate::spans::Span] {
        self.sink.spans()
    }

    /// Bytes held undecided right now (hold-back).
    pub fn held_len(&self) -> usize {
        self.engine.held_len()
    }

    /// The bound on `held_len`: text is held only while it may start a marker.
    pub fn hold_bound(&self) -> usize {
        self.engine.hold_bound()
    }
}

/// The tools of `opts` (`opts.tools`, with `opts.engines`).
pub fn tools_of(opts: &Options) -> Result<Option<Tools>, Error> {
    match &opts.tools {
        None | Some(crate::json::Value::Null) => Ok(None),
        Some(v) => Tools::from_json_with(v, opts.engines).map(Some).map_err(Error),
    }
}

/// Parses a whole text: exactly streaming it in one chunk and calling `finish`.
pub fn parse(text: &str, opts: &Options) -> Result<ParseResult, Error> {
    let mut p = ToolCallParser::new(opts)?;
    let mut r = ParseResult::default();
    p.push_with(text, |e| r.add(e));
    p.finish_with(|e| r.add(e));
    Ok(r)
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;
    use crate::json::json;

    /// `take_quiet_args` takes the quiet runs of an arguments string (escapes cut between
    /// runs, a held `\\` before a run) so that what follows reads as when every byte was
    /// pushed, for the JSON call readers (hermes, a `NAME{json}` family, Mistral's); it takes
    /// nothing where no arguments string is open.
    #[test]
    fn take_quiet_args_is_a_push_of_the_run() {
        let cases = [
            ("hermes", "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"", "\"}}</tool_call> after"),
            ("deepseek_v31", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": \"", "\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
            ("mistral", "[TOOL_CALLS]f[ARGS]{\"a\": \"", "\"}"),
        ];
        let runs: [&[&str]; 5] = [&["x y"], &["ab\\", "n", "c\\\\", "\\", "\\", "t\\", "t"], &["\\", "n"], &["caf\u{e9} \\\""], &["a", "\\", "\"\\\\"]];
        for (parser, head, tail) in cases {
            for run in runs {
                let text: String = run.concat();
                let want = parse(&[head, &text, tail].concat(), &Options::new(parser)).unwrap();
                let mut p = ToolCallParser::new(&Options::new(parser)).unwrap();
                let mut got = ParseResult::default();
                p.push_with(head, |e| got.add(e));
                // The runs taken one by one, each at the hint after the one before.
                for r in run {
                    let q = p.quiet().unwrap_or_else(|| panic!("{parser} {r:?}: no hint"));
                    // (A run may end inside an escape, as answered SSE texts may.)
                    assert!(matches!(q.kind, crate::QuietKind::Args(0)) && q.admits(r.trim_end_matches('\\')), "{parser} {r:?}: {q:?}");
                    assert!(p.take_quiet_args(r), "{parser} {r:?}");
                }
                p.push_with(tail, |e| got.add(e));
                p.finish_with(|e| got.add(e));
                assert_eq!(got.tool_calls.len(), 1, "{parser} {run:?}: {got:?}");
                assert_eq!(got, want, "{parser} {run:?}");
            }
        }
        // Nowhere near an arguments string: nothing taken.
        let mut p = ToolCallParser::new(&Options::new("hermes")).unwrap();
        assert!(!p.take_quiet_args("abc"));
        p.push_with("<tool_call>{\"name\": \"", |_| {});
        assert!(!p.take_quiet_args("abc"));
    }

    /// `check` fails exactly where `new` fails, with the same message.
    #[test]
    fn check_fails_where_new_fails() {
        let cases = [
            json!({"parser": "hermes"}),
            json!({"parser": "nope"}),
            json!({"parser": "auto", "model": "Qwen/Qwen3-8B"}),
            json!({"parser": "hermes", "reasoning": "qwen3"}),
            json!({"parser": "hermes", "reasoning": "nope"}),
            json!({"parser": "hf"}),
            json!({"parser": "hf", "template": {"start": 3}}),
            json!({"parser": "hf", "template": "nope"}),
            json!({"parser": "hermes", "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]}),
            json!({"parser": "hermes", "tools": {"f": 1}}),
        ];
        let mut failed = 0;
        for v in cases {
            let o = Options::from_json(&v).unwrap();
            let (checked, built) = (ToolCallParser::check(&o), ToolCallParser::new(&o).map(|_| ()));
            assert_eq!(checked, built, "{v}");
            failed += checked.is_err() as usize;
        }
        assert!(failed >= 4, "{failed} of the cases fail");
    }

    /// The held-marker hint: the rest of the held marker but its last byte, in text and for a
    /// closing marker after a payload; none when nothing or no marker prefix is held.
    #[test]
    fn held_marker_is_the_rest_of_a_held_marker_short_of_its_end() {
        let mut p = ToolCallParser::new(&Options::new("hermes")).unwrap();
        assert_eq!(p.held_marker(), None);
        p.push("Hi <too");
        assert_eq!(p.held_marker(), Some(&b"l_call"[..]));
        assert_eq!((p.push("l_cal"), p.held_marker()), (vec![], Some(&b"l"[..])));
        let events = p.push("l>{\"name\": \"f\", \"arguments\": {}}");
        assert!(matches!(events[..], [Event::ToolCallStart { .. }, ..]) && p.held_marker().is_none(), "{events:?}");
        p.push("\n</t");
        assert_eq!(p.held_marker(), Some(&b"ool_call"[..]));
        p.push("ool_call> x");
        assert_eq!(p.held_marker(), None);
        p.push("<x");
        assert_eq!(p.held_marker(), None);
    }

    /// In a payload, the reader's held marker: the XML markers of Qwen3-Coder, an opening
    /// one after whitespace too.
    #[test]
    fn held_marker_in_an_xml_payload() {
        let mut p = ToolCallParser::new(&Options::new("qwen3_coder")).unwrap();
        p.push("<tool_call>\n<fu");
        assert_eq!(p.held_marker(), Some(&b"nction"[..]));
        p.push("nction=f>\n<para");
        assert_eq!(p.held_marker(), Some(&b"meter"[..]));
        p.push("meter=a>\nx\n</par");
        assert_eq!(p.held_marker(), Some(&b"ameter"[..]));
        assert_eq!(p.push("ame"), vec![]);
        assert_eq!(p.held_marker(), Some(&b"ter"[..]));
        p.push("ter>\n</fun");
        assert_eq!(p.held_marker(), Some(&b"ction"[..]));
    }

    /// The held-run hint: inside a JSON call's name or key string, and a tag header of
    /// Qwen3-Coder, within the name limit; before a JSON call starts, led by the header's usual
    /// continuation (`"name": "`, `, "arguments": ` short of its `{`) from where it is.
    #[test]
    fn held_run_in_header_strings() {
        use crate::quiet::Stop;
        let limits = |p: &ToolCallParser| p.sink.limits.max_name_bytes;
        let mut p = ToolCallParser::new(&Options::new("hermes")).unwrap();
        p.push("<tool_call>{");
        let max = limits(&p);
        assert_eq!(p.held_run(), Some((&b"\"name\": \""[..], Stop::JSON_STRING, max + 1)));
        p.push("\"na");
        assert_eq!(p.held_run(), Some((&b"me\": \""[..], Stop::JSON_STRING, max + 1)));
        p.push("me\"");
        assert_eq!(p.held_run(), Some((&b": \""[..], Stop::JSON_STRING, max + 1)));
        p.push(": \"get_w");
        // The name counts its quotes: `"get_w` is 6 of its max + 2 bytes.
        assert_eq!(p.held_run(), Some((&b""[..], Stop::JSON_STRING, max + 2 - 6)));
        assert_eq!(p.push("eath"), vec![]);
        p.push("er\"");
        assert_eq!(p.held_run(), Some((&b", \"arguments\": "[..], Stop::JSON_STRING, 0)));
        p.push(", \"argu");
        assert_eq!(p.held_run(), Some((&b"ments\": "[..], Stop::JSON_STRING, 0)));
        p.push("ments\": ");
        assert_eq!(p.held_run(), None);
        // Another key: a plain key's run, no lead.
        let mut p = ToolCallParser::new(&Options::new("hermes")).unwrap();
        p.push("<tool_call>{\"nb");
        assert_eq!(p.held_run(), Some((&b""[..], Stop::JSON_STRING, max - 2)));
        let mut p = ToolCallParser::new(&Options::new("qwen3_coder")).unwrap();
        p.push("<tool_call>\n<function=get_");
        assert!(p.held_run().is_some_and(|(lead, stop, _)| lead.is_empty() && stop.has(b'>') && !stop.has(b'w')));
    }

    #[test]
    fn unknown_keys_are_errors_naming_the_valid_ones() {
        let e = Options::from_json(&json!({"parsr": "hermes"})).unwrap_err().0;
        assert!(e.starts_with("unknown option `parsr` (did you mean `parser`?); valid options: parser, model, tools,"), "{e}");
        let e = Options::from_json(&json!({"parser": "hermes", "limits": {"maxDepth": 4, "depth": 2}})).unwrap_err().0;
        assert_eq!(e, "unknown limit `depth`; valid limits: maxArgsBytes, maxDepth, maxBufferBytes, maxNameBytes");
        // Keys another reader of the object owns are valid only there.
        assert!(Options::from_json(&json!({"cumulative": true})).is_err());
        assert!(Options::from_json_with(&json!({"cumulative": true}), &["cumulative"]).is_ok());
        let all = json!({"parser": "hermes", "model": "m", "tools": [], "reasoning": "qwen3", "thinking": false, "idPrefix": "c_",
            "recover": true, "template": null, "policy": "lenient", "recoverTruncated": true, "keepMalformed": true, "bareJson": false,
            "limits": {"maxArgsBytes": 10, "maxDepth": 8, "maxBufferBytes": 100, "maxNameBytes": 64}});
        let o = Options::from_json(&all).unwrap();
        assert_eq!((o.parser.as_str(), o.limits.max_depth, o.thinking), ("hermes", 8, Some(false)));
        assert_eq!(edit_distance("maxArgBytes", "maxArgsBytes"), 1);
    }
}
