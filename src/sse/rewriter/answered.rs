//! The answered path of `SseRewriter` (`push_answered`): events the quiet-run hint admits
//! (`SseQuiet`) are answered from its bytes without reading them as SSE or JSON, and events
//! that repeat the last event's bytes but for its text (`Shape`) are read by comparing those
//! bytes. The output is `push`'s, byte for byte, but that a quiet run of argument or reasoning
//! deltas within one chunk is one event, the texts joined (tests/sse.rs compares the two on
//! every recorded stream once such runs are merged: `toolwire::testing::merged_deltas`).

use crate::prelude::*;
use super::*;

/// At most this many bytes of answered texts wait for the parser (then a chunk goes the
/// plain way).
const QUIET_TEXTS_MAX: usize = 1 << 16;
/// A texts buffer larger than this is not kept after use.
const QUIET_TEXTS_KEEP: usize = 1 << 12;

/// What `SseRewriter::push_answered` did with a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The output is the chunk itself; nothing was appended.
    Verbatim,
    /// The output was appended.
    Written,
}

/// The SSE form of the quiet-run hint (`crate::quiet`): after a push that ended with a
/// one-choice chat event whose text went to the parser (its `Shape`), with the parser quiet,
/// the next upstream events that are the same bytes but for their text (`input_prefix` + text +
/// `input_suffix`; the text a JSON string body whose escapes are ASCII ones (`unescape_ascii`)
/// and whose decoded bytes are ASCII outside `stop` but for the simple escapes the parser's set
/// admits (`Stop::ESCAPES`: a code argument's `\\n`, which may be cut between two texts) and
/// the non-ASCII characters it admits (`utf8`), at most `budget` decoded bytes in all) would
/// each come out as the template's `prefix` + text + its suffix (the text re-escaped as
/// `push_json_string` writes it, the `\\` of an escape cut after a text written before the
/// next text, where the parser sends it; the same event when `verbatim`), the decoded text
/// going to choice `slot`'s parser and nothing else changing. `push_answered` answers such
/// events from these bytes and hands their texts to the parser before the next input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseQuiet {
    slot: usize,
    /// The shape's template the texts are written into (`None`: verbatim).
    template: Option<usize>,
    pub stop: crate::quiet::Stop,
    pub budget: usize,
    /// The parser's set admits simple escapes in the decoded text (`Stop::ESCAPES`; `stop`
    /// holds DEL either way).
    escapes: bool,
    /// The parser admits non-ASCII characters (`Quiet::utf8`): raw ones in the event's text
    /// are quiet too (a `\\u` escape of one is not).
    utf8: bool,
    /// The parser holds the `\\` of an escape (`Quiet::backslash`): the next answered text
    /// starts with a simple-escape character, its output with that `\\` (written `\\\\`);
    /// the texts after it (some wait, `quiet_len`) as the hint says.
    backslash: bool,
}

impl SseQuiet {
    /// The texts come out as the events came (no template).
    pub fn verbatim(&self) -> bool {
        self.template.is_none()
    }
}

/// The last event of a push, when it was a one-choice chat event of one `data` line whose
/// string `content` went to the choice's parser (no finish): the next events
/// that are the same bytes but for their content's string (`input_prefix` + string body +
/// `input_suffix`) are read without the SSE decoder and the JSON reader, their texts fed to
/// the parser (`answer_shape`), and the output parts of one kind written from a template.
pub(super) struct Shape {
    slot: usize,
    /// The event (`data: ` + data + `\n\n`, its first `event_len` bytes), then its
    /// `input_prefix` again: `event[suffix_at..]` is what comes between two texts of
    /// consecutive such events (`input_joint`).
    event: String,
    event_len: usize,
    /// `event[..prefix_len]` ends with the content's opening quote; `event[suffix_at..]`
    /// starts with its closing quote.
    prefix_len: usize,
    suffix_at: usize,
    /// The delta holds nothing but its content.
    base_empty: bool,
    /// Where the delta's `{` is when an output event of one part is the event with only its
    /// delta changed (`write_plain`): the delta holds only the content, the choice's
    /// `finish_reason`, `stop_reason` and `logprobs` are null or absent (as `write_choice`
    /// writes them after the first part and without a finish).
    plain_at: Option<usize>,
    /// The chunk has `usage` (which only the last output event of several keeps).
    usage: bool,
    /// Output templates, made when first needed.
    templates: Vec<Template>,
}

impl Shape {
    fn input_prefix(&self) -> &[u8] {
        &self.event.as_bytes()[..self.prefix_len]
    }

    fn input_suffix(&self) -> &[u8] {
        &self.event.as_bytes()[self.suffix_at..self.event_len]
    }

    /// `input_suffix` + `input_prefix`: the bytes between the texts of two such events.
    fn input_joint(&self) -> &[u8] {
        &self.event.as_bytes()[self.suffix_at..]
    }

    /// The event's data (without `data: ` and the blank line).
    fn data(&self) -> &str {
        &self.event[6..self.event_len - 2]
    }
}

/// The kind of an output part written from a template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PartKind {
    Content,
    Reasoning,
    Args(usize),
}

/// Templates a shape keeps.
const MAX_TEMPLATES: usize = 4;

/// One event's output with its part's text left out: `prefix` + the text escaped + `suffix`.
/// A quiet run's texts within one chunk go out in one such event (`answer_quiet`).
struct Template {
    kind: PartKind,
    prefix: String,
    suffix: String,
}

/// Stands for a quiet text while the output template is written (escaped as `\u0001`).
const SENTINEL: &str = "\u{1}";
const SENTINEL_ESCAPED: &str = "\\u0001";

impl SseRewriter {
    /// The quiet-run hint for the next upstream bytes (see [`SseQuiet`]).
    pub fn quiet_hint(&self) -> Option<&SseQuiet> {
        self.hint.as_ref()
    }

    /// Like `push`, but the events of a chunk that the quiet-run hint admits (see
    /// [`SseQuiet`]) are answered from the hint's bytes without reading them as SSE or JSON,
    /// whole events at a time, a run of argument or reasoning deltas as one event (the output is
    /// `push`'s once such runs are merged); an event it does not admit goes the plain way (and
    /// the hint after it answers the next ones). `Verbatim` when every event of the chunk was
    /// answered and comes out as it came (then nothing is appended: the output is `bytes`).
    /// Answered texts wait (at most 64 KiB) and go to the choice's parser before any later
    /// input, so it still reads every byte.
    pub fn push_answered(&mut self, bytes: &[u8], out: &mut Vec<u8>) -> Answer {
        let start = out.len();
        let (answer, end) = self.push_answered_at(bytes, out, start);
        out.truncate(end);
        answer
    }

    /// `push_answered` into a reused buffer: the output is written at the start of `out`,
    /// whose bytes (any length) are scratch, and is `out[..n]` for the returned `n` (`out`
    /// may stay longer: its zeroed room is not written again for the next chunk). `n` is 0
    /// for `Verbatim`.
    pub fn push_answered_over(&mut self, bytes: &[u8], out: &mut Vec<u8>) -> (Answer, usize) {
        self.push_answered_at(bytes, out, 0)
    }

    /// `push_answered` with the output written into `out` from `start` (bytes there and after
    /// are scratch); returns where it ends (`start` for `Verbatim`).
    fn push_answered_at(&mut self, bytes: &[u8], out: &mut Vec<u8>, start: usize) -> (Answer, usize) {
        let mut at = 0;
        let mut o = start;
        let mut answered = false;
        while at < bytes.len() {
            let rest = &bytes[at..];
            if let Some((used, end)) = self.answer_quiet(rest, out, o) {
                answered = true;
                if self.hint.as_ref().is_some_and(SseQuiet::verbatim) {
                    if used == bytes.len() {
                        self.quiet_chunks += 1;
                        return (Answer::Verbatim, start);
                    }
                    grow_zeroed(out, o + used);
                    o = put(out, o, &rest[..used]).unwrap_or(o);
                } else {
                    o = end;
                }
                at += used;
                continue;
            }
            // The next event the plain way: the hint after it (there is one again once the
            // parser is past a marker or a call's opening) answers the ones after it.
            let n = event_len(rest);
            out.truncate(o);
            if self.answer_shape(rest, n, out).is_none() {
                self.push(&rest[..n], out);
            }
            o = out.len();
            at += n;
        }
        self.quiet_chunks += answered as usize;
        (Answer::Written, o)
    }

    /// The quiet answer for the longest run of whole events at the start of `bytes` that the
    /// hint admits (see `push_answered`), written into `out` from `start` unless the hint is
    /// verbatim (bytes there and after are overwritten; `out` grows, zeroed, when it is too
    /// short): how many bytes of `bytes` it answered and where the output ends, or `None` when
    /// the first event is not admitted, with nothing changed but `out` from `start`. Written
    /// for the size-optimised wasm build, where every `Vec::push` is a call and a
    /// `memory.copy` costs more than a short byte loop: the texts and the output are written
    /// by index into zeroed room kept between chunks, short texts a byte at a time. With a
    /// template the run's texts go out as ONE event (the template's prefix, the texts, its
    /// suffix): the same deltas merged, as one network chunk brought them. Per event the
    /// input is compared once: its text's run of plain bytes (copied as they are), the rare
    /// bytes one at a time, then what follows the text (`input_joint` up to the next text, or
    /// `input_suffix` for the last event).
    fn answer_quiet(&mut self, bytes: &[u8], out: &mut Vec<u8>, start: usize) -> Option<(usize, usize)> {
        let h = self.hint.as_ref()?;
        let env = self.shape.as_ref()?;
        let (ip, is, joint_in) = (env.input_prefix(), env.input_suffix(), env.input_joint());
        if !same_bytes(bytes, ip) {
            return None;
        }
        // The output template (`None`: verbatim).
        let tpl = match h.template {
            Some(i) => Some(env.templates.get(i)?),
            None => None,
        };
        let verbatim = tpl.is_none();
        let texts = &mut self.quiet_texts;
        let texts_len = self.quiet_len;
        let room = h.budget.min(QUIET_TEXTS_MAX).checked_sub(texts_len)?;
        let stop = h.stop;
        // The bytes not copied as they are: the stop bytes (from 0x80 too) and those a JSON
        // string escapes.
        let special = crate::quiet::Stop(stop.0 | crate::quiet::Stop::JSON_STRING.0);
        // Room for the texts (part of `bytes`, at most `room`).
        // (The texts pile up from chunk to chunk: grown by twice what a chunk needs, so not
        // every chunk.)
        let need = bytes.len().min(room);
        if texts.len() < texts_len + need {
            grow_zeroed(texts, texts_len + 2 * need);
        }
        let mut t = texts_len;
        let mut o = start;
        if let Some(tpl) = tpl {
            // (A text's output is at most its input: the shortest escapes.)
            let need = start + tpl.prefix.len() + bytes.len() + tpl.suffix.len();
            if out.len() < need {
                grow_zeroed(out, need);
            }
            o = put(out, o, tpl.prefix.as_bytes())?;
        }
        // Where the event's text starts in `bytes`.
        let mut at = ip.len();
        // The events answered so far: where they end in `bytes`, in `texts` and in `out`, and
        // whether their texts end inside an escape.
        // A decoded `\\` opened a simple escape of the parser's string (`h.escapes`) that the
        // next byte closes, in this text or the next one; the parser holds it before the first
        // text answered since the hint when `h.backslash`.
        let mut done = (0, t, o, if texts_len == 0 { h.backslash } else { self.quiet_escape });
        loop {
            // The usual events (plain texts, each followed by the next event) in a loop
            // of their own; the event after them the general way below.
            if !done.3 {
                let outs = (!verbatim).then_some(&mut out[..]);
                let (a, ta, oa, last) = short_events(bytes, at, (joint_in, is), special, texts, t, texts_len + room, outs, o);
                if last {
                    done = (a, ta, oa, false);
                    break;
                }
                if a > at {
                    done = (a - ip.len(), ta, oa, false);
                    (at, t, o) = (a, ta, oa);
                }
            }
            let Some(body) = bytes.get(at..) else { break };
            // The text up to its closing quote, escapes decoded into `texts` (and, unless
            // verbatim, written to `out` as `push_json_string` writes them; the `\\` of an
            // escape with the byte after it, as the parser sends it).
            let mut len = 0;
            let mut escape = done.3;
            // Any decoded byte from 0x80 (then the text is checked to be UTF-8 as a whole).
            let mut high = 0;
            let fits = loop {
                // The run of plain bytes (the same in the input, the texts and the output), a
                // word at a time while eight bytes are there to read and write (the bytes
                // past the run are scratch); the rest a byte at a time below.
                if !escape {
                    loop {
                        let Some(&w) = body.get(len..).and_then(<[u8]>::first_chunk::<8>) else { break };
                        let Some(wt) = texts.get_mut(t..).and_then(<[u8]>::first_chunk_mut::<8>) else { break };
                        *wt = w;
                        if !verbatim {
                            let Some(wo) = out.get_mut(o..).and_then(<[u8]>::first_chunk_mut::<8>) else { break };
                            *wo = w;
                        }
                        let k = plain_run(u64::from_le_bytes(w), special);
                        t += k;
                        o += if verbatim { 0 } else { k };
                        len += k;
                        if k < 8 {
                            break;
                        }
                    }
                }
                // (The text does not fit when its plain bytes alone do not.)
                if t - texts_len > room {
                    break false;
                }
                let Some(&b) = body.get(len) else { break false };
                let (d, n) = match b {
                    // A text may end inside an escape when it sends something before it (an
                    // event whose arguments would be empty goes the plain way).
                    b'"' => break !escape || !verbatim && t - done.1 > 1,
                    b'\\' => match unescape_ascii(&body[len..]) {
                        Some(e) => e,
                        None => break false,
                    },
                    _ => (b, 1),
                };
                // A raw control character is no JSON; `stop.has` holds every byte from 0x80
                // (raw UTF-8 of whole characters: the data is text and `"`, `\\` are ASCII).
                if b < 0x20 || t - texts_len >= room {
                    break false;
                }
                if escape {
                    if !crate::quiet::is_simple_escape(d) {
                        break false;
                    }
                    escape = false;
                    if !verbatim {
                        o = match put(out, o, b"\\\\") {
                            Some(w) => w,
                            None => break false,
                        };
                    }
                } else if stop.has(d) {
                    if d == b'\\' && h.escapes {
                        escape = true;
                    } else if d < 0x80 || !h.utf8 {
                        break false;
                    }
                }
                match texts.get_mut(t) {
                    Some(slot) => *slot = d,
                    None => break false,
                }
                high |= d;
                t += 1;
                len += n;
                if !verbatim && !escape {
                    let w = if crate::json::needs_escape(d) {
                        let (e, k) = crate::json::escape_of(d);
                        put(out, o, &e[..k])
                    } else {
                        out.get_mut(o).map(|slot| {
                            *slot = d;
                            o + 1
                        })
                    };
                    o = match w {
                        Some(w) => w,
                        None => break false,
                    };
                }
            };
            // Raw non-ASCII bytes are whole characters only in valid UTF-8 (the plain path reads
            // any other event its own way).
            if !fits || high >= 0x80 && core::str::from_utf8(&texts[done.1..t]).is_err() {
                break;
            }
            // After the text: the next event's text (`input_joint`), or the event's end.
            let tail = &body[len..];
            let next = same_bytes(tail, joint_in);
            if !next && !same_bytes(tail, is) {
                break;
            }
            let end_at = at + len + is.len();
            // (With a template, the run's texts go on in one string: the suffix comes once, after the last.)
            done = (end_at, t, o, escape);
            if !next {
                break;
            }
            at = end_at + ip.len();
        }
        let (used, t, mut end, escape) = done;
        if used == 0 {
            return None;
        }
        if let Some(tpl) = tpl {
            end = put(out, end, tpl.suffix.as_bytes())?;
        }
        self.quiet_len = t;
        self.quiet_escape = escape;
        Some((used, end))
    }

    /// Hands the texts of answered events to the hinted choice's parser (their events left
    /// out: the answers were them).
    pub(super) fn flush_quiet(&mut self) {
        if self.quiet_len == 0 {
            return;
        }
        let slot = self.hint.as_ref().map(|h| h.slot);
        if let Some(p) = slot.and_then(|s| self.choices.get_mut(s)).and_then(|c| c.parser.as_mut()) {
            let mut events = 0;
            // Whole decoded texts (see `quiet_texts`): valid UTF-8.
            let texts = core::str::from_utf8(&self.quiet_texts[..self.quiet_len]).unwrap_or_default();
            debug_assert!(texts.len() == self.quiet_len, "quiet SSE texts not UTF-8");
            // An arguments run is taken without being scanned again (the hint vouched for its
            // bytes); else the parser holds a `\\` the texts end with (`quiet_escape`): no
            // event has it yet.
            if !p.take_quiet_args(texts) {
                p.push_after_quiet_with(texts, texts.len() - usize::from(self.quiet_escape), |_| events += 1);
            }
            debug_assert!(events == 0, "quiet SSE texts gave {events} events");
        } else {
            debug_assert!(false, "quiet SSE texts without a hint");
        }
        self.hint = None;
        if self.quiet_texts.capacity() > QUIET_TEXTS_KEEP {
            self.quiet_texts = Vec::new();
        }
        self.quiet_len = 0;
        self.quiet_escape = false;
    }

    /// How many chunks `push_answered` answered from the quiet-run hint (tests check that the
    /// path is taken).
    pub fn quiet_chunks(&self) -> usize {
        self.quiet_chunks
    }

    /// How many events `push_answered` read as the last event's shape (see `Shape`; tests
    /// check that the path is taken).
    pub fn shape_events(&self) -> usize {
        self.shape_events
    }

    /// The shape of a fast-path event (see `Shape`), when it has one: a string text went
    /// to the choice's parser (no finish; `rewrite` reads the next texts as the cumulative
    /// detection says), the event is its one `data` line.
    pub(super) fn shape_of(&self, c: &fast::ChatChunk, ev: &SseEvent, slot: usize, text: Option<&str>, finish: Option<&str>) -> Option<Shape> {
        let (Some(_), None, Some(data)) = (text.filter(|t| !t.is_empty()), finish, ev.one_data_line()) else { return None };
        let raw = fast::get(&c.delta, "content")?;
        let start = (raw.as_ptr() as usize).checked_sub(data.as_ptr() as usize)?;
        let st = &self.choices[slot];
        if st.finished || st.parser.is_none() {
            return None;
        }
        let prefix_len = 6 + start + 1;
        let mut event = String::with_capacity(ev.raw.len() + 1 + prefix_len);
        event.push_str(&ev.raw);
        event.push('\n');
        let event_len = event.len();
        event.push_str(ev.raw.get(..prefix_len)?);
        let suffix_at = 6 + start + raw.len() - 1;
        let nulls = ["finish_reason", "stop_reason", "logprobs"];
        let base_empty = c.delta.len() == 1;
        let mut plain = base_empty && event.as_bytes().get(suffix_at + 1) == Some(&b'}');
        for key in nulls {
            plain &= fast::get(&c.choice, key).is_none_or(|v| v == "null");
        }
        let delta_at = prefix_len - b"{\"content\":\"".len();
        let plain_at = (plain && event.get(delta_at..prefix_len) == Some("{\"content\":\"")).then_some(delta_at);
        let usage = fast::get(&c.chunk, "usage").is_some();
        Some(Shape { slot, event, event_len, prefix_len, suffix_at, base_empty, plain_at, usage, templates: Vec::new() })
    }

    /// The quiet-run hint (see `SseQuiet`) when choice `slot`'s parser is quiet after the
    /// shape's event (texts as they come, or written from the template of their kind).
    pub(super) fn hint_for(&mut self, slot: usize) -> Option<SseQuiet> {
        if self.shape.as_ref()?.slot != slot {
            return None;
        }
        let st = &self.choices[slot];
        if !matches!(st.detection, CumulativeDetection::Delta) || st.finished {
            return None;
        }
        let q = st.parser.as_ref()?.quiet()?;
        let kind = match q.kind {
            crate::QuietKind::Text => None,
            crate::QuietKind::Reasoning => Some(PartKind::Reasoning),
            crate::QuietKind::Args(i) => Some(PartKind::Args(st.wire.wire_of(i))),
        };
        let template = match kind {
            Some(kind) => Some(self.template(kind)?),
            None => None,
        };
        // The parser's stop bytes (and DEL) end a run in the decoded text (`answer_quiet`).
        Some(SseQuiet { slot, template, stop: q.stop.or(crate::quiet::Stop(1 << 127)), budget: q.budget, escapes: q.stop.escapes(), utf8: q.utf8, backslash: q.backslash })
    }

    /// The shape's output template for a part of `kind` (made once: the event's output
    /// for that part with `SENTINEL` for its text, by `write_plain` when the shape allows, else
    /// `write_fast`), or `None` when the part would not come out as one event with its text in
    /// one place.
    fn template(&mut self, kind: PartKind) -> Option<usize> {
        let env = self.shape.as_ref()?;
        if let Some(i) = env.templates.iter().position(|t| t.kind == kind) {
            return Some(i);
        }
        let part = match kind {
            PartKind::Content => Part::Content(SENTINEL.into()),
            PartKind::Reasoning => Part::Reasoning(SENTINEL.into()),
            PartKind::Args(wire) => Part::Args { wire, text: SENTINEL.into() },
        };
        let mut t = Vec::new();
        match env.plain_at {
            // The event with its delta changed, without reading it again.
            Some(at) => write_plain(env, at, core::slice::from_ref(&part), &mut t),
            None => {
                let c = fast::read(env.data(), &mut self.prefix)?;
                self.write_fast(&c, "", true, vec![part], None, Vec::new(), &mut t);
            }
        }
        let t = String::from_utf8(t).ok()?;
        let at = crate::text::find(&t, SENTINEL_ESCAPED)?;
        if crate::text::find(&t[at + 1..], SENTINEL_ESCAPED).is_some() {
            return None;
        }
        let (prefix, suffix) = (&t[..at], &t[at + SENTINEL_ESCAPED.len()..]);
        let template = Template { kind, prefix: prefix.to_string(), suffix: suffix.to_string() };
        let env = self.shape.as_mut()?;
        // A few kinds at a time (one per call of a long stream would pile up): the hint that
        // holds an index is worked out anew after this.
        if env.templates.len() >= MAX_TEMPLATES {
            env.templates.clear();
        }
        env.templates.push(template);
        Some(env.templates.len() - 1)
    }

    /// The event at the start of `bytes` (`n` bytes, its blank line included) when it is the
    /// shape's event but for its content's string: the string decoded and fed to the parser,
    /// the output written at `out`'s end as the plain path writes it (the event as it came, a
    /// part of one kind from its template, or the parts in full), and the hint worked out
    /// anew. `None`, with nothing changed, when the event is not such a one.
    fn answer_shape(&mut self, bytes: &[u8], n: usize, out: &mut Vec<u8>) -> Option<()> {
        let env = self.shape.as_ref()?;
        let (ip, is) = (env.input_prefix(), env.input_suffix());
        let event = bytes.get(..n)?;
        let end = n.checked_sub(is.len())?;
        // (Few events come this way: the comparisons are calls, not inlined loops.)
        if end < ip.len() || !same_bytes(event, ip) || !same_bytes(&event[end..], is) {
            return None;
        }
        // The string as the fast path reads it (escapes valid, no raw control character),
        // ending where the suffix starts.
        if fast::string(event, ip.len() - 1, true)? != end + 1 {
            return None;
        }
        let body = core::str::from_utf8(&event[ip.len()..end]).ok()?;
        let text = crate::json::unescaped(body)?;
        let (slot, base_empty) = (env.slot, env.base_empty);
        self.flush_quiet();
        let index = self.choices[slot].index;
        let mut outs = Vec::new();
        let (parts, finish_out, same) = self.rewrite(slot, index, Some(&text), None, &mut outs);
        self.fast_events += 1;
        self.shape_events += 1;
        let kind = match parts.as_slice() {
            [Part::Content(t)] => Some((PartKind::Content, t)),
            [Part::Reasoning(t)] => Some((PartKind::Reasoning, t)),
            [Part::Args { wire, text }] => Some((PartKind::Args(*wire), text)),
            _ => None,
        };
        if same {
            out.extend_from_slice(event);
        } else if parts.is_empty() && outs.is_empty() && base_empty && finish_out.is_none() {
            // Nothing to send (the parser holds the text).
        } else if let (Some((kind, t)), true, None) = (kind, outs.is_empty(), &finish_out) {
            match self.template(kind) {
                Some(i) => {
                    let tpl = &self.shape.as_ref()?.templates[i];
                    let mut s = String::with_capacity(t.len() + 8);
                    crate::json::push_json_string(&mut s, t);
                    out.extend_from_slice(tpl.prefix.as_bytes());
                    out.extend_from_slice(&s.as_bytes()[1..s.len() - 1]);
                    out.extend_from_slice(tpl.suffix.as_bytes());
                }
                None => self.write_shape(parts, finish_out, outs, out),
            }
        } else {
            self.write_shape(parts, finish_out, outs, out);
        }
        self.hint = self.hint_for(slot);
        Some(())
    }

    /// Writes a shape event's parts in full (`write_plain` when the shape allows, else
    /// `write_fast` on the shape's fields).
    fn write_shape(&mut self, parts: Vec<Part>, finish_out: Option<String>, outs: Vec<Out>, out: &mut Vec<u8>) {
        let Some(env) = self.shape.as_ref() else { return };
        // (`usage` goes only with the last of several events.)
        if let (Some(at), None, true, true) = (env.plain_at, &finish_out, outs.is_empty(), !env.usage || parts.len() < 2) {
            return write_plain(env, at, &parts, out);
        }
        // The shape's data was read by the fast path before: the same bytes read the same.
        let c = fast::read(env.data(), &mut self.prefix);
        debug_assert!(c.is_some(), "a shape's data not read again");
        if let Some(c) = c {
            self.write_fast(&c, "", true, parts, finish_out, outs, out);
        }
    }
}

/// Writes `parts` as `emit` and `write_outs` write them for a shape whose `plain_at` is
/// `at` (no finish, no other output): each part but a comment is the shape's event with its
/// delta `{…}` holding only the part's field; comments as they are.
#[inline(never)]
fn write_plain(env: &Shape, at: usize, parts: &[Part], out: &mut Vec<u8>) {
    let ev = env.event.as_bytes();
    let mut v = String::new();
    for part in parts {
        if let Part::Comment(c) = part {
            out.extend_from_slice(c.as_bytes());
            continue;
        }
        v.clear();
        let (key, _) = part_value(part, &mut v);
        out.extend_from_slice(&ev[..at + 1]);
        out.push(b'"');
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\":");
        out.extend_from_slice(v.as_bytes());
        out.extend_from_slice(&ev[env.suffix_at + 1..env.event_len]);
    }
}

/// The length of the first event of `bytes` up to its first blank line (`\n\n` included),
/// or all of `bytes`: line ends found eight bytes at a time (`windows(2)` was a byte loop of
/// calls in the size-optimised wasm build, about 1,000 instructions an event).
fn event_len(bytes: &[u8]) -> usize {
    let mut at = 0;
    loop {
        at = crate::text::scan_until(bytes, at, crate::text::Stops::byte(b'\n'));
        match bytes.get(at + 1) {
            None => return bytes.len(),
            Some(b'\n') => return at + 2,
            Some(_) => at += 1,
        }
    }
}

/// Answers the usual events of a quiet run from `at` (where an event's text starts in
/// `bytes`) on: a text of plain bytes (`plain_run` with `special`; eight or more in
/// `long_text`) then its closing quote and `ends.0` (the input between two texts,
/// `input_joint`) or, for the run's last event, `ends.1` (`input_suffix`). Each text is
/// written a word at a time into `texts` at `t` (the text ending by `t_max`) and, with
/// `out`, into it at `o` (the run's texts go
/// out in one string; the bytes past a text are scratch). Returns where the first event it
/// did not answer starts (its text), where the texts and the output end, and whether the
/// run ended with a last event (then the first place is the end of that event). (A loop of
/// its own with few live values: the general path's loop keeps most values on the wasm
/// engine's stack.)
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn short_events(bytes: &[u8], mut at: usize, ends: (&[u8], &[u8]), special: crate::quiet::Stop, texts: &mut [u8], mut t: usize, t_max: usize, mut out: Option<&mut [u8]>, mut o: usize) -> (usize, usize, usize, bool) {
    while let Some(&w) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let word = u64::from_le_bytes(w);
        let mut k = plain_run(word, special);
        if k < 8 && (word >> (8 * k)) as u8 != b'"' {
            break;
        }
        let Some(wt) = texts.get_mut(t..).and_then(<[u8]>::first_chunk_mut::<8>) else { break };
        *wt = w;
        if let Some(out) = &mut out {
            let Some(wo) = out.get_mut(o..).and_then(<[u8]>::first_chunk_mut::<8>) else { break };
            *wo = w;
        }
        if k == 8 {
            let Some(n) = long_text(bytes, at, special, texts, t, out.as_deref_mut(), o) else { break };
            k = n;
        }
        if t + k > t_max {
            break;
        }
        let Some(tail) = bytes.get(at + k..) else { break };
        let next = starts_with(tail, ends.0);
        if !next && !same_bytes(tail, ends.1) {
            break;
        }
        t += k;
        o += if out.is_some() { k } else { 0 };
        if !next {
            return (at + k + ends.1.len(), t, o, true);
        }
        at += k + ends.0.len();
    }
    (at, t, o, false)
}

/// `short_events`' text of eight plain bytes or more (its first word written): the rest a
/// word at a time into `texts` and `out` as there; the text's length when its plain bytes
/// end with its quote, `None` for any other text or without room for the words.
#[inline(never)]
fn long_text(bytes: &[u8], at: usize, special: crate::quiet::Stop, texts: &mut [u8], t: usize, mut out: Option<&mut [u8]>, o: usize) -> Option<usize> {
    let mut k = 8;
    loop {
        let w = *bytes.get(at + k..)?.first_chunk::<8>()?;
        *texts.get_mut(t + k..)?.first_chunk_mut::<8>()? = w;
        if let Some(out) = &mut out {
            *out.get_mut(o + k..)?.first_chunk_mut::<8>()? = w;
        }
        let word = u64::from_le_bytes(w);
        let n = plain_run(word, special);
        k += n;
        if n < 8 {
            return ((word >> (8 * n)) as u8 == b'"').then_some(k);
        }
    }
}

/// True when `bytes` starts with `prefix`: sixty-four bytes a step, the differences or-ed
/// together and tested once at the end (the envelopes compared are about 200 bytes and
/// almost always equal: no early exit), then the sixteen-byte pieces left and the last
/// sixteen bytes (overlapping; a `prefix` shorter than sixteen bytes as a slice). Sixteen
/// bytes are one `v128` in the wasm build (SIMD), a `u128` elsewhere (`Diff`). In the
/// size-optimised wasm build `starts_with` and iterator adapters are calls and byte loops;
/// the steps are `as_chunks` arrays: no bounds checks.
#[inline(never)]
fn same_bytes(bytes: &[u8], prefix: &[u8]) -> bool {
    starts_with(bytes, prefix)
}

/// `same_bytes` inlined (`short_events`' compare, one per event).
#[inline(always)]
fn starts_with(bytes: &[u8], prefix: &[u8]) -> bool {
    let Some(b) = bytes.get(..prefix.len()) else { return false };
    let (Some(last_p), Some(last_b)) = (last16(prefix), last16(b)) else { return same_short(b, prefix) };
    let (p16, _) = prefix.as_chunks::<16>();
    let (b16, _) = b.as_chunks::<16>();
    let (p64, p_rest) = p16.as_chunks::<4>();
    let (b64, b_rest) = b16.as_chunks::<4>();
    let mut diff = xor16(last_p, last_b);
    let mut i = 0;
    while i < p64.len().min(b64.len()) {
        let (x, y) = (&p64[i], &b64[i]);
        diff = or16(diff, or16(or16(xor16(&x[0], &y[0]), xor16(&x[1], &y[1])), or16(xor16(&x[2], &y[2]), xor16(&x[3], &y[3]))));
        i += 1;
    }
    let mut i = 0;
    while i < p_rest.len().min(b_rest.len()) {
        diff = or16(diff, xor16(&p_rest[i], &b_rest[i]));
        i += 1;
    }
    is_zero16(diff)
}

/// The last sixteen bytes of `s`, when it has as many (`last_chunk` is a call in the
/// size-optimised build).
#[inline(always)]
fn last16(s: &[u8]) -> Option<&[u8; 16]> {
    s.get(s.len().wrapping_sub(16)..).and_then(<[u8]>::first_chunk::<16>)
}

/// `same_bytes`' slice comparison of equally long `a` and `b` (out of line: it would give
/// `same_bytes` a stack frame).
#[inline(never)]
fn same_short(a: &[u8], b: &[u8]) -> bool {
    a == b
}

/// Sixteen bytes compared as one value: `v128` with wasm SIMD, else `u128`.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod w16 {
    use core::arch::wasm32::{v128, v128_any_true, v128_load, v128_or, v128_xor};
    pub type Diff = v128;
    #[inline(always)]
    fn load(w: &[u8; 16]) -> v128 {
        // SAFETY: `w` is sixteen readable bytes; `v128_load` has no alignment requirement.
        unsafe { v128_load(w.as_ptr().cast()) }
    }
    #[inline(always)]
    pub fn xor16(a: &[u8; 16], b: &[u8; 16]) -> Diff {
        v128_xor(load(a), load(b))
    }
    #[inline(always)]
    pub fn or16(a: Diff, b: Diff) -> Diff {
        v128_or(a, b)
    }
    #[inline(always)]
    pub fn is_zero16(a: Diff) -> bool {
        !v128_any_true(a)
    }
}
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod w16 {
    pub type Diff = u128;
    #[inline(always)]
    pub fn xor16(a: &[u8; 16], b: &[u8; 16]) -> Diff {
        u128::from_ne_bytes(*a) ^ u128::from_ne_bytes(*b)
    }
    #[inline(always)]
    pub fn or16(a: Diff, b: Diff) -> Diff {
        a | b
    }
    #[inline(always)]
    pub fn is_zero16(a: Diff) -> bool {
        a == 0
    }
}
use w16::{is_zero16, or16, xor16};

/// How many bytes at the start of the word `w` (eight bytes, the first in the low byte) are
/// plain: outside `special`, which holds `Stop::JSON_STRING`, DEL and (as `Stop::has` has it)
/// every byte from 0x80. Those bytes found for the word at once; others of `special` a byte
/// at a time before the first of them.
#[inline(always)]
fn plain_run(w: u64, special: crate::quiet::Stop) -> usize {
    const ONES: u64 = u64::MAX / 255;
    // From 0x7f: DEL and the bytes from 0x80 (a carry only goes past a flagged byte).
    let flags = crate::text::Stops::ESCAPE.word_flags(w) | (w | w.wrapping_add(ONES)) & (ONES << 7);
    let first = (flags.trailing_zeros() / 8) as usize;
    // The bytes of `special` between the space and `~` (a marker's first byte).
    if special.0 & !(crate::quiet::Stop::JSON_STRING.0 | crate::quiet::Stop::ESCAPES.0) == 0 {
        return first;
    }
    let mut i = 0;
    while i < first && !special.has((w >> (8 * i)) as u8) {
        i += 1;
    }
    i
}

/// Zeros for `grow_zeroed`.
static ZEROS: [u8; 1024] = [0; 1024];

/// Makes `v` at least `len` long, appending zero bytes: whole copies of `ZEROS` (in the
/// size-optimised wasm build `Vec::resize` writes a byte at a time).
fn grow_zeroed(v: &mut Vec<u8>, len: usize) {
    let mut n = len.saturating_sub(v.len());
    v.reserve(n);
    while n > 0 {
        let k = n.min(ZEROS.len());
        v.extend_from_slice(&ZEROS[..k]);
        n -= k;
    }
}

/// Writes `src` into `v` at `at` (within its length); returns where it ends, `None` when it
/// does not fit. (The texts' plain runs are written a word at a time in `answer_quiet`: what
/// comes here is the template's parts and the rare escapes.)
fn put(v: &mut [u8], at: usize, src: &[u8]) -> Option<usize> {
    let end = at.checked_add(src.len())?;
    v.get_mut(at..end)?.copy_from_slice(src);
    Some(end)
}

/// The JSON escape at the start of `raw` (`\\` then `"`, `\\`, `/`, `b`, `f`, `n`, `r`, `t`,
/// or `u` and four hex digits below 0x80) as its ASCII byte and its length; `None` for any
/// other escape (a non-ASCII `\\u`, a bad one).
fn unescape_ascii(raw: &[u8]) -> Option<(u8, usize)> {
    let e = *raw.get(1)?;
    if e == b'u' {
        let v = fast::hex4(raw, 2)?;
        return (v < 0x80).then_some((v as u8, 6));
    }
    Some((crate::json::simple_escape_value(e)?, 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_run_is_the_bytes_before_the_first_special_one() {
        use crate::quiet::Stop;
        let sets = [Stop::JSON_STRING.or(Stop::ESCAPES), Stop::JSON_STRING.or(Stop::ESCAPES).or(Stop(1 << b'<')), Stop(u128::MAX)];
        let bytes: Vec<u8> = (0..=255u8).collect();
        for special in sets {
            for b in 0..=255u8 {
                for at in 0..8 {
                    let mut w = *b"abcdefgh";
                    w[at] = b;
                    let expect = w.iter().position(|&c| special.has(c)).unwrap_or(8);
                    assert_eq!(plain_run(u64::from_le_bytes(w), special), expect, "byte {b:#x} at {at}");
                }
            }
            // Every byte after a special one (a carry past a flagged byte).
            for w in bytes.windows(8) {
                let expect = w.iter().position(|&c| special.has(c)).unwrap_or(8);
                assert_eq!(plain_run(u64::from_le_bytes(w.try_into().unwrap()), special), expect, "{w:?}");
            }
        }
    }

    #[test]
    fn same_bytes_is_starts_with() {
        let prefix: Vec<u8> = (0..300u32).map(|i| (i * 37 % 251) as u8).collect();
        for n in 0..prefix.len() {
            let p = &prefix[..n];
            assert!(same_bytes(&prefix, p), "length {n}");
            assert!(!same_bytes(&prefix[..n.saturating_sub(1)], p) || n == 0, "length {n}: shorter bytes");
            for at in 0..n {
                let mut bytes = prefix.clone();
                bytes[at] ^= 0x20;
                assert!(!same_bytes(&bytes, p), "length {n}: a byte differs at {at}");
            }
        }
    }
}
