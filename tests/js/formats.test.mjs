// JSON Schema `format` in the package: its wasm leaves the Rust checks out (Cargo feature
// `formats`, size) and checks formats with pkg/formats.js. The Rust checks are the reference:
// `cargo run --example formats` answers a generated corpus (seeds, every one-character deletion
// and substitution of them, each string as every format), and the JavaScript must answer alike.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parse, ToolCallParser } from "toolwire";
import { checkFormat } from "../../pkg/formats.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

test("formats.js answers every string of the Rust checks' corpus as they do", () => {
  const corpus = JSON.parse(execFileSync("cargo", ["run", "--quiet", "--example", "formats"], { cwd: root, encoding: "utf8", maxBuffer: 1 << 26 }));
  assert.ok(corpus.length > 100_000, `corpus of ${corpus.length}`);
  const valid = corpus.filter(([, , answer]) => answer === 2).length;
  assert.ok(valid > 1000 && valid < corpus.length / 4, `${valid} valid of ${corpus.length}`);
  const wrong = corpus.filter(([format, s, answer]) => checkFormat(format, s) !== answer);
  assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} answers differ from the Rust checks`);
});

test("format: checked through the package (a bad value is a schema_violation naming the format; unknown formats are not checked)", () => {
  const tools = (format) => [{ type: "function", function: { name: "f", parameters: { type: "object", properties: { v: { type: "string", format } } } } }];
  const call = (v) => `<tool_call>{"name": "f", "arguments": {"v": ${JSON.stringify(v)}}}</tool_call>`;
  const diags = (v, format) => parse(call(v), { parser: "hermes", tools: tools(format) }).diagnostics;
  assert.deepEqual(diags("2026-11-26T08:00:00Z", "date-time"), []);
  const bad = diags("2026-02-30", "date");
  assert.equal(bad.length, 1);
  assert.equal(bad[0].label, "schema_violation");
  assert.match(bad[0].message, /`f`\.`v`: expected a date \(YYYY-MM-DD\), got "2026-02-30"/);
  assert.deepEqual(diags("[::1]", "ipv6"), diags("x", "ipv6").map((d) => ({ ...d, message: d.message.replace('"x"', '"[::1]"') })));
  assert.deepEqual(diags("red", "color"), []);
  // The streaming parser validates the same way at the call's end.
  const p = new ToolCallParser({ parser: "hermes", tools: tools("email") });
  const events = [...p.push(call("joe@@example.com")), ...p.finish()];
  p.free();
  assert.deepEqual(events.filter((e) => e.type === "diagnostic").map((e) => e.label), ["schema_violation"]);
});
