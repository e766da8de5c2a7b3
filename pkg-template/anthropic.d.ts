import type { Diagnostic, DiagnosticLabel } from "./index.js";
import type { SseRewriteOptions } from "./stream.js";

export type { Diagnostic, DiagnosticLabel } from "./index.js";

/** Loads the wasm. Needed once in browsers; a resolved no-op in Node and workerd. Idempotent. */
export default function init(input?: string | URL | Request | Response | BufferSource | WebAssembly.Module): Promise<void>;
export { init };

/** Anthropic error types (`error.type`). */
export type AnthropicErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "billing_error"
  | "permission_error"
  | "not_found_error"
  | "conflict_error"
  | "request_too_large"
  | "rate_limit_error"
  | "api_error"
  | "timeout_error"
  | "overloaded_error";

/** The body of an Anthropic error answer (and of the SSE `error` event). */
export interface AnthropicErrorBody {
  type: "error";
  error: { type: AnthropicErrorType; message: string };
}

/**
 * An error with an Anthropic shape. `toOpenAIRequest` throws it with status 400 and a message
 * that starts with the offending field or block (`messages.2.content.0: ...`).
 */
export class AnthropicError extends Error {
  constructor(status: number, message: string, type?: AnthropicErrorType);
  readonly status: number;
  readonly type: AnthropicErrorType;
  /** `{type: "error", error: {type, message}}`. */
  readonly body: AnthropicErrorBody;
  toJSON(): AnthropicErrorBody;
  /** The SSE `error` event (`event: error` + data), for a stream that already answered 200. */
  toSse(): string;
  /**
   * An upstream error answer (an OpenAI `{error: {message}}` body or any text) as an Anthropic
   * error of the same status; a context overflow becomes `prompt is too long: M tokens > N maximum`.
   */
  static fromUpstream(status: number, bodyText: string): AnthropicError;
}

/** The Anthropic error type for an HTTP status. */
export function errorTypeFor(status: number): AnthropicErrorType;

/** Options of `toOpenAIRequest`. */
export interface ToOpenAIRequestOptions {
  /**
   * The upstream model: a name for every request, a map (exact Claude name, `prefix*`, or `"*"`
   * for any other) or a function. Default: the request's `model`.
   */
  model?: string | Record<string, string> | ((requested: string) => string | undefined);
  /** A cap on `max_tokens` (an upstream's context window leaves less than clients ask for). */
  maxTokens?: number;
  /** Where thinking blocks are replayed: `"reasoning_content"` (default; DeepSeek, vLLM input) or `"reasoning"`. */
  reasoningField?: "reasoning_content" | "reasoning";
  /** `thinking` also sets `chat_template_kwargs.{enable_thinking, thinking}` (default true). */
  thinkingKwargs?: boolean;
}

/** An OpenAI chat-completions request, as `toOpenAIRequest` writes it. */
export interface OpenAIChatRequest {
  model: string;
  messages: Array<Record<string, unknown>>;
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop?: string[];
  tools?: Array<{ type: "function"; function: { name: string; description?: string; parameters: object; strict?: boolean } }>;
  tool_choice?: "auto" | "required" | "none" | { type: "function"; function: { name: string } };
  parallel_tool_calls?: false;
  stream?: true;
  stream_options?: { include_usage: true };
  user?: string;
  chat_template_kwargs?: { enable_thinking: boolean; thinking: boolean };
  reasoning_effort?: "low" | "medium" | "high";
}

/**
 * An Anthropic Messages request as an OpenAI chat-completions request: `system`, `messages`
 * (text, image, plain-text document, `tool_use` → `tool_calls`, `tool_result` → `role: "tool"`
 * messages right after the calls, `is_error` as an `Error: ` prefix, `thinking` → the
 * assistant's `reasoning_content` exactly as written), `tools`, `tool_choice`
 * (`disable_parallel_tool_use` → `parallel_tool_calls: false`), `max_tokens`, `temperature`,
 * `top_p`, `top_k`, `stop_sequences`, `stream`, `metadata.user_id`. Throws `AnthropicError`
 * (400) for a request that breaks the protocol.
 */
export function toOpenAIRequest(request: object, options?: ToOpenAIRequestOptions): OpenAIChatRequest;

/** The upstream model for a requested one (see `ToOpenAIRequestOptions.model`). */
export function mapModel(requested: string, map?: ToOpenAIRequestOptions["model"]): string;

/** Anthropic custom tools as OpenAI function tools (server tools are left out). */
export function toOpenAITools(tools: object[] | undefined): Array<{ type: "function"; function: { name: string; description?: string; parameters: object } }>;

/** `toolu_` + an OpenAI call id, escaped reversibly into `[A-Za-z0-9_-]`. */
export function toAnthropicToolId(openAIId: string): string;
/** The inverse of `toAnthropicToolId`; other ids come back unchanged. */
export function toOpenAIToolCallId(anthropicId: string): string;

/** The thinking signature the bridge writes (opaque; replayed thinking is sent upstream whatever its signature). */
export const THINKING_SIGNATURE: string;

/** A diagnostic of the bridge: a parser or wire diagnostic, or `parallel_calls` (several calls under `disable_parallel_tool_use`, all kept). */
export interface AnthropicDiagnostic extends Omit<Diagnostic, "label"> {
  label: DiagnosticLabel | "parallel_calls";
  choice?: number;
}

/** Options of `toAnthropicMessage` and `AnthropicSseStream`: the rewrite's parser options plus the bridge's. */
export interface AnthropicBridgeOptions extends Omit<SseRewriteOptions, "onDiagnostic" | "comments"> {
  /** The Anthropic request: its `model` names the message, its `tools` type the arguments (unless `tools` is given), its `stop_sequences` and `tool_choice` are checked. */
  request?: object;
  /** Called with each diagnostic (synchronously). */
  onDiagnostic?: (diagnostic: AnthropicDiagnostic) => void;
}

export interface AnthropicSseStreamOptions extends AnthropicBridgeOptions {
  /** Send `event: ping` when the upstream has been silent this long (ms); 0 (default) never. */
  pingIntervalMs?: number;
}

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export type AnthropicContentBlock =
  | { type: "text"; text: string; citations: null }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

/** An Anthropic Message (non-streaming answer). */
export interface AnthropicMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: AnthropicContentBlock[];
  stop_reason: "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "refusal";
  stop_sequence: string | null;
  /** The upstream's usage; when it reports none, estimated (about 4 characters per token of the request and of the answer). */
  usage: AnthropicUsage;
}

/**
 * A non-streaming `chat.completion` (object or JSON text) as an Anthropic Message, tool calls
 * written as text parsed first. The `stop_reason` follows what was emitted (`tool_use` when a
 * `tool_use` block is there). Throws `AnthropicError` (502) for a body that is not a completion.
 */
export function toAnthropicMessage(completion: object | string, options?: AnthropicBridgeOptions | string): AnthropicMessage;

/** OpenAI usage as Anthropic usage (cached prompt tokens are `cache_read_input_tokens`, not `input_tokens`). */
export function toAnthropicUsage(usage: object | null | undefined): AnthropicUsage;

/**
 * The upstream's chat-completions SSE bytes in, Anthropic Messages SSE bytes out:
 * `message_start`, per block `content_block_start` / `content_block_delta` (`text_delta`,
 * `thinking_delta` + one `signature_delta`, `input_json_delta`) / `content_block_stop`,
 * `message_delta` (`stop_reason`, `usage`), `message_stop`; upstream keep-alives as `ping`. An
 * upstream that stops without a finish, or sends an error chunk, ends it with an `error` event.
 * Throws at construction on unknown options.
 */
export class AnthropicSseStream extends TransformStream<Uint8Array | ArrayBuffer | ArrayBufferView | string, Uint8Array> {
  constructor(options?: AnthropicSseStreamOptions | string);
}

/** About 4 characters per token over system, messages and tools: an estimate, not the model's tokenizer. */
export function estimateInputTokens(request: object): number;
