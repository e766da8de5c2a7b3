// The worker's Anthropic Messages route (issue 17) in real workerd (Miniflare 4, listening on
// 127.0.0.1 as `make worker` does), driven by the official `@anthropic-ai/sdk` client, in front of
// a raw-text upstream on 127.0.0.1: an OpenAI-compatible server with no tool parser, which
// answers with what a model of each family writes and records every request it gets.
// Also class 11 of issue 13: a parser name that names no parser is refused with 400.
import { test } from "node:test";
import { createServer } from "node:http";
import assert from "node:assert/strict";
import { Miniflare } from "miniflare";
import Anthropic from "@anthropic-ai/sdk";
import { workerModules, MODULES_ROOT, COMPATIBILITY_DATE } from "../../worker/modules.mjs";

const modules = workerModules();

/** What each family's model writes for "weather in Paris?" (one call, city Paris, days 3). */
const FAMILIES = [
  ["Qwen/Qwen2.5-7B-Instruct", "hermes", 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>'],
  ["Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3_coder", "I'll look that up.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"],
  ["deepseek-ai/DeepSeek-V3.1", "deepseek_v31", 'Checking.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris", "days": 3}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'],
  ["moonshotai/Kimi-K2-Instruct", "kimi_k2", 'Checking. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris", "days": 3}<|tool_call_end|><|tool_calls_section_end|>'],
  ["openai/gpt-oss-20b", "openai", '<|channel|>analysis<|message|>The user wants the weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris", "days": 3}<|call|>'],
];

const TOOLS = [{
  name: "get_weather",
  description: "Current weather of a city",
  input_schema: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] },
}];

/**
 * A raw-text upstream on 127.0.0.1: `answer(body)` gives the text the model writes, or
 * `{die: text}` (the connection drops after that text), `{json: text}` (a whole completion even
 * when streaming was asked), `{text, delayMs}` (silent that long after the headers), or `{status, body}` (an
 * error answer).
 * Streams in 3-character deltas with a usage chunk; records each request's JSON in `requests`.
 */
async function rawTextUpstream(answer) {
  const requests = [];
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
    requests.push({ path: req.url, headers: req.headers, body });
    const a = answer(body);
    if (typeof a === "object" && a.status) {
      res.writeHead(a.status, { "content-type": "application/json", ...(a.headers ?? {}) });
      return res.end(JSON.stringify(a.body));
    }
    const text = typeof a === "string" ? a : (a.die ?? a.json ?? a.text);
    const usage = { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 };
    if (!body.stream || a.json !== undefined) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ id: "chatcmpl-up1", object: "chat.completion", model: body.model, choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }], usage }));
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.flushHeaders();
    if (a.delayMs) await new Promise((r) => setTimeout(r, a.delayMs)); // a long prefill
    const chunk = (delta, finish = null) => `data: ${JSON.stringify({ id: "chatcmpl-up1", object: "chat.completion.chunk", model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(chunk({ role: "assistant", content: "" }));
    const chars = [...text];
    for (let i = 0; i < chars.length; i += 3) res.write(chunk({ content: chars.slice(i, i + 3).join("") }));
    if (typeof a === "object" && a.die !== undefined) {
      await new Promise((r) => setTimeout(r, 20));
      return res.destroy();
    }
    res.write(chunk({}, "stop"));
    if (body.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ id: "chatcmpl-up1", object: "chat.completion.chunk", choices: [], usage })}\n\n`);
    res.end("data: [DONE]\n\n");
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}

/** The worker in workerd listening on 127.0.0.1 in front of `upstreamUrl`; `f(baseUrl, client)`. */
async function withWorker(upstreamUrl, vars, f) {
  const mf = new Miniflare({
    modules,
    modulesRoot: MODULES_ROOT,
    compatibilityDate: COMPATIBILITY_DATE,
    bindings: { UPSTREAM_URL: upstreamUrl, ...vars },
    host: "127.0.0.1",
    port: 0,
  });
  try {
    const base = (await mf.ready).href.replace(/\/$/, "");
    const client = new Anthropic({ apiKey: "client-key", baseURL: base, maxRetries: 0 });
    return await f(base, client);
  } finally {
    await mf.dispose();
  }
}

async function withSetup(answer, vars, f) {
  const upstream = await rawTextUpstream(answer);
  try {
    return await withWorker(upstream.url, vars, (base, client) => f({ base, client, upstream }));
  } finally {
    await upstream.close();
  }
}

const ask = (model, extra = {}) => ({ model, max_tokens: 1024, tools: TOOLS, messages: [{ role: "user", content: "weather in Paris?" }], ...extra });
const textOf = (answers) => (body) => answers.find(([m]) => m === body.model)?.[2] ?? "no recording";

test("messages.create and messages.stream: a tool_use block with the right input and stop_reason tool_use, per family", async () => {
  await withSetup(textOf(FAMILIES), {}, async ({ client, upstream }) => {
    for (const [model, parser] of FAMILIES) {
      const { data: message, response } = await client.messages.create(ask(model)).withResponse();
      assert.equal(response.headers.get("x-toolwire-parser"), parser, model);
      assert.match(response.headers.get("request-id"), /^req_/);
      assert.equal(message.type, "message");
      assert.equal(message.model, model);
      assert.equal(message.stop_reason, "tool_use", model);
      const uses = message.content.filter((b) => b.type === "tool_use");
      assert.equal(uses.length, 1, model);
      assert.equal(uses[0].name, "get_weather");
      assert.deepEqual(uses[0].input, { city: "Paris", days: 3 }, model);
      assert.match(uses[0].id, /^toolu_[A-Za-z0-9_-]+$/);
      for (const b of message.content.filter((b) => b.type === "text")) assert.ok(!/<tool_call>|<\||<｜|<function/.test(b.text), `${model}: markup in text: ${b.text}`);
      assert.equal(message.usage.input_tokens, 50);
      assert.equal(message.usage.output_tokens, 20);

      const stream = client.messages.stream(ask(model));
      const events = [];
      stream.on("streamEvent", (e) => events.push(e.type));
      const final = await stream.finalMessage();
      assert.equal(final.stop_reason, "tool_use", model);
      const streamed = final.content.filter((b) => b.type === "tool_use");
      assert.equal(streamed.length, 1, model);
      assert.deepEqual(streamed[0].input, { city: "Paris", days: 3 }, model);
      assert.equal(streamed[0].id, uses[0].id, `${model}: the same toolu_ id streamed and not`);
      assert.deepEqual(final.content.map((b) => b.type), message.content.map((b) => b.type), model);
      assert.equal(events[0], "message_start");
      assert.equal(events.at(-1), "message_stop");
      assert.equal(final.usage.output_tokens, 20);
    }
    // What went upstream: chat completions, the tools as functions, stream with usage.
    const streamed = upstream.requests.find((r) => r.body.stream);
    assert.equal(streamed.path, "/v1/chat/completions");
    assert.deepEqual(streamed.body.stream_options, { include_usage: true });
    assert.deepEqual(streamed.body.tools, [{ type: "function", function: { name: "get_weather", description: "Current weather of a city", parameters: TOOLS[0].input_schema } }]);
    assert.equal(streamed.headers.authorization, "Bearer client-key", "x-api-key goes upstream as a bearer token");
    assert.equal(streamed.headers["x-api-key"], undefined);
    assert.equal(streamed.headers["anthropic-version"], undefined);
  });
});

test("second turn: the tool_result reaches the upstream as a tool message with the call's id; the thinking is replayed exactly", async () => {
  const model = "deepseek-ai/DeepSeek-V3.1";
  const reasoning = "The user wants Paris.\n  Call get_weather, then answer. ";
  const first = `${reasoning}</think>I'll check.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;
  const answer = (body) => (body.messages.some((m) => m.role === "tool") ? "Got it.</think>It is 18 C and sunny in Paris." : first);
  await withSetup(answer, { REASONING_PARSER: "deepseek_v3" }, async ({ client, upstream }) => {
    const thinking = { type: "enabled", budget_tokens: 2048 };
    const turn1 = await client.messages.stream(ask(model, { thinking })).finalMessage();
    assert.deepEqual(turn1.content.map((b) => b.type), ["thinking", "text", "tool_use"]);
    assert.equal(turn1.content[0].thinking, reasoning, "the reasoning as the model wrote it");
    assert.ok(turn1.content[0].signature, "a signature, so clients keep the block");
    const use = turn1.content[2];
    const messages = [
      { role: "user", content: "weather in Paris?" },
      { role: "assistant", content: turn1.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "18 C, sunny" }] },
    ];
    const turn2 = await client.messages.create(ask(model, { thinking, messages }));
    assert.equal(turn2.stop_reason, "end_turn");
    assert.deepEqual(turn2.content, [{ type: "thinking", thinking: "Got it.", signature: "toolwire" }, { type: "text", text: "It is 18 C and sunny in Paris.", citations: null }]);

    const sent = upstream.requests.at(-1).body;
    assert.deepEqual(sent.chat_template_kwargs, { enable_thinking: true, thinking: true });
    const [, assistant, tool] = sent.messages;
    assert.equal(assistant.role, "assistant");
    assert.equal(assistant.reasoning_content, reasoning, "reasoning replayed exactly, not invented or blanked");
    assert.equal(assistant.content, "I'll check.");
    assert.equal(assistant.tool_calls.length, 1);
    assert.deepEqual(JSON.parse(assistant.tool_calls[0].function.arguments), { city: "Paris" });
    assert.deepEqual(tool, { role: "tool", tool_call_id: assistant.tool_calls[0].id, content: "18 C, sunny" });
    assert.equal(sent.messages.length, 3);
  });
});

test("parallel calls: several tool_use blocks; with disable_parallel_tool_use the upstream is asked for one, and a second call is kept and reported", async () => {
  const two = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>';
  await withSetup(() => two, {}, async ({ base, client, upstream }) => {
    const model = "Qwen/Qwen2.5-7B-Instruct";
    const message = await client.messages.create(ask(model));
    assert.deepEqual(message.content.map((b) => [b.type, b.input]), [["tool_use", { city: "Paris" }], ["tool_use", { city: "Oslo" }]]);
    assert.notEqual(message.content[0].id, message.content[1].id);
    const streamed = await client.messages.stream(ask(model)).finalMessage();
    assert.deepEqual(streamed.content, message.content);

    const single = ask(model, { tool_choice: { type: "auto", disable_parallel_tool_use: true } });
    const { data, response } = await client.messages.create(single).withResponse();
    assert.equal(upstream.requests.at(-1).body.parallel_tool_calls, false);
    assert.equal(data.content.filter((b) => b.type === "tool_use").length, 2, "not dropped");
    assert.equal(response.headers.get("x-toolwire-diagnostics"), "parallel_calls");
    const raw = await (await fetch(`${base}/v1/messages`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": "k" }, body: JSON.stringify({ ...single, stream: true }) })).text();
    assert.match(raw, /^: toolwire parallel_calls \{"message":"the request set disable_parallel_tool_use, but the model made 2 calls; all are kept"\}$/m);
    assert.equal((raw.match(/"type":"tool_use"/g) ?? []).length, 2);
  });
});

test("the upstream dying mid-stream ends the stream with an error event", async () => {
  await withSetup(() => ({ die: 'Checking.<tool_call>{"name": "get_weather", "arguments": {"ci' }), {}, async ({ base, client }) => {
    const stream = client.messages.stream(ask("Qwen/Qwen2.5-7B-Instruct"));
    const seen = [];
    stream.on("streamEvent", (e) => seen.push(e.type));
    await assert.rejects(stream.finalMessage(), (e) => e instanceof Anthropic.APIError && e.error?.error?.type === "api_error" && /ended before the completion finished/.test(e.message));
    assert.equal(seen[0], "message_start");
    assert.ok(!seen.includes("message_stop"));
    const raw = await (await fetch(`${base}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(ask("Qwen/Qwen2.5-7B-Instruct", { stream: true })) })).text();
    assert.match(raw, /event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":"the upstream stream ended before the completion finished \(no finish_reason\)"\}\}\n\n$/);
  });
});

test("bad requests: Anthropic-shaped 400s naming the offending block, never a 500", async () => {
  await withSetup(() => "hi", {}, async ({ base, client, upstream }) => {
    const cases = [
      [{ model: "m", max_tokens: 5, messages: [] }, /^messages: at least one message is required/],
      [{ model: "m", max_tokens: 5, messages: [{ role: "user", content: "a" }, { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "f", input: {} }] }, { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: "x" }] }] },
        /^messages\.2\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_2/],
      [{ model: "m", max_tokens: 5, messages: [{ role: "user", content: [{ type: "text", text: "a" }, { type: "hologram" }] }] }, /^messages\.0\.content\.1: unknown content block type `hologram`/],
    ];
    for (const [body, message] of cases) {
      await assert.rejects(client.messages.create(body), (e) => e instanceof Anthropic.BadRequestError && e.error.error.type === "invalid_request_error" && message.test(e.error.error.message));
    }
    const notJson = await fetch(`${base}/v1/messages?beta=true`, { method: "POST", headers: { "content-type": "application/json" }, body: "{oops" });
    assert.equal(notJson.status, 400);
    assert.equal((await notJson.json()).error.type, "invalid_request_error");
    assert.equal(upstream.requests.length, 0, "nothing reached the upstream");
  });
  await withWorker("http://127.0.0.1:1", { MAX_BODY_BYTES: "100" }, async (base) => {
    const big = await fetch(`${base}/v1/messages`, { method: "POST", body: JSON.stringify(ask("m", { system: "x".repeat(200) })) });
    assert.equal(big.status, 413);
    assert.deepEqual((await big.json()).error.type, "request_too_large");
  });
});

test("upstream errors map to Anthropic error types; an unreachable upstream is a 502 api_error", async () => {
  const answers = {
    overflow: { status: 400, body: { error: { message: "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (8000 in the messages, 32000 in the completion).", type: "BadRequestError", code: 400 } } },
    busy: { status: 503, body: { error: { message: "server busy" } } },
    limited: { status: 429, body: { error: { message: "slow down" } }, headers: { "retry-after": "7" } },
  };
  await withSetup((body) => answers[body.model], {}, async ({ base, client }) => {
    await assert.rejects(client.messages.create(ask("overflow")), (e) => e.status === 400 && e.error.error.message === "prompt is too long: 40000 tokens > 32768 maximum");
    await assert.rejects(client.messages.create(ask("busy")), (e) => e.status === 503 && e.error.error.type === "overloaded_error" && /server busy/.test(e.error.error.message));
    const limited = await fetch(`${base}/v1/messages`, { method: "POST", body: JSON.stringify(ask("limited")) });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "7");
    assert.equal((await limited.json()).error.type, "rate_limit_error");
  });
  const { close, url } = await rawTextUpstream(() => "x");
  await close();
  await withWorker(url, {}, async (_, client) => {
    await assert.rejects(client.messages.create(ask("m")), (e) => e.status === 502 && e.error.error.type === "api_error" && /upstream unreachable/.test(e.error.error.message));
  });
});

test("MODEL_MAP, UPSTREAM_API_KEY, count_tokens (an estimate, labelled), CORS", async () => {
  const vars = { MODEL_MAP: JSON.stringify({ "claude-sonnet-*": "Qwen/Qwen3-Coder-30B-A3B-Instruct", "*": "Qwen/Qwen2.5-7B-Instruct" }), UPSTREAM_API_KEY: "secret", CORS_ORIGINS: "*", MAX_OUTPUT_TOKENS: "4096" };
  await withSetup(textOf(FAMILIES), vars, async ({ base, client, upstream }) => {
    const { data, response } = await client.messages.create(ask("claude-sonnet-4-5-20250929", { max_tokens: 20000 })).withResponse();
    assert.equal(response.headers.get("x-toolwire-parser"), "qwen3_coder");
    assert.equal(data.model, "claude-sonnet-4-5-20250929", "the client's model name comes back");
    assert.deepEqual(data.content.find((b) => b.type === "tool_use").input, { city: "Paris", days: 3 });
    const sent = upstream.requests.at(-1);
    assert.equal(sent.body.model, "Qwen/Qwen3-Coder-30B-A3B-Instruct");
    assert.equal(sent.body.max_tokens, 4096);
    assert.equal(sent.headers.authorization, "Bearer secret");
    await client.messages.create(ask("claude-haiku-4-5"));
    assert.equal(upstream.requests.at(-1).body.model, "Qwen/Qwen2.5-7B-Instruct");

    const { data: count, response: counted } = await client.messages.countTokens({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "x".repeat(400) }] }).withResponse();
    assert.ok(count.input_tokens >= 100 && count.input_tokens < 110, String(count.input_tokens));
    assert.match(counted.headers.get("x-toolwire-note"), /estimate/);
    const before = upstream.requests.length;
    await assert.rejects(client.messages.countTokens({ model: "m", messages: [] }), Anthropic.BadRequestError);
    assert.equal(upstream.requests.length, before);

    const preflight = await fetch(`${base}/v1/messages`, { method: "OPTIONS", headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "x-api-key, anthropic-version, content-type" } });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get("access-control-allow-headers"), /x-api-key/);
    const res = await fetch(`${base}/v1/messages`, { method: "POST", headers: { origin: "https://app.example" }, body: JSON.stringify(ask("claude-haiku-4-5")) });
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
  });
  await withWorker("http://127.0.0.1:1", { MODEL_MAP: "{not json" }, async (_, client) => {
    await assert.rejects(client.messages.create(ask("m")), (e) => e.status === 500 && /MODEL_MAP is not JSON/.test(e.error.error.message));
  });
});

// Issue 13, class 11: a configuration typo or a bad header must not look like a model bug.
test("unknown parser names are refused with 400 and the valid ids, on /v1/chat/completions and /v1/messages", async () => {
  const chat = (headers = {}) => ({ method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ model: "Qwen/Qwen2.5-7B-Instruct", messages: [{ role: "user", content: "hi" }] }) });
  const messages = (headers = {}) => ({ method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(ask("Qwen/Qwen2.5-7B-Instruct")) });
  const hermes = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
  await withSetup(() => hermes, {}, async ({ base, upstream }) => {
    const bad = await fetch(`${base}/v1/chat/completions`, chat({ "x-toolwire-parser": "hermess" }));
    assert.equal(bad.status, 400);
    const { error } = await bad.json();
    assert.equal(error.type, "invalid_request_error");
    assert.match(error.message, /^unknown parser in the x-toolwire-parser header `hermess`; valid ids: auto, .*\bhermes\b.*\bqwen3_coder\b/);
    const badMessages = await fetch(`${base}/v1/messages`, messages({ "x-toolwire-parser": "hermess" }));
    assert.equal(badMessages.status, 400);
    const body = await badMessages.json();
    assert.equal(body.type, "error");
    assert.equal(body.error.type, "invalid_request_error");
    assert.match(body.error.message, /unknown parser in the x-toolwire-parser header `hermess`; valid ids: auto, /);
    assert.equal(upstream.requests.length, 0);

    // A known name in the header is used (over the model's family) and not sent upstream; aliases work.
    const good = await fetch(`${base}/v1/chat/completions`, chat({ "x-toolwire-parser": "qwen3_coder" }));
    assert.equal(good.status, 200);
    assert.equal(good.headers.get("x-toolwire-parser"), "qwen3_coder");
    assert.equal(upstream.requests.at(-1).headers["x-toolwire-parser"], undefined);
    const viaMessages = await fetch(`${base}/v1/messages`, messages({ "x-toolwire-parser": "hermes" }));
    assert.equal(viaMessages.headers.get("x-toolwire-parser"), "hermes");
    assert.equal((await viaMessages.json()).content[0].input.city, "Paris");
  });
  for (const [name, value] of [["TOOL_CALL_PARSER", "nope"], ["FALLBACK_PARSER", "generik"], ["REASONING_PARSER", "qwen4"]]) {
    await withSetup(() => hermes, { [name]: value }, async ({ base, upstream }) => {
      for (const [path, init] of [["/v1/chat/completions", chat()], ["/v1/messages", messages()]]) {
        const res = await fetch(`${base}${path}`, init);
        assert.equal(res.status, 400, `${name} on ${path}`);
        const body = await res.json();
        assert.equal(body.error.type, "invalid_request_error");
        assert.match(body.error.message, new RegExp(`^unknown ${name} \`${value}\`; valid ids: `), body.error.message);
        assert.match(body.error.message, name === "REASONING_PARSER" ? /\bqwen3\b/ : /\bhermes\b/);
      }
      assert.equal(upstream.requests.length, 0, `${name}: nothing went upstream`);
    });
  }
});

test("an upstream that answers a streaming request with one JSON body still streams Anthropic events; a silent upstream gets pings", async () => {
  const hermes = 'Sure.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
  await withSetup((body) => (body.model === "json" ? { json: hermes } : { text: hermes, delayMs: 300 }), { PING_INTERVAL_MS: "50" }, async ({ base, client }) => {
    const message = await client.messages.stream(ask("json")).finalMessage();
    assert.deepEqual(message.content.map((b) => b.type), ["text", "tool_use"]);
    assert.deepEqual(message.content[1].input, { city: "Paris" });
    assert.equal(message.stop_reason, "tool_use");
    const raw = await (await fetch(`${base}/v1/messages`, { method: "POST", body: JSON.stringify(ask("slow", { stream: true })) })).text();
    const before = raw.slice(0, raw.indexOf("event: message_start"));
    assert.match(before, /event: ping\ndata: \{"type":"ping"\}/, "pings while the upstream is silent");
    assert.match(raw, /event: message_stop/);
  });
});
