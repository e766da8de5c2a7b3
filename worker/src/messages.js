// The Anthropic Messages API in front of the same OpenAI-compatible UPSTREAM_URL (issue 17), so
// Claude Code and other Anthropic clients can run on open models:
//   POST /v1/messages               translated by toolwire/anthropic to POST /v1/chat/completions,
//                                   the answer (streamed or not) parsed and translated back
//   POST /v1/messages/count_tokens  an estimate (about 4 characters per token), labelled as one
// Parser selection, REASONING_PARSER, MAX_BODY_BYTES, UPSTREAM_API_KEY and CORS are the
// chat route's. Auth: the client's `x-api-key` (or `Authorization`) is sent upstream as
// `Authorization: Bearer …`, unless UPSTREAM_API_KEY replaces it. Every error is Anthropic-shaped
// (`{type: "error", error: {type, message}}`): a bad request 400 `invalid_request_error` naming
// the offending block, upstream statuses mapped by type, an unreachable upstream 502 `api_error`,
// a stream that breaks an `error` event. PROFILE/RETRY_ON do not apply to this route.
// Configuration of this route:
//   MODEL_MAP          JSON object: Claude model name (exact, `prefix*`, or "*") → upstream model
//   MAX_OUTPUT_TOKENS  a cap on max_tokens (clients ask for more than a small window holds)
//   PING_INTERVAL_MS   a `ping` event when the upstream is silent this long (default 10000; 0 = off)
import { AnthropicError, AnthropicSseStream, estimateInputTokens, toAnthropicMessage, toOpenAIRequest } from "toolwire/anthropic";

export const MESSAGES_ROUTES = new Set(["/v1/messages", "/v1/messages/count_tokens"]);
const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
const DEFAULT_PING_MS = 10_000;
/** Headers of the Anthropic protocol (and the SDK's) that mean nothing upstream. */
const CLIENT_ONLY = ["x-api-key", "anthropic-version", "anthropic-beta", "anthropic-dangerous-direct-browser-access", "accept"];
const ESTIMATE_NOTE = "input_tokens is an estimate (about 4 characters per token of the request text), not the model's tokenizer";

/** Handles one request on the Messages routes; `io` gives the worker's shared pieces. */
export async function messages(request, env, io) {
  const requestId = `req_toolwire${randomTail()}`;
  let response;
  try {
    response = await handle(request, env, io);
  } catch (e) {
    response = failure(e instanceof AnthropicError ? e : new AnthropicError(500, `toolwire worker: ${e?.message ?? e}`, "api_error"));
  }
  const headers = new Headers(response.headers);
  headers.set("request-id", requestId);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

async function handle(request, env, io) {
  const url = new URL(request.url);
  if (request.method !== "POST") return failure(new AnthropicError(405, `${request.method} ${url.pathname}: only POST is supported`));
  if (!env.UPSTREAM_URL) return failure(new AnthropicError(500, "toolwire worker: UPSTREAM_URL is not configured", "api_error"));
  const max = Number(env.MAX_BODY_BYTES) || DEFAULT_MAX_BODY;
  const text = await io.readLimited(request, max);
  if (text === null) return failure(new AnthropicError(413, `request body is larger than ${max} bytes`));
  let body;
  try {
    body = JSON.parse(text);
  } catch (e) {
    return failure(new AnthropicError(400, `the request body is not valid JSON: ${e.message}`));
  }
  const config = configuration(env);
  if (url.pathname === "/v1/messages/count_tokens") {
    // Validated like a create request (count_tokens takes no max_tokens).
    toOpenAIRequest({ max_tokens: 1, ...body }, { model: config.modelMap });
    return Response.json({ input_tokens: estimateInputTokens(body), toolwire_estimate: true }, { headers: { "x-toolwire-note": ESTIMATE_NOTE } });
  }
  const openai = toOpenAIRequest(body, { model: config.modelMap, ...(config.maxTokens && { maxTokens: config.maxTokens }) });
  let options;
  try {
    options = io.rewriteOptions(openai, env, request.headers);
  } catch (e) {
    if (e instanceof io.ParserChoiceError) return failure(new AnthropicError(400, e.message));
    throw e;
  }
  delete options.comments;
  const target = env.UPSTREAM_URL.replace(/\/+$/, "") + "/v1/chat/completions";
  const upstream = await io.send(target, { method: "POST", headers: upstreamHeaders(request.headers, env, io), body: JSON.stringify(openai), signal: request.signal });
  if (!(upstream instanceof Response)) {
    const message = (await upstream.error.json())?.error?.message ?? "upstream unreachable";
    return failure(new AnthropicError(502, message, "api_error"));
  }
  if (!upstream.ok) {
    const retry = upstream.headers.get("retry-after");
    return failure(AnthropicError.fromUpstream(upstream.status, await upstream.text()), retry ? { "retry-after": retry } : {});
  }
  const headers = { "x-toolwire-parser": options.parser };
  const diagnostics = [];
  const bridge = { ...options, request: body, onDiagnostic: (d) => diagnostics.push(d.label) };
  if ((upstream.headers.get("content-type") ?? "").includes("text/event-stream")) {
    const stream = withoutTools(bridge, (o) => new AnthropicSseStream({ ...o, pingIntervalMs: config.pingMs }));
    // A broken upstream connection ends the input; the stream then ends with an `error` event.
    return new Response(endOnError(upstream.body).pipeThrough(stream), {
      headers: { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
    });
  }
  const raw = await upstream.text();
  const message = withoutTools(bridge, (o) => toAnthropicMessage(raw, o));
  if (diagnostics.length) headers["x-toolwire-diagnostics"] = [...new Set(diagnostics)].join(", ");
  if (body.stream === true) return new Response(sseOf(message), { headers: { ...headers, "content-type": "text/event-stream; charset=utf-8" } });
  return Response.json(message, { headers });
}

/** The upstream body, ending (instead of erroring) when the upstream connection breaks. */
function endOnError(body) {
  const reader = body.getReader();
  return new ReadableStream({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch {
        controller.close();
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** Runs `f` with the request's tools typing the arguments, or without when toolwire cannot read their schemas. */
function withoutTools(options, f) {
  try {
    return f(options);
  } catch (e) {
    if (e instanceof AnthropicError || !options.tools) throw e;
    return f({ ...options, tools: null });
  }
}

/** The route's configuration (MODEL_MAP, MAX_OUTPUT_TOKENS, PING_INTERVAL_MS); a bad value is a 500 naming it. */
function configuration(env) {
  let modelMap;
  const map = String(env.MODEL_MAP ?? "").trim();
  if (map) {
    try {
      modelMap = JSON.parse(map);
    } catch (e) {
      throw new AnthropicError(500, `toolwire worker: MODEL_MAP is not JSON (${e.message}); expected an object like {"claude-sonnet-*": "qwen3-coder", "*": "default-model"}`, "api_error");
    }
    if (modelMap === null || typeof modelMap !== "object" || Array.isArray(modelMap) || !Object.values(modelMap).every((v) => typeof v === "string")) {
      throw new AnthropicError(500, 'toolwire worker: MODEL_MAP must be a JSON object of strings, like {"claude-sonnet-*": "qwen3-coder", "*": "default-model"}', "api_error");
    }
  }
  const int = (name, value, dflt) => {
    if (value === undefined || String(value).trim() === "") return dflt;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new AnthropicError(500, `toolwire worker: ${name} must be a non-negative integer, not ${JSON.stringify(value)}`, "api_error");
    return n;
  };
  return { modelMap, maxTokens: int("MAX_OUTPUT_TOKENS", env.MAX_OUTPUT_TOKENS, 0), pingMs: int("PING_INTERVAL_MS", env.PING_INTERVAL_MS, DEFAULT_PING_MS) };
}

/** Upstream headers: the chat route's, with the client's `x-api-key` as a bearer token and Anthropic's own headers removed. */
function upstreamHeaders(incoming, env, io) {
  const headers = io.upstreamHeaders(incoming, env);
  const key = incoming.get("x-api-key");
  if (!env.UPSTREAM_API_KEY && key && !incoming.has("authorization")) headers.set("authorization", `Bearer ${key}`);
  for (const h of CLIENT_ONLY) headers.delete(h);
  for (const h of [...headers.keys()]) if (h.startsWith("x-stainless-")) headers.delete(h);
  headers.set("content-type", "application/json");
  return headers;
}

/** A whole message as the Anthropic event stream (an upstream that answered a streaming request with JSON). */
function sseOf(message) {
  const ev = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  let out = ev("message_start", { message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...message.usage, output_tokens: 0 } } });
  message.content.forEach((block, index) => {
    const start = block.type === "text" ? { type: "text", text: "" } : block.type === "thinking" ? { type: "thinking", thinking: "", signature: "" } : { ...block, input: {} };
    out += ev("content_block_start", { index, content_block: start });
    if (block.type === "text") out += ev("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    if (block.type === "thinking") {
      out += ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: block.thinking } });
      out += ev("content_block_delta", { index, delta: { type: "signature_delta", signature: block.signature } });
    }
    if (block.type === "tool_use") out += ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
    out += ev("content_block_stop", { index });
  });
  out += ev("message_delta", { delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence }, usage: message.usage });
  return out + ev("message_stop", {});
}

function failure(error, headers = {}) {
  return Response.json(error.body, { status: error.status, headers });
}

function randomTail() {
  const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => alnum[b % 62]).join("");
}
