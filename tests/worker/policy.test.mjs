// The worker acting on a probe profile and retrying (worker/src/profile.js), in real workerd
// (Miniflare 4). The upstream is an `outboundService` function answering from a script.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Miniflare } from "miniflare";
import { workerModules, MODULES_ROOT, COMPATIBILITY_DATE } from "../../worker/modules.mjs";
import { reassemble } from "../js/support/sse-client.mjs";

const modules = workerModules();

async function withWorker(vars, upstream, f) {
  const mf = new Miniflare({
    modules,
    modulesRoot: MODULES_ROOT,
    compatibilityDate: COMPATIBILITY_DATE,
    bindings: { UPSTREAM_URL: "http://upstream.test", ...vars },
    outboundService: upstream,
  });
  try {
    return await f(mf);
  } finally {
    await mf.dispose();
  }
}

const TOOLS = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }];
const GOOD = 'Checking.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
const MALFORMED = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris",,}}</tool_call>';
const CUT = '<tool_call>{"name": "get_weather", "arguments": {"city": "Par';
const WRONG = '<tool_call>{"name": "get_wether", "arguments": {"city": "Paris"}}</tool_call>';

/** An upstream answering request i with the i-th text (the last one repeats); `seen` keeps the bodies. */
function scripted(texts, { size = 4 } = {}) {
  const seen = [];
  const handler = async (request) => {
    const body = await request.json();
    seen.push(body);
    const text = texts[Math.min(seen.length - 1, texts.length - 1)];
    const id = `chatcmpl-${seen.length}`;
    if (!body.stream) {
      return Response.json({ id, object: "chat.completion", created: 1, model: body.model, choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } });
    }
    let sse = "";
    const chunk = (delta, finish = null) => `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    for (let i = 0; i < text.length; i += size) sse += chunk({ content: text.slice(i, i + size) });
    sse += chunk({}, "stop") + "data: [DONE]\n\n";
    return new Response(sse, { headers: { "content-type": "text/event-stream" } });
  };
  return { handler, seen };
}

const chat = (body) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ messages: [{ role: "user", content: "weather in Paris?" }], tools: TOOLS, ...body }),
});

const profile = (fields) => JSON.stringify({ probeVersion: 1, model: "Qwen3-Coder-30B-A3B-Instruct", usable: true, detectedParser: "hermes", toolCallFormat: "text", supportsParallelToolUse: true, supportsStreamingToolUse: true, ...fields });

const bytes = async (res) => new Uint8Array(await res.arrayBuffer());

test("PROFILE: its parser replaces the guess from the model name, for its model only", async () => {
  const up = scripted([GOOD]);
  await withWorker({ PROFILE: profile({}) }, up.handler, async (mf) => {
    // The name says qwen3_coder; the profile measured hermes.
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "Qwen3-Coder-30B-A3B-Instruct" }));
    assert.equal(res.headers.get("x-toolwire-parser"), "hermes");
    assert.equal(res.headers.get("x-toolwire-profile"), "parser=hermes");
    assert.equal((await res.json()).choices[0].message.tool_calls[0].function.name, "get_weather");
    const streamed = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "Qwen3-Coder-30B-A3B-Instruct", stream: true }));
    assert.equal(streamed.headers.get("x-toolwire-parser"), "hermes");
    assert.equal(reassemble(await bytes(streamed)).choices.get(0).calls[0].name, "get_weather");
    // Another model keeps the usual detection.
    const other = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "mistralai/Mistral-Small-3.2-24B-Instruct-2506" }));
    assert.equal(other.headers.get("x-toolwire-parser"), "mistral");
    assert.equal(other.headers.get("x-toolwire-profile"), null);
  });
  // Without the profile the name decides, and qwen3_coder reads no call in Hermes text.
  await withWorker({}, scripted([GOOD]).handler, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "Qwen3-Coder-30B-A3B-Instruct" }));
    assert.equal(res.headers.get("x-toolwire-parser"), "qwen3_coder");
    assert.equal((await res.json()).choices[0].message.tool_calls, undefined);
  });
});

test("PROFILE: a model that collapses parallel calls is sent parallel_tool_calls: false (unless the client chose)", async () => {
  const up = scripted([GOOD]);
  await withWorker({ PROFILE: profile({ supportsParallelToolUse: false }) }, up.handler, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "Qwen3-Coder-30B-A3B-Instruct" }));
    assert.equal(res.headers.get("x-toolwire-profile"), "parser=hermes; parallel_tool_calls=false");
    assert.equal(up.seen[0].parallel_tool_calls, false);
    await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "Qwen3-Coder-30B-A3B-Instruct", parallel_tool_calls: true }));
    assert.equal(up.seen[1].parallel_tool_calls, true);
  });
});

test("PROFILE: broken streamed calls: the upstream is asked without streaming, the client still gets a stream", async () => {
  const up = scripted([GOOD]);
  await withWorker({ PROFILE: profile({ supportsStreamingToolUse: false }) }, up.handler, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "Qwen3-Coder-30B-A3B-Instruct", stream: true, stream_options: { include_usage: true } }));
    assert.equal(up.seen[0].stream, false);
    assert.equal(up.seen[0].stream_options, undefined);
    assert.match(res.headers.get("content-type"), /text\/event-stream/);
    assert.equal(res.headers.get("x-toolwire-profile"), "parser=hermes; stream=false");
    const out = reassemble(await bytes(res));
    const choice = out.choices.get(0);
    assert.equal(choice.content, "Checking.");
    assert.deepEqual([choice.calls[0].name, JSON.parse(choice.calls[0].arguments)], ["get_weather", { city: "Paris" }]);
    assert.equal(choice.finish, "tool_calls");
    assert.ok(out.done);
    assert.ok(out.events.some((e) => e.data.includes('"usage"')), "the usage chunk the client asked for");
  });
});

test("a bad PROFILE or RETRY_ON answers 500 saying what is wrong", async () => {
  const cases = [
    [{ PROFILE: "{not json" }, /PROFILE is not JSON/],
    [{ PROFILE: '{"model": "x"}' }, /not a toolwire probe profile/],
    [{ PROFILE: profile({ detectedParser: null, usable: false }) }, /PROFILE found no parser for Qwen3-Coder-30B-A3B-Instruct/],
    [{ RETRY_ON: "malformed_json,flaky" }, /RETRY_ON: unknown label flaky; valid: malformed_json, truncation, escaping_error, wrong_tool/],
    [{ RETRY_ON: "truncation", MAX_RETRIES: "many" }, /MAX_RETRIES must be an integer from 0 to 5/],
  ];
  for (const [vars, message] of cases) {
    await withWorker(vars, scripted([GOOD]).handler, async (mf) => {
      const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "m" }));
      assert.equal(res.status, 500);
      assert.match((await res.json()).error.message, message);
    });
  }
});

test("RETRY_ON (non-streaming): malformed JSON is asked again of the same model; each retry in a header", async () => {
  const up = scripted([MALFORMED, CUT, GOOD]);
  await withWorker({ TOOL_CALL_PARSER: "hermes", RETRY_ON: "malformed_json,truncation", RETRY_BASE_MS: "1" }, up.handler, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "m" }));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-toolwire-attempts"), "3");
    assert.equal(res.headers.get("x-toolwire-retry"), "attempt=2; label=malformed_json; model=m, attempt=3; label=truncation; model=m");
    assert.equal(res.headers.get("x-toolwire-model"), null);
    const body = await res.json();
    assert.equal(body.id, "chatcmpl-3");
    assert.deepEqual(JSON.parse(body.choices[0].message.tool_calls[0].function.arguments), { city: "Paris" });
    assert.deepEqual(up.seen.map((b) => b.model), ["m", "m", "m"]);
  });
});

test("MAX_RETRIES bounds the retries; the last answer is returned as it is", async () => {
  const up = scripted([MALFORMED]);
  await withWorker({ TOOL_CALL_PARSER: "hermes", RETRY_ON: "malformed_json", MAX_RETRIES: "1", RETRY_BASE_MS: "1" }, up.handler, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "m" }));
    assert.equal(res.headers.get("x-toolwire-attempts"), "2");
    assert.equal(up.seen.length, 2);
    const body = await res.json();
    assert.equal(body.id, "chatcmpl-2");
    assert.equal(body.choices[0].message.tool_calls, undefined, "the malformed call stays text");
  });
  // A label not in RETRY_ON is not retried.
  const once = scripted([CUT, GOOD]);
  await withWorker({ TOOL_CALL_PARSER: "hermes", RETRY_ON: "malformed_json", RETRY_BASE_MS: "1" }, once.handler, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "m" }));
    assert.equal(res.headers.get("x-toolwire-attempts"), "1");
    assert.equal(res.headers.get("x-toolwire-retry"), null);
    assert.equal(once.seen.length, 1);
  });
});

test("a capability gap (wrong_tool) asks FALLBACK_MODEL; without one it is not retried", async () => {
  const up = scripted([WRONG, GOOD]);
  await withWorker({ TOOL_CALL_PARSER: "hermes", RETRY_ON: "malformed_json,wrong_tool", FALLBACK_MODEL: "big-model", RETRY_BASE_MS: "1" }, up.handler, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "small-model" }));
    assert.deepEqual(up.seen.map((b) => b.model), ["small-model", "big-model"]);
    assert.equal(res.headers.get("x-toolwire-retry"), "attempt=2; label=wrong_tool; model=big-model");
    assert.equal(res.headers.get("x-toolwire-model"), "big-model");
    assert.equal((await res.json()).choices[0].message.tool_calls[0].function.name, "get_weather");
  });
  const alone = scripted([WRONG, GOOD]);
  await withWorker({ TOOL_CALL_PARSER: "hermes", RETRY_ON: "wrong_tool", RETRY_BASE_MS: "1" }, alone.handler, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "small-model" }));
    assert.equal(res.headers.get("x-toolwire-attempts"), "1");
    assert.equal(alone.seen.length, 1);
  });
});

test("streams: retried before the first byte goes out; the client gets one upstream answer, byte for byte", async () => {
  // What the worker without a policy makes of the good stream.
  const plain = scripted([GOOD]);
  const expected = await withWorker({ TOOL_CALL_PARSER: "hermes" }, plain.handler, async (mf) => bytes(await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "m", stream: true }))));
  // The first stream is cut mid-call (truncation), the second malformed, the third good.
  const up = scripted([CUT, MALFORMED, GOOD]);
  await withWorker({ TOOL_CALL_PARSER: "hermes", RETRY_ON: "malformed_json,truncation", RETRY_BASE_MS: "1" }, up.handler, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "m", stream: true }));
    assert.equal(res.headers.get("x-toolwire-attempts"), "3");
    assert.match(res.headers.get("x-toolwire-retry"), /^attempt=2; label=truncation; model=m, attempt=3; label=malformed_json; model=m$/);
    const got = await bytes(res);
    // The same bytes, but for the upstream id (attempt 3 vs 1) and the call id made from it.
    assert.equal(new TextDecoder().decode(got).replaceAll("chatcmpl-3", "chatcmpl-1").replaceAll("call_3_", "call_1_"), new TextDecoder().decode(expected));
    assert.equal(up.seen.length, 3);
  });
});

test("streams: past RETRY_HOLD_BYTES the stream is relayed and never retried", async () => {
  const long = `${"All work and no play. ".repeat(40)}${MALFORMED}`;
  const up = scripted([long, GOOD]);
  await withWorker({ TOOL_CALL_PARSER: "hermes", RETRY_ON: "malformed_json", RETRY_HOLD_BYTES: "256", RETRY_BASE_MS: "1" }, up.handler, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "m", stream: true }));
    assert.equal(res.headers.get("x-toolwire-attempts"), "1");
    const out = reassemble(await bytes(res));
    assert.ok(out.done);
    assert.ok(out.diagnostics.includes("malformed_json"), "the failure is reported in the stream instead");
    assert.equal(up.seen.length, 1);
  });
});
