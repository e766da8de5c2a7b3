// toolwire/probe and the `toolwire probe` CLI against scripted upstreams on 127.0.0.1
// (support/scripted-upstream.mjs): each profile checked field by field, with its evidence.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { PROBES, PROBE_TOOLS, LABELS, formatRate, mergeSse, probe, rate, wilson } from "toolwire/probe";
import { downUrl, startUpstream } from "./support/scripted-upstream.mjs";

const run = promisify(execFile);
const CLI = new URL("../../pkg/cli.js", import.meta.url).pathname;
const FAST = { timeoutMs: 5000, retries: 0 };

async function profileOf(behaviour, options = {}) {
  const up = await startUpstream(behaviour);
  try {
    const lines = [];
    const profile = await probe({ baseUrl: up.url, model: `scripted-${behaviour}`, ...FAST, onProgress: (p) => lines.push(p.line), ...options });
    return { profile, lines, requests: up.requests };
  } finally {
    await up.close();
  }
}

/** The profile's shape and its evidence: every finished sample has a label, a reason and its requests. */
function checkEvidence(profile, samples = 3) {
  assert.equal(profile.probeVersion, 1);
  assert.ok(!Number.isNaN(Date.parse(profile.timestamp)), "timestamp is ISO 8601");
  assert.match(profile.endpoint, /^http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions$/);
  assert.deepEqual(Object.keys(profile.probes), PROBES);
  for (const [name, entry] of Object.entries(profile.probes)) {
    assert.equal(entry.samples.length, samples, name);
    assert.equal(entry.rate.n, samples, name);
    assert.deepEqual(entry.rate.ci95, wilson(entry.rate.pass, entry.rate.n), `${name}: rates carry their Wilson interval`);
    assert.equal(Object.values(entry.labels).reduce((a, b) => a + b, 0), samples);
    for (const s of entry.samples) {
      assert.ok(LABELS.includes(s.label), `${name}: label ${s.label}`);
      assert.equal(typeof s.reason, "string");
      assert.ok(s.reason.length > 5, `${name}: a reason`);
      assert.ok(s.steps.length >= 1);
      for (const st of s.steps) {
        if (st.status === 200) {
          assert.ok(st.raw && typeof st.raw === "object", `${name}: the raw output`);
          assert.ok(st.parse && Array.isArray(st.parse.calls) && Array.isArray(st.parse.diagnostics), `${name}: the parse`);
          assert.ok(LABELS.includes(st.label) && st.reason, `${name}: why it passed or failed`);
        } else {
          assert.match(st.error, /HTTP|reach|within/);
        }
      }
    }
  }
}

const labels = (profile, name) => profile.probes[name].labels;

test("Wilson intervals match the reference values (bridges.md 5.2)", () => {
  const cases = [[0, 1, [0, 0.79346]], [1, 1, [0.20654, 1]], [3, 3, [0.43849, 1]], [0, 10, [0, 0.27754]], [5, 10, [0.23659, 0.76341]], [10, 100, [0.05523, 0.17437]], [20, 20, [0.83887, 1]]];
  for (const [x, n, want] of cases) assert.deepEqual(wilson(x, n), want, `${x}/${n}`);
  assert.equal(wilson(0, 0), null);
  assert.deepEqual(rate(2, 3), { pass: 2, n: 3, rate: 0.66667, ci95: wilson(2, 3) });
  assert.equal(formatRate(rate(2, 3)), "2/3 pass, 0.67 [0.21, 0.94]");
  assert.equal(formatRate(rate(0, 0)), "not measured");
});

test("a server that parses calls itself: native format, everything supported", async () => {
  const { profile, lines, requests } = await profileOf("native");
  checkEvidence(profile);
  assert.equal(profile.model, "scripted-native");
  assert.equal(profile.usable, true);
  assert.equal(profile.toolCallFormat, "native");
  assert.equal(profile.detectedParser, "openai");
  assert.deepEqual(profile.parserCandidates, []);
  assert.equal(profile.supportsParallelToolUse, true);
  assert.equal(profile.supportsStreamingToolUse, true);
  assert.equal(profile.requiresReasoningReplay, false);
  assert.equal(profile.schemaLevel, "full");
  assert.equal(profile.errorRepair, true);
  for (const name of PROBES) assert.deepEqual(profile.probes[name].rate, { pass: 3, n: 3, rate: 1, ci95: [0.43849, 1] }, name);
  assert.deepEqual(profile.probes.parallel.modes, { parallel: 3 });
  // The evidence of a sample: the structured calls as the server sent them, and the reading.
  const basic = profile.probes.basic.samples[0].steps[0];
  assert.equal(basic.raw.tool_calls[0].function.name, "probe_echo");
  assert.deepEqual(JSON.parse(basic.parse.calls[0].arguments), { message: "ping", tag: "alpha" });
  assert.equal(basic.parse.format, "native");
  // The loop sent the tool's result back and the answer used it.
  const loop = profile.probes.loop.samples[0];
  assert.equal(loop.steps.length, 2);
  assert.match(loop.steps[1].raw.content, /RX-4721/);
  // The stream, merged by the SSE rewrite, equals the non-streamed call.
  assert.ok(profile.probes.streaming.samples.every((s) => s.sameAsNonStreamed === true));
  assert.match(profile.probes.streaming.samples[0].steps[0].raw.sse, /^data: /);
  // One progress line per probe.
  assert.equal(lines.length, PROBES.length);
  assert.match(lines[0], /^probe 1\/7 basic \(basic format\): 3\/3 pass, 1\.00 \[0\.44, 1\.00\]$/);
  // Bounded requests: max_tokens, the probe tools, one request per turn (loop, repair and replay have two).
  assert.equal(requests.length, 3 * (1 + 1 + 2 + 1 + 2 + 2 + 1));
  for (const r of requests) {
    assert.equal(r.body.max_tokens, 1024);
    assert.deepEqual(r.body.tools, PROBE_TOOLS);
    assert.equal(r.body.model, "scripted-native");
  }
  assert.equal(requests.filter((r) => r.body.stream).length, 3);
});

test("a raw-text Hermes model: read with hermes; it does not repair a failed call", async () => {
  const { profile } = await profileOf("hermes");
  checkEvidence(profile);
  assert.equal(profile.usable, true);
  assert.equal(profile.toolCallFormat, "text");
  assert.equal(profile.detectedParser, "hermes");
  assert.equal(profile.parserCandidates[0], "hermes");
  assert.ok(!profile.parserCandidates.includes("hf"), "run-time template families are not candidates");
  assert.equal(profile.supportsParallelToolUse, true);
  assert.equal(profile.supportsStreamingToolUse, true);
  assert.equal(profile.requiresReasoningReplay, false);
  assert.equal(profile.schemaLevel, "full");
  assert.equal(profile.errorRepair, false);
  assert.deepEqual(labels(profile, "repair"), { schema_violation: 3 });
  const repair = profile.probes.repair.samples[0];
  assert.match(repair.reason, /notes\/todo\.txt.*notes\/TODO\.md/);
  // The raw text and every family that reads it.
  const basic = profile.probes.basic.samples[0];
  assert.match(basic.steps[0].raw.content, /<tool_call>/);
  assert.equal(basic.steps[0].parse.parser, "hermes");
  assert.ok(basic.readings.includes("hermes") && basic.readings.at(-1) !== "hermes");
  assert.ok(profile.notes.some((n) => /reads them with hermes/.test(n)));
});

test("a Qwen3-Coder model that ignores required: qwen3_coder, schema level none, missing_required", async () => {
  const { profile } = await profileOf("qwen3-coder-lax");
  checkEvidence(profile);
  assert.equal(profile.usable, true, "the calls parse; the schema is the model's problem");
  assert.equal(profile.toolCallFormat, "text");
  assert.equal(profile.detectedParser, "qwen3_coder");
  assert.equal(profile.parserCandidates[0], "qwen3_coder");
  assert.equal(profile.schemaLevel, "none");
  assert.deepEqual(labels(profile, "basic"), { missing_required: 3 });
  assert.deepEqual(labels(profile, "schema"), { missing_required: 3 });
  assert.deepEqual(profile.probes.schema.rate, { pass: 0, n: 3, rate: 0, ci95: [0, 0.56151] });
  const s = profile.probes.schema.samples[0].steps[0];
  assert.match(s.raw.content, /<function=probe_echo>/);
  assert.deepEqual(s.parse.diagnostics.map((d) => d.label), ["missing_required"]);
  assert.match(s.reason, /tag/);
  // Typed by the tools: level 3 is an integer in the reading.
  assert.deepEqual(JSON.parse(s.parse.calls[0].arguments).meta, { lang: "en", level: 3 });
  // Other capabilities are intact; the stream gives what the non-streamed answer gives.
  assert.equal(profile.supportsParallelToolUse, true);
  assert.equal(profile.errorRepair, true);
  assert.equal(profile.supportsStreamingToolUse, true);
});

test("a model that collapses parallel calls: parallel_collapse, no parallel support", async () => {
  const { profile } = await profileOf("collapse");
  checkEvidence(profile);
  assert.equal(profile.detectedParser, "hermes");
  assert.equal(profile.supportsParallelToolUse, false);
  assert.deepEqual(labels(profile, "parallel"), { parallel_collapse: 3 });
  assert.deepEqual(profile.probes.parallel.modes, { one: 3 });
  assert.match(profile.probes.parallel.samples[0].reason, /1 call.* 2 independent calls/);
  assert.equal(profile.schemaLevel, "full");
  assert.equal(profile.errorRepair, true);
});

test("a thinking model that answers 400 without reasoning_content: requiresReasoningReplay", async () => {
  const { profile, requests } = await profileOf("thinking");
  checkEvidence(profile);
  assert.equal(profile.usable, true);
  assert.equal(profile.requiresReasoningReplay, true);
  assert.deepEqual(labels(profile, "replay"), { no_call: 3 });
  const s = profile.probes.replay.samples[0];
  assert.equal(s.reasoningSeen, true);
  assert.equal(s.needsReplay, true);
  assert.deepEqual(s.steps.map((st) => st.status), [200, 400, 200]);
  assert.match(s.steps[1].error, /HTTP 400.*reasoning_content/);
  assert.equal(s.steps[1].request.note, "without the prior reasoning");
  assert.equal(s.steps[2].label, "pass");
  assert.match(s.reason, /with it sent back the turn passes/);
  // The other multi-turn probes send the reasoning back, so they pass.
  assert.equal(profile.errorRepair, true);
  assert.equal(profile.probes.loop.rate.pass, 3);
  const replayed = requests.filter((r) => r.body.messages.some((m) => m.role === "assistant"));
  assert.ok(replayed.some((r) => r.body.messages.some((m) => m.reasoning_content)));
});

test("a server whose streamed calls repeat their arguments: streaming tool use not supported", async () => {
  const { profile } = await profileOf("stream-doubled");
  checkEvidence(profile);
  assert.equal(profile.supportsStreamingToolUse, false);
  assert.deepEqual(labels(profile, "streaming"), { malformed_json: 3 });
  assert.ok(profile.probes.streaming.samples.every((s) => s.sameAsNonStreamed === false));
  assert.equal(profile.probes.basic.rate.pass, 3, "the non-streamed calls are fine");
});

test("an endpoint that hangs: a timeout, a clear message, one request, not usable", async () => {
  const up = await startUpstream("hang");
  try {
    const profile = await probe({ baseUrl: up.url, model: "m", timeoutMs: 300 });
    assert.equal(profile.usable, false);
    assert.match(profile.error, /no complete answer from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions within 300 ms \(timeout\)/);
    assert.equal(profile.probes.basic.samples.length, 1, "the run stops at the first unanswered request");
    assert.equal(profile.probes.basic.samples[0].transportError, true);
    assert.equal(profile.probes.basic.rate.n, 0, "an unanswered request is not a measured sample");
    assert.ok(profile.notes[0].startsWith("stopped early"));
  } finally {
    await up.close();
  }
});

test("an endpoint that is down: cannot reach, not usable", async () => {
  const profile = await probe({ baseUrl: await downUrl(), model: "m", timeoutMs: 2000, retries: 1 });
  assert.equal(profile.usable, false);
  assert.match(profile.error, /cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: .*ECONNREFUSED/);
  assert.equal(profile.detectedParser, null);
});

test("bad options throw errors that name the valid choices", async () => {
  await assert.rejects(probe({ model: "m" }), /baseUrl is required/);
  await assert.rejects(probe({ baseUrl: "http://x/v1" }), /model is required/);
  await assert.rejects(probe({ baseUrl: "ftp://x", model: "m" }), /http or https/);
  await assert.rejects(probe({ baseUrl: "http://x/v1", model: "m", probes: ["basic", "nope"] }), /unknown probe nope; valid: basic, schema, loop, parallel, repair, replay, streaming/);
  await assert.rejects(probe({ baseUrl: "http://x/v1", model: "m", samples: 0 }), /samples must be/);
});

test("a bare origin gets /v1; a full chat/completions URL is kept", async () => {
  const up = await startUpstream("native");
  try {
    const origin = up.url.replace(/\/v1$/, "");
    const a = await probe({ baseUrl: origin, model: "m", samples: 1, probes: ["basic"], ...FAST });
    const b = await probe({ baseUrl: `${up.url}/chat/completions`, model: "m", samples: 1, probes: ["basic"], ...FAST });
    assert.equal(a.endpoint, `${up.url}/chat/completions`);
    assert.equal(b.endpoint, a.endpoint);
    assert.equal(a.usable && b.usable, true);
  } finally {
    await up.close();
  }
});

test("resume: a run cut short keeps its finished samples; the rest is asked again", async () => {
  const up = await startUpstream("hermes");
  try {
    const base = { baseUrl: up.url, model: "m", ...FAST, samples: 2 };
    up.breakAfter(5); // the server goes away after 5 answers
    const first = await probe(base);
    const kept = PROBES.flatMap((p) => first.probes[p].samples.filter((s) => s && !s.transportError).map((s) => [p, s]));
    assert.ok(kept.length >= 3 && kept.length < 14, `${kept.length} finished samples`);
    assert.ok(first.probes.loop.samples.some((s) => s?.transportError), "later samples failed");
    up.breakAfter(Infinity);
    const before = up.requests.length;
    const second = await probe({ ...base, resume: JSON.parse(JSON.stringify(first)) });
    const resumed = up.requests.length - before;
    // Every finished sample is kept as it was; only the others were asked.
    for (const [p, s] of kept) assert.deepEqual(second.probes[p].samples[s.index], s);
    const fresh = await probe({ ...base });
    const all = up.requests.length - before - resumed;
    assert.equal(resumed, all - kept.reduce((n, [, s]) => n + s.steps.length, 0), "the resumed run asked only for the unfinished samples");
    for (const key of ["usable", "detectedParser", "toolCallFormat", "supportsParallelToolUse", "supportsStreamingToolUse", "requiresReasoningReplay", "schemaLevel", "errorRepair"]) {
      assert.deepEqual(second[key], fresh[key], key);
    }
    for (const p of PROBES) assert.equal(second.probes[p].rate.n, 2, p);
    assert.equal(second.resumedFrom, first.timestamp);
    await assert.rejects(probe({ ...base, model: "other", resume: first }), /the profile to resume is for m at .*, not other/);
  } finally {
    await up.close();
  }
});

test("mergeSse reassembles choices, calls by index, and notices a missing [DONE]", () => {
  const enc = (events) => new TextEncoder().encode(events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join(""));
  const m = mergeSse(enc([
    { choices: [{ index: 0, delta: { content: "Hi" } }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "c0", function: { name: "f", arguments: "" } }] } }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] } }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ": 1}" } }] } }, { index: 1, delta: { content: "other" }, finish_reason: "stop" }] },
    { choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
    "[DONE]",
  ]));
  assert.equal(m.done, true);
  assert.deepEqual(m.choices.get(0), { content: "Hi", reasoning: "", calls: [{ index: 0, id: "c0", name: "f", arguments: '{"a": 1}' }], finish: "tool_calls" });
  assert.equal(m.choices.get(1).content, "other");
  assert.equal(mergeSse(enc([{ choices: [] }])).done, false);
});

// The CLI, from the built package.

test("toolwire probe (CLI): progress per probe on stderr, the profile in --out, exit 0 when usable", async () => {
  const up = await startUpstream("hermes");
  const dir = mkdtempSync(join(tmpdir(), "toolwire-probe-"));
  try {
    const out = join(dir, "profile.json");
    const { stdout, stderr } = await run(process.execPath, [CLI, "probe", "--base-url", up.url, "--model", "hermes-3", "--samples", "1", "--out", out, "--api-key-env", "TOOLWIRE_TEST_KEY"], { env: { ...process.env, TOOLWIRE_TEST_KEY: "sk-test-123" } });
    assert.equal(stdout, "");
    const progress = stderr.split("\n").filter((l) => l.startsWith("probe "));
    assert.deepEqual(progress.map((l) => l.split(" ")[1]), PROBES.map((_, i) => `${i + 1}/${PROBES.length}`));
    assert.match(stderr, /usable with parser hermes/);
    const profile = JSON.parse(readFileSync(out, "utf8"));
    assert.equal(profile.detectedParser, "hermes");
    assert.equal(profile.samples, 1);
    assert.ok(up.requests.every((r) => r.headers.authorization === "Bearer sk-test-123"));
    // Resume: every sample is finished, so nothing is asked again.
    const asked = up.requests.length;
    await run(process.execPath, [CLI, "probe", "--base-url", up.url, "--model", "hermes-3", "--samples", "1", "--resume", out], { env: { ...process.env, TOOLWIRE_TEST_KEY: "x" } });
    assert.equal(up.requests.length, asked);
    assert.equal(JSON.parse(readFileSync(out, "utf8")).resumedFrom, profile.timestamp);
  } finally {
    await up.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("toolwire probe (CLI): exit 1 when the endpoint is down, 2 on bad usage, with clear messages", async () => {
  const down = await run(process.execPath, [CLI, "probe", "--base-url", await downUrl(), "--model", "m", "--retries", "0"]).then(() => null, (e) => e);
  assert.equal(down.code, 1);
  assert.match(down.stderr, /stopped: cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions/);
  assert.equal(JSON.parse(down.stdout).usable, false, "the profile still goes to stdout");
  const bad = await run(process.execPath, [CLI, "probe", "--base-url", "http://x/v1", "--modle", "m"]).then(() => null, (e) => e);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown option --modle; the options are: --base-url, --model,/);
  const noKey = await run(process.execPath, [CLI, "probe", "--base-url", "http://x/v1", "--model", "m", "--api-key-env", "TOOLWIRE_UNSET_VAR"]).then(() => null, (e) => e);
  assert.equal(noKey.code, 2);
  assert.match(noKey.stderr, /TOOLWIRE_UNSET_VAR \(--api-key-env\) is not set/);
  const probes = await run(process.execPath, [CLI, "probe", "--base-url", "http://x/v1", "--model", "m", "--probes", "basic,fast"]).then(() => null, (e) => e);
  assert.match(probes.stderr, /--probes: unknown fast; valid: basic, schema/);
  const help = await run(process.execPath, [CLI, "--help"]);
  assert.match(help.stdout, /^usage: toolwire probe --base-url URL --model NAME/);
});

test("npx toolwire probe works from the packed package (package.json bin)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolwire-npx-"));
  const up = await startUpstream("native");
  try {
    const pkg = new URL("../../pkg/", import.meta.url).pathname;
    const npm = { cwd: dir, encoding: "utf8", env: { ...process.env, npm_config_cache: join(dir, ".npm"), npm_config_update_notifier: "false" } };
    const tgz = execFileSync("npm", ["pack", pkg, "--pack-destination", dir, "--silent"], npm).trim().split("\n").at(-1);
    writeFileSync(join(dir, "package.json"), '{"name": "probe-user", "private": true}');
    execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--silent", join(dir, tgz)], npm);
    const { stderr } = await run("npx", ["--no-install", "toolwire", "probe", "--base-url", up.url, "--model", "m", "--samples", "1", "--probes", "basic,streaming", "--out", join(dir, "p.json")], npm);
    assert.match(stderr, /probe 2\/2 streaming/);
    assert.equal(JSON.parse(readFileSync(join(dir, "p.json"), "utf8")).detectedParser, "openai");
  } finally {
    await up.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("probe() runs inside workerd (toolwire/probe by its workerd condition)", async () => {
  const { Miniflare } = await import("miniflare");
  const { readdirSync } = await import("node:fs");
  const PKG = new URL("../../pkg/", import.meta.url);
  const modules = [{ type: "ESModule", path: "/b/worker.js", contents: `
import { probe } from "toolwire/probe";
export default {
  async fetch() {
    return Response.json(await probe({ baseUrl: "http://upstream.test/v1", model: "m", samples: 1, timeoutMs: 5000 }));
  },
};` }];
  for (const dir of ["", "dist/"]) {
    for (const name of readdirSync(new URL(dir, PKG))) {
      if (name.endsWith(".js")) modules.push({ type: "ESModule", path: `/b/toolwire/${dir}${name}`, contents: readFileSync(new URL(dir + name, PKG), "utf8") });
      if (name.endsWith(".wasm")) modules.push({ type: "CompiledWasm", path: `/b/toolwire/${dir}${name}`, contents: readFileSync(new URL(dir + name, PKG)) });
    }
  }
  const target = JSON.parse(readFileSync(new URL("package.json", PKG), "utf8")).exports["./probe"].workerd;
  modules.push({ type: "ESModule", path: "/b/toolwire/probe", contents: `export * from "./${target.slice(2)}";` });
  const up = await startUpstream("hermes");
  const mf = new Miniflare({
    modules,
    modulesRoot: "/b",
    compatibilityDate: "2025-06-01",
    outboundService: async (request) => fetch(up.url.replace(/\/v1$/, "") + new URL(request.url).pathname, { method: request.method, headers: { "content-type": "application/json" }, body: await request.text() }),
  });
  try {
    const profile = await (await mf.dispatchFetch("http://worker/")).json();
    assert.equal(profile.endpoint, "http://upstream.test/v1/chat/completions");
    assert.equal(profile.detectedParser, "hermes");
    assert.equal(profile.usable, true);
    assert.equal(profile.supportsStreamingToolUse, true, "the stream was merged by SseRewriteStream in workerd");
    assert.equal(up.requests.length, 10);
  } finally {
    await mf.dispose();
    await up.close();
  }
});
