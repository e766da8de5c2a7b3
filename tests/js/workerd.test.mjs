// The package in real workerd (Miniflare 4), resolved the way a bundler for Workers resolves
// it: the `workerd` condition of pkg/package.json `exports`. Miniflare does not resolve npm
// specifiers, so every file of pkg/ is given as a module named `toolwire/<file>` (ESModule for
// .js, CompiledWasm for .wasm), and `toolwire` / `toolwire/stream` are one-line modules
// re-exporting the file the `workerd` condition names. The upstream is an `outboundService`
// replaying the recorded streams of tests/sse in small slices.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { Miniflare } from "miniflare";
import { cases, checkCase, streamBytes } from "./support/sse-client.mjs";
import { bundle } from "./support/bundle.mjs";
import { EXPECTED as AI_SDK_EXPECTED } from "./support/ai-sdk-smoke.mjs";

const PKG = new URL("../../pkg/", import.meta.url);
const ROOT = "/bundle";

/** pkg/ as Miniflare modules, plus the package's entry points under their bare names. */
function packageModules() {
  const modules = [];
  for (const dir of ["", "dist/"]) {
    for (const name of readdirSync(new URL(dir, PKG))) {
      const path = `${ROOT}/toolwire/${dir}${name}`;
      if (name.endsWith(".js")) modules.push({ type: "ESModule", path, contents: readFileSync(new URL(dir + name, PKG), "utf8") });
      if (name.endsWith(".wasm")) modules.push({ type: "CompiledWasm", path, contents: readFileSync(new URL(dir + name, PKG)) });
    }
  }
  const meta = JSON.parse(readFileSync(new URL("package.json", PKG), "utf8"));
  for (const [subpath, target] of Object.entries(meta.exports)) {
    if (typeof target !== "object" || !target.workerd) continue;
    // workerd resolves every specifier against the importing module's directory.
    const name = subpath === "." ? "toolwire" : `toolwire/${subpath.slice(2)}`;
    const file = (subpath === "." ? "./toolwire/" : "./") + target.workerd.replace(/^\.\//, "");
    modules.push({ type: "ESModule", path: `${ROOT}/${name}`, contents: `export * from "${file}";\nexport { default } from "${file}";\n` });
  }
  return modules;
}

/** Streams `bytes` in slices of `size` bytes (chunks split mid-line, mid-event, mid-UTF-8). */
function sliced(bytes, size) {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i >= bytes.length) return c.close();
      c.enqueue(bytes.slice(i, i + size));
      i += size;
    },
  });
}

async function withWorker(source, options, f) {
  const mf = new Miniflare({
    modules: [{ type: "ESModule", path: `${ROOT}/worker.js`, contents: source }, ...packageModules()],
    modulesRoot: ROOT,
    compatibilityDate: "2025-06-01",
    ...options,
  });
  try {
    return await f(mf);
  } finally {
    await mf.dispose();
  }
}

const SMOKE = `
import init, { parse, detectParser } from "toolwire";
import { ToolCallStream, SseRewriteStream } from "toolwire/stream";

export default {
  async fetch(request) {
    await init();
    const url = new URL(request.url);
    if (url.pathname === "/parse") {
      const events = [];
      const text = new ReadableStream({ start(c) { c.enqueue('Hi<tool_call>{"name": "f", "argu'); c.enqueue('ments": {"a": 1}}</tool_call>'); c.close(); } });
      const reader = text.pipeThrough(new ToolCallStream("hermes")).getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) events.push(r.value);
      return Response.json({ parse: parse('<tool_call>{"name": "g", "arguments": {}}</tool_call>', "hermes"), events, detected: detectParser("Qwen/Qwen2.5-7B-Instruct") });
    }
    const upstream = await fetch("http://upstream.test/" + url.searchParams.get("file"));
    const options = JSON.parse(url.searchParams.get("options"));
    return new Response(upstream.body.pipeThrough(new SseRewriteStream(options)), { headers: { "content-type": "text/event-stream" } });
  },
};
`;

const replay = (size) => ({
  async outboundService(request) {
    const file = new URL(request.url).pathname.slice(1);
    return new Response(sliced(streamBytes(file), size), { headers: { "content-type": "text/event-stream" } });
  },
});

test("workerd: `toolwire` and `toolwire/stream` import through the workerd condition and work", async () => {
  await withWorker(SMOKE, {}, async (mf) => {
    const r = await (await mf.dispatchFetch("http://localhost/parse")).json();
    assert.deepEqual(r.parse.toolCalls, [{ id: "call_0", name: "g", arguments: "{}" }]);
    assert.deepEqual(r.events.map((e) => e.type), ["text", "tool-call-start", "tool-call-delta", "tool-call-end"]);
    assert.equal(r.detected, "hermes");
  });
});

test("workerd: SseRewriteStream on every recorded stream, upstream sliced every 7 bytes", async () => {
  await withWorker(SMOKE, replay(7), async (mf) => {
    for (const c of cases) {
      const url = `http://localhost/rewrite?file=${c.file}&options=${encodeURIComponent(JSON.stringify(c.options))}`;
      const out = new Uint8Array(await (await mf.dispatchFetch(url)).arrayBuffer());
      checkCase(c, streamBytes(c.file), out);
    }
  });
});

test("workerd: the package README's worker example proxies streaming and non-streaming completions", async () => {
  const readme = readFileSync(new URL("README.md", PKG), "utf8");
  const source = /```js worker\n([\s\S]*?)```/.exec(readme)[1];
  const seen = [];
  await withWorker(source, {
    bindings: { UPSTREAM_URL: "http://model.test" },
    async outboundService(request) {
      if (request.method === "GET") return Response.json({ object: "list", data: [{ id: "m" }], url: request.url });
      const body = await request.json();
      seen.push({ url: request.url, auth: request.headers.get("authorization") });
      if (body.stream) return new Response(sliced(streamBytes("qwen3-coder.sse"), 13), { headers: { "content-type": "text/event-stream", "x-upstream": "vllm" } });
      return Response.json({
        id: "chatcmpl-9z",
        object: "chat.completion",
        model: body.model,
        choices: [{ index: 0, message: { role: "assistant", content: '<tool_call>\n<function=search_code>\n<parameter=query>\nx\n</parameter>\n<parameter=max_results>\n3\n</parameter>\n</function>\n</tool_call>' }, finish_reason: "stop" }],
      });
    },
  }, async (mf) => {
    const c = cases.find((x) => x.file === "qwen3-coder.sse");
    const request = (stream) => ({
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k" },
      body: JSON.stringify({ model: "Qwen/Qwen3-Coder-30B-A3B-Instruct", stream, tools: c.options.tools, messages: [{ role: "user", content: "find it" }] }),
    });
    const streamed = await mf.dispatchFetch("http://localhost/v1/chat/completions", request(true));
    assert.equal(streamed.headers.get("content-type"), "text/event-stream");
    assert.equal(streamed.headers.get("x-upstream"), "vllm");
    checkCase(c, streamBytes(c.file), new Uint8Array(await streamed.arrayBuffer()));
    const whole = await (await mf.dispatchFetch("http://localhost/v1/chat/completions", request(false))).json();
    assert.deepEqual(whole.choices[0].message.tool_calls, [{ id: "call_9z_0", type: "function", function: { name: "search_code", arguments: '{"query": "x", "max_results": 3}' } }]);
    assert.equal(whole.choices[0].finish_reason, "tool_calls");
    assert.deepEqual(seen.map((s) => [s.url, s.auth]), [["http://model.test/v1/chat/completions", "Bearer k"], ["http://model.test/v1/chat/completions", "Bearer k"]]);
    // Other routes pass through.
    assert.deepEqual(await (await mf.dispatchFetch("http://localhost/v1/models?x=1")).json(), { object: "list", data: [{ id: "m" }], url: "http://model.test/v1/models?x=1" });
  });
});

test("workerd: toolwire/ai-sdk with the real `ai` (streamText over the SDK's test model, tool run, two steps)", async () => {
  // The smoke run bundled with `ai` as a Workers bundler would (workerd conditions); toolwire/ai-sdk
  // resolves through the package's `workerd` condition like the other entries.
  const smoke = await bundle(new URL("support/ai-sdk-smoke.mjs", import.meta.url), ["workerd", "worker", "browser"]);
  const source = `${smoke}\nexport default { async fetch() { return Response.json(await smoke()); } };\n`;
  await withWorker(source, {}, async (mf) => {
    const r = await (await mf.dispatchFetch("http://localhost/")).json();
    const { deltas, ...rest } = r;
    assert.deepEqual(rest, AI_SDK_EXPECTED);
    assert.ok(deltas >= 2, `${deltas} tool-input-delta parts`);
  });
});
