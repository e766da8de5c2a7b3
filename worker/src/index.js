// toolwire edge worker: an OpenAI-compatible proxy that turns tool calls written as text by the
// model into proper `tool_calls`, streaming and not. Everything else passes through unchanged.
//
// Configuration (wrangler vars and secrets, see README):
//   UPSTREAM_URL       the upstream server; the request path and query are appended to it
//   TOOL_CALL_PARSER   a toolwire parser id, or "auto" (default): detected from the request's model;
//                      a request's `x-toolwire-parser` header overrides it
//   FALLBACK_PARSER    used when detection finds nothing (default "generic")
//   REASONING_PARSER   a reasoning parser id: reasoning goes to `reasoning_content`
//   (a parser name that names no parser is answered 400 with the valid ids)
//   MODEL_MAP, MAX_OUTPUT_TOKENS, PING_INTERVAL_MS: the Anthropic Messages route, see messages.js
//   UPSTREAM_API_KEY   (secret) replaces the client's Authorization header
//   CORS_ORIGINS       "*" or a comma-separated list of allowed origins (default: no CORS)
//   MAX_BODY_BYTES     larger request bodies are refused with 413 (default 4 MiB)
//   TOOLWIRE_COMMENTS  "false" keeps diagnostics out of the stream (default: SSE comment lines)
//   PROFILE, RETRY_ON, MAX_RETRIES, FALLBACK_MODEL, RETRY_BASE_MS, RETRY_HOLD_BYTES: see profile.js
import { detectParser, parsers, reasoningParsers } from "toolwire";
import { SseRewriter, rewriteChatCompletion } from "toolwire/stream";
import { answer, loadPolicy } from "./profile.js";
import { MESSAGES_ROUTES, messages } from "./messages.js";

const REWRITTEN = new Set(["/v1/chat/completions", "/v1/completions"]);
const HOP_BY_HOP = ["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length"];
const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
const EXPOSED = "x-toolwire-parser, x-toolwire-attempts, x-toolwire-retry, x-toolwire-model, x-toolwire-profile, x-toolwire-note, x-toolwire-diagnostics, request-id";

export default {
  async fetch(request, env) {
    const cors = corsHeaders(request, env);
    if (request.method === "OPTIONS" && cors && request.headers.has("access-control-request-method")) {
      return new Response(null, { status: 204, headers: preflight(request, cors) });
    }
    let response;
    try {
      response = await handle(request, env);
    } catch (e) {
      response = error(500, `toolwire worker: ${e?.message ?? e}`, "internal_error", "internal_error");
    }
    return cors ? withHeaders(response, cors) : response;
  },
};

async function handle(request, env) {
  const url = new URL(request.url);
  if (MESSAGES_ROUTES.has(url.pathname)) return messages(request, env, { send, readLimited, rewriteOptions, ParserChoiceError, upstreamHeaders });
  if (!env.UPSTREAM_URL) return error(500, "toolwire worker: UPSTREAM_URL is not configured", "configuration_error", "no_upstream");
  const target = env.UPSTREAM_URL.replace(/\/+$/, "") + url.pathname + url.search;
  const headers = upstreamHeaders(request.headers, env);
  if (request.method !== "POST" || !REWRITTEN.has(url.pathname)) {
    return forward(target, { method: request.method, headers, body: hasBody(request) ? request.body : undefined, signal: request.signal });
  }
  const max = Number(env.MAX_BODY_BYTES) || DEFAULT_MAX_BODY;
  const text = await readLimited(request, max);
  if (text === null) return error(413, `request body is larger than ${max} bytes`, "invalid_request_error", "request_too_large");
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: let the upstream answer it.
    return forward(target, { method: "POST", headers, body: text, signal: request.signal });
  }
  let options;
  try {
    options = rewriteOptions(body, env, request.headers);
  } catch (e) {
    if (!(e instanceof ParserChoiceError)) throw e;
    return error(400, e.message, "invalid_request_error", "unknown_parser");
  }
  let policy;
  try {
    policy = loadPolicy(env);
  } catch (e) {
    return error(500, `toolwire worker: ${e.message}`, "configuration_error", "bad_policy");
  }
  if (policy.active) {
    return answer(policy, body, {
      send: (b) => send(target, { method: "POST", headers, body: JSON.stringify(b), signal: request.signal }),
      options: (b) => rewriteOptions(b, env, request.headers),
      rewriteStream,
    });
  }
  const upstream = await send(target, { method: "POST", headers, body: text, signal: request.signal });
  if (upstream instanceof Response && !upstream.ok) return upstream;
  if (!(upstream instanceof Response)) return upstream.error;
  const out = new Headers(upstream.headers);
  out.delete("content-length");
  out.delete("content-encoding");
  out.set("x-toolwire-parser", options.parser);
  if ((upstream.headers.get("content-type") ?? "").includes("text/event-stream")) {
    out.set("cache-control", "no-cache");
    return new Response(rewriteStream(upstream.body, options), { status: upstream.status, statusText: upstream.statusText, headers: out });
  }
  const raw = await upstream.text();
  let fixed = raw;
  try {
    fixed = rewriteChatCompletion(raw, options);
  } catch {
    // Not a completion body (or bad options): pass it through as it came.
  }
  return new Response(fixed, { status: upstream.status, statusText: upstream.statusText, headers: out });
}

/** A parser name (header or configuration) that names no parser: answered 400 with the valid ids. */
class ParserChoiceError extends Error {}

/** Checks a configured or requested parser name; `what` says where it came from. */
function checkName(name, list, what, extra = []) {
  const known = new Set(extra);
  for (const p of list) {
    known.add(p.id);
    for (const a of p.aliases) known.add(a);
  }
  if (known.has(name)) return name;
  throw new ParserChoiceError(`unknown ${what} \`${name}\`; valid ids: ${[...extra, ...list.map((p) => p.id)].join(", ")}`);
}

/**
 * The rewrite options for a request: the parser from the `x-toolwire-parser` header, else
 * TOOL_CALL_PARSER, else the model's family, else FALLBACK_PARSER; tools from the body. A name
 * that names no parser throws ParserChoiceError (a typo must not look like a model bug).
 */
function rewriteOptions(body, env, headers) {
  const model = typeof body?.model === "string" ? body.model : undefined;
  const families = parsers();
  const requested = (headers?.get("x-toolwire-parser") ?? "").trim();
  if (requested) checkName(requested, families, "parser in the x-toolwire-parser header", ["auto"]);
  const configured = (env.TOOL_CALL_PARSER ?? "").trim();
  if (configured) checkName(configured, families, "TOOL_CALL_PARSER", ["auto"]);
  const fallback = (env.FALLBACK_PARSER ?? "").trim();
  if (fallback) checkName(fallback, families, "FALLBACK_PARSER");
  const chosen = requested || configured;
  const parser = chosen && chosen !== "auto" ? chosen : (detectParser(model ?? "") ?? (fallback || "generic"));
  const options = { parser, model, comments: env.TOOLWIRE_COMMENTS !== "false" };
  if (Array.isArray(body?.tools) && body.tools.length) options.tools = body.tools;
  const reasoning = (env.REASONING_PARSER ?? "").trim();
  if (reasoning) options.reasoning = checkName(reasoning, reasoningParsers(), "REASONING_PARSER");
  // vLLM's switch for hybrid thinking models: off means the output starts in content.
  const kwargs = body?.chat_template_kwargs;
  const thinking = kwargs?.enable_thinking ?? kwargs?.thinking;
  if (typeof thinking === "boolean") options.thinking = thinking;
  return options;
}

/**
 * An upstream SSE body rewritten (options: the rewriter's and `onDiagnostic(d)`), in one stream stage (each stage costs CPU per chunk): the
 * upstream is read, each chunk pushed through the rewriter and its output enqueued. A break in
 * the upstream ends the stream cleanly: the rewriter is finished and, when the output stands at
 * an event boundary, a comment says the upstream broke (after an unterminated event, which the
 * rewriter passes through and reports as `truncation`, a comment would complete it and clients
 * would receive the broken event).
 */
function rewriteStream(body, { onDiagnostic, ...options }) {
  const rw = makeRewriter(options);
  const report = onDiagnostic
    ? () => {
        for (const d of rw.takeDiagnostics()) onDiagnostic(d);
      }
    : () => {};
  const reader = body.getReader();
  let freed = false;
  const free = () => {
    if (!freed) {
      freed = true;
      rw.free();
    }
  };
  // The last two bytes written (0x0a0a, "\n\n": at an event boundary).
  let tail = 0x0a0a;
  const emit = (controller, bytes) => {
    const n = bytes.length;
    if (!n) return;
    tail = n > 1 ? (bytes[n - 2] << 8) | bytes[n - 1] : ((tail & 0xff) << 8) | bytes[0];
    controller.enqueue(bytes);
  };
  return new ReadableStream({
    // Reads until there is output (a pull that enqueues nothing would not be called again).
    async pull(controller) {
      let read;
      let broken = null;
      for (;;) {
        try {
          read = await reader.read();
        } catch (e) {
          broken = String(e?.message ?? e);
        }
        if (broken !== null || read.done) break;
        try {
          // The upstream's chunks are ours: an unchanged one is passed on, not copied; rewritten
          // ones are views of the rewriter's slabs (the runtime reads a body's chunks without
          // transferring their buffers; the workerd tests of tests/worker would see a detached
          // one as lost bytes).
          const out = rw.pushOwned(read.value);
          report();
          if (out.length) return emit(controller, out);
        } catch (e) {
          free();
          throw e;
        }
      }
      try {
        emit(controller, rw.finish());
        report();
        if (broken !== null && tail === 0x0a0a) {
          const note = JSON.stringify({ message: `the upstream stream broke: ${broken}` });
          controller.enqueue(new TextEncoder().encode(`: toolwire truncation ${note}\n\n`));
        }
        free();
        controller.close();
      } catch (e) {
        free();
        throw e;
      }
    },
    cancel(reason) {
      free();
      return reader.cancel(reason);
    },
  });
}

/** A rewriter for `options`; request tools that toolwire cannot read are left out. */
function makeRewriter(options) {
  try {
    return new SseRewriter(options);
  } catch (e) {
    if (!options.tools) throw e;
    const { tools, ...rest } = options;
    return new SseRewriter(rest);
  }
}

/** Sends a request upstream: the Response, or `{error}` with a 502 when it cannot be reached. */
async function send(target, init) {
  try {
    return await fetch(target, { ...init, redirect: "manual" });
  } catch (e) {
    if (init.signal?.aborted) throw e;
    return { error: error(502, `upstream unreachable: ${e?.message ?? e}`, "upstream_error", "bad_gateway") };
  }
}

/** Passes a request through; the upstream's status, headers and body come back as they are. */
async function forward(target, init) {
  const upstream = await send(target, init);
  if (!(upstream instanceof Response)) return upstream.error;
  return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers: new Headers(upstream.headers) });
}

function upstreamHeaders(incoming, env) {
  const headers = new Headers(incoming);
  for (const h of HOP_BY_HOP) headers.delete(h);
  headers.delete("x-toolwire-parser");
  if (env.UPSTREAM_API_KEY) headers.set("authorization", `Bearer ${env.UPSTREAM_API_KEY}`);
  return headers;
}

function hasBody(request) {
  return request.method !== "GET" && request.method !== "HEAD" && request.body !== null;
}

/** The request body as text, or null when it is larger than `max` bytes. */
async function readLimited(request, max) {
  const declared = Number(request.headers.get("content-length"));
  if (declared > max) return null;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const parts = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return null;
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function error(status, message, type, code) {
  return Response.json({ error: { message, type, code } }, { status });
}

/** CORS headers for this request, or null when CORS is off or the origin is not allowed. */
function corsHeaders(request, env) {
  const allowed = (env.CORS_ORIGINS ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (!allowed.length) return null;
  const origin = request.headers.get("origin");
  if (allowed.includes("*")) return { "access-control-allow-origin": "*", "access-control-expose-headers": EXPOSED };
  if (!origin || !allowed.includes(origin)) return null;
  return { "access-control-allow-origin": origin, vary: "Origin", "access-control-expose-headers": EXPOSED };
}

function preflight(request, cors) {
  return {
    ...cors,
    "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
    "access-control-allow-headers": request.headers.get("access-control-request-headers") || "authorization, content-type",
    "access-control-max-age": "86400",
  };
}

function withHeaders(response, extra) {
  const headers = new Headers(response.headers);
  for (const [k, v] of Object.entries(extra)) headers.set(k, v);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
