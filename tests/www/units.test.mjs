// The playground's modules that need no browser, run in Node against the built package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import * as api from "toolwire";
import { classifyAll } from "../../www/classify.js";
import { Replay, chunkBounds } from "../../www/replay.js";
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
      const content = r.items.filter((i) => i.type === "text").map((i) => i.value).join("");
      const names = r.items.filter((i) => i.type === "tool-call-end" && !i.event.repaired).map((i) => i.event.name);
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
