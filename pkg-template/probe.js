// toolwire/probe: measures how an OpenAI-compatible endpoint and its model call tools, with
// harmless probe tools, and writes a capability profile with the evidence (issue 18). Shared by
// every runtime entry (probe.node.js, probe.workerd.js, probe.browser.js); the wasm must be
// ready before `probe()` runs (the node and workerd entries do it at import).
//
// Each probe runs `samples` times; every sample gets one label, decided in stages (parse, then
// schema, then semantics; the first stage that fails gives the label):
//   parse      no_call, malformed_json, truncation, wrong_tool (an undeclared name), escaping_error
//   schema     missing_required, schema_violation, hallucinated_param, type_coercion
//   semantics  wrong_tool (another declared tool), parallel_collapse, spurious_call, and
//              schema_violation for values the task fixed (its own schema: an exact tag, a sum,
//              an answer that must quote the tool's result)
// A request the endpoint refuses or cannot answer gives no call: `no_call`, with the reason.
import { classify, detectParser, parse, parsers, sniffParser } from "./api.js";
import { SseRewriteStream } from "./stream.js";

/** The profile format's version (bumped when probes or fields change meaning). */
export const PROBE_VERSION = 1;

/** The probes, in the order they run. */
export const PROBES = ["basic", "schema", "loop", "parallel", "repair", "replay", "streaming"];

/** Every label a sample can get. */
export const LABELS = [
  "pass", "no_call", "malformed_json", "truncation", "wrong_tool", "escaping_error", "missing_required",
  "schema_violation", "hallucinated_param", "type_coercion", "parallel_collapse", "spurious_call",
];

/** The probe tools (OpenAI tool definitions). None has a side effect: the probe answers them. */
export const PROBE_TOOLS = [
  fn("probe_echo", "Echoes a message back with a tag. Harmless test tool.", {
    message: { type: "string", description: "the text to echo" },
    tag: { type: "string", enum: ["alpha", "beta", "gamma"], description: "one of alpha, beta, gamma" },
    meta: {
      type: "object",
      description: "optional details",
      properties: { lang: { type: "string" }, level: { type: "integer", minimum: 1, maximum: 5 } },
      required: ["lang", "level"],
      additionalProperties: false,
    },
  }, ["message", "tag"]),
  fn("probe_add", "Adds two integers and returns the sum with a receipt code. Harmless test tool.", {
    a: { type: "integer" },
    b: { type: "integer" },
  }, ["a", "b"]),
  fn("probe_fail_once", "Reads a file by path. Harmless test tool (it reads nothing).", {
    path: { type: "string", description: "the file's path" },
  }, ["path"]),
];
const DECLARED = new Set(PROBE_TOOLS.map((t) => t.function.name));
/** Families built at run time from a `template` option: never the most specific reading. */
const TEMPLATE_FAMILIES = new Set(["hf", "beam"]);

function fn(name, description, properties, required) {
  return { type: "function", function: { name, description, parameters: { type: "object", properties, required, additionalProperties: false } } };
}

const SYSTEM = "You are being tested with harmless test tools. Call tools exactly as asked, with exactly the values given. Do not ask questions.";
const ECHO_RESULT = (args) => ({ echoed: typeof args?.message === "string" ? args.message : null, id: "E-93" });
const ADD_RESULT = (args) => ({ sum: Number.isInteger(args?.a) && Number.isInteger(args?.b) ? args.a + args.b : null, receipt: "RX-4721" });
const REPAIRED_PATH = "notes/TODO.md";
const FAIL_RESULT = (args) => ({
  error: { code: "ENOENT", message: `${args?.path ?? "that path"} does not exist. The file you want is at ${REPAIRED_PATH}: call probe_fail_once again with that path.` },
});

/** What each probe asks and expects. */
const SPECS = {
  basic: {
    title: "basic format",
    prompt: 'Call the probe_echo tool with message "ping" and tag "alpha".',
    expect: { calls: [{ name: "probe_echo", args: { message: "ping", tag: "alpha" } }] },
  },
  schema: {
    title: "schema adherence",
    prompt: 'Call the probe_echo tool with message "status report", tag "gamma", and meta with lang "en" and level 3.',
    expect: { calls: [{ name: "probe_echo", args: { message: "status report", tag: "gamma", meta: { lang: "en", level: 3 } } }] },
  },
  loop: {
    title: "single-tool loop",
    prompt: "What is 17 plus 25? Use the probe_add tool, then reply with the sum and the receipt code the tool returns.",
    expect: { calls: [{ name: "probe_add", args: { a: 17, b: 25 } }] },
    result: ADD_RESULT,
    then: { answer: ["RX-4721"] },
  },
  parallel: {
    title: "parallel calls",
    prompt: "Make two independent probe_add calls in this one turn, without waiting for the first result: add 2 and 3, and add 10 and 20.",
    expect: { calls: [{ name: "probe_add", args: { a: 2, b: 3 } }, { name: "probe_add", args: { a: 10, b: 20 } }] },
  },
  repair: {
    title: "error repair",
    prompt: 'Use the probe_fail_once tool to read the file at path "notes/todo.txt".',
    expect: { calls: [{ name: "probe_fail_once", args: { path: "notes/todo.txt" } }] },
    result: FAIL_RESULT,
    then: { calls: [{ name: "probe_fail_once", args: { path: REPAIRED_PATH } }] },
  },
  replay: {
    title: "reasoning replay",
    prompt: 'Call the probe_echo tool with message "ping" and tag "alpha". After the tool answers, reply with the id it returns.',
    expect: { calls: [{ name: "probe_echo", args: { message: "ping", tag: "alpha" } }] },
    result: ECHO_RESULT,
    then: { answer: ["E-93"] },
  },
  streaming: {
    title: "streaming",
    prompt: 'Call the probe_echo tool with message "ping" and tag "alpha".',
    expect: { calls: [{ name: "probe_echo", args: { message: "ping", tag: "alpha" } }] },
  },
};

const PARSE_FAILURES = new Set(["no_call", "malformed_json", "truncation"]);
const PARSE_STAGE = new Set(["no_call", "malformed_json", "truncation", "wrong_tool", "escaping_error"]);
const SCHEMA_ORDER = ["missing_required", "schema_violation", "hallucinated_param", "type_coercion"];
const EVIDENCE_CHARS = 16 * 1024; // per raw field kept in the profile
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** The 95% Wilson score interval `[low, high]` for `x` successes in `n` trials (null when n = 0). */
export function wilson(x, n, z = 1.96) {
  if (!n) return null;
  const p = x / n;
  const z2 = z * z;
  const center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [round(Math.max(0, center - half)), round(Math.min(1, center + half))];
}

const round = (x) => Math.round(x * 1e5) / 1e5;

/** A rate with its interval: `{pass, n, rate, ci95}` (rate and ci95 null when n = 0). */
export function rate(pass, n) {
  return { pass, n, rate: n ? round(pass / n) : null, ci95: wilson(pass, n) };
}

/** "2/3 pass, 0.67 [0.21, 0.94]": a rate as people read it (never a bare percentage). */
export function formatRate(r) {
  if (!r?.n) return "not measured";
  const f = (x) => x.toFixed(2);
  return `${r.pass}/${r.n} pass, ${f(r.rate)} [${f(r.ci95[0])}, ${f(r.ci95[1])}]`;
}

/**
 * Probes an endpoint. Options: `baseUrl` (an OpenAI base URL such as http://host:8000/v1; a
 * bare origin gets /v1), `model`, and optionally `fetch`, `apiKey`, `headers`, `samples` (3),
 * `probes` (all), `timeoutMs` (60000, per request), `maxTokens` (1024), `retries` (1: for
 * network errors and 429/5xx, never for timeouts), `extraBody` (merged into every request),
 * `resume` (a profile from an earlier run: its finished samples are kept), `onProgress(p)` (after
 * each probe: `{probe, done, total, title, rate, labels, line}`), `onUpdate(profile)` (after each
 * sample), `signal`. Resolves to the profile; throws only for bad options.
 */
export async function probe(options = {}) {
  const ctx = context(options);
  const profile = startProfile(ctx, options.resume);
  const report = (p) => {
    try {
      options.onProgress?.(p);
    } catch {
      // a progress callback cannot stop the run
    }
  };
  let done = 0;
  for (const name of ctx.probes) {
    const entry = profile.probes[name];
    for (let i = 0; i < ctx.samples && !ctx.abort; i++) {
      if (finished(entry.samples[i])) continue;
      entry.samples[i] = await runSample(ctx, name, i, profile);
      summarize(profile, ctx);
      options.onUpdate?.(profile);
    }
    if (ctx.abort) break;
    summarize(profile, ctx);
    done++;
    report({ probe: name, done, total: ctx.probes.length, title: SPECS[name].title, rate: entry.rate, labels: entry.labels, line: progressLine(name, done, ctx.probes.length, entry) });
  }
  if (ctx.abort) {
    profile.error = ctx.abort;
    summarize(profile, ctx);
    options.onUpdate?.(profile);
  }
  return profile;
}

function progressLine(name, done, total, entry) {
  const labels = Object.entries(entry.labels).filter(([l]) => l !== "pass").map(([l, n]) => `${l} ${n}`).join(", ");
  return `probe ${done}/${total} ${name} (${SPECS[name].title}): ${formatRate(entry.rate)}${labels ? `; ${labels}` : ""}`;
}

function context(o) {
  if (typeof o.baseUrl !== "string" || !o.baseUrl) throw new Error("probe: baseUrl is required (e.g. http://127.0.0.1:8000/v1)");
  if (typeof o.model !== "string" || !o.model) throw new Error("probe: model is required (the name the endpoint serves)");
  let base;
  try {
    base = new URL(o.baseUrl);
  } catch {
    throw new Error(`probe: baseUrl ${JSON.stringify(o.baseUrl)} is not a URL`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") throw new Error(`probe: baseUrl must be http or https, not ${base.protocol}`);
  const path = base.pathname.replace(/\/+$/, "");
  const endpoint = `${base.origin}${path || "/v1"}${path.endsWith("/chat/completions") ? "" : "/chat/completions"}`;
  const probes = o.probes ?? PROBES;
  const unknown = probes.filter((p) => !PROBES.includes(p));
  if (unknown.length) throw new Error(`probe: unknown probe ${unknown.join(", ")}; valid: ${PROBES.join(", ")}`);
  const samples = o.samples ?? 3;
  if (!Number.isInteger(samples) || samples < 1 || samples > 100) throw new Error("probe: samples must be an integer from 1 to 100");
  const fetchFn = o.fetch ?? globalThis.fetch;
  if (typeof fetchFn !== "function") throw new Error("probe: no fetch in this runtime; pass options.fetch");
  const positive = (v, d, name) => {
    if (v === undefined) return d;
    if (!(Number.isFinite(v) && v > 0)) throw new Error(`probe: ${name} must be a positive number`);
    return v;
  };
  return {
    endpoint,
    model: o.model,
    fetch: (url, init) => fetchFn.call(globalThis, url, init), // workerd's fetch needs `this` to be the global
    headers: { "content-type": "application/json", ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}), ...o.headers },
    samples,
    probes: PROBES.filter((p) => probes.includes(p)),
    timeoutMs: positive(o.timeoutMs, 60_000, "timeoutMs"),
    maxTokens: positive(o.maxTokens, 1024, "maxTokens"),
    retries: o.retries ?? 1,
    extraBody: o.extraBody ?? {},
    signal: o.signal,
    answered: 0, // requests the endpoint answered (any HTTP status)
    abort: null, // why the run stopped early
    parser: null, // the text parser, once the basic probe found one
    format: null,
  };
}

function startProfile(ctx, resume) {
  const probes = {};
  for (const name of ctx.probes) probes[name] = { title: SPECS[name].title, samples: [], rate: rate(0, 0), labels: {} };
  if (resume) {
    if (resume.probeVersion !== PROBE_VERSION) throw new Error(`probe: the profile to resume has probe version ${resume.probeVersion}, this is ${PROBE_VERSION}: start a new run`);
    if (resume.model !== ctx.model || resume.endpoint !== ctx.endpoint) {
      throw new Error(`probe: the profile to resume is for ${resume.model} at ${resume.endpoint}, not ${ctx.model} at ${ctx.endpoint}`);
    }
    for (const name of ctx.probes) {
      const old = resume.probes?.[name]?.samples ?? [];
      probes[name].samples = old.slice(0, ctx.samples).map((s) => (finished(s) ? s : undefined));
    }
  }
  const profile = {
    probeVersion: PROBE_VERSION,
    model: ctx.model,
    endpoint: ctx.endpoint,
    timestamp: new Date().toISOString(),
    samples: ctx.samples,
    usable: false,
    detectedParser: null,
    toolCallFormat: null,
    parserCandidates: [],
    supportsParallelToolUse: null,
    requiresReasoningReplay: null,
    supportsStreamingToolUse: null,
    schemaLevel: null,
    errorRepair: null,
    probes,
    notes: [],
  };
  if (resume) profile.resumedFrom = resume.timestamp ?? null;
  summarize(profile, ctx);
  return profile;
}

/** A sample is finished when it has a label and its requests were answered. */
function finished(s) {
  return !!s && typeof s.label === "string" && !s.transportError;
}

// ---------------------------------------------------------------------------------------------
// Samples

async function runSample(ctx, name, index, profile) {
  const spec = SPECS[name];
  const sample = { index, label: null, reason: "", steps: [] };
  const messages = [{ role: "system", content: SYSTEM }, { role: "user", content: spec.prompt }];
  const stream = name === "streaming";
  const first = await step(ctx, sample, messages, { stream, expect: spec.expect, basic: name === "basic" });
  if (name === "basic") Object.assign(sample, { format: first.obs?.format ?? null, parser: first.obs?.parser ?? null, readings: first.readings ?? [] });
  if (name === "parallel") sample.mode = parallelMode(first.obs);
  if (stream) return finish(sample, streamVerdict(sample, first, profile.probes.basic?.samples[index]));
  // A second turn needs calls that could be executed (the first turn's parse stage passed); its
  // label counts only when the first turn passed (the first failing stage gives the label).
  if (!spec.then || !first.obs?.calls.length || PARSE_STAGE.has(first.verdict.label)) return finish(sample, first.verdict);
  const firstFailed = first.verdict.label !== "pass" ? first.verdict : null;

  // The tool's result goes back; the model answers or retries.
  const calls = first.obs.calls;
  const assistant = assistantMessage(first.obs, true);
  const results = calls.map((c, i) => ({ role: "tool", tool_call_id: assistant.tool_calls[i].id, content: JSON.stringify(spec.result(safeJson(c.arguments))) }));
  if (name !== "replay") {
    const second = await step(ctx, sample, [...messages, assistant, ...results], { expect: spec.then });
    return finish(sample, firstFailed ?? second.verdict);
  }
  // Reasoning replay: the same turn without the assistant's reasoning, then (when that fails) with it.
  sample.reasoningSeen = !!first.obs.reasoning;
  const bare = assistantMessage(first.obs, false);
  const without = await step(ctx, sample, [...messages, bare, ...results], { expect: spec.then, note: "without the prior reasoning" });
  sample.needsReplay = false;
  if (sample.reasoningSeen && without.verdict.label !== "pass") {
    const withIt = await step(ctx, sample, [...messages, assistant, ...results], { expect: spec.then, note: "with the prior reasoning" });
    sample.needsReplay = withIt.verdict.label === "pass";
  }
  const v = { ...without.verdict };
  if (!sample.reasoningSeen) v.reason = `${v.reason} (the assistant turn had no reasoning to drop)`;
  else if (sample.needsReplay) v.reason = `without the prior reasoning: ${v.reason}; with it sent back the turn passes`;
  return finish(sample, firstFailed ?? v);
}

/**
 * Streaming passes when the stream, merged by the SSE rewrite, gives the calls the non-streamed
 * basic sample gave (what the model does with the schema is the other probes' business); a
 * stream that breaks (no call, bad JSON, cut off) gets that label.
 */
function streamVerdict(sample, first, basic) {
  const obs = first.obs;
  const other = basic?.steps?.[0]?.parse?.calls;
  sample.sameAsNonStreamed = obs && other ? sameCalls(obs.calls, other) : null;
  if (PARSE_STAGE.has(first.verdict.label) || first.verdict.label === "pass") return first.verdict;
  if (sample.sameAsNonStreamed) return { label: "pass", reason: `the merged stream gives the calls of the non-streamed answer (which the basic probe labelled ${basic.label})` };
  return first.verdict;
}

function finish(sample, verdict) {
  sample.label = verdict.label;
  sample.reason = verdict.reason;
  if (sample.steps.some((s) => s.transportError)) sample.transportError = true;
  return sample;
}

/** One request and its reading: `{obs, verdict, readings?}`; the evidence goes into `sample.steps`. */
async function step(ctx, sample, messages, { stream = false, expect, basic = false, note }) {
  const body = {
    model: ctx.model,
    messages,
    tools: PROBE_TOOLS,
    tool_choice: "auto",
    max_tokens: ctx.maxTokens,
    ...(stream && { stream: true }),
    ...ctx.extraBody,
  };
  const evidence = { request: { turn: messages.filter((m) => m.role === "assistant").length + 1, stream, ...(note && { note }) } };
  sample.steps.push(evidence);
  if (ctx.abort) {
    evidence.error = ctx.abort;
    evidence.transportError = true;
    return { obs: null, verdict: { label: "no_call", reason: ctx.abort } };
  }
  const res = await request(ctx, body, stream);
  evidence.status = res.status ?? null;
  evidence.ms = res.ms;
  if (res.error) {
    evidence.error = res.error;
    if (res.transport) evidence.transportError = true;
    return { obs: null, verdict: { label: "no_call", reason: res.error } };
  }
  const obs = stream ? await observeStream(ctx, res.bytes) : observe(ctx, res.json, basic ? expect : null);
  evidence.raw = obs.raw;
  evidence.parse = { format: obs.format, parser: obs.parser, calls: obs.calls.map(({ name, arguments: a }) => ({ name, arguments: clip(a) })), content: clip(obs.content), diagnostics: obs.diagnostics };
  if (obs.readings) evidence.parse.readings = obs.readings;
  const verdict = expect.answer ? judgeAnswer(expect, obs) : judgeCalls(expect, obs);
  evidence.label = verdict.label;
  evidence.reason = verdict.reason;
  return { obs, verdict, readings: obs.readings };
}

/** The assistant turn as a client sends it back: content, tool_calls, and reasoning if kept. */
function assistantMessage(obs, withReasoning) {
  const m = {
    role: "assistant",
    content: obs.content || null,
    tool_calls: obs.calls.map((c, i) => ({ id: c.id || `call_probe_${i}`, type: "function", function: { name: c.name, arguments: c.arguments } })),
  };
  if (withReasoning && obs.reasoning) {
    if (obs.reasoningIn === "text") m.content = `<think>${obs.reasoning}</think>${m.content ?? ""}`;
    else m.reasoning_content = obs.reasoning;
  }
  return m;
}

function parallelMode(obs) {
  if (!obs) return null;
  if (obs.diagnostics.some((d) => d.label === "parallel_collapse")) return "merged";
  if (obs.calls.length >= 2) return "parallel";
  if (obs.calls.length === 1) {
    const a = safeJson(obs.calls[0].arguments);
    const one = a && [[2, 3], [10, 20]].some(([x, y]) => a.a === x && a.b === y);
    return one ? "one" : "merged";
  }
  return "none";
}

function sameCalls(a, b) {
  const key = (calls) => JSON.stringify(calls.map((c) => [c.name, canonical(safeJson(c.arguments))]));
  return key(a) === key(b);
}

// ---------------------------------------------------------------------------------------------
// Requests

async function request(ctx, body, stream) {
  const text = JSON.stringify(body);
  for (let attempt = 0; ; attempt++) {
    const t0 = Date.now();
    const res = await once(ctx, text, stream);
    res.ms = Date.now() - t0;
    const retriable = (res.transport && !res.timeout) || [429, 500, 502, 503, 504].includes(res.status);
    if (!retriable || attempt >= ctx.retries || ctx.signal?.aborted) {
      // The endpoint never answered, or refused the first request outright: stop here.
      if (!ctx.answered && (res.transport || [401, 403, 404].includes(res.status))) ctx.abort = res.error;
      if (!res.transport) ctx.answered++;
      return res;
    }
    await sleep(Math.min(2000, 250 * 2 ** attempt * (0.5 + Math.random())));
  }
}

async function once(ctx, body, stream) {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  ctx.signal?.addEventListener("abort", onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, ctx.timeoutMs);
  const where = ctx.endpoint;
  try {
    const res = await ctx.fetch(where, { method: "POST", headers: ctx.headers, body, signal: controller.signal });
    const bytes = await readAll(res);
    if (!res.ok) {
      const text = new TextDecoder().decode(bytes);
      let message = text.slice(0, 500);
      try {
        const j = JSON.parse(text);
        message = j?.error?.message ?? j?.message ?? message;
      } catch {
        // not JSON: the text itself
      }
      return { status: res.status, error: `HTTP ${res.status} from ${where}: ${String(message).slice(0, 500)}` };
    }
    if (stream) return { status: res.status, bytes };
    try {
      return { status: res.status, json: JSON.parse(new TextDecoder().decode(bytes)) };
    } catch {
      return { status: res.status, error: `the answer from ${where} is not JSON: ${clip(new TextDecoder().decode(bytes), 200)}` };
    }
  } catch (e) {
    if (timedOut) return { transport: true, timeout: true, error: `no complete answer from ${where} within ${ctx.timeoutMs} ms (timeout)` };
    if (ctx.signal?.aborted) return { transport: true, error: "the probe was cancelled" };
    const cause = e?.cause?.message ?? e?.cause?.code;
    return { transport: true, error: `cannot reach ${where}: ${e?.message ?? e}${cause ? ` (${cause})` : ""}` };
  } finally {
    clearTimeout(timer);
    ctx.signal?.removeEventListener("abort", onAbort);
  }
}

async function readAll(res) {
  if (!res.body) return new Uint8Array(await res.arrayBuffer());
  const reader = res.body.getReader();
  const parts = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new Error(`the answer is larger than ${MAX_RESPONSE_BYTES} bytes`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Reading an answer

/**
 * What a non-streamed answer contains: `{format, parser, calls, content, reasoning, diagnostics,
 * finishReason, raw}`; with `expect` (the basic probe) also every family's reading (`readings`).
 */
function observe(ctx, json, expect) {
  const choice = json?.choices?.[0];
  const message = choice?.message;
  const raw = { content: clip(message?.content ?? null), reasoning: clip(message?.reasoning_content ?? message?.reasoning ?? null), tool_calls: message?.tool_calls ?? null, finish_reason: choice?.finish_reason ?? null };
  const obs = { format: "none", parser: null, calls: [], content: "", reasoning: null, reasoningIn: null, diagnostics: [], finishReason: choice?.finish_reason ?? null, raw };
  if (!message || typeof message !== "object") {
    obs.diagnostics.push({ label: "no_call", message: "the answer has no choices[0].message" });
    return obs;
  }
  obs.reasoning = firstString(message.reasoning_content, message.reasoning);
  if (obs.reasoning) obs.reasoningIn = "field";
  const native = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const content = typeof message.content === "string" ? message.content : "";
  if (native.length) {
    obs.format = "native";
    obs.parser = "openai";
    obs.content = content;
    obs.calls = native.map((c) => ({ id: c?.id, name: String(c?.function?.name ?? ""), arguments: typeof c?.function?.arguments === "string" ? c.function.arguments : JSON.stringify(c?.function?.arguments ?? "") }));
  } else if (content) {
    readText(ctx, content, obs, expect);
  }
  obs.diagnostics.push(...validate(obs.calls));
  return obs;
}

function firstString(...values) {
  return values.find((v) => typeof v === "string" && v.length > 0) ?? null;
}

/** Reads tool calls written as text: with the run's parser, or the most specific family that yields them. */
function readText(ctx, content, obs, expect) {
  // The basic probe reads each sample with its own best family; later probes with the run's.
  let parser = expect ? null : ctx.parser;
  if (!parser) {
    const readings = readingsOf(ctx, content, expect ?? { calls: [] });
    if (expect) obs.readings = readings;
    parser = readings[0] ?? null;
  }
  if (!parser) {
    obs.content = content;
    return;
  }
  const r = parse(content, { parser, tools: PROBE_TOOLS, reasoning: undefined });
  obs.parser = parser;
  obs.format = r.toolCalls.length ? "text" : "none";
  obs.calls = r.toolCalls.map(({ id, name, arguments: a }) => ({ id, name, arguments: a }));
  obs.content = r.content ?? "";
  const think = /<think>([\s\S]*?)<\/think>/.exec(content);
  if (!obs.reasoning && think) {
    obs.reasoning = think[1];
    obs.reasoningIn = "text";
    obs.content = obs.content.replace(/<think>[\s\S]*?<\/think>/, "");
  }
  obs.diagnostics.push(...r.diagnostics.filter((d) => !SCHEMA_ORDER.includes(d.label)).map(({ label, message, index }) => ({ label, message, ...(index !== undefined && { index }) })));
}

/**
 * The families whose reading of `text` yields the expected calls (any call when none is
 * expected), most specific first: families whose markers appear (sniffParser's order), then the
 * model's own family, then the registry's order; `generic` and the run-time template families last.
 */
function readingsOf(ctx, text, expect) {
  const want = new Set(expect.calls.map((c) => c.name));
  const rows = classify(text, { tools: PROBE_TOOLS }).filter((r) => r.toolCalls.length && (!want.size || r.toolCalls.some((c) => want.has(c.name))));
  const sniffed = sniffParser(text);
  const own = detectParser(ctx.model);
  const order = new Map(parsers().map((p, i) => [p.id, i]));
  const rank = (id) => [id === "generic" || TEMPLATE_FAMILIES.has(id) ? 1 : 0, sniffed.includes(id) ? sniffed.indexOf(id) : 1e3, id === own ? 0 : 1, order.get(id) ?? 1e4];
  const cmp = (a, b) => {
    const x = rank(a);
    const y = rank(b);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
    return 0;
  };
  return rows.map((r) => r.parser).sort(cmp);
}

/** A streamed answer merged by toolwire's SSE rewrite (the run's parser; native calls pass through). */
async function observeStream(ctx, bytes) {
  let parser = ctx.format === "native" ? "openai" : ctx.parser;
  if (!parser) {
    // No basic probe ran: native calls pass through, text is read by its most specific family.
    const upstream = mergeSse(bytes).choices.get(0);
    parser = upstream && !upstream.calls.length && upstream.content ? (readingsOf(ctx, upstream.content, { calls: [] })[0] ?? "openai") : "openai";
  }
  const diagnostics = [];
  let rewritten;
  try {
    const out = new Response(new Blob([bytes]).stream().pipeThrough(new SseRewriteStream({ parser, tools: PROBE_TOOLS, comments: false, onDiagnostic: (d) => diagnostics.push(d) })));
    rewritten = new Uint8Array(await out.arrayBuffer());
  } catch (e) {
    diagnostics.push({ label: "malformed_json", message: `the stream could not be rewritten: ${e?.message ?? e}` });
    rewritten = new Uint8Array();
  }
  const merged = mergeSse(rewritten);
  const choice = merged.choices.get(0) ?? { content: "", reasoning: "", calls: [], finish: null };
  const text = new TextDecoder().decode(bytes);
  const obs = {
    format: choice.calls.length ? (ctx.format === "native" ? "native" : "text") : "none",
    parser,
    calls: choice.calls.map(({ id, name, arguments: a }) => ({ id, name, arguments: a })),
    content: choice.content,
    reasoning: choice.reasoning || null,
    reasoningIn: choice.reasoning ? "field" : null,
    diagnostics: diagnostics.filter((d) => !SCHEMA_ORDER.includes(d.label)).map(({ label, message, index }) => ({ label, message, ...(index !== undefined && { index }) })),
    finishReason: choice.finish,
    raw: { sse: clip(text), events: merged.events, done: merged.done, finish_reason: choice.finish },
  };
  if (!merged.done) obs.diagnostics.push({ label: "truncation", message: "the stream ended without data: [DONE]" });
  for (const problem of merged.problems) obs.diagnostics.push({ label: "malformed_json", message: problem });
  obs.diagnostics.push(...validate(obs.calls));
  return obs;
}

/** An OpenAI chunk stream reassembled per choice: content, reasoning, calls by index, finish. */
export function mergeSse(bytes) {
  const text = new TextDecoder().decode(bytes).replace(/\r\n?/g, "\n");
  const out = { choices: new Map(), done: false, events: 0, problems: [] };
  let data = null;
  const flush = () => {
    if (data === null) return;
    const d = data;
    data = null;
    out.events++;
    if (d === "[DONE]") {
      out.done = true;
      return;
    }
    let chunk;
    try {
      chunk = JSON.parse(d);
    } catch {
      out.problems.push(`an event is not JSON: ${clip(d, 120)}`);
      return;
    }
    for (const ch of Array.isArray(chunk?.choices) ? chunk.choices : []) {
      const index = Number.isInteger(ch?.index) ? ch.index : 0;
      if (!out.choices.has(index)) out.choices.set(index, { content: "", reasoning: "", calls: [], finish: null });
      const st = out.choices.get(index);
      const delta = ch.delta ?? {};
      if (typeof delta.content === "string") st.content += delta.content;
      if (typeof ch.text === "string") st.content += ch.text;
      const r = firstString(delta.reasoning_content, delta.reasoning);
      if (r) st.reasoning += r;
      for (const tc of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        const i = Number.isInteger(tc?.index) ? tc.index : st.calls.length;
        let call = st.calls.find((c) => c.index === i);
        if (!call) st.calls.push((call = { index: i, id: tc.id, name: "", arguments: "" }));
        if (tc.id && !call.id) call.id = tc.id;
        if (typeof tc.function?.name === "string") call.name += tc.function.name;
        if (typeof tc.function?.arguments === "string") call.arguments += tc.function.arguments;
      }
      if (ch.finish_reason != null) st.finish = ch.finish_reason;
    }
  };
  for (const line of text.split("\n")) {
    if (line === "") flush();
    else if (line.startsWith("data:")) {
      const v = line.slice(5).replace(/^ /, "");
      data = data === null ? v : `${data}\n${v}`;
    }
  }
  flush();
  for (const st of out.choices.values()) st.calls.sort((a, b) => a.index - b.index);
  return out;
}

/**
 * Checks calls as the package checks arguments: JSON, then the probe tools' schemas (the calls
 * are read by the `hermes` parser with the tools, so the labels and messages are toolwire's).
 */
function validate(calls) {
  const out = [];
  calls.forEach((c, index) => {
    const text = c.arguments;
    if (text === "" || text === undefined) return out.push({ label: "truncation", message: `call ${index} (${c.name}) has no arguments`, index });
    let value;
    try {
      value = JSON.parse(text);
    } catch (e) {
      return out.push({ label: "malformed_json", message: `call ${index} (${c.name}): the arguments are not JSON: ${e.message}`, index });
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return out.push({ label: "malformed_json", message: `call ${index} (${c.name}): the arguments are not a JSON object (${typeof value === "string" ? "a string: JSON encoded twice?" : Array.isArray(value) ? "an array" : String(value)})`, index });
    }
    if (!DECLARED.has(c.name)) return out.push({ label: "wrong_tool", message: `call ${index}: ${JSON.stringify(c.name)} is not a declared tool (declared: ${[...DECLARED].join(", ")})`, index });
    const bad = badString(value);
    if (bad) out.push({ label: "escaping_error", message: `call ${index} (${c.name}): ${bad}`, index });
    const r = parse(`<tool_call>{"name": ${JSON.stringify(c.name)}, "arguments": ${JSON.stringify(value)}}</tool_call>`, { parser: "hermes", tools: PROBE_TOOLS });
    for (const d of r.diagnostics) if (SCHEMA_ORDER.includes(d.label)) out.push({ label: d.label, message: d.message, index });
  });
  return out;
}

/** A string value that carries escapes as text (`\u00e9` as six characters) or raw control characters. */
function badString(v) {
  if (typeof v === "string") {
    if (/\\u[0-9a-fA-F]{4}/.test(v)) return `a string carries an escape as text (double escaping): ${JSON.stringify(clip(v, 60))}`;
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(v)) return `a string carries a raw control character: ${JSON.stringify(clip(v, 60))}`;
    return null;
  }
  if (v && typeof v === "object") {
    for (const x of Object.values(v)) {
      const bad = badString(x);
      if (bad) return bad;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Labels

/** The label of an answer that should call `expect.calls` (parse, then schema, then semantics). */
export function judgeCalls(expect, obs) {
  const diags = obs.diagnostics;
  const has = (label) => diags.find((d) => d.label === label);
  const first = (labels) => labels.map(has).find(Boolean);
  const want = expect.calls;
  // Parse.
  if (!obs.calls.length) {
    const d = first(["malformed_json", "truncation"]);
    if (d) return { label: d.label, reason: d.message };
    if (obs.finishReason === "length") return { label: "truncation", reason: "the answer was cut off (finish_reason length) before any call" };
    return { label: "no_call", reason: obs.content ? `no tool call; the answer was text: ${JSON.stringify(clip(obs.content, 160))}` : "no tool call and no text" };
  }
  const parseFail = first(["malformed_json", "truncation", "wrong_tool", "escaping_error"]);
  if (parseFail) return { label: parseFail.label, reason: parseFail.message };
  // Schema.
  const schema = first(SCHEMA_ORDER);
  if (schema) return { label: schema.label, reason: schema.message };
  // Semantics: the tools, the count, the values the task fixed.
  const names = new Set(want.map((w) => w.name));
  const other = obs.calls.find((c) => !names.has(c.name));
  if (other) return { label: "wrong_tool", reason: `called ${other.name}; the task needs ${[...names].join(", ")}` };
  const collapse = has("parallel_collapse");
  if (collapse && want.length > 1) return { label: "parallel_collapse", reason: collapse.message };
  if (obs.calls.length < want.length) return { label: "parallel_collapse", reason: `${obs.calls.length} call(s) where ${want.length} independent calls were asked for in one turn` };
  if (obs.calls.length > want.length) return { label: "spurious_call", reason: `${obs.calls.length} calls where ${want.length} was asked for` };
  const left = [...want];
  for (const c of obs.calls) {
    const args = JSON.parse(c.arguments);
    const i = left.findIndex((w) => w.name === c.name && matches(w.args, args));
    if (i < 0) {
      const w = left.find((x) => x.name === c.name) ?? left[0];
      return { label: "schema_violation", reason: `${c.name} ${compact(args)} does not carry the values the task gave: ${compact(w.args)}` };
    }
    left.splice(i, 1);
  }
  return { label: "pass", reason: `${obs.calls.map((c) => `${c.name} ${compact(JSON.parse(c.arguments))}`).join(", ")} as asked` };
}

/** The label of an answer that should be text quoting the tool's result (`expect.answer`). */
export function judgeAnswer(expect, obs) {
  if (obs.calls.length) return { label: "spurious_call", reason: `called ${obs.calls.map((c) => c.name).join(", ")} again instead of answering` };
  const text = obs.content ?? "";
  if (!text.trim() && obs.finishReason === "length") return { label: "truncation", reason: "the answer was cut off (finish_reason length)" };
  const missing = expect.answer.filter((s) => !text.toLowerCase().includes(s.toLowerCase()));
  if (missing.length) return { label: "schema_violation", reason: `the answer does not use the tool's result (${missing.join(", ")} missing): ${JSON.stringify(clip(text, 160))}` };
  return { label: "pass", reason: `the answer uses the tool's result (${expect.answer.join(", ")})` };
}

/** The task's values: every expected key equal (strings compared trimmed); other keys are the schema's business. */
function matches(want, got) {
  if (!got || typeof got !== "object") return false;
  return Object.entries(want).every(([k, v]) => {
    const g = got[k];
    if (v && typeof v === "object") return matches(v, g);
    if (typeof v === "string") return typeof g === "string" && g.trim() === v;
    return g === v;
  });
}

// ---------------------------------------------------------------------------------------------
// The profile's fields

function summarize(profile, ctx) {
  for (const [name, entry] of Object.entries(profile.probes)) {
    const done = entry.samples.filter(finished);
    entry.rate = rate(done.filter((s) => s.label === "pass").length, done.length);
    entry.labels = {};
    for (const s of done) entry.labels[s.label] = (entry.labels[s.label] ?? 0) + 1;
    if (name === "parallel") {
      entry.modes = {};
      for (const s of done) if (s.mode) entry.modes[s.mode] = (entry.modes[s.mode] ?? 0) + 1;
    }
  }
  const p = profile.probes;
  const basic = (p.basic?.samples ?? []).filter(finished);
  // Format and parser: what most basic samples that found a call used.
  const formats = basic.filter((s) => s.format && s.format !== "none").map((s) => s.format);
  const format = mode(formats);
  profile.toolCallFormat = format ?? (basic.length ? "none" : null);
  if (format === "native") profile.detectedParser = "openai";
  else if (format === "text") profile.detectedParser = mode(basic.filter((s) => s.format === "text").map((s) => s.parser));
  else profile.detectedParser = null;
  const text = basic.filter((s) => s.format === "text");
  const everywhere = text.length ? text[0].readings.filter((id) => text.every((s) => s.readings.includes(id))) : [];
  const specific = everywhere.filter((id) => !TEMPLATE_FAMILIES.has(id));
  profile.parserCandidates = specific.length ? specific : everywhere;
  ctx.format = format ?? null;
  ctx.parser = format === "text" ? profile.detectedParser : mode(basic.map((s) => s.readings?.[0]).filter(Boolean)) ?? null;
  profile.usable = !!profile.detectedParser && basic.some((s) => !PARSE_FAILURES.has(s.label) && s.label !== "wrong_tool") && !profile.error;
  // Capabilities: true when more than half the samples pass (the rates are in probes.*).
  const majority = (name) => (p[name]?.rate.n ? p[name].rate.pass * 2 > p[name].rate.n : null);
  profile.supportsParallelToolUse = majority("parallel");
  profile.supportsStreamingToolUse = majority("streaming");
  profile.errorRepair = majority("repair");
  const schema = p.schema?.rate;
  profile.schemaLevel = !schema?.n ? null : schema.pass === schema.n ? "full" : schema.pass ? "partial" : "none";
  const replay = (p.replay?.samples ?? []).filter(finished);
  const withReasoning = replay.filter((s) => s.reasoningSeen);
  profile.requiresReasoningReplay = !replay.length ? null : withReasoning.length ? withReasoning.filter((s) => s.needsReplay).length * 2 > withReasoning.length : false;
  profile.notes = notes(profile);
}

function notes(profile) {
  const out = [];
  if (profile.error) out.push(`stopped early: ${profile.error}`);
  if (profile.toolCallFormat === "native") out.push("the server parses tool calls itself (structured tool_calls): no text parser is needed (toolwire's passthrough parser is openai)");
  if (profile.toolCallFormat === "text") out.push(`tool calls come back as text; toolwire reads them with ${profile.detectedParser}`);
  if (profile.toolCallFormat === "none") out.push("no basic sample produced a tool call that any family reads");
  const replay = profile.probes.replay?.samples?.filter(finished) ?? [];
  if (replay.length && !replay.some((s) => s.reasoningSeen)) out.push("no reasoning was seen in the assistant turns: requiresReasoningReplay is false by default");
  if (profile.requiresReasoningReplay) out.push("clients must send each assistant tool-call turn back with its reasoning_content (the worker cannot add it)");
  const streamed = profile.probes.streaming?.samples?.filter(finished) ?? [];
  const differ = streamed.filter((s) => s.sameAsNonStreamed === false).length;
  if (differ) out.push(`${differ} streamed sample(s) merged to calls different from the non-streamed basic sample`);
  return out;
}

function mode(list) {
  const counts = new Map();
  for (const x of list) if (x != null) counts.set(x, (counts.get(x) ?? 0) + 1);
  let best = null;
  for (const [x, n] of counts) if (best === null || n > counts.get(best)) best = x;
  return best;
}

// ---------------------------------------------------------------------------------------------
// Small helpers

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function canonical(v) {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]));
  return v;
}

function compact(v) {
  return clip(JSON.stringify(v), 120);
}

function clip(s, n = EVIDENCE_CHARS) {
  if (typeof s !== "string") return s ?? null;
  return s.length <= n ? s : `${s.slice(0, n)}… (${s.length} chars)`;
}
