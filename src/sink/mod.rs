//! The sink: the single owner of what was emitted, as three parts.
//!
//! - `emit.rs`, the emitter: events (merged as they grow), call numbers and ids, and the input
//!   offsets of what is emitted, so byte accounting (`spans.rs`) falls out of emission.
//! - `args.rs`, the arguments guard of the open call: whatever a reader does, a call's
//!   fragments concatenate to one valid JSON object (arguments are append-only); a fragment that
//!   would break that is refused with a diagnostic, and an unfinished object is completed
//!   (append-only) when the call ends.
//! - `typing.rs`, the typing context: parameter values coerced by the declared schema while
//!   the call streams, and the completed call validated against it, a step after its end event
//!   (as the events are drained; the diagnostics go before the end event).
//!
//! Readers talk to the `Sink` only; it routes each report to its part and emits the
//! diagnostics the parts return.

mod args;
mod emit;
mod typing;

use crate::prelude::*;
use crate::event::{Event, EventRef, Keep, Label};
use crate::limits::Limits;
use crate::tools::Tools;
use crate::json::scanner::JsonScanner;
use args::{ArgsGuard, Taken};
use emit::Emitter;
pub use emit::IdStyle;
use typing::{Typed, Typing, Validation};

/// What a reader vouches for an arguments fragment (`Sink::args_from`).
#[derive(Clone, Copy)]
enum Written<'a> {
    /// Nothing: the guard scans it.
    Any,
    /// The output of the reader's own scanner (`Sink::args_read`).
    Read(&'a JsonScanner),
    /// The whole arguments, this many levels deep at most (`Sink::args_whole`).
    Whole(usize),
}

/// The open call (kept after it ends, with its buffers, for the next: `Sink::spare`).
struct OpenCall {
    index: usize,
    id: String,
    name: String,
    args: ArgsGuard,
    /// Keys whose value failed coercion (already reported as `type_coercion`).
    coerced: Vec<String>,
}

/// See the module docs.
pub struct Sink {
    out: Emitter,
    pub limits: Limits,
    pub tools: Option<Tools>,
    calls: usize,
    /// The open call when `open` (else the last one): reused from call to call, its strings
    /// and guard keep their allocations.
    call: OpenCall,
    open: bool,
    /// Which repaired calls `parse()` keeps (the recovery policy): decides `kept` on each end
    /// event. Keeps every call unless the parser sets it.
    pub keep: Keep,
    /// Index of the call named by the latest `truncation` diagnostic (`Keep::truncated`).
    last_truncation: Option<usize>,
    /// Validates each ended call (with `tools`) as the events are drained.
    validation: Validation,
    /// A nested call's markup starts at the current reader step (`call_opens`).
    markup_restart: bool,
}

impl Sink {
    /// Takes over `old`'s buffers, cleared (`ToolCallParser::recycle`; this sink is new).
    pub fn recycle(&mut self, old: &mut Sink) {
        use crate::small::Spare;
        self.out.recycle(&mut old.out);
        let (call, old) = (&mut self.call, &mut old.call);
        call.id.spare(&mut old.id);
        call.name.spare(&mut old.name);
        call.args.recycle(&mut old.args);
    }

    pub fn new(limits: Limits, tools: Option<Tools>, id_prefix: String, id_style: IdStyle) -> Self {
        let call = OpenCall { index: 0, id: String::new(), name: String::new(), args: ArgsGuard::new(limits.depth()), coerced: Vec::new() };
        Sink {
            out: Emitter::new(id_prefix, id_style),
            limits,
            tools,
            calls: 0,
            call,
            open: false,
            keep: Keep::from(true),
            last_truncation: None,
            validation: Validation::new(),
            markup_restart: false,
        }
    }

    /// Drop the whitespace that ends a reasoning block (Step-3.5).
    pub fn strip_reasoning_tail(&mut self, on: bool) {
        self.out.strip_reasoning_tail = on;
    }

    /// Takes the events emitted so far.
    pub fn take(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        self.drain_into(&mut out);
        out
    }

    /// Moves the events emitted so far to the end of `out`; with tools, each completed call is
    /// validated on the way (`Validation`: its diagnostics go before its end event).
    #[inline]
    pub fn drain_into(&mut self, out: &mut Vec<Event>) {
        out.reserve(self.out.queued());
        self.drain_with(|e| out.push(e.to_event()));
    }

    /// Like `drain_into`, handing each event to `f` as a borrowed view.
    ///
    /// In the wasm `f` is called through a pointer: every caller shares one copy of the drain
    /// loop (it had seven, 1 KiB of gzip). Natively each caller gets its own, with `f` inlined
    /// (3% fewer instructions on dense calls).
    #[inline]
    pub fn drain_with(&mut self, mut f: impl FnMut(EventRef<'_>)) {
        #[cfg(target_arch = "wasm32")]
        let mut f: &mut dyn FnMut(EventRef<'_>) = &mut f;
        if self.tools.is_none() {
            self.out.drain_with(&mut f);
        } else {
            self.drain_validating(&mut f);
        }
    }

    #[inline(never)]
    fn drain_validating(&mut self, f: &mut dyn FnMut(EventRef<'_>)) {
        let Some(tools) = &self.tools else { return };
        let validation = &mut self.validation;
        let mut check: &mut dyn FnMut(EventRef<'_>) = &mut |e| {
            if matches!(e, EventRef::ToolCallEnd { .. }) {
                validation.check(tools, e, f);
            }
            f(e)
        };
        self.out.drain_with(&mut check);
    }

    /// Makes room for the events of `n` input bytes (`Emitter::reserve`).
    pub fn reserve(&mut self, n: usize) {
        self.out.reserve(n);
    }

    /// Events queued (not drained) so far; see `Emitter::queued`.
    pub fn queued(&self) -> usize {
        self.out.queued()
    }

    /// The only queued event, when there is exactly one (`Emitter::single`).
    pub fn single(&self) -> Option<EventRef<'_>> {
        self.out.single()
    }

    /// Leaves `head` out of the first queued event (`Emitter::skip_head`).
    pub fn skip_head(&mut self, head: &str, backslash: bool) -> bool {
        self.out.skip_head(head, backslash)
    }

    /// No call is open and the latest queued event is a call's end that nothing refers to
    /// (not waiting for `take_ended` when `ends_taken`, the caller's promise that it takes
    /// them; no held text or reasoning whitespace): draining the events here changes none of
    /// them (`Engine::push_pausing`).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn at_call_boundary(&self, ends_taken: bool) -> bool {
        !self.open && self.out.at_call_end(ends_taken)
    }

    /// Number of calls started so far.
    pub fn calls_started(&self) -> usize {
        self.calls
    }

    /// Turns on byte accounting (`spans.rs`): call before the first push.
    pub fn record_spans(&mut self) {
        self.out.record_spans();
    }

    /// Where each input byte went (complete after `end_input`; empty unless `record_spans`).
    pub fn spans(&self) -> &[crate::spans::Span] {
        self.out.spans()
    }

    /// The sequencer dropped input `start..end` (`keepMalformed: false`).
    pub fn dropped(&mut self, start: usize, end: usize) {
        self.out.dropped(start, end);
    }

    /// The input ended at offset `end` (byte accounting).
    pub fn end_input(&mut self, end: usize) {
        self.out.end_input(end);
    }

    fn open_call(&self) -> Option<&OpenCall> {
        self.open.then_some(&self.call)
    }

    fn open_call_mut(&mut self) -> Option<&mut OpenCall> {
        self.open.then_some(&mut self.call)
    }

    pub fn in_call(&self) -> bool {
        self.open
    }

    /// Name of the open call.
    pub fn call_name(&self) -> Option<&str> {
        self.open_call().map(|c| c.name.as_str())
    }

    /// Index of the open call, or of the next call when none is open.
    pub fn call_index(&self) -> usize {
        self.open_call().map_or(self.calls, |c| c.index)
    }

    /// Length of the open call's arguments so far.
    pub fn args_len(&self) -> usize {
        self.open_call().map_or(0, |c| c.args.text.len())
    }

    /// Bytes the open call's arguments may still grow by before `maxArgsBytes` (0 once it was
    /// hit); `None` without an open call.
    pub fn args_room(&self) -> Option<usize> {
        let call = self.open_call()?;
        Some(if call.args.overflowed { 0 } else { self.limits.max_args_bytes.saturating_sub(call.args.text.len()) })
    }

    fn typing(&self) -> Typing<'_> {
        Typing { tools: self.tools.as_ref(), name: self.call_name(), value_depth: self.limits.value_depth() }
    }

    /// True when a text value of parameter `key` of the open call streams as a JSON string
    /// (no tools, undeclared, or a string-only schema). See `Tools::streams_as_string`.
    pub fn param_streams_as_string(&self, key: &str) -> bool {
        self.typing().streams_as_string(key)
    }

    /// The JSON text of a text value of parameter `key` of the open call, coerced by the
    /// declared schema (see `typing.rs`); problems are reported about the call.
    pub fn coerce_param(&mut self, key: &str, text: &str) -> String {
        let typed = self.typing().text_value(key, text);
        self.report_typed(key, typed)
    }

    /// Like `coerce_param`, for a value that is already JSON text (a container of a typed
    /// parameter): coerced member by member (validation then skips a key that did not fit).
    pub fn coerce_param_json(&mut self, key: &str, json: &str) -> String {
        let typed = self.typing().json_value(key, json);
        self.report_typed(key, typed)
    }

    fn report_typed(&mut self, key: &str, typed: Typed) -> String {
        if let Some(message) = typed.coercion {
            self.call_diag(Label::TypeCoercion, message);
            if let Some(call) = self.open_call_mut() {
                call.coerced.push(key.to_string());
            }
        }
        if let Some(message) = typed.too_deep {
            self.call_diag(Label::LimitExceeded, message);
        }
        typed.json
    }

    /// Text a reader emits (from inside the markup it reads).
    pub fn text(&mut self, s: &str) {
        self.out.text(s, None);
    }

    /// Text the sequencer emits: input `at..at + s.len()`, byte for byte.
    pub fn text_at(&mut self, at: usize, s: &str) {
        self.out.text(s, Some(at));
    }

    /// Trailing reasoning whitespace held back so far (`strip_reasoning_tail`).
    pub fn held_reasoning_ws(&self) -> usize {
        self.out.held_reasoning_ws()
    }

    /// Whether trailing reasoning whitespace is held back (`strip_reasoning_tail`).
    pub fn strips_reasoning_tail(&self) -> bool {
        self.out.strip_reasoning_tail
    }

    /// Text of bytes a reader consumed inside the open call before it fails (a failed token
    /// given back): it comes right after the call's end event (`Emitter::text_after_end`).
    /// Call right before ending the call.
    pub fn text_after_end(&mut self, s: &str) {
        self.out.text_after_end(s);
    }

    /// Reasoning a reader emits (from inside the markup it reads).
    pub fn reasoning(&mut self, s: &str) {
        self.out.reasoning(s, None);
    }

    /// Reasoning the sequencer emits: input `at..at + s.len()`, byte for byte.
    pub fn reasoning_at(&mut self, at: usize, s: &str) {
        self.out.reasoning(s, Some(at));
    }

    /// Emits the reasoning whitespace held back: a marker swallowed inside reasoning follows it.
    pub fn flush_reasoning_ws(&mut self) {
        self.out.flush_reasoning_ws();
    }

    pub fn diag(&mut self, label: Label, message: impl Into<String>, index: Option<usize>) {
        if label == Label::Truncation && index.is_some() {
            self.last_truncation = index;
        }
        self.out.diag(label, &message.into(), index);
    }

    /// A diagnostic about the open call (or the next one).
    pub fn call_diag(&mut self, label: Label, message: impl Into<String>) {
        let index = Some(self.call_index());
        self.diag(label, message, index);
    }

    /// Starts a call. `id` overrides the generated id (e.g. Kimi's `functions.NAME:IDX`) unless
    /// it is empty. An open call is ended first. Returns the call index.
    pub fn start_call(&mut self, name: &str, id: Option<&str>) -> usize {
        if self.open {
            self.end_call_incomplete(Label::MalformedJson, "a new call began before this one ended");
        }
        let index = self.calls;
        self.calls += 1;
        let call = &mut self.call;
        call.index = index;
        call.name.clear();
        call.name.push_str(name);
        call.args.reset(self.limits.depth());
        call.coerced.clear();
        self.out.start(index, id, name, &mut call.id);
        self.open = true;
        if let Some(tools) = &self.tools {
            if !tools.is_empty() && !tools.has(name) {
                let msg = tools.unknown_tool_message(name);
                self.diag(Label::WrongTool, msg, Some(index));
            }
        }
        index
    }

    /// A whole call at once, for a reader that read it whole (`Reader::whole`, native only):
    /// the events `start_call(name, None)`, `args_whole(args, ..)` and `end_call()` emit, `args`
    /// being one complete JSON object within `maxDepth` (checked in debug builds). When no call
    /// is open, the name is a declared tool (or there are no tools) and the arguments fit in
    /// `maxArgsBytes`, nothing goes through the open call's state: the id, name and arguments
    /// are written once, into the event buffer (`Emitter::whole_call`). Returns the call index.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn whole_call(&mut self, name: &str, args: &str) -> usize {
        if !self.whole_call_fits(name, args.len()) {
            let index = self.start_call(name, None);
            self.args_whole(args, self.limits.depth());
            self.end_call();
            return index;
        }
        let args = self.out.put_str(args);
        self.whole_call_at(name, args)
    }

    /// The event buffer, for a reader that writes a call's arguments into it before it knows
    /// whether it will call `whole_call_written` (pythonic lists: their JSON is synthesized):
    /// what it appends is referred to by no event until then; it truncates what no call took.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn scratch(&mut self) -> &mut String {
        self.out.scratch()
    }

    /// `whole_call` for arguments a reader wrote into `scratch()`, at `args`: they are not
    /// copied again.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn whole_call_written(&mut self, name: &str, args: core::ops::Range<usize>) -> usize {
        if !self.whole_call_fits(name, args.len()) {
            let args = self.out.scratch()[args].to_string();
            return self.whole_call(name, &args);
        }
        self.whole_call_at(name, args)
    }

    /// Whether `whole_call` writes a call of tool `name` with `len` bytes of arguments in one
    /// step: no call open, a declared name (or no tools), arguments within `maxArgsBytes`.
    #[cfg(not(target_arch = "wasm32"))]
    #[inline]
    fn whole_call_fits(&self, name: &str, len: usize) -> bool {
        let declared = self.tools.as_ref().is_none_or(|t| t.is_empty() || t.has(name));
        !self.open && declared && len > 0 && len <= self.limits.max_args_bytes
    }

    /// `whole_call`'s one step, the arguments being `args` in the event buffer.
    #[cfg(not(target_arch = "wasm32"))]
    #[inline]
    fn whole_call_at(&mut self, name: &str, args: core::ops::Range<usize>) -> usize {
        debug_assert!(
            JsonScanner::whole_object(&self.out.scratch()[args.clone()], self.limits.depth()) == Some(args.len()),
            "whole arguments are not one complete JSON object within maxDepth"
        );
        let index = self.calls;
        self.calls += 1;
        self.out.whole_call(index, name, args);
        index
    }

    /// Appends an arguments fragment to the open call. Returns false when it was refused
    /// (no open call, over the size limit, or not a valid continuation of the JSON so far).
    pub fn args(&mut self, s: &str) -> bool {
        self.args_from(s, Written::Any)
    }

    /// Like `args`, for the output of the reader's own scanner `read` over the call's arguments
    /// (from their `{`, every output of it sent here), after a feed without an error (an error
    /// can leave `read` past what it wrote: a number ended by the byte that failed): the guard
    /// takes its place in the grammar instead of scanning the bytes a second time
    /// (`ArgsGuard::take_read`).
    pub fn args_read(&mut self, s: &str, read: &JsonScanner) -> bool {
        self.args_from(s, Written::Read(read))
    }

    /// Reads `run`, a quiet run of a string of the open call's arguments
    /// (`Reader::take_quiet`), with the reader's scanner `sc` (from the arguments' `{`, every
    /// output of it sent here): the arguments take what `sc` would write for it without either
    /// scanning it (`JsonScanner::quiet_run`, `ArgsGuard::take_quiet`), and no event is queued
    /// (the caller answered the run). False, with nothing changed, when that does not hold.
    pub fn args_quiet(&mut self, run: &str, sc: &mut JsonScanner) -> bool {
        let max = self.limits.max_args_bytes;
        let Some(call) = self.open_call_mut() else { return false };
        #[cfg(debug_assertions)]
        let check = sc.clone();
        let taken = sc.quiet_run(run.as_bytes(), |held, n| run.get(..n).is_some_and(|s| call.args.take_quiet(held, s, max)));
        #[cfg(debug_assertions)]
        if taken {
            // What `quiet_run` trusts: scanning the run writes the same and ends in the same place.
            let (mut again, mut written) = (check, String::new());
            let (used, r) = again.feed(run, Some(&mut written));
            debug_assert!(used == run.len() && r.is_ok() && again.same_place(sc) && self.call.args.text.ends_with(written.as_str()), "a quiet run {run:?} is not string bytes of the arguments");
        }
        taken
    }

    /// Like `args`, for the last fragment of the open call's arguments, which the reader wrote
    /// itself, at most `depth` levels deep: when nothing went to the call before, `s` is the
    /// whole object and the guard takes it without scanning it (`ArgsGuard::take_whole`, which
    /// scans otherwise; pythonic arguments read in one feed).
    pub fn args_whole(&mut self, s: &str, depth: usize) -> bool {
        self.args_from(s, Written::Whole(depth))
    }

    fn args_from(&mut self, s: &str, how: Written<'_>) -> bool {
        if s.is_empty() {
            return true;
        }
        let max = self.limits.max_args_bytes;
        let Some(call) = self.open_call_mut() else { return false };
        let index = call.index;
        let taken = match how {
            Written::Read(read) => call.args.take_read(s, max, read),
            Written::Whole(depth) => call.args.take_whole(s, max, depth),
            Written::Any => call.args.take(s, max),
        };
        match taken {
            Taken::All => {
                self.out.delta(index, s);
                true
            }
            Taken::Invalid => {
                self.refused(index);
                false
            }
            Taken::Cut { kept, kept_valid } => {
                if kept > 0 {
                    self.out.delta(index, &s[..kept]);
                }
                if !kept_valid {
                    self.refused(index);
                }
                let name = self.call_name().unwrap_or_default().to_string();
                self.diag(Label::LimitExceeded, format!("arguments of `{name}` exceed the {max}-byte limit; the rest was dropped"), Some(index));
                false
            }
            Taken::Dropped => false,
        }
    }

    fn refused(&mut self, index: usize) {
        self.diag(Label::MalformedJson, "internal: refused an argument fragment that is not valid JSON", Some(index));
    }

    /// True when the open call's arguments form a complete JSON object.
    pub fn args_complete(&self) -> bool {
        self.open_call().is_some_and(|c| c.args.complete())
    }

    /// Ends the open call. Arguments that are not a complete object are completed, with a
    /// `malformed_json` diagnostic (readers that know better call `end_call_incomplete`).
    pub fn end_call(&mut self) {
        if self.open_call().is_some_and(|c| !c.args.complete() && !c.args.overflowed) {
            self.end_call_incomplete(Label::MalformedJson, "arguments were not a complete JSON object; closed");
        } else {
            self.close_open();
        }
    }

    /// Ends the open call at the end of the output. Complete arguments end normally (a missing
    /// closing tag is not an error); cut-off arguments are closed and reported as `truncation`.
    pub fn end_call_truncated(&mut self) {
        if self.args_complete() {
            self.close_open();
        } else {
            self.end_call_incomplete(Label::Truncation, "the output ended inside the arguments");
        }
    }

    /// Ends the open call after something went wrong: completes the arguments and reports
    /// `label` with `message` (prefixed with the tool name).
    pub fn end_call_incomplete(&mut self, label: Label, message: &str) {
        let Some(call) = self.open_call() else { return };
        let (index, name) = (call.index, call.name.clone());
        self.diag(label, format!("`{name}`: {message}"), Some(index));
        self.close_open();
    }

    /// Completes the open call's arguments and emits its end (validation follows it: see
    /// `drain_into`).
    fn close_open(&mut self) {
        if !core::mem::replace(&mut self.open, false) {
            return;
        }
        let call = &mut self.call;
        let tail = call.args.close();
        let repaired = !tail.is_empty() || call.args.overflowed;
        if !tail.is_empty() {
            self.out.delta(call.index, &tail);
        }
        if !call.coerced.is_empty() {
            self.validation.coerced(call.index, core::mem::take(&mut call.coerced));
        }
        let kept = !repaired || self.keep.repaired || (self.keep.truncated && self.last_truncation == Some(call.index));
        self.out.end(call.index, &call.id, &call.name, &call.args.text, repaired, kept);
    }

    /// The latest call end not taken yet, as (event position, kept); once per end.
    pub fn take_ended(&mut self) -> Option<(usize, bool)> {
        self.out.take_ended()
    }

    /// While on, text readers emit is held until the call ends (see `Emitter::hold`).
    pub fn hold_text(&mut self, on: bool) {
        self.out.hold = on;
    }

    /// Emits (`keep`) or drops the text held so far (see `Emitter::hold`).
    pub fn settle_held(&mut self, keep: bool) {
        if keep {
            self.out.release_held();
        } else {
            self.out.drop_held();
        }
    }

    /// Gives the left-out call whose end event is at `pos` (`take_ended`) its markup, input
    /// from offset `at`, as `text` (see `Emitter::leave_out`).
    pub fn leave_out(&mut self, pos: usize, markup: String, at: usize) {
        self.out.leave_out(pos, markup, at)
    }

    /// A nested call's opening marker was consumed at the first byte of a reader step
    /// (`reader::Nested`): text held since the engine began keeping the markup (see
    /// `hold_text`) is content before that call, emitted now; when there was some, the call's
    /// markup starts at that step (`take_markup_restart`), not with the payload's.
    pub fn call_opens(&mut self) {
        if self.out.release_held_if_any() {
            self.markup_restart = true;
        }
    }

    /// See `call_opens`; once per restart.
    pub fn take_markup_restart(&mut self) -> bool {
        core::mem::take(&mut self.markup_restart)
    }

    /// Call end events emitted so far.
    pub fn calls_ended(&self) -> usize {
        self.out.ends()
    }

    /// True when, since the latest call end, a reader emitted text or reasoning or a call
    /// started (what a reader that stops at its call's end, `Reader::feed`, never does in the
    /// step that ended it).
    pub fn output_since_end(&self) -> bool {
        self.out.output_since_end() || self.calls > self.out.ends()
    }
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use super::*;

    fn sink() -> Sink {
        Sink::new(Limits::default(), None, "call_".into(), IdStyle::Prefixed)
    }

    #[test]
    fn merges_text_and_deltas() {
        let mut s = sink();
        s.text("a");
        s.text("b");
        s.start_call("f", None);
        s.args("{\"x\"");
        s.args(": 1}");
        s.end_call();
        let ev = s.take();
        assert_eq!(ev[0], Event::Text("ab".into()));
        assert_eq!(ev[2], Event::ToolCallDelta { index: 0, arguments_delta: "{\"x\": 1}".into() });
        assert!(matches!(&ev[3], Event::ToolCallEnd { id, arguments, .. } if id == "call_0" && arguments == "{\"x\": 1}"));
    }

    #[test]
    fn refuses_invalid_fragments_and_completes_truncation() {
        let mut s = sink();
        s.start_call("f", None);
        assert!(s.args("{\"x\": [1"));
        assert!(!s.args("}"));
        s.end_call_incomplete(Label::Truncation, "cut off");
        let ev = s.take();
        let Event::ToolCallEnd { arguments, .. } = ev.last().unwrap() else { panic!() };
        assert_eq!(arguments, "{\"x\": [1]}");
    }

    #[test]
    fn alnum_ids_are_nine_alphanumerics() {
        let mut s = Sink::new(Limits::default(), None, "x".into(), IdStyle::Alnum9);
        s.start_call("f", None);
        s.end_call();
        let ev = s.take();
        let Event::ToolCallStart { id, .. } = &ev[0] else { panic!() };
        assert_eq!(id.len(), 9);
        assert!(id.bytes().all(|b| b.is_ascii_alphanumeric()));
    }

    /// Spans fall out of emission: emitted ranges are text, what lies between is markup holding
    /// what readers emitted from inside it, a left-out call's markup is text on its end event.
    #[cfg(feature = "spans")]
    #[test]
    fn spans_fall_out_of_emission() {
        use crate::spans::{Span, SpanKind::*};
        let input = "ab<c>x</c><c>{}</c>!";
        let mut s = sink();
        s.record_spans();
        s.keep = Keep::from(false);
        s.text_at(0, "ab");
        s.text("x"); // a reader, from inside `<c>x</c>`
        s.start_call("f", None);
        s.args("{");
        s.end_call(); // repaired, so left out
        let (pos, kept) = s.take_ended().unwrap();
        assert!(!kept);
        s.leave_out(pos, "<c>{}</c>".into(), 10);
        s.text_at(19, "!");
        s.end_input(input.len());
        let span = |start, end, kind, inner_text| Span { start, end, kind, inner_text, inner_reasoning: 0 };
        assert_eq!(s.spans(), [span(0, 2, Text, 0), span(2, 10, Markup, 1), span(10, 20, Text, 0)]);
        let events = s.take();
        crate::spans::check_conservation(input, &events, s.spans(), false).unwrap();
    }

    /// Validation is the step after `tool-call-end`: its diagnostics come before the end event.
    #[test]
    fn validation_diagnostics_precede_the_end() {
        let tools = Tools::from_json_with(&crate::json::json!([{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "required": ["a"]}}}]), Default::default()).unwrap();
        let mut s = Sink::new(Limits::default(), Some(tools), "call_".into(), IdStyle::Prefixed);
        s.start_call("f", None);
        s.args("{}");
        s.end_call();
        let ev = s.take();
        assert!(matches!(&ev[2], Event::Diagnostic { label: Label::MissingRequired, index: Some(0), .. }), "{ev:?}");
        assert!(matches!(&ev[3], Event::ToolCallEnd { .. }));
    }
}
