// The edge worker in real workerd (Miniflare 4). The upstream is an `outboundService` function
// (the replay upstream of `make worker`, recorded raw model outputs, or a per-test stand-in), or,
// where the network matters (refused connections, dropped sockets, disconnects), a real HTTP
// server on 127.0.0.1.
import { test } from "node:test";
import { createServer } from "node:http";
import assert from "node:assert/strict";
import { Miniflare } from "miniflare";
import { workerModules, MODULES_ROOT, COMPATIBILITY_DATE } from "../../worker/modules.mjs";
import { replay, RECORDINGS } from "../../worker/src/replay.js";
import { reassemble } from "../js/support/sse-client.mjs";

const UPSTREAM = "http://upstream.test";
const modules = workerModules();

async function withWorker({ vars = {}, upstream = (r) => replay(r) } = {}, f) {
  const mf = new Miniflare({
    modules,
    modulesRoot: MODULES_ROOT,
    compatibilityDate: COMPATIBILITY_DATE,
    bindings: { UPSTREAM_URL: UPSTREAM, ...vars },
    ...(upstream && { outboundService: upstream }),
  });
  try {
    return await f(mf);
  } finally {
    await mf.dispose();
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** An HTTP upstream on 127.0.0.1 answering with `handler(req, res)`: `{url, close()}`. */
async function localUpstream(handler) {
  const server = createServer((req, res) => void handler(req, res));
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}

/** A port on 127.0.0.1 with nothing listening on it. */
async function freePort() {
  const { url, close } = await localUpstream(() => {});
  await close();
  return Number(new URL(url).port);
}

const chat = (body, headers = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify({ messages: [{ role: "user", content: "weather in Paris?" }], ...body }),
});

const TOOLS = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] } } }];

/** A raw-text upstream answering every chat request with `text` (streamed in `size`-char deltas). */
function textUpstream(text, { size = 3 } = {}) {
  return async (request) => {
    const body = await request.json();
    if (!body.stream) {
      return Response.json({ id: "chatcmpl-t", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] });
    }
    const chars = [...text];
    let sse = "";
    for (let i = 0; i < chars.length; i += size) {
      sse += `data: ${JSON.stringify({ id: "chatcmpl-t", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: chars.slice(i, i + size).join("") }, finish_reason: null }] })}\n\n`;
    }
    sse += `data: ${JSON.stringify({ id: "chatcmpl-t", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`;
    return new Response(sse, { headers: { "content-type": "text/event-stream" } });
  };
}

// The replay upstream's families, the parser the worker should pick from the model name, and
// what `days` becomes without tools (formats that carry text values keep it a string).
const FAMILIES = [
  ["Qwen3-Coder-30B-A3B-Instruct", "qwen3_coder", "3"],
  ["mistralai/Mistral-Small-3.2-24B-Instruct-2506", "mistral", 3],
  ["meta-llama/Llama-3.1-8B-Instruct", "llama3_json", 3],
  ["google/gemma-4-31B-it", "gemma4", 3],
  ["moonshotai/Kimi-K2-Instruct", "kimi_k2", 3],
  ["openai/gpt-oss-20b", "openai", 3],
  ["Qwen/Qwen2.5-7B-Instruct", "hermes", 3],
];

test("streaming: every replayed family comes back as OpenAI tool-call deltas", async () => {
  await withWorker({}, async (mf) => {
    for (const [model, parser, days] of FAMILIES) {
      const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model, stream: true }));
      assert.equal(res.status, 200, model);
      assert.equal(res.headers.get("x-toolwire-parser"), parser, model);
      assert.match(res.headers.get("content-type"), /text\/event-stream/);
      const out = reassemble(new Uint8Array(await res.arrayBuffer()));
      const choice = out.choices.get(0);
      assert.equal(choice.calls.length, 1, model);
      assert.equal(choice.calls[0].name, "get_weather", model);
      assert.deepEqual(JSON.parse(choice.calls[0].arguments), { city: "Paris", days }, model);
      assert.equal(choice.finish, "tool_calls", model);
      assert.ok(!/<tool_call>|\[TOOL_CALLS\]|<\|/.test(choice.content), `${model}: markup in content: ${choice.content}`);
      assert.ok(out.done, `${model}: [DONE] passes through`);
    }
  });
});

test("non-streaming: the body's message gets tool_calls and finish_reason", async () => {
  await withWorker({}, async (mf) => {
    for (const [model, parser, days] of FAMILIES) {
      const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model }));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-toolwire-parser"), parser);
      const body = await res.json();
      const [choice] = body.choices;
      assert.equal(choice.finish_reason, "tool_calls", model);
      assert.equal(choice.message.tool_calls.length, 1, model);
      const [call] = choice.message.tool_calls;
      assert.equal(call.type, "function");
      assert.equal(call.function.name, "get_weather");
      assert.deepEqual(JSON.parse(call.function.arguments), { city: "Paris", days }, model);
      assert.ok(call.id.length > 0);
    }
  });
});

test("/v1/completions: text streams and bodies get their tool calls too", async () => {
  const raw = 'Sure.<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>';
  const upstream = async (request) => {
    const body = await request.json();
    assert.equal(new URL(request.url).pathname, "/v1/completions");
    if (!body.stream) return Response.json({ id: "cmpl-1", object: "text_completion", choices: [{ index: 0, text: raw, finish_reason: "stop" }] });
    let sse = "";
    for (let i = 0; i < raw.length; i += 5) sse += `data: ${JSON.stringify({ id: "cmpl-1", object: "text_completion", choices: [{ index: 0, text: raw.slice(i, i + 5), finish_reason: null }] })}\n\n`;
    sse += `data: ${JSON.stringify({ id: "cmpl-1", object: "text_completion", choices: [{ index: 0, text: "", finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`;
    return new Response(sse, { headers: { "content-type": "text/event-stream" } });
  };
  await withWorker({ vars: { TOOL_CALL_PARSER: "hermes" }, upstream }, async (mf) => {
    const init = (stream) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "m", prompt: "p", stream }) });
    const streamed = reassemble(new Uint8Array(await (await mf.dispatchFetch("http://worker/v1/completions", init(true))).arrayBuffer())).choices.get(0);
    assert.equal(streamed.content, "Sure.");
    assert.deepEqual([streamed.calls[0].name, JSON.parse(streamed.calls[0].arguments)], ["f", { a: 1 }]);
    assert.equal(streamed.finish, "tool_calls");
    const whole = await (await mf.dispatchFetch("http://worker/v1/completions", init(false))).json();
    assert.equal(whole.choices[0].finish_reason, "tool_calls");
    assert.equal(whole.choices[0].text, "Sure.");
    assert.deepEqual(JSON.parse(whole.choices[0].tool_calls[0].function.arguments), { a: 1 });
  });
});

test("the request's tools type the arguments (Qwen3-Coder XML values)", async () => {
  await withWorker({}, async (mf) => {
    const streamed = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "Qwen3-Coder-30B-A3B-Instruct", stream: true, tools: TOOLS }));
    const call = reassemble(new Uint8Array(await streamed.arrayBuffer())).choices.get(0).calls[0];
    assert.deepEqual(JSON.parse(call.arguments), { city: "Paris", days: 3 });
    const whole = await (await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "Qwen3-Coder-30B-A3B-Instruct", tools: TOOLS }))).json();
    assert.deepEqual(JSON.parse(whole.choices[0].message.tool_calls[0].function.arguments), { city: "Paris", days: 3 });
  });
});

test("the parser: TOOL_CALL_PARSER over the model name, FALLBACK_PARSER when the model is unknown", async () => {
  const hermesText = 'Sure.<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>';
  await withWorker({ vars: { TOOL_CALL_PARSER: "hermes" }, upstream: textUpstream(hermesText) }, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "mistralai/Mistral-7B-Instruct-v0.3" }));
    assert.equal(res.headers.get("x-toolwire-parser"), "hermes");
    assert.equal((await res.json()).choices[0].message.tool_calls[0].function.name, "f");
  });
  await withWorker({ upstream: textUpstream(hermesText) }, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "my-private-finetune" }));
    assert.equal(res.headers.get("x-toolwire-parser"), "generic");
    assert.equal((await res.json()).choices[0].message.tool_calls.length, 1);
  });
  await withWorker({ vars: { FALLBACK_PARSER: "mistral" }, upstream: textUpstream('[TOOL_CALLS]f[ARGS]{"a": 1}') }, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "my-private-finetune", stream: true }));
    assert.equal(res.headers.get("x-toolwire-parser"), "mistral");
    assert.equal(reassemble(new Uint8Array(await res.arrayBuffer())).choices.get(0).calls[0].name, "f");
  });
});

test("a misconfigured parser answers 400 with the valid ids (issue 13, class 11)", async () => {
  await withWorker({ vars: { TOOL_CALL_PARSER: "nope" } }, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "x", stream: true }));
    assert.equal(res.status, 400);
    const { error } = await res.json();
    assert.match(error.message, /unknown TOOL_CALL_PARSER `nope`; valid ids: auto, .*hermes/);
  });
});

test("REASONING_PARSER: reasoning goes to reasoning_content", async () => {
  const text = '<think>The user wants weather.</think>Checking.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
  await withWorker({ vars: { REASONING_PARSER: "qwen3" }, upstream: textUpstream(text) }, async (mf) => {
    const out = reassemble(new Uint8Array(await (await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "Qwen/Qwen2.5-7B-Instruct", stream: true }))).arrayBuffer()));
    const choice = out.choices.get(0);
    assert.equal(choice.reasoning, "The user wants weather.");
    assert.equal(choice.content, "Checking.");
    assert.equal(choice.calls[0].name, "get_weather");
    const whole = await (await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "Qwen/Qwen2.5-7B-Instruct" }))).json();
    assert.equal(whole.choices[0].message.reasoning_content, "The user wants weather.");
  });
});

test("REASONING_PARSER with thinking on (pre-filled <think>) or off (chat_template_kwargs.enable_thinking: false)", async () => {
  const text = "Plan.</think>Answer.";
  await withWorker({ vars: { REASONING_PARSER: "qwen3" }, upstream: textUpstream(text) }, async (mf) => {
    const on = await (await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "Qwen/Qwen3-8B" }))).json();
    assert.equal(on.choices[0].message.reasoning_content, "Plan.");
    assert.equal(on.choices[0].message.content, "Answer.");
    const offBody = chat({ model: "Qwen/Qwen3-8B", stream: true, chat_template_kwargs: { enable_thinking: false } });
    const off = reassemble(new Uint8Array(await (await mf.dispatchFetch("http://worker/v1/chat/completions", offBody)).arrayBuffer()));
    assert.equal(off.choices.get(0).reasoning, "");
    assert.equal(off.choices.get(0).content, "Plan.Answer."); // a stray </think> in content is dropped
  });
});

test("other routes and methods pass through: status, headers and body", async () => {
  const seen = [];
  const upstream = async (request) => {
    seen.push({ method: request.method, url: request.url, body: request.method === "GET" ? null : await request.text() });
    if (new URL(request.url).pathname === "/v1/embeddings") {
      return new Response(JSON.stringify({ data: [{ embedding: [0.1] }] }), { status: 201, headers: { "content-type": "application/json", "x-upstream": "yes" } });
    }
    return replay(request);
  };
  await withWorker({ upstream }, async (mf) => {
    const models = await mf.dispatchFetch("http://worker/v1/models?limit=5");
    assert.equal(models.status, 200);
    assert.ok((await models.json()).data.some((m) => m.id === RECORDINGS[0][1]));
    assert.equal(seen[0].url, `${UPSTREAM}/v1/models?limit=5`);
    const emb = await mf.dispatchFetch("http://worker/v1/embeddings", { method: "POST", body: '{"input": "hi"}', headers: { "content-type": "application/json" } });
    assert.equal(emb.status, 201);
    assert.equal(emb.headers.get("x-upstream"), "yes");
    assert.equal(emb.headers.get("x-toolwire-parser"), null);
    assert.deepEqual(await emb.json(), { data: [{ embedding: [0.1] }] });
    assert.equal(seen[1].body, '{"input": "hi"}');
    const del = await mf.dispatchFetch("http://worker/v1/files/abc", { method: "DELETE" });
    assert.equal(del.status, 404);
    assert.equal(seen[2].method, "DELETE");
  });
});

test("Authorization is forwarded, or replaced by UPSTREAM_API_KEY", async () => {
  let auth;
  const upstream = async (request) => {
    auth = request.headers.get("authorization");
    return replay(request);
  };
  await withWorker({ upstream }, async (mf) => {
    await (await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "x" }, { authorization: "Bearer client" }))).arrayBuffer();
    assert.equal(auth, "Bearer client");
  });
  await withWorker({ upstream, vars: { UPSTREAM_API_KEY: "secret" } }, async (mf) => {
    await (await mf.dispatchFetch("http://worker/v1/models", { headers: { authorization: "Bearer client" } })).arrayBuffer();
    assert.equal(auth, "Bearer secret");
  });
});

test("CORS: preflight and response headers for allowed origins only", async () => {
  await withWorker({ vars: { CORS_ORIGINS: "https://app.example, https://other.example" } }, async (mf) => {
    const pre = await mf.dispatchFetch("http://worker/v1/chat/completions", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type, authorization" },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get("access-control-allow-origin"), "https://app.example");
    assert.match(pre.headers.get("access-control-allow-methods"), /POST/);
    assert.equal(pre.headers.get("access-control-allow-headers"), "content-type, authorization");
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "x" }, { origin: "https://app.example" }));
    assert.equal(res.headers.get("access-control-allow-origin"), "https://app.example");
    assert.match(res.headers.get("access-control-expose-headers"), /x-toolwire-parser/);
    const other = await mf.dispatchFetch("http://worker/v1/models", { headers: { origin: "https://evil.example" } });
    assert.equal(other.headers.get("access-control-allow-origin"), null);
    await other.arrayBuffer();
  });
  await withWorker({}, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/models", { headers: { origin: "https://app.example" } });
    assert.equal(res.headers.get("access-control-allow-origin"), null, "CORS is off by default");
    await res.arrayBuffer();
  });
});

test("request bodies over MAX_BODY_BYTES are refused with 413", async () => {
  let called = false;
  await withWorker({ vars: { MAX_BODY_BYTES: "1000" }, upstream: (r) => ((called = true), replay(r)) }, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "x", padding: "y".repeat(2000) }));
    assert.equal(res.status, 413);
    const { error } = await res.json();
    assert.equal(error.code, "request_too_large");
    assert.match(error.message, /1000 bytes/);
    assert.equal(called, false);
  });
});

test("an unreachable upstream answers 502 with an OpenAI-style error", async () => {
  const closed = await freePort();
  await withWorker({ upstream: null, vars: { UPSTREAM_URL: `http://127.0.0.1:${closed}` } }, async (mf) => {
    for (const path of ["/v1/chat/completions", "/v1/models"]) {
      const res = await mf.dispatchFetch(`http://worker${path}`, path.endsWith("completions") ? chat({ model: "x", stream: true }) : {});
      assert.equal(res.status, 502, path);
      const { error } = await res.json();
      assert.equal(error.type, "upstream_error");
      assert.equal(error.code, "bad_gateway");
      assert.match(error.message, /upstream unreachable/);
    }
  });
});

test("upstream error statuses and bodies pass through", async () => {
  const upstream = () => Response.json({ error: { message: "model overloaded", type: "server_error" } }, { status: 503, headers: { "retry-after": "7" } });
  await withWorker({ upstream }, async (mf) => {
    const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "x", stream: true }));
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("retry-after"), "7");
    assert.deepEqual(await res.json(), { error: { message: "model overloaded", type: "server_error" } });
  });
});

/** A real HTTP upstream that writes `chunks` of a chunked body, then drops the connection. */
const breakingUpstream = (chunks) =>
  localUpstream(async (req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const c of chunks) {
      res.write(c);
      await sleep(10);
    }
    res.socket.destroy();
  });

const contentEvent = (content) => `data: ${JSON.stringify({ id: "chatcmpl-b", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

test("an upstream stream that breaks mid-way ends the client stream cleanly, parsed text flushed", async () => {
  const cases = [
    // Broken between events, inside a tool call: the call is flushed and the break is noted.
    { last: contentEvent('<tool_call>{"name": "g", "arguments": {"b": '), note: true },
    // Broken inside an event: the rewriter passes the unterminated bytes through (clients drop
    // them) and reports truncation; no comment may follow them.
    { last: 'data: {"id": "chatcmpl-b", "choi', note: false },
  ];
  for (const { last, note } of cases) {
    const server = await breakingUpstream([contentEvent('Sure.<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'), contentEvent("Also "), last]);
    try {
      await withWorker({ upstream: null, vars: { UPSTREAM_URL: server.url } }, async (mf) => {
        const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "Qwen/Qwen2.5-7B-Instruct", stream: true }));
        assert.equal(res.status, 200);
        const bytes = new Uint8Array(await res.arrayBuffer());
        const out = reassemble(bytes);
        const choice = out.choices.get(0);
        // A call cut off by the break is left out (the Hermes default): its markup comes back as
        // content exactly as written, as parse() gives it (README, differences).
        if (note) assert.equal(choice.content, 'Sure.Also <tool_call>{"name": "g", "arguments": {"b": ');
        else assert.equal(choice.content, "Sure.Also ");
        assert.equal(choice.calls[0].name, "f");
        assert.deepEqual(JSON.parse(choice.calls[0].arguments), { a: 1 });
        assert.ok(out.diagnostics.includes("truncation"), `a truncation comment: ${out.comments}`);
        assert.equal(out.comments.some((c) => c.includes("the upstream stream broke")), note, out.comments.join("\n"));
        if (!note) assert.ok(new TextDecoder().decode(bytes).endsWith(last), "the unterminated event is passed through last");
      });
    } finally {
      await server.close();
    }
  }
});

test("a client that disconnects cancels the upstream request", async () => {
  let closed;
  const gone = new Promise((resolve) => (closed = resolve));
  const server = await localUpstream(async (req, res) => {
    res.on("close", () => closed(true));
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (let n = 0; !res.destroyed && n < 500; n++) {
      res.write(`data: ${JSON.stringify({ id: "chatcmpl-c", choices: [{ index: 0, delta: { content: `tick ${n} ` }, finish_reason: null }] })}\n\n`);
      await sleep(20);
    }
    res.end();
  });
  try {
    await withWorker({ upstream: null, vars: { UPSTREAM_URL: server.url } }, async (mf) => {
      const res = await mf.dispatchFetch("http://worker/v1/chat/completions", chat({ model: "x", stream: true }));
      const reader = res.body.getReader();
      const first = await reader.read();
      assert.ok(!first.done);
      await reader.cancel();
      const result = await Promise.race([gone, sleep(5000).then(() => false)]);
      assert.equal(result, true, "the upstream connection was closed");
    });
  } finally {
    await server.close();
  }
});

test("the replay upstream of `make worker`: models, recorded families, errors", async () => {
  const models = await (await replay(new Request("http://r/v1/models"))).json();
  assert.equal(models.data.length, RECORDINGS.length);
  const missing = await replay(new Request("http://r/v1/nope", { method: "POST", body: "{}" }));
  assert.equal(missing.status, 404);
  const bad = await replay(new Request("http://r/v1/chat/completions", { method: "POST", body: "not json" }));
  assert.equal(bad.status, 400);
  const whole = await (await replay(new Request("http://r/v1/chat/completions", { method: "POST", body: JSON.stringify({ model: "devstral-small" }) }))).json();
  assert.match(whole.choices[0].message.content, /^\[TOOL_CALLS\]get_weather/);
});

test("`make worker` (worker/dev.mjs) in front of a plain server returning raw Hermes, Qwen3-Coder and Mistral text", async () => {
  const { spawn } = await import("node:child_process");
  const texts = {
    "Qwen/Qwen2.5-7B-Instruct": ["hermes", 'Checking.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>'],
    "Qwen/Qwen3-Coder-480B-A35B-Instruct": ["qwen3_coder", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"],
    "mistralai/Mistral-Large-Instruct-2411": ["mistral", '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]'],
  };
  // The plain server: raw model text as content, streamed in 3-character deltas or whole.
  const server = await localUpstream(async (req, res) => {
    let raw = "";
    for await (const part of req) raw += part;
    const body = JSON.parse(raw);
    const reply = await textUpstream(texts[body.model][1])(new Request("http://x", { method: "POST", body: raw }));
    res.writeHead(reply.status, { "content-type": reply.headers.get("content-type") });
    res.end(Buffer.from(await reply.arrayBuffer()));
  });
  const port = await freePort();
  const dev = spawn(process.execPath, [new URL("../../worker/dev.mjs", import.meta.url).pathname], {
    env: { ...process.env, PORT: String(port), UPSTREAM_URL: server.url },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const base = await new Promise((resolve, reject) => {
      let out = "";
      dev.stdout.on("data", (d) => {
        out += d;
        const m = out.match(/toolwire worker: (\S+) in front of (\S+)/);
        if (m) resolve(m[1]);
      });
      dev.on("exit", (code) => reject(new Error(`dev.mjs exited (${code}): ${out}`)));
    });
    assert.equal(base, `http://127.0.0.1:${port}`);
    for (const [model, [parser]] of Object.entries(texts)) {
      for (const stream of [true, false]) {
        const res = await fetch(`${base}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model, stream, tools: TOOLS, messages: [] }) });
        assert.equal(res.headers.get("x-toolwire-parser"), parser, model);
        let call, finish;
        if (stream) {
          const choice = reassemble(new Uint8Array(await res.arrayBuffer())).choices.get(0);
          [call, finish] = [choice.calls[0], choice.finish];
        } else {
          const { choices } = await res.json();
          [call, finish] = [choices[0].message.tool_calls[0].function, choices[0].finish_reason];
        }
        assert.equal(call.name, "get_weather", `${model} stream=${stream}`);
        assert.deepEqual(JSON.parse(call.arguments), { city: "Paris", days: 3 }, `${model} stream=${stream}`);
        assert.equal(finish, "tool_calls");
      }
    }
  } finally {
    dev.kill("SIGTERM");
    await server.close();
  }
});

test("the README's configuration table lists every variable the worker reads", async () => {
  const { readFileSync } = await import("node:fs");
  const source = readFileSync(new URL("../../worker/src/index.js", import.meta.url), "utf8");
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const read = new Set([...source.matchAll(/env\.([A-Z_]+)/g)].map((m) => m[1]));
  assert.ok(read.size >= 8, [...read].join());
  for (const name of read) assert.ok(readme.includes("| `" + name + "` |"), `${name} is missing from the README's worker table`);
});
