// toolwire/anthropic: the Anthropic Messages API in front of an OpenAI-compatible upstream
// (issue 17), shared by every runtime entry (anthropic.node.js, .workerd.js, .browser.js).
//
// - `toOpenAIRequest`: a Messages request → a chat-completions request (validated: protocol
//   errors throw `AnthropicError` 400 naming the offending block, e.g. `messages.2.content.0`).
// - `AnthropicSseStream`: the upstream's chat-completions SSE → Anthropic SSE events. Tool calls
//   written as text are parsed by the Rust SSE rewrite (`SseRewriter`, the same as
//   `SseRewriteStream`); this file only reads the rewriter's output event by event and maps
//   its deltas to content blocks. There is no tool-call parsing here.
// - `toAnthropicMessage`: a chat.completion body → a Message (through `rewriteChatCompletion`).
// Tool ids: `toolu_` + the OpenAI call id, escaped reversibly (`toAnthropicToolId` /
// `toOpenAIToolCallId`); the rewrite derives call ids from the upstream's completion id the same
// way streamed and not, so both forms give the same `toolu_` ids.
import { SseRewriter, rewriteChatCompletion } from "./stream.js";

// ---------------------------------------------------------------------------------------------
// Errors

/** Anthropic `error.type` by HTTP status (docs: api/errors). */
const ERROR_TYPES = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  409: "conflict_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  502: "api_error",
  503: "overloaded_error",
  504: "timeout_error",
  529: "overloaded_error",
};

/** The Anthropic error type for an HTTP status: listed ones, other 4xx invalid requests, other 5xx `api_error`. */
export function errorTypeFor(status) {
  return ERROR_TYPES[status] ?? (status >= 400 && status < 500 ? "invalid_request_error" : "api_error");
}

/**
 * An error with an Anthropic shape: `status` (HTTP), `type` (`invalid_request_error`, ...),
 * `message`; `body` is `{type: "error", error: {type, message}}`.
 */
export class AnthropicError extends Error {
  constructor(status, message, type = errorTypeFor(status)) {
    super(message);
    this.name = "AnthropicError";
    this.status = status;
    this.type = type;
  }

  /** `{type: "error", error: {type, message}}`. */
  get body() {
    return { type: "error", error: { type: this.type, message: this.message } };
  }

  toJSON() {
    return this.body;
  }

  /** The SSE `error` event for a stream that already answered 200. */
  toSse() {
    return `event: error\ndata: ${JSON.stringify(this.body)}\n\n`;
  }

  /**
   * An upstream's error answer (OpenAI shape `{error: {message}}`, or any text) as an Anthropic
   * error of the same status. A context overflow (`maximum context length is N tokens ...
   * requested M tokens`) becomes `prompt is too long: M tokens > N maximum`, the wording Claude
   * Code compacts on.
   */
  static fromUpstream(status, bodyText) {
    let message = String(bodyText ?? "").trim();
    try {
      const body = JSON.parse(message);
      const e = body?.error ?? body;
      const m = typeof e === "string" ? e : (e?.message ?? body?.message ?? body?.detail);
      if (typeof m === "string") message = m;
    } catch {
      // Not JSON: the text itself.
    }
    const overflow = /maximum context length is (\d+) tokens[\s\S]*?(?:requested|resulted in) (\d+) tokens/i.exec(message);
    if (overflow) return new AnthropicError(400, `prompt is too long: ${overflow[2]} tokens > ${overflow[1]} maximum`);
    const what = message ? `: ${message.slice(0, 2000)}` : "";
    return new AnthropicError(status, `upstream answered ${status}${what}`);
  }
}

const invalid = (path, message) => new AnthropicError(400, `${path}: ${message}`);

// ---------------------------------------------------------------------------------------------
// Tool ids

const ID_SAFE = /^[A-Za-z0-9_]$/;

/**
 * The Anthropic id of an OpenAI tool call id: `toolu_` + the id with `-` written `--` and every
 * other character outside `[A-Za-z0-9_]` written `-XX` per UTF-8 byte (`functions.f:0` →
 * `toolu_functions-2ef-3a0`). Reversed by `toOpenAIToolCallId`.
 */
export function toAnthropicToolId(id) {
  let out = "toolu_";
  for (const ch of String(id)) {
    if (ID_SAFE.test(ch)) out += ch;
    else if (ch === "-") out += "--";
    else for (const b of new TextEncoder().encode(ch)) out += `-${b.toString(16).padStart(2, "0")}`;
  }
  return out;
}

/**
 * The OpenAI call id of an Anthropic tool id: the inverse of `toAnthropicToolId`. An id that is
 * not `toolu_` + a valid escape (e.g. one made by Anthropic itself) is kept as it is; the same id
 * always maps to the same value, so a `tool_use` and its `tool_result` stay paired.
 */
export function toOpenAIToolCallId(id) {
  id = String(id);
  if (!id.startsWith("toolu_")) return id;
  const rest = id.slice(6);
  const bytes = [];
  for (let i = 0; i < rest.length; i++) {
    const ch = rest[i];
    if (ch !== "-") {
      if (!ID_SAFE.test(ch)) return id;
      bytes.push(ch.charCodeAt(0));
    } else if (rest[i + 1] === "-") {
      bytes.push(45);
      i++;
    } else {
      const hex = rest.slice(i + 1, i + 3);
      if (!/^[0-9a-f]{2}$/.test(hex)) return id;
      bytes.push(parseInt(hex, 16));
      i += 2;
    }
  }
  if (bytes.length === 0) return id;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return id;
  }
}

// ---------------------------------------------------------------------------------------------
// Request: Anthropic Messages → OpenAI chat completions

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ID_CHARSET = /^[a-zA-Z0-9_-]+$/;
const BILLING_HEADER = "x-anthropic-billing-header:";
const REQUEST_OPTIONS = ["model", "maxTokens", "reasoningField", "thinkingKwargs"];

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const kind = (v) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v);

function checkKeys(options, valid, what) {
  if (options === undefined || options === null) return {};
  if (!isObject(options)) throw new TypeError(`${what}: options must be an object, got ${kind(options)}`);
  for (const k of Object.keys(options)) {
    if (!valid.includes(k)) throw new TypeError(`${what}: unknown option \`${k}\`; valid options: ${valid.join(", ")}`);
  }
  return options;
}

/** The upstream model for a requested one: `model` option as a string, a map `{name|prefix*|"*": upstream}`, or a function. */
export function mapModel(requested, map) {
  if (map === undefined || map === null) return requested;
  if (typeof map === "string") return map;
  if (typeof map === "function") return map(requested) ?? requested;
  if (!isObject(map)) throw new TypeError("toOpenAIRequest: `model` must be a string, a map object or a function");
  if (typeof map[requested] === "string") return map[requested];
  let best = null;
  for (const [k, v] of Object.entries(map)) {
    if (k.length > 1 && k.endsWith("*") && requested.startsWith(k.slice(0, -1)) && (!best || k.length > best[0].length)) best = [k, v];
  }
  if (best) return best[1];
  return typeof map["*"] === "string" ? map["*"] : requested;
}

/** Anthropic custom tools as OpenAI function tools (server tools have no upstream equivalent and are left out). */
export function toOpenAITools(tools) {
  const out = [];
  for (const t of tools ?? []) {
    if (!isObject(t) || t.input_schema === undefined) continue;
    out.push({
      type: "function",
      function: {
        name: t.name,
        ...(typeof t.description === "string" && { description: t.description }),
        parameters: t.input_schema,
        ...(typeof t.strict === "boolean" && { strict: t.strict }),
      },
    });
  }
  return out;
}

function checkTools(tools) {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) throw invalid("tools", `must be an array, got ${kind(tools)}`);
  const names = new Set();
  tools.forEach((t, i) => {
    if (!isObject(t)) throw invalid(`tools.${i}`, `must be an object, got ${kind(t)}`);
    if (t.input_schema === undefined && typeof t.type === "string" && t.type !== "custom") return; // a server tool
    if (typeof t.name !== "string" || !TOOL_NAME.test(t.name)) throw invalid(`tools.${i}.name`, `must match ^[a-zA-Z0-9_-]{1,64}$, got ${JSON.stringify(t.name)}`);
    if (!isObject(t.input_schema)) throw invalid(`tools.${i}.input_schema`, "must be a JSON Schema object");
    if (names.has(t.name)) throw invalid(`tools.${i}.name`, `tool names must be unique: ${t.name}`);
    names.add(t.name);
  });
  return tools;
}

function toolChoice(choice, tools) {
  if (choice === undefined || choice === null) return {};
  if (!isObject(choice)) throw invalid("tool_choice", `must be an object like {"type": "auto"}, got ${kind(choice)}`);
  const custom = tools.filter((t) => t.input_schema !== undefined);
  const parallel = choice.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  if (choice.type === "tool") {
    if (typeof choice.name !== "string") throw invalid("tool_choice.name", "must be a string naming a tool");
    if (!custom.some((t) => t.name === choice.name)) {
      const server = tools.some((t) => t.name === choice.name);
      throw invalid("tool_choice.name", server
        ? `\`${choice.name}\` is a server tool, which an OpenAI-compatible upstream cannot run`
        : `no tool named \`${choice.name}\` in tools`);
    }
    return { tool_choice: { type: "function", function: { name: choice.name } }, ...parallel };
  }
  if (custom.length === 0) return {}; // no tools upstream: no choice to send
  switch (choice.type) {
    case "auto":
      return { tool_choice: "auto", ...parallel };
    case "any":
      return { tool_choice: "required", ...parallel };
    case "none":
      return { tool_choice: "none" };
    default:
      throw invalid("tool_choice.type", `must be one of auto, any, tool, none; got ${JSON.stringify(choice.type)}`);
  }
}

/** Blocks of a message's content (a string is one text block). */
function blocksOf(content, path) {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) throw invalid(`${path}.content`, `must be a string or an array of content blocks, got ${kind(content)}`);
  content.forEach((b, i) => {
    if (!isObject(b) || typeof b.type !== "string") throw invalid(`${path}.content.${i}`, "a content block must be an object with a `type`");
  });
  return content;
}

/** An image block as an OpenAI image part. */
function imagePart(block, path) {
  const s = block.source;
  if (isObject(s) && s.type === "base64" && typeof s.media_type === "string" && typeof s.data === "string") {
    return { type: "image_url", image_url: { url: `data:${s.media_type};base64,${s.data}` } };
  }
  if (isObject(s) && s.type === "url" && typeof s.url === "string") return { type: "image_url", image_url: { url: s.url } };
  throw invalid(`${path}.source`, `an image source must be {type: "base64", media_type, data} or {type: "url", url}${isObject(s) && s.type === "file" ? " (file ids have no OpenAI-compatible equivalent)" : ""}`);
}

/** A document block as text (plain-text and content sources; PDFs have no chat-completions equivalent). */
function documentText(block, path) {
  const s = block.source;
  const title = typeof block.title === "string" ? `${block.title}\n` : "";
  if (isObject(s) && s.type === "text" && typeof s.data === "string") return title + s.data;
  if (isObject(s) && s.type === "content") {
    if (typeof s.content === "string") return title + s.content;
    if (Array.isArray(s.content)) return title + s.content.filter((b) => b?.type === "text").map((b) => b.text).join("\n");
  }
  throw invalid(`${path}.source`, "only plain-text documents (source type `text` or `content`) can be sent to an OpenAI-compatible upstream");
}

/** A tool_result's content: the text for the tool message and the images for a following user message. */
function toolResultContent(block, path) {
  const texts = [];
  const images = [];
  const content = block.content;
  if (typeof content === "string") texts.push(content);
  else if (Array.isArray(content)) {
    content.forEach((b, i) => {
      const p = `${path}.content.${i}`;
      if (!isObject(b)) throw invalid(p, "a content block must be an object");
      if (b.type === "text") texts.push(String(b.text ?? ""));
      else if (b.type === "image") images.push(imagePart(b, p));
      else if (b.type === "document") texts.push(documentText(b, p));
      else if (b.type === "search_result") {
        const body = (b.content ?? []).filter((c) => c?.type === "text").map((c) => c.text).join("\n");
        texts.push([b.title, b.source, body].filter((x) => typeof x === "string" && x).join("\n"));
      } else if (b.type === "tool_reference") texts.push(String(b.tool_name ?? ""));
      else throw invalid(p, `unknown block type \`${b.type}\` in a tool_result`);
    });
  } else if (content !== undefined && content !== null) {
    throw invalid(`${path}.content`, `must be a string or an array of blocks, got ${kind(content)}`);
  }
  let text = texts.join("\n");
  if (images.length) text += `${text ? "\n" : ""}[${images.length} image${images.length > 1 ? "s" : ""} in the next message]`;
  if (block.is_error === true) text = `Error: ${text}`;
  return { text, images };
}

/** Consecutive messages of one role become one turn (as the Messages API does). */
function mergeTurns(messages) {
  const turns = [];
  messages.forEach((m, i) => {
    const path = `messages.${i}`;
    if (!isObject(m)) throw invalid(path, `must be an object {role, content}, got ${kind(m)}`);
    if (m.role !== "user" && m.role !== "assistant" && m.role !== "system") throw invalid(`${path}.role`, `must be "user" or "assistant", got ${JSON.stringify(m.role)}`);
    if (Array.isArray(m.content) && m.content.length === 0 && !(m.role === "assistant" && i === messages.length - 1)) {
      throw invalid(path, "all messages must have non-empty content except for the optional final assistant message");
    }
    const blocks = blocksOf(m.content, path).map((block, k) => ({ block, path: typeof m.content === "string" ? `${path}.content` : `${path}.content.${k}` }));
    const last = turns.at(-1);
    if (last && last.role === m.role && m.role !== "system") last.blocks.push(...blocks);
    else turns.push({ role: m.role, path, blocks });
  });
  return turns;
}

function systemText(system) {
  if (system === undefined || system === null) return null;
  if (typeof system === "string") return system;
  if (!Array.isArray(system)) throw invalid("system", `must be a string or an array of text blocks, got ${kind(system)}`);
  const texts = [];
  system.forEach((b, i) => {
    if (!isObject(b) || b.type !== "text" || typeof b.text !== "string") throw invalid(`system.${i}`, "system blocks must be {type: \"text\", text}");
    // Claude Code's per-request billing line defeats the upstream's prefix cache (bridges P12).
    if (!b.text.startsWith(BILLING_HEADER)) texts.push(b.text);
  });
  return texts.join("\n");
}

/**
 * A user turn: one `tool` message per `tool_result`, in the order of the calls (they must directly
 * follow the assistant's calls, bridges P2), then the turn's text and images as one user message.
 */
function userMessages(turn, pending) {
  const out = [];
  const parts = [];
  const images = [];
  const results = new Map();
  for (const { block, path } of turn.blocks) {
    switch (block.type) {
      case "tool_result": {
        if (typeof block.tool_use_id !== "string") throw invalid(`${path}.tool_use_id`, "must be a string");
        if (!pending.has(block.tool_use_id)) {
          throw invalid(path, `unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
        }
        if (results.has(block.tool_use_id)) throw invalid(path, `a second \`tool_result\` for ${block.tool_use_id}`);
        const { text, images: imgs } = toolResultContent(block, path);
        results.set(block.tool_use_id, { role: "tool", tool_call_id: toOpenAIToolCallId(block.tool_use_id), content: text });
        if (imgs.length) images.push({ type: "text", text: `Images returned by tool call ${toOpenAIToolCallId(block.tool_use_id)}:` }, ...imgs);
        break;
      }
      case "text":
        if (typeof block.text !== "string") throw invalid(`${path}.text`, "must be a string");
        if (block.text !== "") parts.push({ type: "text", text: block.text });
        break;
      case "image":
        parts.push(imagePart(block, path));
        break;
      case "document":
        parts.push({ type: "text", text: documentText(block, path) });
        break;
      default:
        throw invalid(path, `unknown content block type \`${block.type}\` in a user message`);
    }
  }
  if (pending.size) {
    const missing = [...pending.keys()].filter((id) => !results.has(id));
    if (missing.length) {
      throw invalid(turn.path, `\`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
    }
    for (const id of pending.keys()) out.push(results.get(id));
  }
  const content = [...images, ...parts];
  if (content.length) {
    const textOnly = content.every((p) => p.type === "text");
    out.push({ role: "user", content: textOnly ? content.map((p) => p.text).join("\n") : content });
  }
  return out;
}

function assistantMessage(turn, reasoningField) {
  let text = "";
  let reasoning = "";
  let thinking = false;
  const calls = [];
  const ids = new Map();
  for (const { block, path } of turn.blocks) {
    switch (block.type) {
      case "text":
        if (typeof block.text !== "string") throw invalid(`${path}.text`, "must be a string");
        text += block.text;
        break;
      case "tool_use":
        if (typeof block.id !== "string" || !ID_CHARSET.test(block.id)) throw invalid(`${path}.id`, `must match ^[a-zA-Z0-9_-]+$, got ${JSON.stringify(block.id)}`);
        if (typeof block.name !== "string" || block.name === "") throw invalid(`${path}.name`, "must be a non-empty string");
        if (!isObject(block.input)) throw invalid(`${path}.input`, `must be an object, got ${kind(block.input)}`);
        if (ids.has(block.id)) throw invalid(`${path}.id`, `\`tool_use\` ids must be unique: ${block.id}`);
        ids.set(block.id, path);
        calls.push({ id: toOpenAIToolCallId(block.id), type: "function", function: { name: block.name, arguments: JSON.stringify(block.input) } });
        break;
      case "thinking":
        if (typeof block.thinking !== "string") throw invalid(`${path}.thinking`, "must be a string");
        thinking = true;
        reasoning += block.thinking;
        break;
      case "redacted_thinking":
        break; // opaque, Anthropic's own: nothing an open model can read
      default:
        throw invalid(path, `unknown content block type \`${block.type}\` in an assistant message`);
    }
  }
  const message = { role: "assistant", content: calls.length && text === "" ? null : text };
  // The model's reasoning goes back exactly as it was written (DeepSeek, Kimi and others need it
  // after tool calls); an empty one (display "omitted") is not sent as if it were the reasoning.
  if (thinking && reasoning !== "") message[reasoningField] = reasoning;
  if (calls.length) message.tool_calls = calls;
  return { message, pending: ids };
}

/**
 * An Anthropic Messages request as an OpenAI chat-completions request. Options: `model` (the
 * upstream model: a string, a map `{claude-name | prefix* | "*": upstream}`, or a function),
 * `maxTokens` (a cap on `max_tokens`), `reasoningField` (`"reasoning_content"` by default, or
 * `"reasoning"`), `thinkingKwargs` (default true: `thinking` also sets
 * `chat_template_kwargs.enable_thinking`/`thinking` for vLLM and SGLang chat templates).
 * Throws `AnthropicError` (400 `invalid_request_error`, naming the offending field or block).
 */
export function toOpenAIRequest(request, options) {
  const opts = checkKeys(options, REQUEST_OPTIONS, "toOpenAIRequest");
  const reasoningField = opts.reasoningField ?? "reasoning_content";
  if (reasoningField !== "reasoning_content" && reasoningField !== "reasoning") throw new TypeError('toOpenAIRequest: `reasoningField` must be "reasoning_content" or "reasoning"');
  if (!isObject(request)) throw new AnthropicError(400, `the request body must be a JSON object, got ${kind(request)}`);
  if (typeof request.model !== "string" || request.model === "") throw invalid("model", "is required (a string)");
  if (!Array.isArray(request.messages)) throw invalid("messages", `is required (an array), got ${kind(request.messages)}`);
  if (request.messages.length === 0) throw invalid("messages", "at least one message is required");
  if (request.max_tokens !== undefined && (!Number.isInteger(request.max_tokens) || request.max_tokens < 0)) throw invalid("max_tokens", "must be a non-negative integer");
  const tools = checkTools(request.tools);

  const messages = [];
  const system = systemText(request.system);
  if (system) messages.push({ role: "system", content: system });
  let pending = new Map();
  for (const turn of mergeTurns(request.messages)) {
    if (turn.role !== "user" && pending.size) {
      throw invalid(turn.path, `\`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${[...pending.keys()].join(", ")}`);
    }
    if (turn.role === "system") {
      const text = turn.blocks.map(({ block, path }) => {
        if (block.type !== "text" || typeof block.text !== "string") throw invalid(path, "system messages hold text blocks only");
        return block.text;
      }).join("\n");
      messages.push({ role: "system", content: text });
    } else if (turn.role === "user") {
      messages.push(...userMessages(turn, pending));
      pending = new Map();
    } else {
      const { message, pending: ids } = assistantMessage(turn, reasoningField);
      messages.push(message);
      pending = ids;
    }
  }

  const out = { model: mapModel(request.model, opts.model), messages };
  if (request.max_tokens !== undefined) {
    out.max_tokens = Number.isInteger(opts.maxTokens) ? Math.min(request.max_tokens, opts.maxTokens) : request.max_tokens;
  }
  for (const k of ["temperature", "top_p", "top_k"]) if (typeof request[k] === "number") out[k] = request[k];
  if (request.stop_sequences !== undefined) {
    if (!Array.isArray(request.stop_sequences) || !request.stop_sequences.every((s) => typeof s === "string")) throw invalid("stop_sequences", "must be an array of strings");
    if (request.stop_sequences.length) out.stop = [...request.stop_sequences];
  }
  const openTools = toOpenAITools(tools);
  if (openTools.length) out.tools = openTools;
  Object.assign(out, toolChoice(request.tool_choice, tools));
  if (request.stream === true) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  if (isObject(request.metadata) && typeof request.metadata.user_id === "string") out.user = request.metadata.user_id;
  const thinking = request.thinking;
  if (isObject(thinking) && (opts.thinkingKwargs ?? true)) {
    const on = thinking.type === "enabled" || thinking.type === "adaptive";
    if (on || thinking.type === "disabled") out.chat_template_kwargs = { enable_thinking: on, thinking: on };
  }
  const effort = request.output_config?.effort;
  if (typeof effort === "string" && ["low", "medium", "high"].includes(effort)) out.reasoning_effort = effort;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Response: OpenAI → Anthropic

/** A bridge-made thinking signature (opaque; replayed thinking is sent upstream whatever its signature). */
export const THINKING_SIGNATURE = "toolwire";
const RESPONSE_OPTIONS_OWN = ["request", "onDiagnostic"];
const STREAM_OPTIONS_OWN = ["request", "onDiagnostic", "pingIntervalMs"];

/** `msg_` + the distinctive part of the upstream completion id (the same for both forms). */
function messageId(upstreamId) {
  const tail = String(upstreamId ?? "").replace(/^[^-]*-/, "").replace(/[^A-Za-z0-9]/g, "").slice(-24);
  return `msg_${tail || "toolwire"}`;
}

/** Anthropic usage from OpenAI usage (cached prompt tokens are not input_tokens there). */
export function toAnthropicUsage(usage) {
  const prompt = Number.isFinite(usage?.prompt_tokens) ? usage.prompt_tokens : 0;
  const cached = Number.isFinite(usage?.prompt_tokens_details?.cached_tokens) ? usage.prompt_tokens_details.cached_tokens : 0;
  return {
    input_tokens: Math.max(0, prompt - cached),
    output_tokens: Number.isFinite(usage?.completion_tokens) ? usage.completion_tokens : 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}

/**
 * Usage for the answer: the upstream's when it reported any; else estimates (about 4 characters
 * per token of the request and of what was emitted), so a client that compacts its context on
 * usage (Claude Code) still sees it grow behind an upstream that reports none.
 */
function usageOf(usage, request, outputChars) {
  if (Number.isFinite(usage?.prompt_tokens) || Number.isFinite(usage?.completion_tokens)) return toAnthropicUsage(usage);
  return { input_tokens: request ? estimateInputTokens(request) : 0, output_tokens: Math.ceil(outputChars / 4), cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

/**
 * The stop reason from what was emitted (bridges P5): `tool_use` when a tool_use block went out
 * (and the model was not cut off), `max_tokens` for `length`, `stop_sequence` when the upstream
 * names a matched stop string (vLLM's `stop_reason`), `refusal` for `content_filter`, else
 * `end_turn`.
 */
function stopReason(finish, choiceStop, calls, request) {
  if (finish === "length") return { stop_reason: "max_tokens", stop_sequence: null };
  if (calls > 0) return { stop_reason: "tool_use", stop_sequence: null };
  if (finish === "content_filter") return { stop_reason: "refusal", stop_sequence: null };
  const stops = Array.isArray(request?.stop_sequences) ? request.stop_sequences : [];
  if (typeof choiceStop === "string" && stops.includes(choiceStop)) return { stop_reason: "stop_sequence", stop_sequence: choiceStop };
  return { stop_reason: "end_turn", stop_sequence: null };
}

/** The characters of a message's text, thinking and arguments as written (the output estimate when the upstream reports no usage). */
function outputChars(content, calls) {
  let n = 0;
  for (const b of content) n += b.type === "text" ? b.text.length : b.type === "thinking" ? b.thinking.length : 0;
  for (const c of calls) n += typeof c?.function?.arguments === "string" ? c.function.arguments.length : 0;
  return n;
}

/** Splits bridge options from the parser/rewriter options; the request's tools type the arguments. */
function splitBridgeOptions(options, own, what) {
  if (typeof options === "string") options = { parser: options };
  if (options !== undefined && options !== null && !isObject(options)) throw new TypeError(`${what}: options must be an object, got ${kind(options)}`);
  const all = options ?? {};
  const bridge = {};
  const rewrite = {};
  for (const [k, v] of Object.entries(all)) (own.includes(k) ? bridge : rewrite)[k] = v;
  if (bridge.onDiagnostic !== undefined && typeof bridge.onDiagnostic !== "function") throw new TypeError(`${what}: \`onDiagnostic\` must be a function`);
  if (bridge.request !== undefined && !isObject(bridge.request)) throw new TypeError(`${what}: \`request\` must be the Anthropic request object`);
  // `tools: null` turns typing off (e.g. when the request's schemas cannot be read).
  if (!("tools" in rewrite) && Array.isArray(bridge.request?.tools)) {
    const tools = toOpenAITools(bridge.request.tools);
    if (tools.length) rewrite.tools = tools;
  }
  return { bridge, rewrite };
}

/** Reports a call beyond the first when the request asked for one call at most (kept, not dropped). */
function parallelDiagnostic(request, calls) {
  if (request?.tool_choice?.disable_parallel_tool_use !== true || calls < 2) return null;
  return { label: "parallel_calls", message: `the request set disable_parallel_tool_use, but the model made ${calls} calls; all are kept` };
}

/**
 * A non-streaming `chat.completion` (object or JSON text) as an Anthropic Message. Tool calls
 * written as text are parsed first (`rewriteChatCompletion` with the parser options: `parser`,
 * `reasoning`, ...). Options: the parser options, `request` (the Anthropic request: its
 * `model`, `tools`, `stop_sequences`, `tool_choice`), `onDiagnostic(d)`.
 */
export function toAnthropicMessage(completion, options) {
  const { bridge, rewrite } = splitBridgeOptions(options, RESPONSE_OPTIONS_OWN, "toAnthropicMessage");
  const report = (d) => bridge.onDiagnostic?.(d);
  let body = typeof completion === "string" ? completion : JSON.stringify(completion);
  body = rewriteChatCompletion(body, { ...rewrite, onDiagnostic: report });
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new AnthropicError(502, "the upstream answer is not JSON");
  }
  const choice = parsed?.choices?.[0];
  if (!isObject(choice)) {
    if (parsed?.error) throw AnthropicError.fromUpstream(502, body);
    throw new AnthropicError(502, "the upstream answer has no choices");
  }
  const message = choice.message ?? {};
  const content = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning === "string" && reasoning !== "") content.push({ type: "thinking", thinking: reasoning, signature: THINKING_SIGNATURE });
  // Whitespace-only text is no block (as in the stream; Anthropic refuses such blocks when they are sent back).
  if (typeof message.content === "string" && message.content.trim() !== "") content.push({ type: "text", text: message.content, citations: null });
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  calls.forEach((call, i) => {
    const args = call?.function?.arguments;
    let input = {};
    try {
      const v = typeof args === "string" ? (args.trim() === "" ? {} : JSON.parse(args)) : args;
      if (isObject(v)) input = v;
      else throw new Error("not an object");
    } catch {
      report({ label: "malformed_json", message: `the arguments of tool call ${i} are not a JSON object (sent as {}): ${String(args).slice(0, 200)}`, index: i });
    }
    content.push({ type: "tool_use", id: toAnthropicToolId(call?.id ?? `call_${i}`), name: String(call?.function?.name ?? ""), input });
  });
  const p = parallelDiagnostic(bridge.request, calls.length);
  if (p) report(p);
  return {
    id: messageId(parsed.id),
    type: "message",
    role: "assistant",
    model: bridge.request?.model ?? parsed.model ?? "",
    content,
    ...stopReason(choice.finish_reason, choice.stop_reason, calls.length, bridge.request),
    usage: usageOf(parsed.usage, bridge.request, outputChars(content, calls)),
  };
}

// ---------------------------------------------------------------------------------------------
// Streaming

const encoder = new TextEncoder();
/** The rewriter's default `maxEventBytes` (1 MiB), also the longest event the bridge holds. */
const DEFAULT_MAX_EVENT = 1 << 20;
const sse = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** Splits text into SSE events (`{event, data, comments}`), across chunk boundaries. */
class EventSplitter {
  #buf = "";
  #event = null;
  #data = null;
  #comments = [];
  #limit;
  #size = 0;
  #oversized = false;
  #skipping = false;

  /** `limit`: characters one event may hold; a longer event is skipped (`{oversized: true}`). */
  constructor(limit) {
    this.#limit = limit;
  }

  push(text, out) {
    const buf = this.#buf + text;
    let start = 0;
    // Line ends: \n, \r\n or \r. The next \r is looked up once, not per line (no rescans).
    let cr = buf.indexOf("\r");
    for (;;) {
      if (cr >= 0 && cr < start) cr = buf.indexOf("\r", start);
      const lf = buf.indexOf("\n", start);
      const end = cr >= 0 && (lf < 0 || cr < lf) ? cr : lf;
      if (end < 0) break;
      // A lone \r at the end of the buffer may be the first half of \r\n.
      if (end === cr && end + 1 === buf.length) break;
      this.#line(buf.slice(start, end), out);
      start = end + (end === cr && buf.charCodeAt(end + 1) === 10 ? 2 : 1);
    }
    this.#buf = buf.slice(start);
    if (this.#buf.length > this.#limit) {
      // A line longer than an event may be: its rest is skipped up to the next line end.
      this.#buf = "";
      this.#skipping = true;
      this.#oversized = true;
    }
  }

  finish(out) {
    if (this.#buf) this.#line(this.#buf, out);
    this.#buf = "";
    this.#line("", out);
  }

  #line(line, out) {
    if (this.#skipping) {
      this.#skipping = false;
      if (line !== "") return;
    }
    if (line === "") {
      if (this.#oversized) out.push({ event: null, data: null, comments: [], oversized: true });
      else if (this.#data !== null || this.#event !== null || this.#comments.length) out.push({ event: this.#event, data: this.#data, comments: this.#comments });
      this.#event = null;
      this.#data = null;
      this.#comments = [];
      this.#size = 0;
      this.#oversized = false;
      return;
    }
    this.#size += line.length + 1;
    if (this.#size > this.#limit) this.#oversized = true;
    if (this.#oversized) return;
    if (line.startsWith(":")) {
      this.#comments.push(line.slice(1));
      return;
    }
    const i = line.indexOf(":");
    const name = i < 0 ? line : line.slice(0, i);
    let value = i < 0 ? "" : line.slice(i + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "data") this.#data = this.#data === null ? value : `${this.#data}\n${value}`;
    else if (name === "event") this.#event = value;
  }
}

/**
 * The state machine from rewritten chat-completion chunks to Anthropic events (bridges §2.2):
 * `message_start` at the first chunk; blocks opened lazily (no empty text block) and emitted one
 * after another (`index` 0, 1, 2 … in start order); a tool call that starts while another is
 * still open waits, with its fragments buffered, until that one is complete; `message_delta`
 * once, when the upstream ends (after its usage chunk), then `message_stop`.
 */
class Bridge {
  #out;
  #request;
  #report;
  #started = false;
  #blocks = 0;
  #open = null; // {kind: "text"|"thinking"|"tool", index, call?}
  #calls = new Map(); // wire index -> {id, name, args, state: "waiting"|"open"|"closed", buffer}
  #waiting = [];
  #space = "";
  #outChars = 0;
  #toolUses = 0;
  #finish = null;
  #choiceStop = null;
  #usage = null;
  #ended = false;

  constructor(out, request, report) {
    this.#out = out;
    this.#request = request;
    this.#report = report;
  }

  get ended() {
    return this.#ended;
  }

  #emit(type, data) {
    this.#out(sse(type, data));
  }

  #start(chunk) {
    if (this.#started) return;
    this.#started = true;
    const usage = usageOf(chunk?.usage, this.#request, 0);
    this.#emit("message_start", {
      message: {
        id: messageId(chunk?.id),
        type: "message",
        role: "assistant",
        model: this.#request?.model ?? chunk?.model ?? "",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 0 },
      },
    });
  }

  /** One SSE event of the rewriter's output. */
  event({ event, data, comments, oversized }) {
    if (this.#ended) return;
    if (oversized) {
      this.#report({ label: "limit_exceeded", message: "an upstream event longer than maxEventBytes was skipped" });
      return;
    }
    for (const c of comments) {
      const d = c.startsWith(" toolwire ") ? diagnosticOf(c) : null;
      // The upstream's keep-alive comments become pings (Claude Code's idle watchdog counts them).
      if (!d) this.#emit("ping", {});
      else if ((d.choice ?? 0) === 0) this.#report(d);
    }
    if (event === "ping") return this.#emit("ping", {});
    if (event !== null && event !== "message" && event !== "error") return;
    if (data === null) return;
    if (data.trim() === "[DONE]") return this.end();
    let chunk;
    try {
      chunk = JSON.parse(data);
    } catch {
      this.#report({ label: "malformed_json", message: `upstream data is not JSON; skipped: ${data.slice(0, 200)}` });
      return;
    }
    if (event === "error" || (isObject(chunk) && chunk.error !== undefined && !Array.isArray(chunk.choices))) {
      const e = AnthropicError.fromUpstream(502, JSON.stringify(chunk));
      return this.fail(new AnthropicError(500, `the upstream reported an error mid-stream: ${e.message.replace(/^upstream answered 502: /, "")}`, "api_error"));
    }
    if (!isObject(chunk)) return;
    this.#start(chunk);
    if (isObject(chunk.usage)) this.#usage = chunk.usage;
    const choice = Array.isArray(chunk.choices) ? chunk.choices.find((c) => (c?.index ?? 0) === 0) : undefined;
    if (!isObject(choice)) return;
    const delta = isObject(choice.delta) ? choice.delta : {};
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string" && reasoning !== "") this.#text("thinking", reasoning);
    if (typeof delta.content === "string" && delta.content !== "") this.#text("text", delta.content);
    if (Array.isArray(delta.tool_calls)) for (const tc of delta.tool_calls) this.#toolDelta(tc);
    if (choice.finish_reason !== null && choice.finish_reason !== undefined && this.#finish === null) {
      this.#finish = choice.finish_reason;
      this.#choiceStop = choice.stop_reason ?? null;
      this.#closeAll();
    }
  }

  #text(kind, text) {
    if (kind === "text" && this.#open?.kind !== "text") {
      // Whitespace-only text (between calls, after reasoning) opens no block (bridges P10):
      // it is held and goes out only in front of text that has more.
      this.#space += text;
      if (this.#space.trim() === "") return;
      text = this.#space;
    }
    this.#space = "";
    if (this.#open?.kind !== kind) {
      this.#closeAll();
      const index = this.#blocks++;
      this.#open = { kind, index };
      this.#emit("content_block_start", { index, content_block: kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" } });
    }
    this.#outChars += text.length;
    this.#emit("content_block_delta", { index: this.#open.index, delta: kind === "text" ? { type: "text_delta", text } : { type: "thinking_delta", thinking: text } });
  }

  #toolDelta(tc) {
    if (!isObject(tc)) return;
    const wire = Number.isInteger(tc.index) ? tc.index : this.#calls.size;
    let call = this.#calls.get(wire);
    const fragment = typeof tc.function?.arguments === "string" ? tc.function.arguments : "";
    if (!call) {
      call = { id: toAnthropicToolId(tc.id ?? `call_${wire}`), name: String(tc.function?.name ?? ""), args: "", state: "waiting", buffer: [] };
      this.#calls.set(wire, call);
      if (this.#open?.kind === "tool") {
        // Another call is still open: it ends here when its arguments are complete JSON.
        if (complete(this.#open.call.args)) this.#closeOpen();
      } else {
        this.#closeOpen();
      }
      this.#waiting.push(call);
      this.#next();
    }
    if (!fragment) return;
    if (call.state === "closed") {
      this.#report({ label: "malformed_json", message: `arguments for tool call ${wire} after its block was closed; dropped: ${fragment.slice(0, 200)}`, index: wire });
      return;
    }
    call.args += fragment;
    this.#outChars += fragment.length;
    if (call.state === "open") this.#emit("content_block_delta", { index: this.#open.index, delta: { type: "input_json_delta", partial_json: fragment } });
    else call.buffer.push(fragment);
  }

  /** Opens the first waiting call when no block is open. */
  #next() {
    if (this.#open || this.#waiting.length === 0) return;
    this.#space = "";
    const call = this.#waiting.shift();
    const index = this.#blocks++;
    call.state = "open";
    this.#open = { kind: "tool", index, call };
    this.#toolUses++;
    this.#emit("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } });
    for (const fragment of call.buffer) this.#emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: fragment } });
    call.buffer = [];
  }

  #closeOpen() {
    const open = this.#open;
    if (!open) return;
    if (open.kind === "thinking") this.#emit("content_block_delta", { index: open.index, delta: { type: "signature_delta", signature: THINKING_SIGNATURE } });
    if (open.kind === "tool") open.call.state = "closed";
    this.#emit("content_block_stop", { index: open.index });
    this.#open = null;
  }

  /** Closes the open block and emits every waiting call, one after another. */
  #closeAll() {
    this.#closeOpen();
    while (this.#waiting.length) {
      this.#next();
      this.#closeOpen();
    }
  }

  /** The upstream finished (`[DONE]` or the end of its stream). */
  end() {
    if (this.#ended) return;
    if (this.#finish === null) {
      return this.fail(new AnthropicError(500, "the upstream stream ended before the completion finished (no finish_reason)", "api_error"));
    }
    this.#closeAll();
    const p = parallelDiagnostic(this.#request, this.#toolUses);
    if (p) {
      this.#report(p);
    }
    const usage = usageOf(this.#usage, this.#request, this.#outChars);
    this.#emit("message_delta", { delta: stopReason(this.#finish, this.#choiceStop, this.#toolUses, this.#request), usage });
    this.#emit("message_stop", {});
    this.#ended = true;
  }

  /** Ends the stream with an `error` event (no `message_stop`). */
  fail(error) {
    if (this.#ended) return;
    this.#closeAll();
    this.#out(error.toSse());
    this.#ended = true;
  }
}

/** The diagnostic of a rewriter comment ` toolwire <label> {json}`, or null. */
function diagnosticOf(comment) {
  const m = /^ toolwire ([a-z_]+) (\{.*\})$/.exec(comment);
  if (!m) return null;
  try {
    return { label: m[1], ...JSON.parse(m[2]) };
  } catch {
    return null;
  }
}

/** Whether arguments so far are one complete JSON value. */
function complete(args) {
  try {
    JSON.parse(args);
    return true;
  } catch {
    return false;
  }
}

/**
 * The upstream's chat-completions SSE (bytes, as `response.body`) in, Anthropic Messages SSE
 * (bytes) out. Tool calls written as text are parsed by the SSE rewrite (`SseRewriter`) with
 * the parser options given (`parser`, `reasoning`, `tools`, ...); structured upstream calls pass
 * through. Options beside those: `request` (the Anthropic request: its `model` names the
 * message, its `tools` type the arguments, its `stop_sequences` and `tool_choice` are checked),
 * `onDiagnostic(d)`, `pingIntervalMs` (send `ping` when the upstream is silent that long; 0 =
 * never, the default). Diagnostics are also written as SSE comments `: toolwire <label> {json}`.
 * A stream that ends without a finish, or an upstream `error` chunk, ends with an `error` event.
 */
export class AnthropicSseStream extends TransformStream {
  constructor(options) {
    const { bridge: own, rewrite } = splitBridgeOptions(options, STREAM_OPTIONS_OWN, "AnthropicSseStream");
    const ping = own.pingIntervalMs ?? 0;
    if (!Number.isFinite(ping) || ping < 0) throw new TypeError("AnthropicSseStream: `pingIntervalMs` must be a non-negative number");
    // Diagnostics come as the rewriter's comments, at their place in the stream (any chunking
    // gives the same output).
    const rw = new SseRewriter({ ...rewrite, comments: true });
    const decoder = new TextDecoder();
    const splitter = new EventSplitter(rewrite.maxEventBytes ?? DEFAULT_MAX_EVENT);
    let controller;
    let timer = null;
    let last = Date.now();
    let freed = false;
    const free = () => {
      if (timer !== null) clearInterval(timer);
      timer = null;
      if (!freed) rw.free();
      freed = true;
    };
    // Output is collected per upstream chunk and enqueued once (pings go out at once).
    let pending = [];
    const out = (text) => pending.push(text);
    const send = () => {
      if (pending.length === 0) return;
      last = Date.now();
      controller.enqueue(encoder.encode(pending.join("")));
      pending = [];
    };
    const report = (d) => {
      out(`: toolwire ${d.label} ${JSON.stringify({ ...(d.index !== undefined && { index: d.index }), message: d.message })}\n\n`);
      own.onDiagnostic?.(d);
    };
    const bridge = new Bridge(out, own.request, report);
    const feed = (bytes, end) => {
      const events = [];
      splitter.push(decoder.decode(bytes, { stream: !end }), events);
      if (end) splitter.finish(events);
      for (const e of events) bridge.event(e);
    };
    super({
      start(c) {
        controller = c;
        if (ping > 0) {
          timer = setInterval(() => {
            if (bridge.ended || Date.now() - last < ping) return;
            try {
              out(sse("ping", {}));
              send();
            } catch {
              clearInterval(timer);
              timer = null;
            }
          }, Math.max(10, Math.floor(ping / 2)));
        }
      },
      transform(chunk, c) {
        try {
          if (bridge.ended) return;
          feed(rw.push(asBytes(chunk)), false);
          send();
        } catch (e) {
          free();
          throw e;
        }
      },
      flush() {
        try {
          if (!bridge.ended) {
            feed(rw.finish(), true);
            bridge.end();
          }
          send();
        } finally {
          free();
        }
      },
      cancel() {
        free();
      },
    });
  }
}

function asBytes(chunk) {
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (typeof chunk === "string") return encoder.encode(chunk);
  throw new TypeError(`AnthropicSseStream: expected chunks of bytes (Uint8Array, ArrayBuffer, ArrayBufferView) or text, got ${kind(chunk)}`);
}

/**
 * A rough count of a request's input tokens: about 4 characters per token over the text of the
 * system prompt, messages and tool definitions. An estimate, not the model's tokenizer.
 */
export function estimateInputTokens(request) {
  let chars = 0;
  const add = (v) => {
    if (typeof v === "string") chars += v.length;
    else if (Array.isArray(v)) v.forEach(add);
    else if (isObject(v)) {
      if (v.type === "image" || v.type === "redacted_thinking") chars += 6000; // ~1.5k tokens for an image
      else for (const [k, x] of Object.entries(v)) if (k !== "cache_control" && k !== "signature" && k !== "type") add(x);
    }
  };
  add(request?.system);
  add(request?.messages);
  for (const t of Array.isArray(request?.tools) ? request.tools : []) chars += JSON.stringify(t).length;
  return Math.ceil(chars / 4);
}
