// The package in Chromium (Debian's, driven by playwright-core): a page imports `toolwire` and
// `toolwire/stream` through an import map built from the `browser` condition of
// pkg/package.json, calls init(), parse, a ToolCallStream and a SseRewriteStream over fetch, and
// runs the browser examples of the package README. `make test` installs Chromium
// (scripts/setup.sh --browser); without it this suite is skipped.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync, readFileSync } from "node:fs";
import { extname } from "node:path";
import { cases, checkCase, streamBytes } from "./support/sse-client.mjs";
import { bundle } from "./support/bundle.mjs";
import { EXPECTED as AI_SDK_EXPECTED } from "./support/ai-sdk-smoke.mjs";

const CHROMIUM = "/usr/bin/chromium";
const PKG = new URL("../../pkg/", import.meta.url);
const skip = existsSync(CHROMIUM) ? false : `no browser at ${CHROMIUM} (make test installs it)`;

const meta = JSON.parse(readFileSync(new URL("package.json", PKG), "utf8"));
const importMap = {
  imports: Object.fromEntries(
    Object.entries(meta.exports)
      .filter(([, t]) => typeof t === "object" && t.browser)
      .map(([sub, t]) => [sub === "." ? "toolwire" : `toolwire/${sub.slice(2)}`, `/pkg/${t.browser.slice(2)}`]),
  ),
};
const readme = readFileSync(new URL("README.md", PKG), "utf8");
const browserBlocks = [...readme.matchAll(/```js browser\n([\s\S]*?)```/g)].map((m) => m[1]);

const PAGE = `<!doctype html><meta charset="utf-8"><title>toolwire</title>
<script type="importmap">${JSON.stringify(importMap)}</script>
<script type="module">
import init, { parse } from "toolwire";
import { ToolCallStream, SseRewriteStream } from "toolwire/stream";
window.toolwire = (async () => {
  await init();
  await init();
  const read = async (stream) => { const out = []; const r = stream.getReader(); for (let x = await r.read(); !x.done; x = await r.read()) out.push(x.value); return out; };
  const text = new ReadableStream({ start(c) { c.enqueue('Hi<tool_call>{"name": "f", "argu'); c.enqueue('ments": {"a": 1}}</tool_call>'); c.close(); } });
  const events = await read(text.pipeThrough(new ToolCallStream({ parser: "hermes" })));
  const rewrite = async (file, options) => {
    const res = await fetch("/sse/" + file);
    return new TextDecoder().decode(new Uint8Array(await new Response(res.body.pipeThrough(new SseRewriteStream(options))).arrayBuffer()));
  };
  return { parse: parse('<tool_call>{"name": "g", "arguments": {}}</tool_call>', "hermes"), events, rewrite };
})();
</script>`;

const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json", ".html": "text/html" };
let server;
let base;
let browser;
let aiSdkSmoke = "";

function serve(req, res) {
  const url = new URL(req.url, "http://x");
  const send = (status, type, body) => {
    res.writeHead(status, { "content-type": type });
    res.end(body);
  };
  if (url.pathname === "/") return send(200, "text/html", PAGE);
  if (url.pathname.startsWith("/pkg/") && !url.pathname.includes("..")) {
    const file = new URL(url.pathname.slice(5), PKG);
    if (existsSync(file)) return send(200, TYPES[extname(url.pathname)] ?? "application/octet-stream", readFileSync(file));
  }
  if (url.pathname === "/ai-sdk-smoke.js") return send(200, "text/javascript", aiSdkSmoke);
  if (url.pathname === "/bare") return send(200, "text/html", `<!doctype html><meta charset="utf-8"><script type="importmap">${JSON.stringify(importMap)}</script>`);
  if (url.pathname.startsWith("/readme/")) return send(200, "text/javascript", browserBlocks[Number(url.pathname.slice(8))] ?? "");
  if (url.pathname.startsWith("/sse/")) return send(200, "text/event-stream", streamBytes(url.pathname.slice(5)));
  if (url.pathname === "/v1/chat/completions") return send(200, "text/event-stream", streamBytes("hermes-qwen25.sse"));
  if (url.pathname === "/text") return send(200, "text/plain", 'Let me run it.<tool_call>{"name": "run", "arguments": {"cmd": "ls"}}</tool_call>');
  send(404, "text/plain", "not found");
}

before(async () => {
  if (skip) return;
  // The AI SDK smoke run bundled with `ai` for browsers; toolwire/ai-sdk comes from the import map.
  aiSdkSmoke = await bundle(new URL("support/ai-sdk-smoke.mjs", import.meta.url), ["browser"]);
  server = createServer(serve);
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${server.address().port}`;
  const { chromium } = await import("playwright-core");
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});

after(async () => {
  await browser?.close();
  server?.close();
});

async function page() {
  const p = await browser.newPage();
  const errors = [];
  p.on("pageerror", (e) => errors.push(e));
  await p.goto(base + "/");
  await p.waitForFunction(() => window.toolwire !== undefined);
  return { p, errors };
}

test("Chromium: init(), parse and ToolCallStream through an import map", { skip }, async () => {
  const { p, errors } = await page();
  const r = await p.evaluate(async () => {
    const t = await window.toolwire;
    return { parse: t.parse, events: t.events };
  });
  assert.deepEqual(errors, []);
  assert.deepEqual(r.parse.toolCalls, [{ id: "call_0", name: "g", arguments: "{}" }]);
  assert.deepEqual(r.events.map((e) => e.type), ["text", "tool-call-start", "tool-call-delta", "tool-call-end"]);
  await p.close();
});

test("Chromium: SseRewriteStream over fetch on every recorded stream", { skip }, async () => {
  const { p } = await page();
  for (const c of cases) {
    const out = await p.evaluate(async ([file, options]) => (await window.toolwire).rewrite(file, options), [c.file, c.options]);
    checkCase(c, streamBytes(c.file), new TextEncoder().encode(out));
  }
  await p.close();
});

test("Chromium: toolwire/anthropic through the import map (the browser condition) gives what Node gives", { skip }, async () => {
  const fixture = JSON.parse(readFileSync(new URL("../fixtures/anthropic/roundtrip-reasoning-qwen3-coder.json", import.meta.url), "utf8"));
  const upstream = fixture.upstream.map((e) => (typeof e === "string" ? `data: ${e}\n\n` : `data: ${JSON.stringify(e)}\n\n`)).join("");
  const anthropic = await import("toolwire/anthropic");
  const viaNode = new TextDecoder().decode(new Uint8Array(await new Response(new Response(upstream).body.pipeThrough(new anthropic.AnthropicSseStream(fixture.options))).arrayBuffer()));
  const { p, errors } = await page();
  const r = await p.evaluate(async ([upstream, options, completion]) => {
    const a = await import("toolwire/anthropic");
    await a.init();
    const stream = new Response(upstream).body.pipeThrough(new a.AnthropicSseStream(options));
    return { sse: new TextDecoder().decode(new Uint8Array(await new Response(stream).arrayBuffer())), message: a.toAnthropicMessage(completion, options) };
  }, [upstream, fixture.options, fixture.completion]);
  assert.deepEqual(errors, []);
  assert.equal(r.sse, viaNode);
  assert.deepEqual(r.message, fixture.expect);
  await p.close();
});

test("Chromium: the package README's browser examples", { skip }, async () => {
  assert.equal(browserBlocks.length, 2);
  const { p, errors } = await page();
  const r = await p.evaluate(async () => {
    const { toolCallingFetch } = await import("/readme/0");
    const res = await toolCallingFetch("/v1/chat/completions", { method: "POST", body: "{}" }, { model: "Qwen/Qwen2.5-7B-Instruct" });
    const sse = await res.text();
    const { showReply } = await import("/readme/1");
    const log = [];
    const ui = {
      appendText: (t) => log.push(["text", t]),
      startCall: (i, name) => log.push(["start", i, name]),
      appendArguments: (i, a) => log.push(["args", i, a]),
      runCall: (name, args) => log.push(["run", name, args]),
    };
    await showReply(await fetch("/text"), ui);
    return { sse, log };
  });
  assert.deepEqual(errors, []);
  checkCase(cases.find((c) => c.file === "hermes-qwen25.sse"), streamBytes("hermes-qwen25.sse"), new TextEncoder().encode(r.sse));
  assert.deepEqual(r.log, [["text", "Let me run it."], ["start", 0, "run"], ["args", 0, '{"cmd": "ls"}'], ["run", "run", { cmd: "ls" }]]);
  await p.close();
});

test("Chromium: toolwire/ai-sdk with the real `ai` (streamText over the SDK's test model, tool run, two steps)", { skip }, async () => {
  // A page that never calls init(): the browser middleware loads the wasm before its first parser.
  const p = await browser.newPage();
  const errors = [];
  p.on("pageerror", (e) => errors.push(e));
  await p.goto(base + "/bare");
  const r = await p.evaluate(async () => (await import("/ai-sdk-smoke.js")).smoke());
  assert.deepEqual(errors, []);
  const { deltas, ...rest } = r;
  assert.deepEqual(rest, AI_SDK_EXPECTED);
  assert.ok(deltas >= 2, `${deltas} tool-input-delta parts`);
  await p.close();
});
