//! XML-parameter payloads (Qwen3-Coder, GLM, MiniMax, DeepSeek DSML, Step, Kimi K3, Muse, ...).
//!
//! One streaming reader (`call::XmlReader`) reads one call in any dialect; an `XmlSyntax` table
//! entry says how the dialect spells the call name, the parameters and the closing tags. The
//! sequencer (`engine.rs`) handles the wrapper sections around calls.
//!
//! Arguments stream as the model writes them: `{"key": ` when a parameter opens, string values
//! JSON-escaped character by character, typed values (per tool schema or per the format's own
//! type attributes) when their close tag arrives, `}` at the call close. See `value.rs`.
//!
//! Two dialects differ enough to have their own small reader, reusing the pieces here:
//! MiniMax-M3 nested elements (`m3.rs`) and Kimi K3 XTML channels (`xtml.rs`). Muse's ATEM
//! invokes are read inside Muse messages (`crate::channels::message`).

use crate::prelude::*;
pub mod call;
pub mod header;
pub mod m3;
pub mod value;
pub mod xtml;

use crate::reader::Reader;
use crate::scan::{Act, MarkerSet};
use crate::sink::Sink;

/// How a call's name follows the opening marker.
#[derive(Debug)]
pub enum Name {
    /// In a tag header that ends with `XmlSyntax::tag_end`: `<function=NAME>`,
    /// `<invoke name="NAME">`, `<|open|>call tool="NAME" index="0"<|sep|>` (see `header.rs`).
    Tag,
    /// As text up to the first parameter or the call close: `<tool_call>NAME<arg_key>`.
    /// `sep` markers right after the name are skipped (HY v3 `<tool_sep>`). The call starts
    /// only when one of those markers confirms the name, so `<tool_call>` in prose stays text.
    Text { sep: &'static [&'static str] },
}

/// How a parameter's key follows the parameter's opening marker.
#[derive(Debug)]
pub enum Key {
    /// In a tag header: `<parameter=KEY>`, `<parameter name="KEY" string="true">`. Attributes
    /// `string="true|false"` (DSML) and `type="T"` (Kimi K3) type the value.
    Tag,
    /// As text up to `close` (`<arg_key>KEY</arg_key>`), then optionally a type element
    /// (`<ifm|arg_type>T</ifm|arg_type>`), then `value_open` (`<arg_value>`).
    Element {
        close: &'static [&'static str],
        type_elem: Option<(&'static str, &'static str)>,
        value_open: &'static [&'static str],
    },
}

/// One XML-parameter dialect (see the module docs). Marker lists may hold several spellings.
#[derive(Debug)]
pub struct XmlSyntax {
    /// Required (after optional whitespace) before the name, when the sequencer's opening
    /// marker is a wrapper (Step-3: `<｜tool_call_begin｜>` then `<steptml:invoke name=`).
    pub call_open: &'static [&'static str],
    /// Optional before `call_open` (after optional whitespace, at most once): Step-3's call
    /// type, `function<｜tool_sep｜>`, as its chat template writes it.
    pub call_type: &'static [&'static str],
    pub name: Name,
    /// Ends tag headers: `>` or `<|sep|>`.
    pub tag_end: &'static str,
    /// Opens a parameter.
    pub param_open: &'static [&'static str],
    pub key: Key,
    /// Closes a parameter value (consumed). A value also ends, tolerantly, at the next
    /// parameter, at the call close and at a stop marker.
    pub param_close: &'static [&'static str],
    /// Closes the call (consumed).
    pub call_close: &'static [&'static str],
    /// End the call where they appear, even inside a value, and are left to the sequencer
    /// (the wrapper's closing tag, e.g. `</tool_call>` around Qwen's `<function=...>`).
    pub stops: &'static [&'static str],
    /// Like `stops`, but not inside a value: the next call beginning without the previous
    /// one closed (`<tool_call>`, `<function=`), or ending an unclosed name.
    pub soft_stops: &'static [&'static str],
    /// Qwen: exactly one leading and one trailing newline of each value are framing.
    pub trim_newline: bool,
    /// Values are JSON (decoded when valid, else kept as strings) unless the format marks
    /// them as strings: DSML (`string="true"` is a string, anything else JSON), Muse Glimmer.
    pub json_values: bool,
    /// Values of parameters the schema gives no type (no tools, undeclared, or no `type`) are
    /// JSON when they parse, else strings; declared types still decide (Muse Spark: a string
    /// parameter stays verbatim).
    pub json_untyped: bool,
    /// Values may be wrapped in `<![CDATA[...]]>` (MiniCPM 5).
    pub cdata: bool,
    /// Keys of a lone parameter whose object value is the whole arguments (DSML `arguments`,
    /// `input`; MiniCPM 5 `properties`), unwrapped when the key is not a declared parameter
    /// and every inner key is. See `call.rs`.
    pub unwrap: &'static [&'static str],
    /// Unwrap only with tools that declare the call (DSML); otherwise also without tools.
    pub unwrap_needs_tools: bool,
}

impl XmlSyntax {
    pub const NONE: XmlSyntax = XmlSyntax {
        call_open: &[],
        call_type: &[],
        name: Name::Tag,
        tag_end: ">",
        param_open: &[],
        key: Key::Tag,
        param_close: &[],
        call_close: &[],
        stops: &[],
        soft_stops: &[],
        trim_newline: false,
        json_values: false,
        json_untyped: false,
        cdata: false,
        unwrap: &[],
        unwrap_needs_tools: false,
    };
}

/// A fresh reader for one payload (one call) in dialect `cfg`.
pub fn reader(cfg: &'static XmlSyntax, _bare: bool) -> Box<dyn Reader> {
    Box::new(call::XmlReader::new(cfg))
}

/// Text inside call markup that is not markup (between parameters, around invokes): leading
/// whitespace is framing, the rest is content. Decided byte by byte, so chunking does not matter.
#[derive(Debug, Default)]
pub struct Gap {
    started: bool,
}

impl Gap {
    /// Emits `s` as content, less the gap's leading whitespace; `diag` (a `malformed_json`
    /// message about the open call) goes before the gap's first content. True when this emitted
    /// the gap's first content.
    pub fn push(&mut self, s: &str, sink: &mut Sink, diag: Option<&str>) -> bool {
        let s = if self.started { s } else { s.trim_start_matches(|c: char| c.is_ascii_whitespace()) };
        if s.is_empty() {
            return false;
        }
        let first = !self.started;
        self.started = true;
        if let Some(msg) = diag.filter(|_| first) {
            sink.call_diag(crate::event::Label::MalformedJson, msg);
        }
        sink.text(s);
        first
    }

    /// True when `push(s)` would emit something.
    pub fn emits(&self, s: &str) -> bool {
        self.started || !s.bytes().all(|b| b.is_ascii_whitespace())
    }

    /// A marker ended the gap.
    pub fn end(&mut self) {
        self.started = false;
    }
}

/// The reader-defined code of marker `idx` (`Act::Other`).
pub(crate) fn code(set: &MarkerSet, idx: usize) -> u8 {
    match set.act(idx) {
        Act::Other(c) => c,
        _ => u8::MAX,
    }
}

#[cfg(test)]
mod fuzz {
    //! Random inputs built from each dialect's markup: every split point and char-by-char
    //! feeding give the same merged events, and every call's arguments are one JSON object.
    #[allow(unused_imports)]
    use crate::prelude::*;

    use crate::event::Event;
    use crate::{Options, ToolCallParser};

    fn merged(opts: &Options, chunks: &[&str]) -> Vec<Event> {
        let mut p = ToolCallParser::new(opts).unwrap();
        let mut ev = Vec::new();
        for c in chunks {
            p.push_into(c, &mut ev);
        }
        p.finish_into(&mut ev);
        let mut out: Vec<Event> = Vec::new();
        for e in ev {
            match (out.last_mut(), e) {
                (Some(Event::Text(a)), Event::Text(b)) | (Some(Event::Reasoning(a)), Event::Reasoning(b)) => a.push_str(&b),
                (Some(Event::ToolCallDelta { index: i, arguments_delta: a }), Event::ToolCallDelta { index: j, arguments_delta: b }) if *i == j => {
                    a.push_str(&b)
                }
                (_, e) => out.push(e),
            }
        }
        out
    }

    #[test]
    fn random_markup_is_split_invariant() {
        let common = ["a", " ", "\n", "x<y", "é😀", "\"", "\\", ">", "<", "=", "5", "{\"k\": [1]}", "f", "k"];
        let dialects: &[(&str, &[&str])] = &[
            ("qwen3_coder", &["<tool_call>", "</tool_call>", "<function=", "</function>", "<parameter=", "</parameter>", "f>", "k>"]),
            ("glm47", &["<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"]),
            ("k2_horizon", &["<ifm|tool_call>", "</ifm|tool_call>", "<ifm|arg_key>", "</ifm|arg_key>", "<ifm|arg_type>", "</ifm|arg_type>", "<ifm|arg_value>", "</ifm|arg_value>", "integer"]),
            ("deepseek_v32", &["<｜DSML｜function_calls>", "<｜DSML｜invoke name=", "\"f\">", "</｜DSML｜invoke>", "<｜DSML｜parameter name=", "\"k\" string=\"false\">", "</｜DSML｜parameter>"]),
            ("step3", &["<｜tool_calls_begin｜>", "<｜tool_call_begin｜>", "<｜tool_call_end｜>", "function<｜tool_sep｜>", "<steptml:invoke name=", "\"f\">", "</steptml:invoke>", "<steptml:parameter name=", "</steptml:parameter>"]),
            ("minicpm5", &["<function name=", "\"f\">", "</function>", "<param name=", "\"k\">", "</param>", "<![CDATA[", "]]>"]),
            ("minimax_m3", &["]<]minimax[>[<invoke name=", "\"f\">", "]<]minimax[>[</invoke>", "]<]minimax[>[<k>", "]<]minimax[>[</k>", "]<]minimax[>["]),
            ("kimi_k3", &["<|open|>", "<|close|>", "<|sep|>", "think", "call tool=\"f\"", "argument key=\"k\" type=\"integer\"", "<|close|>argument<|sep|>", "<|close|>call<|sep|>"]),
            ("muse_glimmer", &["<|start|>", "assistant", " to=", "to=", "self", "<|message|>", "<|eom|>", "<atem:invoke name=", "\"f\">", "</atem:invoke>", "<atem:parameter name=", "\"k\">", "</atem:parameter>"]),
        ];
        let tools = crate::json::json!([{"type": "function", "function": {"name": "f", "parameters": {"properties": {"k": {"type": "integer"}}}}}]);
        let mut seed: u64 = 0x9E3779B97F4A7C15;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for (parser, own) in dialects {
            let pieces: Vec<&str> = common.iter().chain(own.iter()).chain(own.iter()).copied().collect();
            for case in 0..40 {
                let input: String = (0..1 + next(16)).map(|_| pieces[next(pieces.len())]).collect();
                let mut opts = Options::new(parser);
                if case % 2 == 0 {
                    opts.tools = Some(tools.clone());
                }
                let whole = merged(&opts, &[&input]);
                for e in &whole {
                    if let Event::ToolCallEnd { arguments, .. } = e {
                        assert!(crate::json::parse(arguments).is_ok_and(|v| v.is_object()), "{parser} {input:?}: {arguments}");
                    }
                }
                for (at, _) in input.char_indices().skip(1) {
                    assert_eq!(merged(&opts, &[&input[..at], &input[at..]]), whole, "{parser} {input:?} split at {at}");
                }
                let chars: Vec<&str> = input.char_indices().map(|(i, c)| &input[i..i + c.len_utf8()]).collect();
                assert_eq!(merged(&opts, &chars), whole, "{parser} {input:?} char by char");
            }
        }
    }
}
