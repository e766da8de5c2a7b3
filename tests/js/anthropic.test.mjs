// toolwire/anthropic (issue 17): the fixtures of tests/fixtures/anthropic/*.json, one case per
// file, by kind:
//   request        `toOpenAIRequest(input, options)` equals `expect`
//   request-error  it throws an AnthropicError of `expect.status`/`type` whose message starts
//                  with `expect.messagePrefix` (the offending block's index first)
//   roundtrip      `toAnthropicMessage(completion)` and the message a client accumulates from
//                  `AnthropicSseStream(upstream)` both equal `expect` (same toolu_ ids)
//   stream         the Anthropic events (and toolwire comments) equal `expect`
// Streams run whole and in 1-, 5- and 17-byte slices: the output must not depend on chunking.
// `upstream` entries are chunk objects (written as `data: JSON`) or raw lines (`[DONE]`,
// `: comment`). UPDATE_EXPECT=1 rewrites `expect` from the actual output: review every change.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import {
  toOpenAIRequest, toAnthropicMessage, AnthropicSseStream, AnthropicError, toAnthropicToolId, toOpenAIToolCallId,
  errorTypeFor, mapModel, estimateInputTokens,
} from "toolwire/anthropic";
import { readEvents } from "./support/sse-client.mjs";

const require = createRequire(import.meta.url);
const DIR = new URL("../fixtures/anthropic/", import.meta.url);
const UPDATE = process.env.UPDATE_EXPECT === "1";
const fixtures = readdirSync(DIR).filter((f) => f.endsWith(".json")).sort().map((file) => ({ file, ...JSON.parse(readFileSync(new URL(file, DIR), "utf8")) }));

function bless(fixture, key, value) {
  const { file, ...rest } = fixture;
  rest[key] = value;
  writeFileSync(new URL(file, DIR), JSON.stringify(rest, null, 2) + "\n");
}

/** The upstream SSE text of a fixture. */
function upstreamText(entries) {
  return entries.map((e) => (typeof e === "string" ? (e.startsWith(":") ? `${e}\n\n` : `data: ${e}\n\n`) : `data: ${JSON.stringify(e)}\n\n`)).join("");
}

/** Runs `bytes` through an AnthropicSseStream in slices of `size` (0 = whole). */
async function runStream(bytes, options, size) {
  const diagnostics = [];
  const stream = new AnthropicSseStream({ ...options, onDiagnostic: (d) => diagnostics.push(d.label) });
  const source = new ReadableStream({
    start(c) {
      const step = size || bytes.length || 1;
      for (let i = 0; i < bytes.length; i += step) c.enqueue(bytes.slice(i, i + step));
      c.close();
    },
  });
  const out = [];
  const reader = source.pipeThrough(stream).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    out.push(...value);
  }
  return { text: new TextDecoder().decode(new Uint8Array(out)), diagnostics };
}

/** The Anthropic events of a stream, checked the way the SDK reads them: named events, data type = event name. */
function anthropicEvents(text) {
  const { events, comments } = readEvents(new TextEncoder().encode(text));
  return {
    events: events.map(({ kind, data }) => {
      assert.notEqual(kind, null, `every event is named (the SDK skips data-only frames): ${data}`);
      const parsed = JSON.parse(data);
      assert.equal(parsed.type, kind, "the data's type repeats the event name");
      return parsed;
    }),
    comments: comments.filter((c) => c.startsWith(" toolwire ")).map((c) => c.slice(1)),
  };
}

/** The delta text field of each mergeable `content_block_delta` type. */
const DELTA_TEXT = { text_delta: "text", thinking_delta: "thinking", input_json_delta: "partial_json" };

/**
 * The events of an Anthropic stream (as `anthropicEvents` reads them, with comments) with
 * neighbouring deltas of one block and type joined: deltas that arrive in one upstream chunk
 * may come as one event, so outputs of any chunking agree once they are joined.
 */
function joinedDeltas(text) {
  const { events, comments } = anthropicEvents(text);
  const out = [];
  for (const e of events) {
    const last = out.at(-1);
    const key = e.type === "content_block_delta" ? DELTA_TEXT[e.delta.type] : undefined;
    if (key && last?.type === "content_block_delta" && last.index === e.index && last.delta.type === e.delta.type) {
      last.delta = { ...last.delta, [key]: last.delta[key] + e.delta[key] };
      continue;
    }
    out.push(e);
  }
  return { events: out, comments };
}

/**
 * A message accumulated from events as @anthropic-ai/sdk's MessageStream does (written from its
 * documented behaviour), checking the block protocol: indices 0, 1, 2 in start order, deltas
 * only for the open block, one signature per thinking block, message_delta then message_stop.
 */
function accumulate(events) {
  let message = null;
  let open = null;
  const inputs = [];
  let stopped = false;
  for (const e of events) {
    assert.ok(!stopped, "nothing after message_stop");
    switch (e.type) {
      case "message_start":
        assert.equal(message, null, "one message_start");
        message = structuredClone(e.message);
        assert.deepEqual(message.content, []);
        assert.equal(message.stop_reason, null);
        break;
      case "content_block_start":
        assert.equal(open, null, "a block starts after the previous one stopped");
        assert.equal(e.index, message.content.length, "indices in start order, no gaps");
        message.content.push(structuredClone(e.content_block));
        inputs.push("");
        open = e.index;
        break;
      case "content_block_delta": {
        assert.equal(e.index, open, "deltas address the open block");
        const b = message.content[e.index];
        const d = e.delta;
        if (d.type === "text_delta") b.text += d.text;
        else if (d.type === "thinking_delta") b.thinking += d.thinking;
        else if (d.type === "signature_delta") b.signature = d.signature;
        else if (d.type === "input_json_delta") inputs[e.index] += d.partial_json;
        else assert.fail(`unknown delta ${d.type}`);
        break;
      }
      case "content_block_stop": {
        assert.equal(e.index, open);
        const b = message.content[e.index];
        if (b.type === "tool_use") b.input = inputs[e.index] === "" ? {} : JSON.parse(inputs[e.index]);
        if (b.type === "thinking") assert.ok(b.signature, "a thinking block has a signature");
        if (b.type === "text") assert.notEqual(b.text, "", "no empty text block (bridges P10)");
        open = null;
        break;
      }
      case "message_delta":
        assert.equal(open, null);
        message.stop_reason = e.delta.stop_reason;
        message.stop_sequence = e.delta.stop_sequence;
        assert.equal(typeof e.usage.output_tokens, "number", "message_delta always carries usage");
        message.usage = { ...message.usage, ...Object.fromEntries(Object.entries(e.usage).filter(([, v]) => v != null)) };
        break;
      case "message_stop":
        assert.notEqual(message.stop_reason, null);
        stopped = true;
        break;
      case "ping":
      case "error":
        break;
      default:
        assert.fail(`unknown event ${e.type}`);
    }
  }
  // The non-streaming form carries `citations: null` on text blocks as the API does.
  if (message) for (const b of message.content) if (b.type === "text") b.citations = null;
  return { message, stopped };
}

for (const f of fixtures) {
  test(`${f.file}: ${f.description}`, async () => {
    switch (f.kind) {
      case "request": {
        const got = toOpenAIRequest(f.input, f.options);
        if (UPDATE) return bless(f, "expect", got);
        assert.deepEqual(got, f.expect);
        assert.deepEqual(toOpenAIRequest(JSON.parse(JSON.stringify(f.input)), f.options), got, "deterministic");
        return;
      }
      case "request-error": {
        let error;
        try {
          toOpenAIRequest(f.input, f.options);
        } catch (e) {
          error = e;
        }
        assert.ok(error instanceof AnthropicError, `an AnthropicError, got ${error}`);
        assert.equal(error.status, f.expect.status);
        assert.equal(error.type, f.expect.type);
        assert.ok(error.message.startsWith(f.expect.messagePrefix), `message: ${error.message}`);
        assert.deepEqual(error.body, { type: "error", error: { type: f.expect.type, message: error.message } });
        return;
      }
      case "roundtrip": {
        const diagnostics = [];
        const whole = toAnthropicMessage(f.completion, { ...f.options, onDiagnostic: (d) => diagnostics.push(d.label) });
        const bytes = new TextEncoder().encode(upstreamText(f.upstream));
        const streamed = await runStream(bytes, f.options, 0);
        const { events } = anthropicEvents(streamed.text);
        const { message, stopped } = accumulate(events);
        assert.ok(stopped, "the stream ends with message_stop");
        if (UPDATE) return bless(f, "expect", whole);
        assert.deepEqual(whole, f.expect, "non-streaming");
        assert.deepEqual(message, f.expect, "streaming: the accumulated message equals the non-streaming one");
        assert.deepEqual(diagnostics, f.diagnostics ?? [], "diagnostics (non-streaming)");
        assert.deepEqual(streamed.diagnostics, f.diagnostics ?? [], "diagnostics (streaming)");
        for (const size of [1, 5, 17]) assert.deepEqual(joinedDeltas((await runStream(bytes, f.options, size)).text), joinedDeltas(streamed.text), `slices of ${size} bytes`);
        return;
      }
      case "stream": {
        const bytes = new TextEncoder().encode(upstreamText(f.upstream));
        const whole = await runStream(bytes, f.options, 0);
        const got = anthropicEvents(whole.text);
        if (UPDATE) return bless(f, "expect", got);
        assert.deepEqual(got, f.expect);
        accumulate(got.events.filter((e) => e.type !== "error"));
        for (const size of [1, 5, 17]) assert.deepEqual(joinedDeltas((await runStream(bytes, f.options, size)).text), joinedDeltas(whole.text), `slices of ${size} bytes`);
        return;
      }
      default:
        assert.fail(`unknown fixture kind ${f.kind}`);
    }
  });
}

test("tool ids: toolu_ form is reversible and in Anthropic's charset", () => {
  for (const id of ["call_abc123_0", "functions.get_weather:0", "chatcmpl-tool-9f8e", "a--b-", "ü€", "call_x_1_2"]) {
    const t = toAnthropicToolId(id);
    assert.match(t, /^toolu_[a-zA-Z0-9_-]+$/);
    assert.equal(toOpenAIToolCallId(t), id);
  }
  assert.equal(toAnthropicToolId("call_abc_0"), "toolu_call_abc_0");
  // Ids that Anthropic made (a session resumed from the real API) map to themselves or their decoding, consistently.
  assert.equal(toOpenAIToolCallId("toolu_01A09q90qw90lq917835lq9"), "01A09q90qw90lq917835lq9");
  assert.equal(toOpenAIToolCallId("toolu_bad-zz"), "toolu_bad-zz");
  assert.equal(toOpenAIToolCallId("toolu_"), "toolu_");
  assert.equal(toOpenAIToolCallId("other"), "other");
});

test("errors: Anthropic types by status, upstream bodies and the context-overflow wording", () => {
  assert.deepEqual([400, 401, 403, 404, 413, 422, 429, 500, 502, 503, 504, 529].map(errorTypeFor), [
    "invalid_request_error", "authentication_error", "permission_error", "not_found_error", "request_too_large", "invalid_request_error",
    "rate_limit_error", "api_error", "api_error", "overloaded_error", "timeout_error", "overloaded_error",
  ]);
  const e = AnthropicError.fromUpstream(400, JSON.stringify({ error: { message: "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (8000 in the messages, 32000 in the completion).", type: "BadRequestError", code: 400 } }));
  assert.equal(e.message, "prompt is too long: 40000 tokens > 32768 maximum");
  assert.equal(e.type, "invalid_request_error");
  const u = AnthropicError.fromUpstream(503, "Service Unavailable");
  assert.deepEqual(u.body, { type: "error", error: { type: "overloaded_error", message: "upstream answered 503: Service Unavailable" } });
  assert.match(u.toSse(), /^event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error"/);
});

test("options: unknown keys and bad values throw TypeError; the model map", () => {
  const req = { model: "claude-haiku-4-5", max_tokens: 5, messages: [{ role: "user", content: "hi" }] };
  assert.throws(() => toOpenAIRequest(req, { modle: "x" }), (e) => e instanceof TypeError && /unknown option `modle`/.test(e.message));
  assert.throws(() => toOpenAIRequest(req, { reasoningField: "thoughts" }), TypeError);
  assert.throws(() => new AnthropicSseStream({ parser: "nope" }), /unknown parser `nope`/);
  assert.throws(() => new AnthropicSseStream({ pingIntervalMs: -1 }), TypeError);
  assert.throws(() => toAnthropicMessage({}, { onDiagnostic: 1 }), TypeError);
  assert.equal(mapModel("claude-haiku-4-5", { "claude-haiku-*": "small", "claude-*": "big", "*": "other" }), "small");
  assert.equal(mapModel("claude-opus-4", { "claude-haiku-*": "small", "claude-*": "big" }), "big");
  assert.equal(mapModel("gpt", { "claude-*": "big", "*": "other" }), "other");
  assert.equal(mapModel("gpt", { "claude-*": "big" }), "gpt");
  assert.equal(toOpenAIRequest(req, { model: (m) => m.toUpperCase() }).model, "CLAUDE-HAIKU-4-5");
  assert.throws(() => toOpenAIRequest(null), (e) => e instanceof AnthropicError && e.status === 400);
});

test("toAnthropicMessage: a body that is not a completion is a 502 AnthropicError", () => {
  assert.throws(() => toAnthropicMessage("not json"), (e) => e instanceof AnthropicError && e.status === 502);
  assert.throws(() => toAnthropicMessage({ object: "list", data: [] }), (e) => e instanceof AnthropicError && /no choices/.test(e.message));
});

test("pings: a silent upstream gets ping events at pingIntervalMs", async () => {
  let push;
  const source = new ReadableStream({ start(c) { push = c; } });
  const reader = source.pipeThrough(new AnthropicSseStream({ parser: "hermes", pingIntervalMs: 30 })).getReader();
  const first = await reader.read();
  assert.equal(new TextDecoder().decode(first.value), 'event: ping\ndata: {"type":"ping"}\n\n');
  push.enqueue(new TextEncoder().encode(upstreamText([{ id: "x", choices: [{ index: 0, delta: { content: "hi" }, finish_reason: "stop" }] }, "[DONE]"])));
  push.close();
  let rest = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += new TextDecoder().decode(value);
  }
  assert.match(rest, /event: message_stop/);
});

test("count_tokens estimate: about 4 characters per token", () => {
  assert.equal(estimateInputTokens({ system: "abcd", messages: [{ role: "user", content: "abcdefgh" }] }), Math.ceil((4 + "user".length + 8) / 4));
});

test("CommonJS: require('toolwire/anthropic')", () => {
  const cjs = require("toolwire/anthropic");
  assert.equal(typeof cjs.toOpenAIRequest, "function");
  assert.equal(typeof cjs.AnthropicSseStream, "function");
});

test("the package README's Anthropic example answers streaming and non-streaming requests", async () => {
  const readme = readFileSync(new URL("../../pkg/README.md", import.meta.url), "utf8");
  const code = /## Anthropic Messages[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)[1];
  const text = 'Sure.<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>';
  const seen = [];
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const c of req) raw += c;
    const body = JSON.parse(raw);
    seen.push(body);
    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ id: "chatcmpl-r1", choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] }));
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const ch of [text.slice(0, 20), text.slice(20)]) res.write(`data: ${JSON.stringify({ id: "chatcmpl-r1", choices: [{ index: 0, delta: { content: ch }, finish_reason: null }] })}\n\n`);
    res.end(`data: ${JSON.stringify({ id: "chatcmpl-r1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  try {
    const dir = new URL("artifacts/", import.meta.url);
    mkdirSync(dir, { recursive: true });
    const file = new URL("pkg-readme-anthropic.mjs", dir);
    writeFileSync(file, code.replace("http://127.0.0.1:8000", `http://127.0.0.1:${server.address().port}`));
    const { messages } = await import(file.href);
    const request = { model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "weather?" }], tools: [{ name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }] };
    const whole = await (await messages(request)).json();
    assert.deepEqual(whole.content, [{ type: "text", text: "Sure.", citations: null }, { type: "tool_use", id: "toolu_call_r1_0", name: "get_weather", input: { city: "Paris" } }]);
    assert.equal(seen[0].model, "Qwen/Qwen3-Coder-30B-A3B-Instruct");
    const { events } = anthropicEvents(await (await messages({ ...request, stream: true })).text());
    assert.deepEqual(accumulate(events).message.content, whole.content);
    const bad = await messages({ ...request, messages: [] });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.message, "messages: at least one message is required");
  } finally {
    server.close();
  }
});
