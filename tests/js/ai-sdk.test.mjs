// toolwire/ai-sdk against the real `ai` package (7.x, and 6.x as `ai6`): streamText and
// generateText over the SDK's own test model (MockLanguageModelV4 / V3), which replays raw model
// text in small chunks as a server without a tool parser would send it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { streamText, generateText, wrapLanguageModel, tool, stepCountIs, jsonSchema } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import * as ai6 from "ai6";
import { MockLanguageModelV3 } from "ai6/test";
import { z } from "zod";
import { ToolCallParser, parse } from "toolwire";
import { toolwireMiddleware, toolwireMiddlewareV3, formatToolCalls, promptFormats } from "toolwire/ai-sdk";

const require = createRequire(import.meta.url);
const USAGE = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
const STOP = { unified: "stop", raw: "stop" };

/** `text` in chunks of `size` characters (code points kept whole). */
function chunked(text, size) {
  const chars = [...text];
  const out = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

/**
 * A model stream as an OpenAI-compatible provider gives it for raw text: one text block, then
 * finish. Parts are produced on pull, one at a time; `log.pulled` counts them.
 */
function rawStream(text, { size = 3, finish = STOP, before = [], after = [], log = {} } = {}) {
  const parts = [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", id: "chatcmpl-1", modelId: "m" },
    ...before,
    { type: "text-start", id: "txt-0" },
    ...chunked(text, size).map((delta) => ({ type: "text-delta", id: "txt-0", delta })),
    { type: "text-end", id: "txt-0" },
    ...after,
    { type: "finish", usage: USAGE, finishReason: finish },
  ];
  log.pulled = 0;
  log.total = parts.length;
  return new ReadableStream({
    pull(c) {
      if (log.pulled >= parts.length) return c.close();
      c.enqueue(parts[log.pulled++]);
    },
  }, { highWaterMark: 0 });
}

/** A test model whose successive calls reply with `texts` (streamed raw, or as one text part). */
function textModel(modelId, texts, options = {}) {
  const Mock = options.Mock ?? MockLanguageModelV4;
  let s = 0;
  let g = 0;
  return new Mock({
    modelId,
    doStream: async () => ({ stream: rawStream(texts[Math.min(s++, texts.length - 1)], options) }),
    doGenerate: async () => ({
      content: [{ type: "text", text: texts[Math.min(g++, texts.length - 1)] }],
      finishReason: options.finish ?? STOP,
      usage: USAGE,
      warnings: [],
    }),
  });
}

function weatherTools(calls) {
  return {
    get_weather: tool({
      description: "Weather forecast for a city",
      inputSchema: z.object({ city: z.string(), days: z.number().int().optional() }),
      execute: async (input) => {
        calls.push(input);
        return `sunny in ${input.city}`;
      },
    }),
  };
}

async function collect(stream) {
  const parts = [];
  for await (const p of stream) parts.push(p);
  return parts;
}

// Raw text as each family's models write it, calling get_weather({city: "Paris", days: 3}).
const FAMILIES = [
  { parser: "hermes", model: "NousResearch/Hermes-3-Llama-3.1-8B", text: 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>', content: "Let me check.\n" },
  { parser: "qwen3_coder", model: "Qwen/Qwen3-Coder-30B-A3B-Instruct", text: "I'll look it up.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>", content: "I'll look it up.\n" },
  { parser: "mistral", model: "mistralai/Mistral-Small-3.2-24B-Instruct-2506", text: 'Checking.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "days": 3}', content: "Checking." },
  { parser: "openai", model: "openai/gpt-oss-20b", text: '<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris","days":3}<|call|>', content: "", reasoning: "Need the weather." },
  { parser: "gemma4", model: "google/gemma-4-31b-it", text: 'Sure.<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>', content: "Sure." },
];
const ANSWER = "It is sunny in Paris.";

for (const f of FAMILIES) {
  test(`streamText, ${f.parser}: the tool runs with the right input, a second step follows, arguments stream`, async () => {
    const calls = [];
    const model = textModel(f.model, [f.text, ANSWER], { size: 3 });
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: toolwireMiddleware() }), // parser "auto": from the model id
      prompt: "Weather in Paris for 3 days?",
      tools: weatherTools(calls),
      stopWhen: stepCountIs(2),
    });
    const parts = await collect(result.fullStream);
    assert.deepEqual(calls, [{ city: "Paris", days: 3 }]);
    const steps = await result.steps;
    assert.equal(steps.length, 2);
    assert.equal(steps[0].finishReason, "tool-calls");
    assert.deepEqual(steps[0].toolCalls.map((c) => [c.toolName, c.input]), [["get_weather", { city: "Paris", days: 3 }]]);
    assert.deepEqual(steps[0].toolResults.map((r) => r.output), ["sunny in Paris"]);
    assert.equal(steps[0].text, f.content);
    assert.equal(steps[0].reasoningText, f.reasoning);
    assert.equal(await result.text, ANSWER);
    // The second model call saw the tool result.
    const prompt = model.doStreamCalls[1].prompt;
    const toolMessage = prompt.find((m) => m.role === "tool");
    assert.equal(toolMessage.content[0].toolCallId, steps[0].toolCalls[0].toolCallId);
    // Arguments streamed: several deltas, before the call ends, concatenating to the input.
    const id = steps[0].toolCalls[0].toolCallId;
    const deltas = parts.filter((p) => p.type === "tool-input-delta" && p.id === id);
    assert.ok(deltas.length >= 2, `${deltas.length} tool-input-delta parts`);
    const at = (type) => parts.findIndex((p) => p.type === type && (p.id ?? p.toolCallId) === id);
    assert.ok(at("tool-input-start") < parts.indexOf(deltas[0]) && parts.indexOf(deltas.at(-1)) < at("tool-input-end") && at("tool-input-end") < at("tool-call"));
    assert.deepEqual(JSON.parse(deltas.map((d) => d.delta).join("")), { city: "Paris", days: 3 });
  });

  test(`generateText, ${f.parser}: the tool runs, toolCalls/toolResults, a second step`, async () => {
    const calls = [];
    const model = textModel(f.model, [f.text, ANSWER]);
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: toolwireMiddleware({ parser: f.parser }) }),
      prompt: "Weather in Paris for 3 days?",
      tools: weatherTools(calls),
      stopWhen: stepCountIs(2),
    });
    assert.deepEqual(calls, [{ city: "Paris", days: 3 }]);
    assert.equal(result.steps.length, 2);
    const [first] = result.steps;
    assert.equal(first.finishReason, "tool-calls");
    assert.deepEqual(first.toolCalls.map((c) => [c.toolName, c.input]), [["get_weather", { city: "Paris", days: 3 }]]);
    assert.deepEqual(first.toolResults.map((r) => r.output), ["sunny in Paris"]);
    assert.equal(first.text, f.content);
    assert.equal(first.reasoningText, f.reasoning);
    assert.equal(result.text, ANSWER);
    assert.ok(model.doGenerateCalls[1].prompt.some((m) => m.role === "tool"));
  });
}

test("streamText: arguments are streamed as the model writes them, not buffered to the end", async () => {
  const city = "Llanfairpwllgwyngyll".repeat(10);
  const text = `<tool_call>{"name": "get_weather", "arguments": {"city": "${city}"}}</tool_call>`;
  const log = {};
  const model = new MockLanguageModelV4({ modelId: "hermes", doStream: async () => ({ stream: rawStream(text, { size: 4, log }) }) });
  const result = streamText({ model: wrapLanguageModel({ model, middleware: toolwireMiddleware("hermes") }), prompt: "x", tools: weatherTools([]) });
  let firstDeltaAt = null;
  let deltas = 0;
  for await (const p of result.fullStream) {
    if (p.type === "tool-input-delta") {
      deltas++;
      firstDeltaAt ??= log.pulled;
    }
  }
  assert.ok(deltas > 10, `${deltas} deltas`);
  // When the first delta reached the consumer, most of the upstream was not read yet.
  assert.ok(firstDeltaAt < log.total / 2, `first delta after ${firstDeltaAt} of ${log.total} upstream parts`);
});

test("parallel calls with text before, between and after: blocks closed before each call, order kept", async () => {
  const calls = [];
  const text = 'First Paris.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>Then Rome.<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>Done.';
  const model = textModel("m", [text], { size: 5 });
  const result = streamText({ model: wrapLanguageModel({ model, middleware: toolwireMiddleware("hermes") }), prompt: "x", tools: weatherTools(calls) });
  const parts = await collect(result.fullStream);
  assert.deepEqual(calls, [{ city: "Paris" }, { city: "Rome" }]);
  const toolCalls = await result.toolCalls;
  assert.equal(new Set(toolCalls.map((c) => c.toolCallId)).size, 2, "distinct ids");
  // The sequence of blocks, with adjacent text deltas merged.
  const seq = [];
  for (const p of parts) {
    if (p.type === "text-delta" && seq.at(-1)?.[0] === "text" && seq.at(-1)[1] === p.id) seq.at(-1)[2] += p.text;
    else if (p.type === "text-delta") seq.push(["text", p.id, p.text]);
    else if (["text-start", "text-end", "tool-input-start", "tool-input-end", "tool-call"].includes(p.type)) seq.push([p.type]);
  }
  assert.deepEqual(seq.map((s) => s[0] === "text" ? `text:${s[2]}` : s[0]), [
    "text-start", "text:First Paris.", "text-end", "tool-input-start", "tool-input-end", "tool-call",
    "text-start", "text:Then Rome.", "text-end", "tool-input-start", "tool-input-end", "tool-call",
    "text-start", "text:Done.", "text-end",
  ]);
  assert.equal(new Set(seq.filter((s) => s[0] === "text").map((s) => s[1])).size, 3, "a fresh text id per block");
  assert.equal(await result.finishReason, "tool-calls");
});

test("reasoning (qwen3 reasoning parser): reasoning parts, then text, then the call", async () => {
  const calls = [];
  const text = '<think>The user wants Paris.</think>Checking.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
  const model = textModel("Qwen/Qwen3-8B", [text], { size: 4 });
  const result = streamText({ model: wrapLanguageModel({ model, middleware: toolwireMiddleware({ reasoning: "qwen3" }) }), prompt: "x", tools: weatherTools(calls) });
  const parts = await collect(result.fullStream);
  assert.equal(await result.reasoningText, "The user wants Paris.");
  assert.equal(await result.text, "Checking.");
  assert.deepEqual(calls, [{ city: "Paris" }]);
  const types = parts.map((p) => p.type).filter((t) => /^(reasoning|text)-(start|end)$|^tool-call$/.test(t));
  assert.deepEqual(types, ["reasoning-start", "reasoning-end", "text-start", "text-end", "tool-call"]);
  // The same with generateText: ordered content parts.
  const g = await generateText({ model: wrapLanguageModel({ model: textModel("Qwen/Qwen3-8B", [text]), middleware: toolwireMiddleware({ reasoning: "qwen3" }) }), prompt: "x", tools: weatherTools([]) });
  assert.deepEqual(g.content.map((p) => p.type), ["reasoning", "text", "tool-call", "tool-result"]);
  assert.equal(g.reasoningText, "The user wants Paris.");
});

test("a truncated call reaches the SDK as an invalid tool call (not run, not a crash); recoverTruncated keeps it", async () => {
  const text = 'On it.<tool_call>{"name": "get_weather", "arguments": {"city": "Par';
  const diagnostics = [];
  const calls = [];
  const model = textModel("m", [text], { size: 3 });
  const result = streamText({
    model: wrapLanguageModel({ model, middleware: toolwireMiddleware({ parser: "hermes", onDiagnostic: (d) => diagnostics.push(d) }) }),
    prompt: "x",
    tools: weatherTools(calls),
  });
  const parts = await collect(result.fullStream);
  assert.deepEqual(calls, [], "not executed");
  const call = parts.find((p) => p.type === "tool-call");
  assert.equal(call.invalid, true);
  assert.equal(call.input, '{"city": "Par', "the input as the model wrote it");
  const error = parts.find((p) => p.type === "tool-error");
  assert.equal(error.toolCallId, call.toolCallId);
  assert.match(String(error.error?.message ?? error.error), /Invalid input for tool get_weather/);
  // The deltas sent equal the input: the parser's own closing is not streamed for this call.
  assert.equal(parts.filter((p) => p.type === "tool-input-delta").map((p) => p.delta).join(""), '{"city": "Par');
  assert.deepEqual(diagnostics.map((d) => [d.label, d.toolName, d.toolCallId]), [["truncation", "get_weather", call.toolCallId]]);
  assert.equal(await result.text, "On it.");

  const kept = [];
  const r2 = streamText({ model: wrapLanguageModel({ model: textModel("m", [text]), middleware: toolwireMiddleware({ parser: "hermes", recoverTruncated: true }) }), prompt: "x", tools: weatherTools(kept) });
  await collect(r2.fullStream);
  assert.deepEqual(kept, [{ city: "Par" }]);
  // generateText: the same invalid call in content, no result.
  const g = await generateText({ model: wrapLanguageModel({ model: textModel("m", [text]), middleware: toolwireMiddleware("hermes") }), prompt: "x", tools: weatherTools(calls) });
  const invalid = g.content.find((p) => p.type === "tool-call");
  assert.equal(invalid.invalid, true);
  assert.equal(invalid.input, '{"city": "Par');
  assert.deepEqual(calls, []);
});

test("the family's recovery default decides, as the end event's kept says: Gemma 4 keeps a cut-off call, Hermes does not", async () => {
  const calls = [];
  const gemma = '<|tool_call>call:get_weather{city:<|"|>Lon';
  const g = await generateText({ model: wrapLanguageModel({ model: textModel("m", [gemma]), middleware: toolwireMiddleware("gemma4") }), prompt: "x", tools: weatherTools(calls) });
  assert.deepEqual(g.toolCalls.map((c) => c.input), [{ city: "Lon" }], "kept by the family default, as parse() does");
  assert.deepEqual(parse(gemma, "gemma4").toolCalls.map((c) => JSON.parse(c.arguments)), [{ city: "Lon" }]);
  assert.deepEqual(calls, [{ city: "Lon" }]);
  const streamed = [];
  await collect(streamText({ model: wrapLanguageModel({ model: textModel("m", [gemma], { size: 2 }), middleware: toolwireMiddleware("gemma4") }), prompt: "x", tools: weatherTools(streamed) }).fullStream);
  assert.deepEqual(streamed, [{ city: "Lon" }]);
  const strict = await generateText({ model: wrapLanguageModel({ model: textModel("m", [gemma]), middleware: toolwireMiddleware({ parser: "gemma4", recover: false }) }), prompt: "x", tools: weatherTools([]) });
  assert.equal(strict.content.find((p) => p.type === "tool-call").invalid, true);
});

test("malformed arguments: an invalid tool call by default, a call under policy lenient", async () => {
  const text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"</tool_call>';
  const calls = [];
  const g = await generateText({ model: wrapLanguageModel({ model: textModel("m", [text]), middleware: toolwireMiddleware("hermes") }), prompt: "x", tools: weatherTools(calls) });
  const call = g.content.find((p) => p.type === "tool-call");
  assert.equal(call.invalid, true);
  assert.equal(call.input, '{"city": "Paris"');
  const lenient = await generateText({ model: wrapLanguageModel({ model: textModel("m", [text]), middleware: toolwireMiddleware({ parser: "hermes", policy: "lenient" }) }), prompt: "x", tools: weatherTools(calls) });
  assert.deepEqual(lenient.toolCalls.map((c) => c.input), [{ city: "Paris" }]);
  assert.deepEqual(calls, [{ city: "Paris" }]);
});

test("an unknown tool name: the SDK's NoSuchToolError path, a wrong_tool diagnostic", async () => {
  const diagnostics = [];
  const calls = [];
  const text = 'Hmm.<tool_call>{"name": "get_time", "arguments": {"zone": "CET"}}</tool_call>';
  const result = streamText({
    model: wrapLanguageModel({ model: textModel("m", [text]), middleware: toolwireMiddleware({ parser: "hermes", onDiagnostic: (d) => diagnostics.push(d) }) }),
    prompt: "x",
    tools: weatherTools(calls),
  });
  const parts = await collect(result.fullStream);
  const error = parts.find((p) => p.type === "tool-error");
  assert.equal(error.toolName, "get_time");
  assert.match(String(error.error?.message ?? error.error), /get_time/);
  assert.deepEqual(calls, []);
  assert.deepEqual(diagnostics.map((d) => d.label), ["wrong_tool"]);
  assert.match(diagnostics[0].message, /get_weather/, "names the declared tools");
});

test("tool schemas from the call coerce arguments (Qwen3-Coder values are text)", async () => {
  const seen = [];
  const tools = {
    plan: tool({
      inputSchema: jsonSchema({ type: "object", properties: { steps: { type: "integer" }, dry: { type: "boolean" }, tags: { type: "array", items: { type: "string" } } }, required: ["steps"] }),
      execute: async (input) => (seen.push(input), "ok"),
    }),
  };
  const text = '<tool_call>\n<function=plan>\n<parameter=steps>\n4\n</parameter>\n<parameter=dry>\ntrue\n</parameter>\n<parameter=tags>\n["a", "b"]\n</parameter>\n</function>\n</tool_call>';
  const result = streamText({ model: wrapLanguageModel({ model: textModel("m", [text], { size: 2 }), middleware: toolwireMiddleware("qwen3_coder") }), prompt: "x", tools });
  await collect(result.fullStream);
  assert.deepEqual(seen, [{ steps: 4, dry: true, tags: ["a", "b"] }]);
});

test("a model that already sends structured tool calls: passed through untouched, no double calls", async () => {
  const calls = [];
  const native = [
    { type: "tool-input-start", id: "call_native", toolName: "get_weather" },
    { type: "tool-input-delta", id: "call_native", delta: '{"city":"Oslo"}' },
    { type: "tool-input-end", id: "call_native" },
    { type: "tool-call", toolCallId: "call_native", toolName: "get_weather", input: '{"city":"Oslo"}' },
  ];
  const model = new MockLanguageModelV4({
    doStream: async () => ({ stream: rawStream("Calling the tool.", { after: native, finish: { unified: "tool-calls", raw: "tool_calls" } }) }),
  });
  const result = streamText({ model: wrapLanguageModel({ model, middleware: toolwireMiddleware("hermes") }), prompt: "x", tools: weatherTools(calls) });
  const parts = await collect(result.fullStream);
  assert.deepEqual(calls, [{ city: "Oslo" }]);
  assert.deepEqual(parts.filter((p) => p.type === "tool-call").map((p) => p.toolCallId), ["call_native"]);
  assert.equal(await result.text, "Calling the tool.");
  // The model's own parts reach the SDK as they were.
  const { stream } = await wrapLanguageModel({ model, middleware: toolwireMiddleware("hermes") }).doStream({ prompt: [] });
  const raw = await collect(stream);
  for (const p of native) assert.ok(raw.some((q) => JSON.stringify(q) === JSON.stringify(p)), p.type);
  assert.deepEqual(raw.filter((p) => p.type === "finish")[0].finishReason, { unified: "tool-calls", raw: "tool_calls" });
});

test("other parts pass through unchanged and in order; finish becomes tool-calls only with calls", async () => {
  const extra = { type: "raw", rawValue: { any: 1 } };
  const model = new MockLanguageModelV4({ doStream: async () => ({ stream: rawStream("just text", { before: [extra] }) }) });
  const { stream } = await wrapLanguageModel({ model, middleware: toolwireMiddleware("hermes") }).doStream({ prompt: [] });
  const parts = await collect(stream);
  assert.deepEqual(parts.map((p) => p.type), ["stream-start", "response-metadata", "raw", "text-start", "text-delta", "text-delta", "text-delta", "text-end", "finish"]);
  assert.deepEqual(parts[2], extra);
  assert.deepEqual(parts.at(-1).finishReason, STOP);
  // `length` stays `length` even with a call (the SDK then runs no tools).
  const cut = new MockLanguageModelV4({ doStream: async () => ({ stream: rawStream('<tool_call>{"name": "f", "arguments": {}}</tool_call>', { finish: { unified: "length", raw: "length" } }) }) });
  const out = await collect((await wrapLanguageModel({ model: cut, middleware: toolwireMiddleware("hermes") }).doStream({ prompt: [] })).stream);
  assert.deepEqual(out.at(-1).finishReason, { unified: "length", raw: "length" });
});

test("call ids are unique across the steps of a run", async () => {
  const text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
  const result = await generateText({ model: wrapLanguageModel({ model: textModel("m", [text, text, ANSWER]), middleware: toolwireMiddleware("hermes") }), prompt: "x", tools: weatherTools([]), stopWhen: stepCountIs(3) });
  const ids = result.steps.flatMap((s) => s.toolCalls.map((c) => c.toolCallId));
  assert.equal(ids.length, 2);
  assert.notEqual(ids[0], ids[1]);
  // idPrefix, when given, is used as is.
  const own = await generateText({ model: wrapLanguageModel({ model: textModel("m", [text]), middleware: toolwireMiddleware({ parser: "hermes", idPrefix: "tw_" }) }), prompt: "x", tools: weatherTools([]) });
  assert.equal(own.toolCalls[0].toolCallId, "tw_0");
});

test("the parser is freed when the stream finishes, errors or is cancelled", async () => {
  const orig = ToolCallParser.prototype.free;
  let frees = 0;
  ToolCallParser.prototype.free = function () {
    frees++;
    return orig.call(this);
  };
  try {
    const mw = toolwireMiddleware("hermes");
    const wrap = (doStream) => wrapLanguageModel({ model: new MockLanguageModelV4({ doStream }), middleware: mw });
    // finish
    frees = 0;
    await collect((await wrap(async () => ({ stream: rawStream("<tool_call>{") })).doStream({ prompt: [] })).stream);
    assert.equal(frees, 1, "after finish");
    // error in the upstream stream
    frees = 0;
    const failing = new ReadableStream({
      start(c) {
        c.enqueue({ type: "text-start", id: "0" });
        c.enqueue({ type: "text-delta", id: "0", delta: "<tool_call>" });
        c.error(new Error("connection reset"));
      },
    });
    const { stream } = await wrap(async () => ({ stream: failing })).doStream({ prompt: [] });
    await assert.rejects(collect(stream), /connection reset/);
    assert.equal(frees, 1, "after an upstream error");
    // cancel
    frees = 0;
    const endless = new ReadableStream({ pull: (c) => c.enqueue({ type: "text-delta", id: "0", delta: "a" }) });
    const reader = (await wrap(async () => ({ stream: endless })).doStream({ prompt: [] })).stream.getReader();
    await reader.read();
    await reader.cancel();
    assert.equal(frees, 1, "after cancel");
    // doStream itself fails
    frees = 0;
    await assert.rejects(wrap(async () => { throw new Error("503"); }).doStream({ prompt: [] }), /503/);
    assert.equal(frees, 1, "after a failed doStream");
  } finally {
    ToolCallParser.prototype.free = orig;
  }
});

test("options: bad values throw when the middleware is made, naming what is valid", () => {
  assert.throws(() => toolwireMiddleware({ parser: "nope" }), (e) => e instanceof Error && /unknown parser `nope`/.test(e.message) && /hermes/.test(e.message));
  assert.throws(() => toolwireMiddleware({ tools: [] }), (e) => e instanceof TypeError && /tools come from each call/.test(e.message));
  assert.throws(() => toolwireMiddleware({ onDiagnostic: "log" }), TypeError);
  assert.throws(() => toolwireMiddleware({ promptTools: "yes" }), TypeError);
  assert.throws(() => toolwireMiddleware(5), TypeError);
  assert.throws(() => toolwireMiddleware({ parser: "hermes", policy: "loose" }), /policy/);
  assert.equal(toolwireMiddleware().specificationVersion, "v4");
  assert.equal(toolwireMiddlewareV3().specificationVersion, "v3");
  assert.equal(toolwireMiddleware().transformParams, undefined, "promptTools is off by default");
});

test("CommonJS: require('toolwire/ai-sdk')", () => {
  const cjs = require("toolwire/ai-sdk");
  assert.equal(typeof cjs.toolwireMiddleware, "function");
  assert.equal(cjs.toolwireMiddleware("hermes").specificationVersion, "v4");
});

test("AI SDK 6 (LanguageModelV3Middleware): streamText and generateText", async () => {
  const calls = [];
  const tools = {
    get_weather: ai6.tool({ inputSchema: z.object({ city: z.string() }), execute: async (i) => (calls.push(i), "sunny") }),
  };
  const text = 'Sure.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
  const s = ai6.streamText({
    model: ai6.wrapLanguageModel({ model: textModel("m", [text, ANSWER], { Mock: MockLanguageModelV3 }), middleware: toolwireMiddlewareV3("hermes") }),
    prompt: "x",
    tools,
    stopWhen: ai6.stepCountIs(2),
  });
  const parts = await collect(s.fullStream);
  assert.ok(parts.some((p) => p.type === "tool-input-delta"));
  assert.equal((await s.steps).length, 2);
  assert.equal(await s.text, ANSWER);
  const g = await ai6.generateText({ model: ai6.wrapLanguageModel({ model: textModel("m", [text], { Mock: MockLanguageModelV3 }), middleware: toolwireMiddlewareV3("hermes") }), prompt: "x", tools });
  assert.deepEqual(g.toolCalls.map((c) => c.input), [{ city: "Paris" }]);
  assert.equal(g.finishReason, "tool-calls");
  assert.deepEqual(calls, [{ city: "Paris" }, { city: "Paris" }]);
});

// ---- promptTools

const SAMPLE_ARGS = [
  { city: "Paris", days: 3 },
  { query: 'say "hi"\nthen \\ leave', limit: 2.5, exact: false, tags: ["a", "b c"], filter: { lang: "fr", min: -1 } },
  {},
];
const SAMPLE_TOOLS = [
  { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } } } } },
  { type: "function", function: { name: "search", parameters: { type: "object", properties: { query: { type: "string" }, limit: { type: "number" }, exact: { type: "boolean" }, tags: { type: "array", items: { type: "string" } }, filter: { type: "object", properties: { lang: { type: "string" }, min: { type: "integer" } } } } } } },
  { type: "function", function: { name: "now", parameters: { type: "object", properties: {} } } },
];

test("promptTools formats: every family's rendered calls parse back to the same calls", () => {
  assert.ok(promptFormats.length >= 6);
  for (const parser of promptFormats) {
    const calls = [
      { name: "get_weather", args: SAMPLE_ARGS[0] },
      { name: "search", args: SAMPLE_ARGS[1] },
      { name: "now", args: SAMPLE_ARGS[2] },
    ];
    for (const set of [calls.slice(0, 1), calls]) {
      const text = formatToolCalls(parser, set);
      const r = parse(text, { parser, tools: SAMPLE_TOOLS });
      assert.deepEqual(r.toolCalls.map((c) => ({ name: c.name, args: JSON.parse(c.arguments) })), set, `${parser}: ${text}`);
      assert.deepEqual(r.diagnostics, [], `${parser}: ${text}`);
    }
  }
  assert.throws(() => formatToolCalls("kimi_k2", []), /no call format for parser `kimi_k2`.*hermes/);
});

test("promptTools: the tools and the call format go into the system prompt; history becomes text; a plain model calls tools", async () => {
  const calls = [];
  // A plain text model: answers with a call in the format the prompt shows, then with text.
  const model = textModel("some-base-model", ['<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>', ANSWER], { size: 4 });
  const result = streamText({
    model: wrapLanguageModel({ model, middleware: toolwireMiddleware({ parser: "hermes", promptTools: true }) }),
    system: "You are terse.",
    prompt: "Weather in Paris?",
    tools: weatherTools(calls),
    stopWhen: stepCountIs(2),
  });
  await collect(result.fullStream);
  assert.deepEqual(calls, [{ city: "Paris", days: 3 }]);
  assert.equal(await result.text, ANSWER);
  const [first, second] = model.doStreamCalls;
  assert.equal(first.tools, undefined, "no tools sent to a model without tool support");
  assert.equal(first.toolChoice, undefined);
  assert.equal(first.prompt[0].role, "system");
  assert.match(first.prompt[0].content, /^You are terse\.\n\n/);
  assert.match(first.prompt[0].content, /"name":"get_weather"/);
  // The sample call fills the required parameters; the schema (without `$schema`) lists the rest.
  assert.match(first.prompt[0].content, /<tool_call>\n\{"name":"get_weather","arguments":\{"city":"\.\.\."\}\}\n<\/tool_call>/);
  assert.doesNotMatch(first.prompt[0].content, /\$schema/);
  // Step 2: the call is assistant text in the family's format, the result a user message.
  assert.deepEqual(second.prompt.map((m) => m.role), ["system", "user", "assistant", "user"]);
  assert.match(second.prompt[2].content.map((p) => p.text).join(""), /<tool_call>\n\{"name":"get_weather","arguments":\{"city":"Paris","days":3\}\}\n<\/tool_call>/);
  assert.equal(second.prompt[3].content.map((p) => p.text).join(""), "<tool_response>\nsunny in Paris\n</tool_response>");
  assert.ok(second.prompt.every((m) => m.role !== "tool"));
});

test("promptTools: toolChoice, provider tools, and a family without a format", async () => {
  const mw = toolwireMiddleware({ parser: "qwen3_coder", promptTools: true });
  const model = new MockLanguageModelV4();
  const fn = { type: "function", name: "get_weather", inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
  const provider = { type: "provider", id: "x.web_search", name: "web_search", args: {} };
  const prompt = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
  const required = await mw.transformParams({ type: "stream", model, params: { prompt, tools: [fn, provider], toolChoice: { type: "tool", toolName: "get_weather" } } });
  assert.deepEqual(required.tools, [provider], "provider tools stay for the provider");
  assert.match(required.prompt[0].content, /You must call the tool `get_weather`/);
  assert.match(required.prompt[0].content, /<function=get_weather>\n<parameter=city>\n\.\.\.\n<\/parameter>/);
  const none = await mw.transformParams({ type: "stream", model, params: { prompt, tools: [fn], toolChoice: { type: "none" } } });
  assert.equal(none.tools, undefined);
  assert.deepEqual(none.prompt, prompt, "no prompt under toolChoice none");
  const noTools = { prompt };
  assert.equal(await mw.transformParams({ type: "stream", model, params: noTools }), noTools);
  const kimi = toolwireMiddleware({ parser: "kimi_k2", promptTools: true });
  await assert.rejects(kimi.transformParams({ type: "stream", model, params: { prompt, tools: [fn] } }), /no call format for parser `kimi_k2`/);
});
