//! Reader for `NAME<sep>{json}` payloads (Mistral v11, Kimi K2, DeepSeek V3/V3.1, PLaMo 3).
//!
//! Layout, each part per `NamedJson`: `[TYPE type_sep] [name_open] NAME (name_close | name_stop)
//! [args_open] {json} [args_close]`. The call starts at the arguments' `{` and the JSON is
//! forwarded raw. A name region without a valid name, or a name not followed by an object, is
//! rejected (its bytes become text).

use crate::engine::{Reader, Step};
use crate::event::Label;
use crate::json::scanner::{is_ws, Expect, JsonScanner, Progress};
use crate::scan::{Act, Hit, MarkerSet};
use crate::sink::Sink;
use crate::syntax::NamedJson;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Type,
    NameOpen,
    Name,
    ArgsOpen,
    Args,
    ArgsClose,
    Done,
}

pub struct NamedReader {
    cfg: &'static NamedJson,
    st: St,
    type_set: MarkerSet,
    open_set: MarkerSet,
    name_set: MarkerSet,
    args_open_set: MarkerSet,
    args_close_set: MarkerSet,
    name: String,
    sc: JsonScanner,
    scratch: String,
}

fn set(markers: &[&str]) -> MarkerSet {
    let mut s = MarkerSet::new();
    s.add_all(markers, Act::Other(0));
    s
}

impl NamedReader {
    pub fn new(cfg: &'static NamedJson) -> Self {
        NamedReader {
            cfg,
            st: if cfg.type_sep.is_some() { St::Type } else { St::NameOpen },
            type_set: set(cfg.type_sep.as_slice()),
            open_set: set(cfg.name_open),
            name_set: set(cfg.name_close),
            args_open_set: set(cfg.args_open),
            args_close_set: set(cfg.args_close),
            name: String::new(),
            sc: JsonScanner::repairing(Expect::Object, 1),
            scratch: String::new(),
        }
    }

    /// Splits a Kimi header `functions.NAME:IDX` into (name, id).
    fn kimi(header: &str) -> Option<(String, String)> {
        let header = header.trim();
        let (head, idx) = header.rsplit_once(':')?;
        if idx.is_empty() || !idx.bytes().all(|b| b.is_ascii_digit()) || head.is_empty() {
            return None;
        }
        let name = head.strip_prefix("functions.").unwrap_or(head);
        Some((name.to_string(), header.to_string()))
    }

    fn begin_args(&mut self, sink: &mut Sink) -> bool {
        let (name, id) = if self.cfg.kimi_header {
            match Self::kimi(&self.name) {
                Some(x) => x,
                None => return false,
            }
        } else {
            (self.name.trim().to_string(), String::new())
        };
        if name.is_empty() && !self.cfg.name_close.is_empty() && self.cfg.name_stop.is_empty() {
            return false;
        }
        sink.start_call(&name, if id.is_empty() { None } else { Some(id) });
        self.sc = JsonScanner::repairing(Expect::Object, sink.limits.max_depth);
        true
    }

    /// Skips optional whitespace and an optional marker from `set`. Returns the new position,
    /// or `None` when more input is needed to decide.
    fn skip_optional(set: &MarkerSet, input: &str, i: usize, eof: bool) -> Option<usize> {
        if set.is_empty() {
            return Some(i);
        }
        let b = input.as_bytes();
        let mut j = i;
        while j < b.len() && is_ws(b[j]) {
            j += 1;
        }
        if j - i > 64 {
            // Too much whitespace for framing: the optional marker is absent.
            return Some(i);
        }
        if j == b.len() && !eof {
            return None;
        }
        match set.at_start(&input[j..], eof) {
            Err(()) => None,
            Ok(Some(idx)) => Some(j + set.text(idx).len()),
            Ok(None) => Some(i),
        }
    }
}

impl Reader for NamedReader {
    fn feed(&mut self, input: &str, eof: bool, sink: &mut Sink) -> Step {
        let bytes = input.as_bytes();
        let mut i = 0;
        loop {
            match self.st {
                St::Done => return Step::done(i),
                St::Type => match self.type_set.find(&input[i..], eof) {
                    Hit::Found { at, idx } => {
                        if at > sink.limits.max_name_bytes {
                            return Step::reject(i);
                        }
                        i += at + self.type_set.text(idx).len();
                        self.st = St::NameOpen;
                    }
                    _ if input.len() - i > sink.limits.max_name_bytes || eof => return Step::reject(i),
                    _ => return Step::partial(i),
                },
                St::NameOpen => match Self::skip_optional(&self.open_set, input, i, eof) {
                    Some(j) => {
                        i = j;
                        self.st = St::Name;
                    }
                    None => return Step::partial(i),
                },
                St::Name => {
                    let rest = &input[i..];
                    // The name ends at a closing marker or a stop byte, whichever comes first.
                    let stop = rest.bytes().position(|b| self.cfg.name_stop.contains(&b));
                    let hit = self.name_set.find(rest, eof);
                    let (text_end, next) = match (hit, stop) {
                        (Hit::Found { at, idx }, s) if s.is_none_or(|s| at <= s) => (at, Some(at + self.name_set.text(idx).len())),
                        (Hit::Hold { at }, s) if s.is_none_or(|s| at <= s) => (at, None),
                        (_, Some(s)) => (s, Some(s)),
                        (Hit::Hold { at }, None) => (at, None),
                        (_, None) => (rest.len(), None),
                    };
                    self.name.push_str(&rest[..text_end]);
                    if self.name.len() > sink.limits.max_name_bytes {
                        return Step::reject(i + text_end);
                    }
                    match next {
                        Some(n) => {
                            i += n;
                            self.st = St::ArgsOpen;
                        }
                        None => {
                            if eof {
                                // A name with no arguments at the end of the output.
                                if !self.name.trim().is_empty() {
                                    sink.diag(Label::Truncation, format!("the output ended after tool name `{}`", self.name.trim()), None);
                                }
                                return Step::reject(i + text_end);
                            }
                            return Step::partial(i + text_end);
                        }
                    }
                }
                St::ArgsOpen => {
                    let Some(j) = Self::skip_optional(&self.args_open_set, input, i, eof) else { return Step::partial(i) };
                    let mut k = j;
                    while k < bytes.len() && is_ws(bytes[k]) {
                        k += 1;
                    }
                    if k == bytes.len() {
                        if eof {
                            return Step::reject(k);
                        }
                        return Step::partial(i);
                    }
                    if bytes[k] != b'{' || !self.begin_args(sink) {
                        if bytes[k] != b'{' && !self.name.trim().is_empty() {
                            sink.diag(Label::MalformedJson, format!("tool `{}` is not followed by a JSON object", self.name.trim()), None);
                        }
                        return Step::reject(j);
                    }
                    i = k;
                    self.st = St::Args;
                }
                St::Args => {
                    self.scratch.clear();
                    let (used, r) = self.sc.feed(&input[i..], Some(&mut self.scratch));
                    sink.args(&self.scratch);
                    i += used;
                    match r {
                        Ok(Progress::Done) => {
                            if self.sc.repairs() > 0 {
                                sink.call_diag(Label::EscapingError, "raw control characters or invalid escapes in argument strings were repaired");
                            }
                            sink.end_call();
                            self.st = St::ArgsClose;
                        }
                        Ok(Progress::More) => {
                            if eof {
                                sink.end_call_truncated();
                                self.st = St::Done;
                                return Step::done(i);
                            }
                            return Step::partial(i);
                        }
                        Err(e) => {
                            let what = match e {
                                crate::json::scanner::JsonError::TooDeep => "nesting too deep".to_string(),
                                crate::json::scanner::JsonError::Unexpected(b) => format!("unexpected byte 0x{b:02x}"),
                            };
                            sink.end_call_incomplete(Label::MalformedJson, &format!("malformed arguments ({what}); closed"));
                            self.st = St::Done;
                            return Step::done(i);
                        }
                    }
                }
                St::ArgsClose => match Self::skip_optional(&self.args_close_set, input, i, eof) {
                    Some(j) => {
                        i = j;
                        self.st = St::Done;
                    }
                    None => return Step::partial(i),
                },
            }
        }
    }
}
