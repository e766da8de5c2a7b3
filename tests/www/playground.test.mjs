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
function launch(dir, options = {}) {
  return chromium.launchPersistentContext(dir, {
    ...options,
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

/** Waits until the latest classification is on screen (the table is hidden while a profile shows). */
const settled = (page) => page.waitForSelector('#results[data-state="done"]', { state: "attached" });

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

/** The table as data: [{family, verdict, calls: [name], detected}] in display order (the rows shown). */
const table = (page) =>
  page.$$eval("#rows tr[data-family]", (trs) =>
    trs.map((tr) => ({
      family: tr.dataset.family,
      verdict: tr.querySelector(".verdict").textContent,
      calls: [...tr.querySelectorAll(".call .name")].map((n) => n.textContent),
      detected: tr.classList.contains("is-detected"),
    })));

/** Every family's row: the ones that find nothing too (one click away). */
async function tableAll(page) {
  if (await page.$("#show-all")) await page.click("#show-all");
  return table(page);
}

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
  // The families that find something lead; the others are one click away.
  const leading = await table(page);
  assert.ok(leading.length >= 2 && leading.length < 30, `${leading.length} leading rows`);
  assert.ok(leading.every((r) => r.verdict !== "no call" || r.detected), "no plain no-call row leads");
  const more = await page.textContent("#show-all");
  assert.match(more, /^Show the other (\d+) families \(no call\)$/);
  await page.focus("#show-all");
  await page.keyboard.press("Enter");
  assert.equal(await page.$("#show-all"), null);
  assert.equal(await page.evaluate(() => document.activeElement.closest("tr").dataset.family), (await table(page))[leading.length].family, "focus moves to the first family that was hidden");
  const rows = await table(page);
  assert.equal(rows.length, leading.length + Number(/\d+/.exec(more)[0]));
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
  let rows = await tableAll(page);
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
  // A separate profile, service workers blocked: nothing between the page and the route.
  const dir = mkdtempSync(join(tmpdir(), "toolwire-www-"));
  const ctx = await launch(dir, { serviceWorkers: "block" });
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

test("at 1280 px the text column (content and reasoning) is wide enough to read, and the table fits", T, async () => {
  const page = await open("", { width: 1280, height: 900 });
  await pick(page, "minimax"); // an example with reasoning (deepseek_r1)
  const cell = await page.$eval('#rows tr[data-family="minimax"] td.texts', (td) => {
    const reasoning = td.querySelector(".reasoning pre");
    const line = parseFloat(getComputedStyle(reasoning).lineHeight) || 18;
    return { width: td.getBoundingClientRect().width, reasoning: reasoning.textContent, lines: Math.round((reasoning.getBoundingClientRect().height - 8) / line) };
  });
  assert.ok(cell.width >= 220, `text column ${cell.width}px wide`);
  assert.equal(cell.reasoning, "Plan.");
  assert.equal(cell.lines, 1, "a short reasoning stays on one line");
  const fits = await page.evaluate(() => {
    const t = document.getElementById("table");
    return t.getBoundingClientRect().right <= document.getElementById("results").getBoundingClientRect().right + 1 && document.documentElement.scrollWidth <= window.innerWidth;
  });
  assert.ok(fits, "the table stays inside its section and the page");
  await page.screenshot({ path: ARTIFACTS + "desktop-1280.png" });
  await page.close();
  noProblems();
});

const captured = (file) => readFileSync(new URL(`../sse/${file}`, import.meta.url), "utf8");

test("a pasted SSE capture: the rewrite beside the upstream, per choice, and the family table for the joined text", T, async () => {
  const page = await open("", { width: 1280, height: 900 });
  await paste(page, captured("hermes-qwen25.sse"));
  assert.match(await page.textContent("#input-kind"), /Recognised an SSE capture: 85 events, 1 choice/);
  await page.waitForSelector("#wire:not([hidden])");
  assert.equal(await page.getAttribute("#wire", "data-parser"), "hermes", "the parser of the capture's model");
  assert.match(await page.textContent("#wire-why"), /auto: hermes, the family of Qwen\/Qwen2\.5-7B-Instruct/);
  const sides = () => page.$eval('#wire .choice[data-choice="0"]', (c) => ({
    upstream: c.querySelector(".side-upstream").textContent,
    calls: [...c.querySelectorAll(".side-rewritten .wire-calls .name")].map((n) => n.textContent),
    finish: c.querySelector(".side-rewritten .finish").textContent,
    content: c.querySelector(".side-rewritten .content")?.textContent ?? "",
  }));
  let s = await sides();
  assert.match(s.upstream, /<tool_call>/);
  assert.deepEqual(s.calls, ["get_weather", "get_weather"]);
  assert.equal(s.finish, "tool_calls");
  assert.ok(!s.content.includes("<tool_call>"));
  // Event by event: upstream deltas beside what the rewrite emitted after each; held markup shows as "…".
  const rows = await page.$$eval('#wire .choice[data-choice="0"] .wire-events tbody tr', (trs) => trs.map((tr) => ({ n: tr.dataset.n, up: tr.querySelector(".w-up").textContent, out: tr.querySelector(".w-out").textContent })));
  assert.ok(rows.length > 40);
  assert.ok(rows.some((r) => r.up.includes("<tool_call>") && r.out === "…"), "the markup is held back");
  assert.ok(rows.some((r) => /call #0 get_weather/.test(r.out)));
  assert.ok(rows.some((r) => /finish tool_calls/.test(r.out)));
  assert.match(await page.textContent("#wire-body"), /a usage chunk \(event 84\), \[DONE\] \(event 85\)/);
  // The family table reads the text the upstream sent.
  const table0 = await table(page);
  assert.deepEqual(table0[0], { family: "hermes", verdict: "2 calls", calls: ["get_weather", "get_weather"], detected: true });
  await page.screenshot({ path: ARTIFACTS + "wire.png", fullPage: true });
  // Another parser: qwen3_coder reads no call in Hermes markup; the text passes through.
  await page.selectOption("#wire-parser", "qwen3_coder");
  s = await sides();
  assert.deepEqual(s.calls, []);
  assert.equal(s.finish, "stop");
  await page.waitForSelector('body[data-url="saved"]');
  assert.match(page.url(), /#[jz]=/);
  await page.close();
  noProblems();
});

test("a capture with two choices, and one that lost its blank lines; a completion body", T, async () => {
  const page = await open();
  await paste(page, captured("n2.sse"));
  assert.equal(await page.$$eval("#wire .choice", (cs) => cs.length), 2);
  assert.match(await page.textContent('#wire .choice[data-choice="1"] .side-rewritten'), /It is probably evening in Paris\..*finish_reason\s*stop/s);
  assert.deepEqual((await table(page))[0].calls, ["get_time"]);
  // The table reads choice 1 on request.
  await page.click('#wire .pick-choice[data-choice="1"]');
  await settled(page);
  assert.match(await page.textContent("#input-kind"), /choice 1/);
  assert.ok((await table(page)).every((r) => r.calls.length === 0));
  assert.match(await page.textContent("#show-all"), /^Show the other 56 families/, "only the model's family leads");
  // A capture pasted from a log, without the blank lines between events.
  await paste(page, captured("hermes-qwen25.sse").replaceAll("\n\n", "\n"));
  assert.match(await page.textContent("#input-kind"), /SSE capture: 85 events/);
  assert.deepEqual(await page.$$eval('#wire .side-rewritten .wire-calls .name', (ns) => ns.map((n) => n.textContent)), ["get_weather", "get_weather"]);
  // A non-streaming body.
  await paste(page, JSON.stringify({ id: "chatcmpl-9", object: "chat.completion", model: "mistralai/Mistral-Small-3.2-24B-Instruct-2506", choices: [{ index: 0, message: { role: "assistant", content: '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}' }, finish_reason: "stop" }] }));
  assert.match(await page.textContent("#input-kind"), /Recognised a chat\.completion body: 1 choice/);
  assert.equal(await page.getAttribute("#wire", "data-parser"), "mistral");
  assert.match(await page.textContent("#wire .side-rewritten"), /call #0\s*get_weather\s*\{"city": "Paris"\}.*finish_reason\s*tool_calls/s);
  assert.equal((await table(page))[0].family, "mistral");
  // Raw model output that is JSON stays raw output.
  await paste(page, '{"name": "get_weather", "arguments": {"city": "Paris"}}');
  assert.equal(await page.textContent("#input-kind"), "");
  assert.equal(await page.isHidden("#wire"), true);
  await page.close();
  noProblems();
});

test("a probe profile, pasted or dropped in, as a readable report", T, async () => {
  // A real profile: the probe against a scripted model that collapses parallel calls.
  const { probe } = await import("toolwire/probe");
  const { startUpstream } = await import("../js/support/scripted-upstream.mjs");
  const up = await startUpstream("collapse");
  const profile = await probe({ baseUrl: up.url, model: "scripted-collapse", timeoutMs: 5000 });
  await up.close();
  const page = await open("", { width: 1280, height: 900 });
  await paste(page, JSON.stringify(profile, null, 2));
  await page.waitForSelector("#profile:not([hidden])");
  assert.equal(await page.isHidden("#results"), true, "the family table gives way to the report");
  assert.match(await page.textContent("#input-kind"), /Recognised a toolwire probe profile \(scripted-collapse\)/);
  assert.match(await page.textContent("#profile-verdict"), /^Usable with parser hermes\.$/);
  const facts = await page.$$eval("#profile-facts dd", (dds) => Object.fromEntries(dds.map((d) => [d.dataset.fact, d.textContent])));
  assert.match(facts["Parallel calls"], /^no · 0\/3 pass, 0\.00 \[0\.00, 0\.56\]$/);
  assert.match(facts["Parser"], /^hermes/);
  assert.match(facts["Schema adherence"], /^full/);
  const probes = await page.$$eval("#profile-probes tbody tr", (trs) => trs.map((tr) => [tr.dataset.probe, tr.querySelector(".rate").textContent, tr.querySelector("td:last-child").textContent]));
  assert.deepEqual(probes.map((p) => p[0]), ["basic", "schema", "loop", "parallel", "repair", "replay", "streaming"]);
  assert.deepEqual(probes.find((p) => p[0] === "parallel").slice(1), ["0/3 pass, 0.00 [0.00, 0.56]", "parallel_collapse 3"]);
  // The failing probe's evidence is open, the others closed.
  assert.deepEqual(await page.$$eval("#profile details.evidence[open]", (ds) => ds.map((d) => d.dataset.probe)), ["parallel"]);
  assert.match(await page.textContent('#profile details[data-probe="parallel"]'), /1 call\(s\) where 2 independent calls were asked for/);
  await page.screenshot({ path: ARTIFACTS + "profile.png", fullPage: true });
  // A raw output of the evidence opens in the table.
  await page.click('#profile details[data-probe="parallel"] .open-raw');
  await settled(page);
  assert.equal(await page.isHidden("#profile"), true);
  assert.equal(await page.inputValue("#model"), "scripted-collapse");
  assert.deepEqual((await table(page)).find((r) => r.family === "hermes").calls, ["probe_add"]);
  // Dropped as a file.
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], "profile.json", { type: "application/json" }));
    document.getElementById("text").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, JSON.stringify(profile));
  await page.waitForSelector("#profile:not([hidden])");
  assert.match(await page.textContent("#profile-verdict"), /Usable with parser hermes/);
  // A profile of an endpoint that could not be reached says so.
  await paste(page, JSON.stringify({ ...profile, usable: false, detectedParser: null, error: "cannot reach http://127.0.0.1:9/v1/chat/completions: fetch failed" }));
  assert.match(await page.textContent("#profile-verdict"), /^Not usable: cannot reach http:\/\/127\.0\.0\.1:9/);
  await page.close();
  noProblems();
});

test("phone layout: the wire view and a profile report fit the screen", T, async () => {
  const page = await open("", { width: 390, height: 844 });
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await paste(page, captured("n2.sse"));
  await page.waitForSelector("#wire:not([hidden])");
  assert.ok(await overflow() <= 0, `wire view: page is ${await overflow()}px too wide`);
  await page.screenshot({ path: ARTIFACTS + "phone-wire.png", fullPage: false });
  const profile = { probeVersion: 1, model: "m", endpoint: "http://127.0.0.1:1/v1/chat/completions", timestamp: "2026-01-01T00:00:00.000Z", samples: 1, usable: true, detectedParser: "hermes", toolCallFormat: "text", parserCandidates: ["hermes"], supportsParallelToolUse: false, requiresReasoningReplay: false, supportsStreamingToolUse: true, schemaLevel: "full", errorRepair: true, notes: [],
    probes: { parallel: { title: "parallel calls", rate: { pass: 0, n: 1, rate: 0, ci95: [0, 0.79346] }, labels: { parallel_collapse: 1 }, samples: [{ index: 0, label: "parallel_collapse", reason: "1 call(s) where 2 independent calls were asked for in one turn", steps: [{ request: { turn: 1, stream: false }, status: 200, raw: { content: `<tool_call>{"name": "probe_add", "arguments": {"a": 2, "b": 3, "note": "${"x".repeat(200)}"}}</tool_call>` }, parse: { format: "text", parser: "hermes", calls: [], content: "", diagnostics: [] } }] }] } } };
  await paste(page, JSON.stringify(profile));
  await page.waitForSelector("#profile:not([hidden])");
  assert.ok(await overflow() <= 0, `profile: page is ${await overflow()}px too wide`);
  await page.screenshot({ path: ARTIFACTS + "phone-profile.png", fullPage: false });
  await page.close();
  noProblems();
});
