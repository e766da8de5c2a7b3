// The package's pool of freed parsers (pkg-template/api.js `pool`, src/wasm.rs `renew`,
// src/parser.rs `ToolCallParser::recycle`): `free()` hands the wasm parser to the next
// `new ToolCallParser(...)`, which must behave exactly as a parser built from nothing, whatever
// the freed one read, with whatever options, in whatever state it was left.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ToolCallParser } from "toolwire";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const awaitBinding = await import(join(dirname(fileURLToPath(import.meta.url)), "../../pkg/dist/toolwire.js"));

const tools = [
  { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] } } },
];
const big = "Paris \\\"x\\\" é ".repeat(300);
const hermesCall = (name, args) => `<tool_call>\n{"name": "${name}", "arguments": ${args}}\n</tool_call>`;

/** Inputs and options that leave different state behind: calls, diagnostics, held markers, quiet runs. */
const scenarios = [
  { options: { parser: "hermes", tools }, input: `Let me check. ${hermesCall("get_weather", `{"city": "${big}", "days": 3}`)} Done.` },
  { options: { parser: "hermes", tools }, input: `${hermesCall("get_weather", `{"days": "x"}`)}${hermesCall("nope", "{}")} <tool_c` },
  { options: "hermes", input: `Two: ${hermesCall("a", "{}")}${hermesCall("b", `{"k": [1, 2]}`)} and text <tool` },
  { options: { parser: "hermes", limits: { maxArgsBytes: 40 } }, input: hermesCall("f", `{"s": "${"z".repeat(100)}"}`) },
  { options: { parser: "qwen3_coder", reasoning: "qwen3" }, input: `<think>hmm ${"r".repeat(500)}</think>Ok.<tool_call>\n<function=write_file>\n<parameter=content>\n${big}\n</parameter>\n</function>\n</tool_call>` },
  { options: { parser: "mistral", idPrefix: "x_" }, input: `Hi [TOOL_CALLS]f{"a": 1}` },
  { options: { parser: "pythonic" }, input: `[get_weather(city="Paris"), f(x=1)] after` },
  { options: "auto", input: `<tool_call>\n{"name": "g", "arguments": {}}\n</tool_call>` },
];

/** `s` in pieces of `n` characters. */
function pieces(s, n) {
  const out = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
}

/** Every push's and the finish's events (and the resolved parser id) of `p` on `chunks`. */
function read(p, chunks) {
  const out = [p.parser];
  for (const c of chunks) out.push(p.push(c));
  out.push(p.finish());
  return out;
}

/** Parsers built and kept: the pool is empty afterwards, so the next one is built from nothing. */
function drainPool() {
  return Array.from({ length: 8 }, () => new ToolCallParser("hermes"));
}

/** What a parser built from nothing gives for `s` in `n`-character pieces. */
function fresh(s, n) {
  const held = drainPool();
  const p = new ToolCallParser(s.options);
  try {
    return read(p, pieces(s.input, n));
  } finally {
    p.free();
    for (const h of held) h.free();
  }
}

test("a parser from the pool reads every scenario as a new one, whatever the freed parser read and however it was left", () => {
  for (const n of [4, 1000]) {
    const want = scenarios.map((s) => fresh(s, n));
    for (const [i, prior] of scenarios.entries()) {
      for (const leave of ["finished", "mid-input", "untouched"]) {
        for (const [j, s] of scenarios.entries()) {
          drainPool().forEach((h) => h.free());
          // The pool now holds parsers; the freed one goes on top and is taken next.
          const old = new ToolCallParser(prior.options);
          const chunks = pieces(prior.input, 4);
          if (leave === "finished") read(old, chunks);
          else if (leave === "mid-input") for (const c of chunks.slice(0, Math.floor(chunks.length * 0.6))) old.push(c);
          old.free();
          const p = new ToolCallParser(s.options);
          try {
            assert.deepStrictEqual(read(p, pieces(s.input, n)), want[j], `scenario ${j} in ${n}-character pieces after scenario ${i} left ${leave}`);
          } finally {
            p.free();
          }
        }
      }
    }
  }
});

test("a freed parser cannot reach the wasm parser it handed on; freeing twice pools it once", () => {
  const a = new ToolCallParser("hermes");
  a.push("Hello <tool_");
  a.free();
  a.free();
  assert.throws(() => a.push("call>"), /freed/);
  assert.throws(() => a.finish(), /freed/);
  assert.throws(() => a.parser, /freed/);
  // Two parsers now (one of them surely the one `a` had): independent, each as new.
  const b = new ToolCallParser("hermes");
  const c = new ToolCallParser("hermes");
  const eb = [...b.push(`x ${hermesCall("one", "{}")}`), ...b.finish()];
  const ec = [...c.push(`y ${hermesCall("two", `{"k": 1}`)}`), ...c.finish()];
  assert.deepStrictEqual(eb.filter((e) => e.type === "tool-call-end").map((e) => [e.id, e.name]), [["call_0", "one"]]);
  assert.deepStrictEqual(ec.filter((e) => e.type === "tool-call-end").map((e) => [e.id, e.name, e.arguments]), [["call_0", "two", `{"k": 1}`]]);
  assert.throws(() => a.push("x"), /freed/);
  b.free();
  c.free();
});

test("Symbol.dispose hands the parser to the pool as free() does", { skip: typeof Symbol.dispose !== "symbol" }, () => {
  const want = fresh(scenarios[0], 4);
  {
    const p = new ToolCallParser(scenarios[2].options);
    p.push(scenarios[2].input);
    p[Symbol.dispose]();
    assert.throws(() => p.push("x"), /freed/);
  }
  const q = new ToolCallParser(scenarios[0].options);
  assert.deepStrictEqual(read(q, pieces(scenarios[0].input, 4)), want);
  q.free();
});

test("bad options leave the pooled parser usable; a parser with a large input buffer is not pooled", () => {
  const p = new ToolCallParser("hermes");
  p.free();
  assert.throws(() => new ToolCallParser({ parser: "no-such-parser" }), /parser/);
  const want = fresh(scenarios[2], 4);
  const q = new ToolCallParser(scenarios[2].options);
  assert.deepStrictEqual(read(q, pieces(scenarios[2].input, 4)), want);
  q.free();
  // A 200 KB argument pushed at once: the input buffer grows past the pool's bound.
  const huge = new ToolCallParser("hermes");
  const events = [...huge.push(hermesCall("f", `{"s": "${"y".repeat(200_000)}"}`)), ...huge.finish()];
  assert.equal(events.filter((e) => e.type === "tool-call-end").length, 1);
  huge.free();
  const r = new ToolCallParser(scenarios[0].options);
  assert.deepStrictEqual(read(r, pieces(scenarios[0].input, 4)), fresh(scenarios[0], 4));
  r.free();
});

test("options changed in place between two parsers are read again, not taken from the pooled parser", () => {
  const options = { parser: "hermes", tools: structuredClone(tools) };
  const input = `${hermesCall("get_weather", `{"city": "Oslo"}`)}${hermesCall("get_weather", `{"days": 2}`)}`;
  const first = new ToolCallParser(options);
  const before = read(first, pieces(input, 4));
  first.free();
  options.tools[0].function.parameters.required = ["days"];
  const second = new ToolCallParser(options);
  const after = read(second, pieces(input, 4));
  second.free();
  assert.notDeepStrictEqual(after, before);
  assert.deepStrictEqual(after, fresh({ options, input }, 4));
  // The bare binding built with other options in between (the wasm's options cache moves on).
  const p = new ToolCallParser(options);
  p.free();
  const { ToolCallParser: Binding } = awaitBinding;
  const bare = new Binding('"mistral"');
  bare.free();
  const q = new ToolCallParser(options);
  assert.deepStrictEqual(read(q, pieces(input, 4)), after);
  q.free();
});

test("a parser that read more than 64 KiB is not pooled: the next parser is built from nothing", () => {
  // Kept until the end: the pool is empty meanwhile.
  const held = drainPool();
  const { ToolCallParser: Binding } = awaitBinding;
  let renewed = 0;
  const renew = Binding.prototype.renew;
  Binding.prototype.renew = function (...args) {
    renewed++;
    return renew.apply(this, args);
  };
  try {
    const big = new ToolCallParser("hermes");
    // 80 KB in 20 calls: the input buffer stays small (the quiet characters of one call wait in it).
    for (const c of pieces(hermesCall("f", `{"s": "${"y".repeat(4000)}"}`).repeat(20), 4)) big.push(c);
    big.finish();
    big.free();
    const next = new ToolCallParser("hermes");
    assert.equal(renewed, 0, "the big parser was pooled");
    // A small one is.
    next.push("Hi");
    next.free();
    new ToolCallParser("hermes").free();
    assert.equal(renewed, 1);
  } finally {
    Binding.prototype.renew = renew;
    for (const p of held) p.free();
  }
});
