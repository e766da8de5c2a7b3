//! Pythonic call lists (`[f(a=1), g()]`) and key-value formats (Gemma 4 `call:f{k:v}`).
//!
//! A dialect is data (`PySyntax`); one reader (`reader.rs`) reads the calls of a payload and
//! one value machine (`values.rs`) turns each call's arguments into JSON as they arrive.
//! Python literals are tokenized (`lex.rs`), never evaluated.

use crate::prelude::*;
mod lex;
mod reader;
mod values;

use crate::reader::Reader;

/// How calls and values are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `name(k=v, ...)` with Python literal values, in an optional `[...]` list; calls are
    /// separated by `,` or whitespace.
    Python,
    /// `call:name{k:v, ...}` (or `(...)`): quoted or bare text values, nested `{}`/`[]`.
    KeyValue,
}

/// How a key-value text value becomes JSON when the tool schema gives no type for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Untyped {
    /// A string.
    String,
    /// A bare text spelled as a JSON scalar (`3`, `-2.5`, `1e3`, `true`, `false`, `null`) is
    /// that value, any other text a string; quoted texts are strings (Gemma 4, at every
    /// depth). A number with a leading zero (`02134`) or no digit before the point (`.5`) is
    /// not JSON and stays a string, so no digit is lost.
    Spelled,
    /// JSON when the text is JSON (`5`, `true`, `{...}`), else a string (FunctionGemma).
    JsonOrString,
}

/// One pythonic or key-value dialect.
#[derive(Debug)]
pub struct PySyntax {
    pub style: Style,
    /// Key-value: what stands before a call's name (`call:`), one of these is required.
    pub call_prefix: &'static [&'static str],
    /// Key-value: the token around string values and quoted keys (`<|"|>`).
    pub quote: &'static str,
    /// Key-value: markers that end a call when met outside a string (the family's end marker).
    pub stop: &'static [&'static str],
    pub untyped: Untyped,
}

impl PySyntax {
    pub const PYTHON: PySyntax =
        PySyntax { style: Style::Python, call_prefix: &[], quote: "", stop: &[], untyped: Untyped::String };
}

/// A fresh reader for one payload in dialect `cfg`. The same reader serves a bare `[` (it
/// reads the `[` itself) and a consumed start marker (the `[` is optional there).
pub fn reader(cfg: &'static PySyntax, _bare: bool) -> Box<dyn Reader> {
    Box::new(reader::CallsReader::new(cfg))
}

/// A payload read as JSON call objects when it is written so (`{"name": …, "arguments": …}`
/// alone or in a list: `{`, or `[` then `{`, after optional whitespace), else as pythonic calls
/// in dialect `cfg`. LFM2 writes either, depending on its system prompt (llama.cpp reads JSON,
/// vLLM pythonic). The decision looks at most two gaps of 64 whitespace bytes ahead and
/// consumes nothing, so it is the same at any chunking.
pub struct JsonOrPython {
    cfg: &'static PySyntax,
    /// The reader picked for this payload, and whether it reads JSON.
    inner: Option<(bool, Box<dyn Reader>)>,
    /// The last payload's reader, reset for the next payload read the same way.
    spare: Option<(bool, Box<dyn Reader>)>,
}

impl JsonOrPython {
    pub fn new(cfg: &'static PySyntax) -> JsonOrPython {
        JsonOrPython { cfg, inner: None, spare: None }
    }

    /// Whether `input` starts JSON call objects; `None` when more input is needed.
    fn is_json(input: &str, eof: bool) -> Option<bool> {
        let b = input.as_bytes();
        let ws = |from: usize| from + b[from..].iter().take_while(|c| crate::json::scanner::is_ws(**c)).count();
        let i = ws(0);
        if i > 64 {
            return Some(false);
        }
        match b.get(i) {
            None => return if eof { Some(false) } else { None },
            Some(b'{') => return Some(true),
            Some(b'[') => {}
            Some(_) => return Some(false),
        }
        let j = ws(i + 1);
        if j - (i + 1) > 64 {
            return Some(false);
        }
        match b.get(j) {
            None => if eof { Some(false) } else { None },
            Some(c) => Some(*c == b'{'),
        }
    }
}

impl Reader for JsonOrPython {
    fn feed(&mut self, input: &str, eof: bool, sink: &mut crate::sink::Sink) -> crate::reader::Step {
        if self.inner.is_none() {
            let Some(json) = Self::is_json(input, eof) else { return crate::reader::Step::partial(0) };
            let spare = self.spare.take().filter(|(j, _)| *j == json).map(|(_, r)| r);
            let cfg = self.cfg;
            self.inner = Some((json, crate::reader::reuse(spare, false, || if json {
                Box::new(crate::json::call::CallsReader::new(crate::json::call::JsonShape::ObjectOrArray, crate::json::call::Wrapper::STANDARD, false))
            } else {
                reader(cfg, false)
            })));
        }
        match self.inner.as_mut() {
            Some((_, r)) => r.feed(input, eof, sink),
            None => crate::reader::Step::reject(0),
        }
    }

    fn committed(&self) -> bool {
        self.inner.as_ref().is_some_and(|(_, r)| r.committed())
    }

    /// Pythonic calls read whole by the last pythonic reader this one made (`inner` until the
    /// next `reset`, then `spare`), when `input` starts them (`is_json`, decided without eof).
    #[cfg(not(target_arch = "wasm32"))]
    fn whole(&mut self, input: &str, room: usize, sink: &mut crate::sink::Sink) -> Option<usize> {
        if Self::is_json(input, false)? {
            return None;
        }
        let (_, python) = [&mut self.inner, &mut self.spare].into_iter().flatten().find(|(json, _)| !*json)?;
        python.whole(input, room, sink)
    }

    fn reset(&mut self, _bare: bool) -> bool {
        if let Some(inner) = self.inner.take() {
            self.spare = Some(inner);
        }
        true
    }
}

/// One Python literal (`{'a': 1, 'b': [None, True]}`) as a JSON value, read by the machine that
/// reads call arguments (never evaluated); `None` when `text` is not exactly one literal.
pub fn literal_to_json(text: &str, limits: &crate::limits::Limits) -> Option<crate::json::Value> {
    use crate::event::EventRef;
    let mut sink = crate::sink::Sink::new(limits.clone(), None, String::new(), crate::sink::IdStyle::Prefixed);
    sink.start_call("literal", None);
    let mut v = values::Values::new(&PySyntax::PYTHON, b')');
    let input = format!("v={text})");
    let (used, status) = v.feed(&input, true, &mut sink);
    if used != input.len() || !matches!(status, values::Status::Closed) {
        return None;
    }
    sink.end_call();
    let (mut args, mut failed) = (None, false);
    sink.drain_with(|e| match e {
        EventRef::Diagnostic { .. } => failed = true,
        EventRef::ToolCallEnd { arguments, .. } => args = Some(crate::json::parse(arguments)),
        _ => {}
    });
    if failed {
        return None;
    }
    let mut obj = args?.ok()?;
    obj.as_object_mut()?.shift_remove("v")
}

#[cfg(test)]
mod tests {
    #[allow(unused_imports)]
    use crate::prelude::*;
    use crate::event::Event;
    use crate::{Options, ToolCallParser};

    const FAMILIES: [&str; 6] = ["pythonic", "llama4_pythonic", "olmo3", "lfm2", "gemma4", "functiongemma"];
    const PIECES: &[&str] = &[
        "[", "]", "(", ")", "{", "}", ",", "=", ":", "'", "\"", "'''", "\\", "\\u00e9", "\\ud83d", "\\x4", "a", "f",
        "get_weather", " ", "\n", "1", "-", ".", "e", "0x", "True", "None", "<|\"|>", "<tool_call|>", "<|tool_call>",
        "call:", "<escape>", "<start_function_call>", "<end_function_call>", "<|tool_call_start|>", "<|tool_call_end|>",
        "<function_calls>", "</function_calls>", "<|python_start|>", "<|python_end|>", "é", "😀", "r", "b", "f'", "<",
        "[f(a=", "'x'", ")]", "call:f{", "k:", "n=07",
    ];

    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// Typed parameters for the names the soup uses (`f`, `get_weather`; keys `a`, `k`).
    const TOOLS: &str = r#"[{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
        "a": {"type": "integer"}, "k": {"type": "object", "properties": {"a": {"type": "number"}}}}}}},
        {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {
        "a": {"type": "array", "items": {"type": "boolean"}}, "k": {"type": "string"}}}}}]"#;

    fn merged(parser: &str, chunks: &[&str], tools: bool) -> Vec<Event> {
        let mut o = Options::new(parser);
        o.tools = tools.then(|| crate::json::parse(TOOLS).unwrap());
        let mut p = ToolCallParser::new(&o).unwrap();
        let mut ev = Vec::new();
        for c in chunks {
            p.push_into(c, &mut ev);
        }
        p.finish_into(&mut ev);
        let mut out: Vec<Event> = Vec::new();
        for e in ev {
            match (out.last_mut(), &e) {
                (Some(Event::Text(a)), Event::Text(b)) => a.push_str(b),
                (Some(Event::ToolCallDelta { index: i, arguments_delta: a }), Event::ToolCallDelta { index: j, arguments_delta: b }) if i == j => {
                    a.push_str(b)
                }
                _ => out.push(e),
            }
        }
        out
    }

    /// Token soup: no panic, no refused fragment, valid arguments, the same events at any split.
    #[test]
    fn token_soup_is_safe_and_split_invariant() {
        let mut rng = Rng(0x9E3779B97F4A7C15);
        for round in 0..4000 {
            let n = 1 + rng.below(32);
            let input: String = (0..n).map(|_| PIECES[rng.below(PIECES.len())]).collect();
            let parser = FAMILIES[(round / 2) % FAMILIES.len()];
            let tools = round % 2 == 1;
            let whole = merged(parser, &[&input], tools);
            for e in &whole {
                match e {
                    Event::Diagnostic { message, .. } => assert!(!message.contains("internal"), "{parser} {input:?}: {message}"),
                    Event::ToolCallEnd { arguments, .. } => {
                        assert!(crate::json::parse(arguments).is_ok_and(|v| v.is_object()), "{parser} {input:?}: {arguments}")
                    }
                    _ => {}
                }
            }
            let cuts: Vec<usize> = (0..input.len()).filter(|&k| input.is_char_boundary(k)).collect();
            for _ in 0..4 {
                let (a, b) = (cuts[rng.below(cuts.len())], cuts[rng.below(cuts.len())]);
                let (a, b) = (a.min(b), a.max(b));
                let split = merged(parser, &[&input[..a], &input[a..b], &input[b..]], tools);
                assert_eq!(split, whole, "{parser} {input:?} split at {a},{b}");
            }
        }
    }

    #[test]
    fn python_literals_as_json() {
        let l = crate::limits::Limits::default();
        let j = |t: &str| super::literal_to_json(t, &l).map(|v| v.to_string());
        assert_eq!(j("{'a': 1, \"b\": [None, True, (1, 2)]}").as_deref(), Some(r#"{"a":1,"b":[null,true,[1,2]]}"#));
        assert_eq!(j("'x'").as_deref(), Some(r#""x""#));
        assert_eq!(j("{'a': x}"), None);
        assert_eq!(j("1, 2"), None);
        assert_eq!(j("{'a': 1"), None);
    }

    #[test]
    fn deep_nesting_and_long_values_hit_limits() {
        let deep = format!("[f(a={}1{})]", "[".repeat(300), "]".repeat(300));
        let ev = merged("pythonic", &[&deep], false);
        assert!(ev.iter().any(|e| matches!(e, Event::Diagnostic { label: crate::Label::LimitExceeded, .. })));
        let deep = format!("<|tool_call>call:f{{a:{}1{}}}<tool_call|>", "[".repeat(300), "]".repeat(300));
        let ev = merged("gemma4", &[&deep], false);
        assert!(ev.iter().any(|e| matches!(e, Event::Diagnostic { label: crate::Label::LimitExceeded, .. })));
        let long = format!("[f({}=1)]", "k".repeat(1000));
        let ev = merged("pythonic", &[&long], false);
        assert!(ev.iter().any(|e| matches!(e, Event::Diagnostic { label: crate::Label::LimitExceeded, .. })));
    }
}
