// The playground in Debian's Chromium (playwright-core, no browser download): served by
// scripts/serve.mjs on a free port. Screenshots go to tests/www/artifacts/ (git-ignored).
// CHROMIUM=/path/to/chrome overrides the browser.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { serve } from "../../scripts/serve.mjs";

const ARTIFACTS = new URL("./artifacts/", import.meta.url).pathname;
const examples = JSON.parse(readFileSync(new URL("../../www/examples.json", import.meta.url), "utf8"));
const exampleOf = (family) => String(examples.findIndex((e) => e.family === family));
const T = { timeout: 60_000 };

let server;
let context;
let profile;
const problems = []; // console errors and page errors, of every page

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await serve({ port: 0 });
  profile = mkdtempSync(join(tmpdir(), "toolwire-www-"));
  context = await launch(profile);
});

/** Chromium with a fresh profile in `dir` (TOOLCHAIN.md: Debian's chromium, these flags). */
function launch(dir) {
  return chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  });
}

after(async () => {
  await context?.close();
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function open(hash = "", viewport) {
  const page = await context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(server.url + hash);
  await page.waitForSelector("body[data-ready]");
  await settled(page);
  return page;
}

/** Waits until the latest classification is on screen. */
const settled = (page) => page.waitForSelector('#results[data-state="done"]');

/** Sets the raw output as a paste would (page.fill of large texts is slow in Chromium). */
async function paste(page, text) {
  await page.evaluate((t) => {
    const area = document.getElementById("text");
    area.value = t;
    area.dispatchEvent(new Event("input", { bubbles: true }));
  }, text);
  await settled(page); // input marks the results busy until the new ones are shown
}

async function pick(page, family) {
  await page.selectOption("#example", exampleOf(family));
  await settled(page);
}

/** The table as data: [{family, verdict, calls: [name], detected}] in display order. */
const table = (page) =>
  page.$$eval("#rows tr[data-family]", (trs) =>
    trs.map((tr) => ({
      family: tr.dataset.family,
      verdict: tr.querySelector(".verdict").textContent,
      calls: [...tr.querySelectorAll(".call .name")].map((n) => n.textContent),
      detected: tr.classList.contains("is-detected"),
    })));

function noProblems() {
  const list = problems.splice(0);
  assert.deepEqual(list, [], "console errors or page errors");
}

test("a Hermes example: every family in the table, the model's family first and highlighted", T, async () => {
  const page = await open();
  const options = await page.$$eval("#example option", (os) => os.length);
  assert.equal(options, examples.length + 1, "one gallery entry per family");
  await pick(page, "hermes");
  assert.equal(await page.inputValue("#text"), examples[Number(exampleOf("hermes"))].text);
  assert.match(await page.textContent("#detected"), /hermes/);
  const rows = await table(page);
  assert.ok(rows.length >= 50, `${rows.length} rows`);
  assert.deepEqual(rows[0], { family: "hermes", verdict: "1 call", calls: ["f"], detected: true });
  assert.match(await page.textContent("#summary"), /model's family hermes finds 1 call/);
  assert.match(await page.textContent("#timing"), /classified in [\d.]+ ms/);
  // Families that see no markup read it all as content.
  const none = rows.find((r) => r.verdict === "no call");
  assert.ok(none, "some family finds no call");
  await page.screenshot({ path: ARTIFACTS + "desktop.png" });
  // Filters.
  await page.check('input[name="filter"][value="calls"]');
  const calls = await table(page);
  assert.ok(calls.length > 1 && calls.every((r) => /call/.test(r.verdict) && r.verdict !== "no call"));
  await page.check('input[name="filter"][value="none"]');
  assert.ok((await table(page)).every((r) => r.verdict === "no call"));
  await page.check('input[name="filter"][value="all"]');
  await page.close();
  noProblems();
});

test("a Qwen3-Coder XML example, a pasted text with several calls, and a failure", T, async () => {
  const page = await open();
  await pick(page, "qwen3_coder");
  let rows = await table(page);
  const q = rows.find((r) => r.family === "qwen3_coder");
  assert.match(q.verdict, /^\d+ calls?$/);
  assert.ok(q.calls.length > 0);
  assert.equal(rows.find((r) => r.family === "hermes").verdict, "no call");

  await page.fill("#model", "");
  await paste(page, 'Two: <tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{"name": "b", "arguments": {"k": "v"}}</tool_call>');
  rows = await table(page);
  assert.deepEqual(rows.find((r) => r.family === "hermes").calls, ["a", "b"]);
  assert.equal(rows.find((r) => r.family === "hermes").verdict, "2 calls");

  // A malformed call next to a good one: the family finds one call and reports the other.
  await paste(page, '<tool_call>{"name": "f", "arguments": {"a": 1,,}}</tool_call> <tool_call>{"name": "g", "arguments": {}}</tool_call>');
  await page.check('input[name="filter"][value="failed"]');
  rows = await table(page);
  assert.ok(rows.length > 0, "some family reports the malformed call");
  assert.equal(await page.$$eval("#rows tr[data-family]", (trs) => trs.every((tr) => tr.querySelector(".diags"))), true);
  const h = rows.find((r) => r.family === "hermes");
  assert.deepEqual([h.verdict, h.calls], ["1 call", ["g"]]);
  assert.match(await page.textContent('#rows tr[data-family="hermes"] .diags'), /malformed_json/);
  // Malformed alone: the verdict is the diagnostic.
  await paste(page, '<tool_call>{"name": "f", "arguments": {"a": 1,,}}</tool_call>');
  rows = await table(page);
  assert.equal(rows.find((r) => r.family === "hermes").verdict, "malformed_json");
  await page.close();
  noProblems();
});

test("tools JSON: a clear error when invalid; used when valid", T, async () => {
  const page = await open();
  await paste(page, '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": "3"}}</tool_call>');
  await page.fill("#tools", '[{"type": "function", "function": {"name": "get_weather"');
  await settled(page);
  assert.match(await page.textContent("#tools-error"), /Not valid JSON.*ignored/s);
  assert.equal(await page.getAttribute("#tools", "aria-invalid"), "true");
  await page.fill("#tools", '[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}]');
  await settled(page);
  assert.equal(await page.textContent("#tools-error"), "");
  assert.match(await page.textContent("#tools-note"), /1 tool: get_weather/);
  // JSON families keep the model's bytes and report the wrong type.
  const hermes = await page.textContent('#rows tr[data-family="hermes"]');
  assert.match(hermes, /type_coercion.*days.*expected integer/s);
  await page.fill("#tools", '{"name": "x"}');
  await settled(page);
  assert.match(await page.textContent("#tools-error"), /function\.name/);
  await page.close();
  noProblems();
});

test("stream replay: events appear as a timeline, each tied to its input range", T, async () => {
  const page = await open();
  await pick(page, "hermes");
  const text = await page.inputValue("#text");
  await page.click('#rows tr[data-family="hermes"] .fam');
  await page.waitForSelector("#detail[open]");
  assert.equal(await page.textContent("#detail-title"), "hermes");
  // Replay live at 100 chunks/s: a moment in, part of the input is pushed.
  await page.waitForFunction(() => document.querySelectorAll("#timeline li").length > 0);
  await page.waitForSelector('#detail[data-replay="done"]', { timeout: 20_000 });
  const events = await page.$$eval("#timeline li", (lis) => lis.map((li) => li.className.replace(/\s*selected/, "")));
  assert.deepEqual(events, ["ev ev-text", "ev ev-tool-call-start", "ev ev-tool-call-delta", "ev ev-tool-call-end"]);
  assert.match(await page.textContent("#replay-status"), /finished: 1 call, 0 diagnostics/);
  // Selecting the call start highlights the markup that led to it.
  await page.click("#timeline li.ev-tool-call-start");
  const mark = await page.textContent("#raw mark");
  assert.ok(mark.startsWith("<tool_call>"), mark);
  assert.ok(text.includes(mark));
  // Keyboard: arrow down moves to the arguments and highlights them.
  await page.keyboard.press("ArrowDown");
  assert.match(await page.evaluate(() => document.activeElement.className), /ev-tool-call-delta/);
  // Step-by-step with a bigger chunk.
  await page.fill("#chunk", "10");
  await page.dispatchEvent("#chunk", "change");
  await page.click("#step");
  await page.waitForFunction(() => /chunk 1\//.test(document.getElementById("progress-text").textContent));
  await page.click("#to-end");
  await page.waitForSelector('#detail[data-replay="done"]');
  await page.screenshot({ path: ARTIFACTS + "replay.png" });
  await page.waitForSelector('body[data-url="saved"]');
  assert.match(page.url(), /#[jz]=/);
  await page.keyboard.press("Escape");
  await page.waitForSelector("#detail:not([open])", { state: "attached" });
  await page.close();
  noProblems();
});

test("a shared link restores text, model, tools, family, filter and replay settings", T, async () => {
  const page = await open();
  await pick(page, "mistral");
  await page.fill("#model", "my-model");
  await page.fill("#tools", '[{"type": "function", "function": {"name": "get_current_weather"}}]');
  await page.check('input[name="filter"][value="calls"]');
  await page.click('#rows tr[data-family="mistral"] .fam');
  await page.waitForSelector("#detail[open]");
  await page.fill("#chunk", "4");
  await page.dispatchEvent("#chunk", "change");
  await page.selectOption("#speed", "max");
  await page.keyboard.press("Escape"); // closes the dialog: the family leaves the state
  await page.click('#rows tr[data-family="mistral"] .fam');
  await page.waitForSelector("#detail[open]");
  await page.waitForSelector('body[data-url="saved"]'); // the URL is written after a short pause
  const link = page.url();
  const text = await page.inputValue("#text");
  await page.close();

  const again = await open(link.slice(link.indexOf("#")));
  assert.equal(await again.inputValue("#text"), text);
  assert.equal(await again.inputValue("#model"), "my-model");
  assert.match(await again.inputValue("#tools"), /get_current_weather/);
  assert.equal(await again.isChecked('input[name="filter"][value="calls"]'), true);
  await again.waitForSelector("#detail[open]");
  assert.equal(await again.textContent("#detail-title"), "mistral");
  assert.equal(await again.inputValue("#chunk"), "4");
  assert.equal(await again.inputValue("#speed"), "max");
  assert.ok((await table(again)).every((r) => r.verdict !== "no call"));
  await again.close();

  // A large state travels compressed.
  const big = await open();
  await paste(big, 'x <tool_call>{"name": "f", "arguments": {"i": 1}}</tool_call>\n'.repeat(300));
  await big.click("#share");
  await big.waitForFunction(() => /Link copied|Copy the link/.test(document.getElementById("share-status").textContent));
  const zlink = await big.inputValue("#share-link");
  assert.match(zlink, /#z=/);
  await big.close();
  const restored = await open(zlink.slice(zlink.indexOf("#")));
  assert.equal((await restored.inputValue("#text")).length, 'x <tool_call>{"name": "f", "arguments": {"i": 1}}</tool_call>\n'.length * 300);
  assert.equal((await table(restored)).find((r) => r.family === "hermes").verdict, "300 calls");
  await restored.close();
  // A damaged link says so and still works.
  const broken = await open("#z=AAAA");
  assert.match(await broken.textContent("#banner"), /damaged/);
  await broken.close();
  noProblems();
});

test("100 KB across every family stays interactive (classified in a worker)", T, async (t) => {
  const page = await open();
  let big = "";
  for (let i = 0; big.length < 100 * 1024; i++) big += `Some prose. ${examples[i % examples.length].text}\n`;
  await page.evaluate(() => {
    // Longest gap between animation frames while classifying: the main thread must stay free.
    window.__gaps = [];
    let last = performance.now();
    const loop = (t) => {
      window.__gaps.push(t - last);
      last = t;
      if (window.__gaps.length < 400) requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  });
  await paste(page, big);
  const timing = await page.textContent("#timing");
  const ms = Number(/classified in ([\d.]+) ms/.exec(timing)[1]);
  const gap = await page.evaluate(() => Math.max(...window.__gaps));
  t.diagnostic(`classify ${(big.length / 1024).toFixed(0)} KB: ${timing}; longest frame gap ${gap.toFixed(0)} ms`);
  assert.match(timing, /Web Worker/);
  assert.ok(ms < 5000, timing);
  assert.ok(gap < 1000, `main thread blocked ${gap} ms`); // a gross guard: machines here are noisy
  const rows = await table(page);
  assert.ok(rows.filter((r) => r.verdict !== "no call").length > 40);
  await page.close();
  noProblems();
});

test("phone layout: no horizontal scrolling, rows as cards, replay usable", T, async () => {
  const page = await open("", { width: 390, height: 844 });
  await pick(page, "hermes");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the phone`);
  await page.screenshot({ path: ARTIFACTS + "phone.png", fullPage: false });
  await page.click('#rows tr[data-family="hermes"] .fam');
  await page.waitForSelector('#detail[data-replay="done"]', { timeout: 20_000 });
  const inner = await page.evaluate(() => document.getElementById("detail").scrollWidth - document.getElementById("detail").clientWidth);
  assert.ok(inner <= 0, `dialog is ${inner}px too wide`);
  await page.screenshot({ path: ARTIFACTS + "phone-replay.png" });
  await page.close();
  noProblems();
});

test("keyboard: arrows move through the table, Enter opens the family", T, async () => {
  const page = await open();
  await pick(page, "hermes");
  await page.focus("#rows .fam");
  await page.keyboard.press("ArrowDown");
  const second = await page.evaluate(() => document.activeElement.closest("tr").dataset.family);
  assert.equal(second, (await table(page))[1].family);
  await page.keyboard.press("Enter");
  await page.waitForSelector("#detail[open]");
  assert.equal(await page.textContent("#detail-title"), second);
  await page.keyboard.press("Escape");
  await page.waitForSelector("#detail:not([open])", { state: "attached" });
  assert.equal(await page.evaluate(() => document.activeElement.closest("tr")?.dataset.family), second, "focus returns to the row");
  await page.close();
  noProblems();
});

test("offline once loaded (service worker)", T, async () => {
  const page = await open();
  await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener("controllerchange", r, { once: true }));
    return reg.active.state;
  });
  await context.setOffline(true);
  try {
    await page.reload();
    await page.waitForSelector("body[data-ready]");
    await pick(page, "pythonic");
    const rows = await table(page);
    assert.match(rows.find((r) => r.family === "pythonic").verdict, /call/);
  } finally {
    await context.setOffline(false);
  }
  await page.close();
  // Offline reloads log failed fetches of nothing we need; only page errors count here.
  const list = problems.splice(0).filter((p) => p.startsWith("pageerror"));
  assert.deepEqual(list, []);
});

test("without classify() in the package, the page falls back to parse() per family", T, async () => {
  // A separate profile: no service worker between the page and the route.
  const dir = mkdtempSync(join(tmpdir(), "toolwire-www-"));
  const ctx = await launch(dir);
  try {
    await ctx.route("**/pkg/api.js", async (route) => {
      const res = await route.fetch();
      const body = (await res.text()).replace("export function classify", "function classifyHidden");
      await route.fulfill({ response: res, body });
    });
    const page = await ctx.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(server.url);
    await page.waitForSelector("body[data-ready]");
    await pick(page, "hermes");
    assert.match(await page.textContent("#timing"), /fallback/);
    assert.deepEqual((await table(page))[0], { family: "hermes", verdict: "1 call", calls: ["f"], detected: true });
    assert.deepEqual(errors, []);
  } finally {
    await ctx.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the service worker's cache is named after the package version; a new release replaces it", T, async () => {
  // A copy of the package served by its own server and a fresh profile: the release can change.
  const dir = mkdtempSync(join(tmpdir(), "toolwire-www-"));
  const pkgCopy = join(dir, "pkg");
  cpSync(new URL("../../pkg/", import.meta.url).pathname, pkgCopy, { recursive: true });
  const own = await serve({ port: 0, pkg: pkgCopy });
  const ctx = await launch(join(dir, "profile"));
  const version = JSON.parse(readFileSync(join(pkgCopy, "package.json"), "utf8")).version;
  const controlled = (page) => page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) await new Promise((r) => navigator.serviceWorker.addEventListener("controllerchange", r, { once: true }));
    return navigator.serviceWorker.controller.scriptURL;
  });
  const cacheNames = (page) => page.evaluate(() => caches.keys());
  try {
    const page = await ctx.newPage();
    await page.goto(own.url);
    await page.waitForSelector("body[data-ready]");
    assert.match(await controlled(page), new RegExp(`sw\\.js\\?v=${version.replaceAll(".", "\\.")}$`));
    await page.waitForFunction((v) => caches.keys().then((k) => k.includes(`toolwire-playground-${v}`)), version);
    assert.deepEqual(await cacheNames(page), [`toolwire-playground-${version}`]);
    // A new release: the next load registers the new worker, whose activation drops the old cache.
    const meta = JSON.parse(readFileSync(join(pkgCopy, "package.json"), "utf8"));
    meta.version = `${version}-next.1`;
    writeFileSync(join(pkgCopy, "package.json"), JSON.stringify(meta));
    await page.reload();
    await page.waitForSelector("body[data-ready]");
    await page.waitForFunction((v) => navigator.serviceWorker.controller?.scriptURL.endsWith(`v=${v}`), meta.version, { timeout: 20_000 });
    await page.waitForFunction((v) => caches.keys().then((k) => k.length === 1 && k[0] === `toolwire-playground-${v}`), meta.version, { timeout: 20_000 });
    await page.close();
  } finally {
    await ctx.close();
    await own.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
