// The npm package as a Node consumer gets it (`import "toolwire"` resolves the `node` condition).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { loadCases, renderEvents, vllmParsers } from "./support/cases.mjs";
import init, { parse, parsers, reasoningParsers, detectParser, sniffParser, classify, ToolCallParser } from "toolwire";

const require = createRequire(import.meta.url);
// The first two cases of every parser directory in tests/data.
const cases = loadCases().filter((c, i, all) => i < 2 || all[i - 2].parser !== c.parser);

function collect(parser, chunks) {
  const events = [];
  for (const c of chunks) events.push(...parser.push(c));
  events.push(...parser.finish());
  return events;
}

function merge(events) {
  const out = [];
  for (const e of events) {
    const last = out.at(-1);
    if (last && last.type === e.type && (e.type === "text" || e.type === "reasoning")) last.text += e.text;
    else if (last && e.type === "tool-call-delta" && last.type === e.type && last.index === e.index) last.argumentsDelta += e.argumentsDelta;
    else out.push({ ...e });
  }
  return out;
}

test("ready on import; init() resolves and is idempotent", async () => {
  await init();
  await init();
  assert.equal(typeof parse, "function");
});

test("the README example", () => {
  const p = new ToolCallParser({ parser: "hermes" });
  const events = [
    ...p.push('Checking.<tool_call>{"name": "get_weather", "argu'),
    ...p.push('ments": {"city": "Paris"}}</tool_call>'),
    ...p.finish(),
  ];
  p.free();
  assert.deepEqual(events, [
    { type: "text", text: "Checking." },
    { type: "tool-call-start", index: 0, id: "call_0", name: "get_weather" },
    { type: "tool-call-delta", index: 0, argumentsDelta: '{"city": "Paris"}' },
    { type: "tool-call-end", index: 0, id: "call_0", name: "get_weather", arguments: '{"city": "Paris"}', kept: true },
  ]);
});

/**
 * The README's merge rule, as a stream consumer applies it: text and reasoning concatenate, a
 * call is listed iff its end event says `kept` (a left-out call's `text` is content at its
 * place), diagnostics are kept.
 */
function mergeRule(events) {
  const r = { content: null, reasoning: null, toolCalls: [], diagnostics: [] };
  for (const e of events) {
    if (e.type === "text") r.content = (r.content ?? "") + e.text;
    else if (e.type === "reasoning") r.reasoning = (r.reasoning ?? "") + e.text;
    else if (e.type === "tool-call-end" && e.kept) r.toolCalls.push({ id: e.id, name: e.name, arguments: e.arguments });
    else if (e.type === "tool-call-end" && e.text) r.content = (r.content ?? "") + e.text;
    else if (e.type === "diagnostic") r.diagnostics.push({ ...e });
  }
  return r;
}

test("tests/data cases through the package: the expected events, at every split, and parse()", () => {
  assert.ok(cases.length > 100, `${cases.length} cases`);
  for (const c of cases) {
    const whole = merge(collect(new ToolCallParser(c.options), [c.input]));
    assert.deepEqual(renderEvents(whole), c.events, `${c.name}: the events differ from tests/data/${c.name}.expect`);
    // Only repaired calls are left out; merging by `kept` gives parse(), whole and at every split.
    const expected = parse(c.input, c.options);
    assert.ok(whole.every((e) => e.type !== "tool-call-end" || e.kept || e.repaired), `${c.name}: a call left out without a repair`);
    assert.deepEqual(mergeRule(whole), expected, `${c.name}: merging the events by kept differs from parse()`);
    const chars = [...c.input];
    for (let i = 1; i < chars.length; i++) {
      const p = new ToolCallParser(c.options);
      const split = merge(collect(p, [chars.slice(0, i).join(""), chars.slice(i).join("")]));
      p.free();
      assert.deepEqual(split, whole, `${c.name} split at ${i}`);
      assert.deepEqual(mergeRule(split), expected, `${c.name} split at ${i}: merge rule differs from parse()`);
    }
  }
});

test("pushBytes joins UTF-8 split across chunks", () => {
  const bytes = new TextEncoder().encode('é<tool_call>{"name": "f", "arguments": {"s": "😀"}}</tool_call>');
  const p = new ToolCallParser("hermes");
  const events = [];
  for (const b of bytes) events.push(...p.pushBytes(Uint8Array.of(b)));
  events.push(...p.finish());
  p.free();
  const m = merge(events);
  assert.equal(m[0].text, "é");
  assert.equal(m.at(-1).arguments, '{"s": "😀"}');
});

test("pushBytes: bytes that are UTF-8 on their own after a cut code point still go through the decoder", () => {
  const p = new ToolCallParser("hermes");
  const events = [...p.pushBytes(Uint8Array.of(0xc3)), ...p.pushBytes(new TextEncoder().encode("x y")), ...p.finish()];
  p.free();
  assert.equal(merge(events)[0].text, "\ufffdx y");
});

test("unknown parser: an Error that lists the valid ids", () => {
  assert.throws(() => new ToolCallParser({ parser: "nope" }), (e) => e instanceof Error && /unknown parser `nope`/.test(e.message) && /hermes/.test(e.message));
  assert.throws(() => parse("x", { parser: "hermes", reasoning: "nope" }), /valid reasoning parsers: .*qwen3/);
});

test("pattern: checked in the package by the JavaScript RegExp (ECMA-262, look-ahead included); a bad pattern is reported once as not checked", () => {
  const tools = (pattern) => [{ type: "function", function: { name: "f", parameters: { type: "object", properties: { when: { type: "string", pattern } } } } }];
  const call = (when) => `<tool_call>{"name": "f", "arguments": {"when": "${when}"}}</tool_call>`;
  const diags = (text, pattern) => parse(text, { parser: "hermes", tools: tools(pattern) }).diagnostics;
  const date = "^(?=\\d)\\d{4}-\\d{2}-\\d{2}$";
  assert.deepEqual(diags(call("2026-11-23"), date), []);
  const bad = diags(call("tomorrow"), date);
  assert.equal(bad.length, 1);
  assert.equal(bad[0].label, "schema_violation");
  assert.match(bad[0].message, /`f`\.`when`: expected a string matching .*got "tomorrow"/);
  const unsupported = diags(call("a") + call("b"), "(");
  assert.equal(unsupported.length, 1);
  assert.match(unsupported[0].message, /not checked: pattern "\(" \(.*SyntaxError/);
});

test("parsers built from the same options (read once, src/wasm.rs `parser_for`) are independent: each gives its own notes and validates with its own tools", () => {
  const tools = (pattern, type = "string") => [{ type: "function", function: { name: "f", parameters: { type: "object", properties: { when: { type, pattern } } } } }];
  const call = (when) => `<tool_call>{"name": "f", "arguments": {"when": ${JSON.stringify(when)}}}</tool_call>`;
  const run = (options, text) => {
    const p = new ToolCallParser(options);
    const events = [...p.push(text), ...p.finish()];
    p.free();
    return events.filter((e) => e.type === "diagnostic").map((e) => e.message);
  };
  const bad = { parser: "hermes", tools: tools("(") };
  // Two live parsers of the same options: the "not checked" note once in each.
  const a = new ToolCallParser(bad);
  const b = new ToolCallParser(bad);
  const notes = (p) => [...p.push(call("x")), ...p.push(call("y")), ...p.finish()].filter((e) => e.type === "diagnostic");
  assert.equal(notes(a).length, 1);
  assert.equal(notes(b).length, 1);
  a.free();
  b.free();
  // More distinct options than are remembered, then the first again; every set reads as its own.
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 6; i++) {
      const pattern = `^x{${i}}$`;
      assert.deepEqual(run({ parser: "hermes", tools: tools(pattern) }, call("x".repeat(i))), [], `round ${round}, pattern ${pattern}`);
      assert.match(run({ parser: "hermes", tools: tools(pattern) }, call("x".repeat(i + 1)))[0], /expected a string matching/);
    }
    assert.match(run({ parser: "hermes", tools: tools(null, "integer") }, call("3"))[0], /expected integer/);
    assert.deepEqual(run({ parser: "hermes", tools: tools(null, "integer") }, call("3").replace('"3"', "3")), []);
    assert.deepEqual(run({ parser: "hermes" }, call("3")), []);
  }
  // An options text that fails still fails the same way the second time.
  for (let i = 0; i < 2; i++) assert.throws(() => new ToolCallParser({ parser: "nope", tools: tools("x") }), /unknown parser `nope`/);
});

test("options mutated in place between parsers are read as they are now (the options text is reused only for options that say the same)", () => {
  const tools = [{ type: "function", function: { name: "f", parameters: { type: "object", properties: { n: { type: "integer" } } } } }];
  const options = { parser: "hermes", tools };
  const diagnostics = () => {
    const p = new ToolCallParser(options);
    const events = [...p.push('<tool_call>{"name": "f", "arguments": {"n": "3"}}</tool_call>'), ...p.finish()];
    p.free();
    return events.filter((e) => e.type === "diagnostic").map((e) => e.message);
  };
  assert.match(diagnostics()[0], /expected integer/);
  tools[0].function.parameters.properties.n.type = "string";
  assert.deepEqual(diagnostics(), []);
  tools[0].function.parameters.properties.n = { type: "integer", description: undefined };
  assert.match(diagnostics()[0], /expected integer/);
  tools[0].function.name = "g";
  assert.deepEqual(diagnostics(), ["`f` is not a declared tool (declared: g)"]);
  tools.push({ type: "function", function: { name: "f", parameters: { type: "object", properties: { n: { type: "string" } } } } });
  assert.deepEqual(diagnostics(), []);
  options.parser = "nope";
  assert.throws(() => new ToolCallParser(options), /unknown parser `nope`/);
});

test("unknown option keys: an Error naming the valid keys (a misspelled parser is not auto)", () => {
  assert.throws(() => new ToolCallParser({ parsr: "hermes" }), (e) => e instanceof Error && /unknown option `parsr` \(did you mean `parser`\?\); valid options: parser, model, tools/.test(e.message));
  assert.throws(() => parse("x", { parser: "hermes", limits: { maxArgBytes: 10 } }), /unknown limit `maxArgBytes` \(did you mean `maxArgsBytes`\?\); valid limits: maxArgsBytes, maxDepth, maxBufferBytes, maxNameBytes/);
  assert.throws(() => parse("x", { parser: "hermes", cumulative: true }), /unknown option `cumulative`/);
  // Every documented key is accepted.
  const all = { parser: "hermes", model: "m", tools: [], reasoning: "qwen3", thinking: false, idPrefix: "c_", recover: true, policy: "lenient",
    recoverTruncated: true, keepMalformed: true, bareJson: false, limits: { maxArgsBytes: 10, maxDepth: 8, maxBufferBytes: 100, maxNameBytes: 64 } };
  assert.equal(parse("hi", all).content, "hi");
});

test("parsers() and detectParser()", () => {
  const list = parsers();
  const names = new Set(list.flatMap((p) => [p.id, ...p.aliases]));
  const missing = vllmParsers().filter((n) => !names.has(n));
  assert.deepEqual(missing, [], "every vLLM parser name (tests/data/vllm-parsers.txt) is an id or alias");
  for (const p of list) {
    assert.equal(typeof p.id, "string");
    assert.ok(Array.isArray(p.aliases) && Array.isArray(p.models));
    assert.ok(p.description.length > 0);
  }
  assert.equal(detectParser("NousResearch/Hermes-3-Llama-3.1-8B"), "hermes");
  assert.equal(detectParser("some-unknown-model"), null);
});

test("free() and Symbol.dispose release the parser", () => {
  const p = new ToolCallParser("hermes");
  p.free();
  assert.throws(() => p.push("x"));
  const q = new ToolCallParser("hermes");
  q[Symbol.dispose]();
  assert.throws(() => q.push("x"));
});

test("CommonJS require works", () => {
  const cjs = require("toolwire");
  assert.equal(cjs.parse("hi", "hermes").content, "hi");
});

test("classify() and sniffParser()", () => {
  const text = 'ok <tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>';
  const rows = classify(text);
  assert.equal(rows.length, parsers().length);
  const hermes = rows.find((r) => r.parser === "hermes");
  assert.equal(hermes.verdict, "calls");
  assert.equal(hermes.count, 1);
  assert.deepEqual(hermes.toolCalls.map((c) => c.name), ["f"]);
  assert.equal(rows.find((r) => r.parser === "mistral").verdict, "no_call");
  assert.ok(sniffParser(text).includes("hermes"));
  assert.throws(() => classify(text, { tools: 5 }), /tools/);
});

test("reasoningParsers() lists every reasoning parser, and each works as the reasoning option", () => {
  const list = reasoningParsers();
  assert.ok(list.length >= 30);
  for (const r of list) {
    assert.ok(r.id && Array.isArray(r.aliases) && r.description.length > 0);
    for (const name of [r.id, ...r.aliases]) parse("x", { parser: "hermes", reasoning: name });
  }
  assert.ok(list.some((r) => r.id === "qwen3"));
});

test("text arguments must be strings: a TypeError that says what was expected, nothing coerced", () => {
  for (const bad of [null, undefined, {}, 42, ["a"], new Uint8Array(2)]) {
    assert.throws(() => parse(bad, "hermes"), (e) => e instanceof TypeError && /parse: expected the model's text as a string/.test(e.message));
    assert.throws(() => classify(bad), TypeError);
    assert.throws(() => sniffParser(bad), TypeError);
  }
  const p = new ToolCallParser("hermes");
  assert.throws(() => p.push({}), (e) => e instanceof TypeError && /expected a string chunk \(pushBytes takes a Uint8Array\), got an object/.test(e.message));
  assert.throws(() => p.push(null), (e) => e instanceof TypeError && /got null/.test(e.message));
  assert.throws(() => p.push(new Uint8Array([104])), (e) => e instanceof TypeError && /pushBytes takes a Uint8Array/.test(e.message));
  assert.throws(() => p.pushBytes("hi"), (e) => e instanceof TypeError && /pushBytes: expected a Uint8Array \(push takes a string\), got string/.test(e.message));
  assert.throws(() => p.pushBytes([104]), TypeError);
  // The parser is unharmed by rejected input: nothing was fed.
  assert.deepEqual([...p.push("ok"), ...p.finish()], [{ type: "text", text: "ok" }]);
  p.free();
});

test("push, pushBytes and finish after finish() throw: the parser is finished", () => {
  const p = new ToolCallParser("hermes");
  assert.deepEqual(p.push('ok <tool_call>{"name": "f", "arguments": {"a": 1'), [
    { type: "text", text: "ok " },
    { type: "tool-call-start", index: 0, id: "call_0", name: "f" },
    { type: "tool-call-delta", index: 0, argumentsDelta: '{"a": 1' },
  ]);
  assert.equal(p.finish().at(-1).type, "tool-call-end");
  assert.throws(() => p.push("more"), (e) => e instanceof Error && /ToolCallParser\.push: this parser is finished/.test(e.message));
  assert.throws(() => p.pushBytes(new Uint8Array([1])), /pushBytes: this parser is finished/);
  assert.throws(() => p.finish(), /finish: this parser is finished/);
  p.free();
  assert.throws(() => p.push("x"), /freed/);
});
