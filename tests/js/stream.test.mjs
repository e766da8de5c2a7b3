// toolwire/stream as a Node consumer gets it (`import "toolwire/stream"` resolves the `node`
// condition; `require` goes through require(esm)): Web Streams, the SSE rewrite on the recorded
// streams of tests/sse split at every byte, the non-streaming rewrite, and memory release.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import init, { ToolCallStream, SseRewriteStream, SseRewriter, rewriteChatCompletion } from "toolwire/stream";
import { ToolCallParser } from "toolwire";
import { cases, checkCase, mergeDeltas, reassemble, streamBytes } from "./support/sse-client.mjs";

const require = createRequire(import.meta.url);

/** Pipes `chunks` through `transform` and collects what comes out. */
async function pipe(chunks, transform) {
  const source = new ReadableStream({
    start(c) {
      for (const x of chunks) c.enqueue(x);
      c.close();
    },
  });
  const out = [];
  const reader = source.pipeThrough(transform).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

const concat = (parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let i = 0;
  for (const p of parts) {
    out.set(p, i);
    i += p.length;
  }
  return out;
};

/** One rewriter over `chunks` (synchronous: the same code the stream runs). */
function rewrite(options, chunks) {
  const rw = new SseRewriter(options);
  const parts = chunks.map((c) => rw.push(c));
  parts.push(rw.finish());
  rw.free();
  return concat(parts);
}

test("ready on import; init() resolves", async () => {
  await init();
  assert.equal(typeof ToolCallStream, "function");
});

test("ToolCallStream: string chunks to events, in order", async () => {
  const events = await pipe(['Checking.<tool_call>{"name": "get_weather", "argu', 'ments": {"city": "Paris"}}</tool_call>'], new ToolCallStream({ parser: "hermes" }));
  assert.deepEqual(events, [
    { type: "text", text: "Checking." },
    { type: "tool-call-start", index: 0, id: "call_0", name: "get_weather" },
    { type: "tool-call-delta", index: 0, argumentsDelta: '{"city": "Paris"}' },
    { type: "tool-call-end", index: 0, id: "call_0", name: "get_weather", arguments: '{"city": "Paris"}', kept: true },
  ]);
});

test("ToolCallStream: UTF-8 bytes split anywhere (e.g. a fetch body)", async () => {
  const bytes = new TextEncoder().encode('é<tool_call>{"name": "f", "arguments": {"s": "😀"}}</tool_call>');
  const events = await pipe([...bytes].map((b) => Uint8Array.of(b)), new ToolCallStream("hermes"));
  assert.equal(events.filter((e) => e.type === "text").map((e) => e.text).join(""), "é");
  assert.equal(events.at(-1).arguments, '{"s": "😀"}');
});

test("ToolCallStream: parser auto from the model name, reasoning", async () => {
  const s = new ToolCallStream({ parser: "auto", model: "Qwen/Qwen3-8B", reasoning: "qwen3" });
  assert.equal(s.parser, "hermes");
  const events = await pipe(["<think>hm</think>ok"], s);
  assert.deepEqual(events.map((e) => e.type), ["reasoning", "text"]);
});

test("unknown options throw at construction, listing the valid ones", () => {
  assert.throws(() => new ToolCallStream({ parser: "nope" }), /unknown parser `nope`.*hermes/);
  assert.throws(() => new SseRewriteStream({ parser: "nope" }), /unknown parser `nope`.*hermes/);
  assert.throws(() => new SseRewriteStream({ cumulative: "sometimes" }), /cumulative/);
  assert.throws(() => rewriteChatCompletion({}, { reasoning: "nope" }), /valid reasoning parsers/);
  assert.throws(() => new SseRewriteStream({ parser: "hermes", coments: false }), /unknown option `coments` \(did you mean `comments`\?\).*cumulative, comments, maxEventBytes/);
  assert.throws(() => new ToolCallStream({ parser: "hermes", maxEventBytes: 5 }), /unknown option `maxEventBytes`/);
  // `onDiagnostic` is the stream's own (never sent to the wasm).
  new SseRewriteStream({ parser: "hermes", onDiagnostic() {}, comments: false, cumulative: "auto", maxEventBytes: 64 });
});

for (const c of cases) {
  test(`SseRewriteStream: ${c.file} (${c.about}), split at every byte`, async () => {
    const input = streamBytes(c.file);
    const whole = concat(await pipe([input], new SseRewriteStream(c.options)));
    checkCase(c, input, whole);
    if (c.identical) assert.deepEqual(whole, input);
    // (Deltas of one kind that arrive in one network chunk go out as one event: outputs agree
    // once such runs are merged.)
    const merged = mergeDeltas(whole);
    for (let cut = 0; cut <= input.length; cut++) {
      const split = rewrite(c.options, [input.subarray(0, cut), input.subarray(cut)]);
      if (Buffer.compare(split, whole) !== 0 && mergeDeltas(split) !== merged) assert.fail(`${c.file}: split at ${cut} differs`);
    }
    const bytewise = concat(await pipe([...input].map((b) => Uint8Array.of(b)), new SseRewriteStream(c.options)));
    assert.equal(mergeDeltas(bytewise), merged, `${c.file}: byte by byte`);
  });
}

test("SseRewriteStream: a fetch Response body, the usual chat UI pipeline", async () => {
  const upstream = new Response(streamBytes("hermes-qwen25.sse"), { headers: { "content-type": "text/event-stream" } });
  const body = upstream.body.pipeThrough(new SseRewriteStream({ parser: "hermes" }));
  const text = await new Response(body).text();
  const got = reassemble(new TextEncoder().encode(text));
  assert.deepEqual(got.choices.get(0).calls.map((c) => JSON.parse(c.arguments).city), ["Paris", "Tokyo"]);
});

test("SseRewriteStream: onDiagnostic and comments: false", async () => {
  const diags = [];
  const input = streamBytes("truncated.sse");
  const out = concat(await pipe([input], new SseRewriteStream({ parser: "hermes", comments: false, onDiagnostic: (d) => diags.push(d) })));
  assert.ok(!new TextDecoder().decode(out).includes(": toolwire"));
  assert.deepEqual(diags, [{ label: "truncation", message: "`write_file`: the output ended inside the arguments", index: 0, choice: 0 }]);
});

test("rewriteChatCompletion: object in, object out; string in, string out; unchanged as given", () => {
  const body = {
    id: "chatcmpl-77aa",
    object: "chat.completion",
    model: "Qwen/Qwen2.5-7B-Instruct",
    choices: [{ index: 0, message: { role: "assistant", content: 'On it.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>' }, logprobs: null, finish_reason: "stop" }],
    usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
  };
  const out = rewriteChatCompletion(body, { parser: "auto" });
  assert.deepEqual(out.choices[0], {
    index: 0,
    message: {
      role: "assistant",
      content: "On it.",
      tool_calls: [{ id: "call_77aa_0", type: "function", function: { name: "get_weather", arguments: '{"city": "Paris"}' } }],
    },
    logprobs: null,
    finish_reason: "tool_calls",
  });
  assert.deepEqual(out.usage, body.usage);
  const asText = rewriteChatCompletion(JSON.stringify(body), "hermes");
  assert.equal(typeof asText, "string");
  assert.deepEqual(JSON.parse(asText), out);
  const plain = { choices: [{ index: 0, message: { role: "assistant", content: "Hi." }, finish_reason: "stop" }] };
  assert.equal(rewriteChatCompletion(plain, "hermes"), plain);
  assert.equal(rewriteChatCompletion("not json", "hermes"), "not json");
  const diags = [];
  rewriteChatCompletion({ choices: [{ index: 0, message: { content: '<tool_call>{"name": "nope", "arguments": {}}</tool_call>' } }] }, {
    parser: "hermes",
    tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
    onDiagnostic: (d) => diags.push(d),
  });
  assert.equal(diags[0].label, "wrong_tool");
  assert.equal(diags[0].choice, 0);
});

/** Counts `free()` calls on a wasm class while `f` runs. */
async function countFrees(cls, f) {
  const original = cls.prototype.free;
  let n = 0;
  cls.prototype.free = function () {
    n++;
    return original.call(this);
  };
  try {
    await f();
  } finally {
    cls.prototype.free = original;
  }
  return n;
}

test("memory: the wasm objects are freed when a stream ends, errors or is cancelled", async () => {
  const input = streamBytes("hermes-qwen25.sse");
  // Ends.
  assert.equal(await countFrees(SseRewriter, () => pipe([input], new SseRewriteStream("hermes"))), 1);
  assert.equal(await countFrees(ToolCallParser, () => pipe(["a<tool_call>"], new ToolCallStream("hermes"))), 1);
  // Errors (a chunk that is neither text nor bytes).
  const poison = { toString() { throw new Error("never read as text"); } };
  assert.equal(await countFrees(SseRewriter, () => assert.rejects(pipe([input, poison], new SseRewriteStream("hermes")), TypeError)), 1);
  assert.equal(await countFrees(ToolCallParser, () => assert.rejects(pipe(["x", 42], new ToolCallStream("hermes")), TypeError)), 1);
  // Cancelled by the reader, and aborted by the writer.
  assert.equal(await countFrees(SseRewriter, async () => {
    const s = new SseRewriteStream("hermes");
    const w = s.writable.getWriter();
    w.write(input.subarray(0, 100)).catch(() => {});
    await s.readable.cancel("client went away");
  }), 1);
  assert.equal(await countFrees(ToolCallParser, async () => {
    const s = new ToolCallStream("hermes");
    await s.writable.getWriter().abort("upstream failed");
  }), 1);
});

test("memory: free() and Symbol.dispose release the wasm objects", () => {
  const r = new SseRewriter("hermes");
  r[Symbol.dispose]();
  assert.throws(() => r.push(new Uint8Array(1)));
  const p = new ToolCallParser("hermes");
  p[Symbol.dispose]();
  assert.throws(() => p.push("x"));
  const q = new SseRewriter({ parser: "hermes" });
  q.free();
  assert.throws(() => q.finish());
});

test("CommonJS require of toolwire/stream", async () => {
  const cjs = require("toolwire/stream");
  assert.equal(typeof cjs.SseRewriteStream, "function");
  const out = concat(await pipe([streamBytes("mistral.sse")], new cjs.SseRewriteStream({ parser: "mistral" })));
  assert.equal(reassemble(out).choices.get(0).calls[0].name, "get_stock_price");
});

test("chunks that are neither text nor bytes: the stream errors with a TypeError (nothing coerced to text)", async () => {
  for (const make of [() => new ToolCallStream("hermes"), () => new SseRewriteStream({ parser: "hermes" })]) {
    for (const bad of [{}, 42, null, ["a"]]) {
      await assert.rejects(pipe(["ok", bad], make()), (e) => e instanceof TypeError && /expected chunks of text \(a string\) or bytes/.test(e.message));
    }
  }
  // Strings and every binary form still work.
  const events = await pipe(["<tool_call>", new TextEncoder().encode('{"name": "f", "arguments": {}}').buffer, new DataView(new TextEncoder().encode("</tool_call>").buffer)], new ToolCallStream("hermes"));
  assert.deepEqual(events.filter((e) => e.type === "tool-call-end").map((e) => e.name), ["f"]);
});

test("SseRewriter.push takes a Uint8Array: anything else is a TypeError", () => {
  const r = new SseRewriter("hermes");
  for (const bad of ["data: x\n\n", {}, null, [100]]) {
    assert.throws(() => r.push(bad), (e) => e instanceof TypeError && /SseRewriter\.push: expected the upstream's bytes as a Uint8Array/.test(e.message));
  }
  const out = new TextDecoder().decode(new Uint8Array([...r.push(new TextEncoder().encode("data: [DONE]\n\n")), ...r.finish()]));
  assert.equal(out, "data: [DONE]\n\n");
  r.free();
});
