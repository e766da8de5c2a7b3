// The playground's modules that need no browser, run in Node against the built package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import * as api from "toolwire";
import * as stream from "toolwire/stream";
import { analyseBody, analyseStream, upstreamChoices } from "../../www/capture.js";
import { recognize } from "../../www/recognize.js";
import { classifyAll } from "../../www/classify.js";
import { Replay, chunkBounds } from "../../www/replay.js";
import { mergeDeltas } from "../js/support/sse-client.mjs";
import { DEFAULTS, decodeState, encodeState } from "../../www/state.js";

const examples = JSON.parse(readFileSync(new URL("../../www/examples.json", import.meta.url), "utf8"));

test("www/examples.json is up to date with the fixtures (node scripts/gen-examples.mjs)", () => {
  execFileSync(process.execPath, [new URL("../../scripts/gen-examples.mjs", import.meta.url).pathname, "--check"], { stdio: "pipe" });
});

test("the gallery has one example per family, nearly all finding calls with their family", () => {
  const ids = api.parsers().map((p) => p.id);
  assert.deepEqual(examples.map((e) => e.family), ids.filter((id) => examples.some((e) => e.family === id)));
  assert.ok(examples.length >= ids.length - 2, `${examples.length} examples for ${ids.length} families`);
  // A family whose fixtures have no call (openai passthrough, a response-only format) may
  // show one without.
  const without = examples.filter((e) => !api.parse(e.text, { parser: e.family, tools: e.tools, reasoning: e.reasoning }).toolCalls.length);
  assert.ok(without.length <= 3, `no calls: ${without.map((e) => e.family)}`);
});

test("the fallback classification (parse per family) agrees with the package's classify()", () => {
  assert.equal(typeof api.classify, "function", "this build exports classify");
  const { classify, ...withoutClassify } = api;
  const texts = [...examples.slice(0, 12).map((e) => e.text), '<tool_call>{"name": "f", "arguments": {"a": 1', "plain text"];
  for (const text of texts) {
    const native = classifyAll(api, text, {});
    const fallback = classifyAll(withoutClassify, text, {});
    assert.equal(native.native, true);
    assert.equal(fallback.native, false);
    const pick = (rows) => rows.map(({ parser, verdict, count, toolCalls, content }) => ({ parser, verdict, count, toolCalls, content }));
    assert.deepEqual(pick(fallback.rows), pick(native.rows), text);
  }
});

test("chunkBounds never splits a surrogate pair", () => {
  assert.deepEqual(chunkBounds("a😀b", 1), [[0, 1], [1, 3], [3, 4]]);
  assert.deepEqual(chunkBounds("a😀b", 2), [[0, 3], [3, 4]]);
  assert.deepEqual(chunkBounds("", 3), []);
});

test("replay with chunk size 1 attributes each event to the character that completed it", () => {
  const text = 'Hi!<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call> ok';
  const r = new Replay(api, text, { parser: "hermes" }, 1);
  while (r.step());
  const kinds = r.items.map((i) => i.type);
  assert.deepEqual(kinds, ["text", "tool-call-start", "tool-call-delta", "tool-call-end", "text"]);
  const [hi, start, , end, ok] = r.items;
  assert.equal(hi.value, "Hi!");
  assert.equal(start.event.name, "f");
  // The start comes when the arguments open; its range covers the markup since "Hi!".
  assert.equal(text.slice(start.from, start.to), '<tool_call>{"name": "f", "arguments": {');
  assert.ok(text.slice(0, end.to).endsWith("</tool_call>") || text.slice(0, end.to).endsWith("}}"), text.slice(0, end.to));
  assert.equal(ok.value, " ok");
  assert.equal(r.items.at(-1).to, text.length);
  // Ranges are ordered and within the text.
  for (const i of r.items) assert.ok(0 <= i.from && i.from <= i.to && i.to <= text.length);
});

test("replay of any chunk size gives the same merged events as parse()", () => {
  for (const e of examples.slice(0, 20)) {
    const opts = { parser: e.family, tools: e.tools, reasoning: e.reasoning };
    const want = api.parse(e.text, opts);
    for (const size of [1, 3, 1000]) {
      const r = new Replay(api, e.text, opts, size);
      while (r.step());
      // The merge rule: text, and the markup of a call that is not kept.
      const content = r.items.map((i) => (i.type === "text" ? i.value : i.type === "tool-call-end" && !i.event.kept ? (i.event.text ?? "") : "")).join("");
      const names = r.items.filter((i) => i.type === "tool-call-end" && i.event.kept).map((i) => i.event.name);
      assert.equal(content || null, want.content, `${e.family} chunk ${size}`);
      assert.deepEqual(names, want.toolCalls.map((c) => c.name), `${e.family} chunk ${size}`);
    }
  }
});

test("URL state round-trips, compressed when that is shorter", async () => {
  assert.equal(await encodeState({ ...DEFAULTS }), "");
  const small = { ...DEFAULTS, text: "héllo 😀", family: "hermes", chunk: 3 };
  const h1 = await encodeState(small);
  assert.match(h1, /^#j=/);
  assert.deepEqual((await decodeState(h1)).state, small);
  const big = { ...DEFAULTS, text: '<tool_call>{"name": "f"}</tool_call>\n'.repeat(500), speed: "max", filter: "calls" };
  const h2 = await encodeState(big);
  assert.match(h2, /^#z=/);
  assert.ok(h2.length < big.text.length / 10);
  assert.deepEqual((await decodeState(h2)).state, big);
  assert.match((await decodeState("#z=not-deflate")).error, /damaged/);
  assert.deepEqual((await decodeState("#whatever")).state, DEFAULTS);
});

test("the service worker caches every module of the page (offline use)", () => {
  const sw = readFileSync(new URL("../../www/sw.js", import.meta.url), "utf8");
  const files = JSON.parse(`[${/const FILES = \[([\s\S]*?)\];/.exec(sw)[1].replace(/,\s*$/, "")}]`);
  const www = readdirSync(new URL("../../www/", import.meta.url)).filter((n) => /\.(js|css|html|json)$/.test(n) && n !== "sw.js");
  for (const name of www) assert.ok(files.includes(`./${name}`), `sw.js does not cache ${name}`);
  // Every module the page imports by path is in the list too.
  for (const name of www.filter((n) => n.endsWith(".js"))) {
    const src = readFileSync(new URL(`../../www/${name}`, import.meta.url), "utf8");
    for (const [, dep] of src.matchAll(/from "(\.\/[^"]+)"/g)) assert.ok(files.includes(dep), `${name} imports ${dep}, not cached`);
  }
});

const sse = (file) => readFileSync(new URL(`../sse/${file}`, import.meta.url), "utf8");

test("recognize: SSE captures (also without blank lines, with curl -i headers), bodies, profiles; raw output stays text", () => {
  const c = recognize(sse("hermes-qwen25.sse"));
  assert.equal(c.kind, "sse");
  assert.equal(c.blocks.length, 85);
  assert.equal(c.model, "Qwen/Qwen2.5-7B-Instruct");
  const squeezed = recognize(`HTTP/1.1 200 OK\ncontent-type: text/event-stream\n\n${sse("hermes-qwen25.sse").replaceAll("\n\n", "\n")}`);
  assert.equal(squeezed.kind, "sse");
  assert.equal(squeezed.blocks.length, 85);
  assert.equal(squeezed.ignored, 2, "the header lines are left out and counted");
  assert.equal(squeezed.sse, c.sse, "re-framed to the same events");
  const crlf = recognize(sse("crlf-comments.sse"));
  assert.equal(crlf.kind, "sse");
  assert.ok(crlf.blocks.some((b) => b.comment !== undefined), "comments are kept");
  const body = { id: "x", object: "chat.completion", model: "m", choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }] };
  assert.deepEqual(recognize(JSON.stringify(body, null, 2)), { kind: "completion", body, model: "m" });
  assert.equal(recognize(JSON.stringify({ probeVersion: 1, probes: {} })).kind, "profile");
  for (const raw of ['{"name": "f", "arguments": {"a": 1}}', '<tool_call>{"name": "f", "arguments": {}}</tool_call>', "data: not json\n\n", '{"choices": []}', "", "{broken"]) {
    assert.equal(recognize(raw).kind, "text", raw);
  }
});

test("capture: each upstream event beside what the rewrite emitted after it, per choice; the same bytes as SseRewriteStream", async () => {
  const rec = recognize(sse("n2.sse"));
  const [c0, c1] = upstreamChoices(rec);
  assert.match(c0.content, /^Checking\.<tool_call>/);
  assert.equal(c1.content, "It is probably evening in Paris.");
  const a = analyseStream(stream, rec.blocks, { parser: "hermes" });
  assert.equal(a.error, undefined);
  assert.equal(a.choices.length, 2);
  const r0 = a.choices[0].rewritten;
  assert.deepEqual([r0.content, r0.calls.map((c) => c.name), r0.finish], ["Checking.", ["get_time"], "tool_calls"]);
  assert.deepEqual(JSON.parse(r0.calls[0].arguments), { zone: "Europe/Paris" });
  assert.equal(a.choices[1].rewritten.content, "It is probably evening in Paris.");
  // Rows pair an upstream event with its output; held markup has upstream parts and no output.
  const rows = a.choices[0].rows;
  assert.ok(rows.some((r) => r.upstream.some((p) => p.text.includes("<tool_call>")) && !r.rewritten.length));
  assert.ok(rows.every((r) => r.n === "end" || (r.n >= 1 && r.n <= rec.blocks.length)));
  assert.deepEqual(a.shared.map((s) => s.kind), ["usage", "done"]);
  // The rewritten output is what SseRewriteStream makes of the same bytes (without comments),
  // once deltas are joined: the capture feeds one upstream event at a time, the stream gets the
  // whole file in one chunk and sends a quiet run of argument deltas in it as one event.
  const whole = new Response(new Blob([rec.sse]).stream().pipeThrough(new stream.SseRewriteStream({ parser: "hermes", comments: false })));
  assert.equal(mergeDeltas(a.output), mergeDeltas(await whole.text()));
  // A bad parser: an error naming the valid ids, no throw.
  assert.match(analyseStream(stream, rec.blocks, { parser: "nope" }).error, /unknown parser/);
  // A body.
  const body = { id: "chatcmpl-1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: 'Ok.<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>' }, finish_reason: "stop" }] };
  const b = analyseBody(stream, body, { parser: "hermes" });
  assert.deepEqual([b.choices[0].upstream.calls.length, b.choices[0].rewritten.calls[0].name, b.choices[0].rewritten.finish], [0, "f", "tool_calls"]);
  assert.equal(upstreamChoices(recognize(JSON.stringify(body)))[0].content, body.choices[0].message.content);
});
