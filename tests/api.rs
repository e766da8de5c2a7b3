//! Small API checks that are not data (the cases are in tests/data, run by tests/data.rs).
#![cfg(not(target_arch = "wasm32"))]

use toolwire::ToolCallParser;

/// Byte accounting on a small input: text, one markup span per call, a prose marker as text.
#[test]
fn spans_attribute_every_byte() {
    use toolwire::SpanKind::*;
    let mut p = ToolCallParser::new(&toolwire::Options::new("hermes")).unwrap();
    p.record_spans();
    p.push("Hi <tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call> <tool_call> bye");
    p.finish();
    let got: Vec<_> = p.spans().iter().map(|s| (s.start, s.end, s.kind)).collect();
    assert_eq!(got, [(0, 3, Text), (3, 56, Markup), (56, 72, Text)]);
}
