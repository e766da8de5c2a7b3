// The worker acting on what `toolwire probe` measured (issue 18, part 2):
//   PROFILE         a capability profile (the JSON `toolwire probe --out` writes): its parser
//                   replaces the guess from the model name, and its findings switch policies:
//                   a model that collapses parallel calls is sent `parallel_tool_calls: false`;
//                   one whose streamed calls break is asked without streaming and the answer is
//                   streamed to the client from the rewritten completion.
//   RETRY_ON        labels that make the worker ask again (e.g. "malformed_json,truncation").
//                   Sampling accidents (malformed_json, truncation, escaping_error) ask the same
//                   model again; capability gaps (wrong_tool, parallel_collapse and the schema
//                   labels) ask FALLBACK_MODEL instead, and are not retried without one.
//   MAX_RETRIES     retries per request (default 2)
//   FALLBACK_MODEL  the model for capability gaps
//   RETRY_BASE_MS   backoff base (default 200; full jitter, doubling per retry, at most 5 s)
//   RETRY_HOLD_BYTES  a stream is held back (up to this many bytes, default 65536) while a
//                   retry is still possible; past it, or once it ends, it is relayed. Once a
//                   byte is relayed there is no retry: the client gets one upstream answer,
//                   byte for byte as the rewrite makes it.
// Every retry is named in the response: `x-toolwire-attempts: N` and one `x-toolwire-retry:
// attempt=N; label=L; model=M` per retry; `x-toolwire-model` when the fallback answered;
// `x-toolwire-profile` lists what the profile switched.
import { rewriteChatCompletion } from "toolwire/stream";

const SAMPLING = ["malformed_json", "truncation", "escaping_error"];
const GAPS = ["wrong_tool", "parallel_collapse", "missing_required", "hallucinated_param", "schema_violation", "type_coercion"];
const MAX_DELAY_MS = 5000;

let cached = { key: null, policy: null };

/** The policy from env (parsed once per configuration); throws an Error naming the bad setting. */
export function loadPolicy(env) {
  const key = [env.PROFILE, env.RETRY_ON, env.MAX_RETRIES, env.FALLBACK_MODEL, env.RETRY_BASE_MS, env.RETRY_HOLD_BYTES].map((v) => (v === undefined ? "" : String(v))).join("\u0000");
  if (cached.key !== key) cached = { key, policy: parsePolicy(env) };
  return cached.policy;
}

function parsePolicy(env) {
  const profile = parseProfile(env.PROFILE);
  const retryOn = new Set(String(env.RETRY_ON ?? "").split(",").map((s) => s.trim()).filter(Boolean));
  const unknown = [...retryOn].filter((l) => !SAMPLING.includes(l) && !GAPS.includes(l));
  if (unknown.length) throw new Error(`RETRY_ON: unknown label ${unknown.join(", ")}; valid: ${[...SAMPLING, ...GAPS].join(", ")}`);
  const int = (name, value, dflt, max) => {
    if (value === undefined || value === "") return dflt;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0 || n > max) throw new Error(`${name} must be an integer from 0 to ${max}, not ${JSON.stringify(value)}`);
    return n;
  };
  return {
    profile,
    retryOn,
    maxRetries: int("MAX_RETRIES", env.MAX_RETRIES, 2, 5),
    fallbackModel: String(env.FALLBACK_MODEL ?? "").trim() || null,
    baseMs: int("RETRY_BASE_MS", env.RETRY_BASE_MS, 200, 60_000),
    holdBytes: int("RETRY_HOLD_BYTES", env.RETRY_HOLD_BYTES, 65536, 8 * 1024 * 1024),
    active: !!profile || retryOn.size > 0,
  };
}

function parseProfile(text) {
  if (text === undefined || text === null || String(text).trim() === "") return null;
  let p = text;
  if (typeof text === "string") {
    try {
      p = JSON.parse(text);
    } catch (e) {
      throw new Error(`PROFILE is not JSON: ${e.message}`);
    }
  }
  if (!p || typeof p !== "object" || typeof p.probeVersion !== "number" || !("detectedParser" in p)) {
    throw new Error("PROFILE is not a toolwire probe profile (expected what `toolwire probe --out` writes: {probeVersion, model, detectedParser, …})");
  }
  if (typeof p.detectedParser !== "string" || !p.detectedParser) {
    throw new Error(`PROFILE found no parser for ${p.model ?? "its model"} (usable: ${p.usable}): probe again, or remove PROFILE to detect the parser from the model name`);
  }
  return {
    model: typeof p.model === "string" ? p.model : null,
    parser: p.detectedParser,
    parallel: p.supportsParallelToolUse,
    streaming: p.supportsStreamingToolUse,
  };
}

/**
 * The request as the profile wants it, for a request body and the worker's rewrite options:
 * `{body, options, destream, switches}`. The profile applies to its model (and to requests
 * without one); other models (a fallback) keep the usual detection.
 */
export function applyProfile(policy, body, options) {
  const p = policy.profile;
  if (!p || (body.model && p.model && body.model !== p.model)) return { body, options, destream: false, switches: [] };
  const switches = [`parser=${p.parser}`];
  const out = { ...body };
  const tools = Array.isArray(body.tools) && body.tools.length > 0;
  if (p.parallel === false && tools && body.parallel_tool_calls === undefined) {
    out.parallel_tool_calls = false;
    switches.push("parallel_tool_calls=false");
  }
  let destream = false;
  if (p.streaming === false && tools && body.stream === true) {
    out.stream = false;
    delete out.stream_options;
    destream = true;
    switches.push("stream=false");
  }
  return { body: out, options: { ...options, parser: p.parser }, destream, switches };
}

/**
 * Answers a chat request under the policy. `io` gives the worker's pieces: `send(body)` (a
 * Response, or `{error}` with the worker's 502), `options(body)` (the rewrite options for a body),
 * `rewriteStream(upstreamBody, options)` (the rewritten SSE stream, as the plain path makes it).
 */
export async function answer(policy, body, io) {
  const retries = [];
  let model = body.model;
  for (let attempt = 1; ; attempt++) {
    const plan = applyProfile(policy, { ...body, ...(model !== undefined && { model }) }, io.options({ ...body, model }));
    const upstream = await io.send(plan.body);
    if (!(upstream instanceof Response)) return decorate(upstream.error, plan, retries, body.model, model);
    if (!upstream.ok) return decorate(upstream, plan, retries, body.model, model);
    const next = (label) => nextModel(policy, label, model, retries.length);
    const outcome = isSse(upstream) && !plan.destream
      ? await holdStream(upstream, plan.options, io, policy, next)
      : await readCompletion(upstream, plan, body, next);
    const retry = outcome.retry;
    if (!retry) return decorate(outcome.response, plan, retries, body.model, model);
    retries.push({ attempt: attempt + 1, label: retry.label, model: retry.model });
    await sleep(delay(policy.baseMs, retries.length));
    model = retry.model;
  }
}

/** Where a label sends the next attempt: `{label, model}`, or null (no retry). */
function nextModel(policy, label, model, done) {
  if (!policy.retryOn.has(label) || done >= policy.maxRetries) return null;
  if (SAMPLING.includes(label)) return { label, model };
  if (policy.fallbackModel && policy.fallbackModel !== model) return { label, model: policy.fallbackModel };
  return null;
}

/** The first diagnostic (in stream order) that asks for a retry. */
function retryFor(diagnostics, next) {
  for (const d of diagnostics) {
    const r = next(d.label);
    if (r) return r;
  }
  return null;
}

/**
 * Reads the rewritten stream while a retry is possible, holding it back. A label that asks for a
 * retry cancels the upstream; the end of the stream, or more than `holdBytes`, commits it.
 */
async function holdStream(upstream, options, io, policy, next) {
  const diagnostics = [];
  const possible = [...SAMPLING, ...GAPS].some((l) => next(l));
  const stream = io.rewriteStream(upstream.body, possible ? { ...options, onDiagnostic: (d) => diagnostics.push(d) } : options);
  const headers = responseHeaders(upstream, options);
  headers.set("cache-control", "no-cache");
  const respond = (body) => new Response(body, { status: upstream.status, statusText: upstream.statusText, headers });
  if (!possible) return { response: respond(stream) };
  const reader = stream.getReader();
  const held = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    const retry = retryFor(diagnostics, next);
    if (retry) {
      await reader.cancel("toolwire: retrying").catch(() => {});
      return { retry };
    }
    if (done) return { response: respond(concat(held, size)) };
    held.push(value);
    size += value.byteLength;
    if (size > policy.holdBytes) {
      // Committed: what was held, then the rest as it comes.
      let first = true;
      return {
        response: respond(new ReadableStream({
          async pull(controller) {
            if (first) {
              first = false;
              controller.enqueue(concat(held, size));
              return;
            }
            const r = await reader.read();
            if (r.done) controller.close();
            else controller.enqueue(r.value);
          },
          cancel(reason) {
            return reader.cancel(reason);
          },
        })),
      };
    }
  }
}

/** A non-streamed answer (or one asked without streaming for a streaming client), rewritten. */
async function readCompletion(upstream, plan, request, next) {
  const raw = await upstream.text();
  const diagnostics = [];
  let fixed = raw;
  try {
    fixed = rewriteChatCompletion(raw, { ...plan.options, onDiagnostic: (d) => diagnostics.push(d) });
  } catch {
    // Not a completion body: as it came.
  }
  const retry = retryFor(diagnostics, next);
  if (retry) return { retry };
  return {
    response: plan.destream ? sseResponse(upstream, plan.options, fixed, request) : new Response(fixed, { status: upstream.status, statusText: upstream.statusText, headers: responseHeaders(upstream, plan.options) }),
  };
}

/** The rewritten completion as the chunk stream the client asked for. */
function sseResponse(upstream, options, text, request) {
  const headers = responseHeaders(upstream, options);
  headers.set("content-type", "text/event-stream; charset=utf-8");
  headers.set("cache-control", "no-cache");
  let body;
  try {
    body = completionToSse(JSON.parse(text), request);
  } catch {
    // Not a completion: the client gets the body as it came.
    return new Response(text, { status: upstream.status, headers: responseHeaders(upstream, options) });
  }
  return new Response(body, { status: upstream.status, statusText: upstream.statusText, headers });
}

/** A `chat.completion` as `chat.completion.chunk` events: role, reasoning, content, each call (name, then arguments), finish, usage, [DONE]. */
export function completionToSse(c, request = {}) {
  const base = { id: c.id, object: "chat.completion.chunk", created: c.created, model: c.model };
  if (c.system_fingerprint !== undefined) base.system_fingerprint = c.system_fingerprint;
  const events = [];
  const chunk = (index, delta, finish = null) => events.push({ ...base, choices: [{ index, delta, finish_reason: finish }] });
  for (const ch of Array.isArray(c.choices) ? c.choices : []) {
    const m = ch.message ?? {};
    const i = ch.index ?? 0;
    chunk(i, { role: m.role ?? "assistant", content: "" });
    if (typeof m.reasoning_content === "string" && m.reasoning_content) chunk(i, { reasoning_content: m.reasoning_content });
    if (typeof m.content === "string" && m.content) chunk(i, { content: m.content });
    (Array.isArray(m.tool_calls) ? m.tool_calls : []).forEach((tc, k) => {
      chunk(i, { tool_calls: [{ index: k, id: tc.id, type: "function", function: { name: tc.function?.name, arguments: "" } }] });
      chunk(i, { tool_calls: [{ index: k, function: { arguments: tc.function?.arguments ?? "" } }] });
    });
    chunk(i, {}, ch.finish_reason ?? "stop");
  }
  if (c.usage && request.stream_options?.include_usage) events.push({ ...base, choices: [], usage: c.usage });
  return events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";
}

function responseHeaders(upstream, options) {
  const out = new Headers(upstream.headers);
  out.delete("content-length");
  out.delete("content-encoding");
  out.set("x-toolwire-parser", options.parser);
  return out;
}

/** The response with the policy's headers: attempts, one per retry, the answering model, the profile's switches. */
function decorate(response, plan, retries, asked, model) {
  const headers = new Headers(response.headers);
  headers.set("x-toolwire-attempts", String(retries.length + 1));
  for (const r of retries) headers.append("x-toolwire-retry", `attempt=${r.attempt}; label=${r.label}; model=${r.model ?? ""}`);
  if (model !== asked && model !== undefined) headers.set("x-toolwire-model", model);
  if (plan.switches.length) headers.set("x-toolwire-profile", plan.switches.join("; "));
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** Full jitter: a random delay up to base · 2^(n-1), at most 5 s. */
function delay(baseMs, n) {
  return Math.random() * Math.min(MAX_DELAY_MS, baseMs * 2 ** (n - 1));
}

const sleep = (ms) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

function isSse(response) {
  return (response.headers.get("content-type") ?? "").includes("text/event-stream");
}

function concat(parts, size) {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
