import type { DiagnosticLabel, ParserOptions, ToolCallEvent } from "./index.js";

export type { DiagnosticLabel, ParserOptions, ToolCallEvent } from "./index.js";

/** Loads the wasm. Needed once in browsers; a resolved no-op in Node and workerd. Idempotent. */
export default function init(input?: string | URL | Request | Response | BufferSource | WebAssembly.Module): Promise<void>;
export { init };

/** A diagnostic of the wire rewrite: a parser diagnostic of one choice, or a stream-level one (no `choice`). */
export interface StreamDiagnostic {
  label: DiagnosticLabel;
  message: string;
  /** The call's `index` on the wire (in `delta.tool_calls`). */
  index?: number;
  /** The choice's `index`; absent for problems of the stream itself (bad JSON, an oversized event, a cut-off event). */
  choice?: number;
}

/** Options of `SseRewriteStream`, `SseRewriter` and `rewriteChatCompletion`. */
export interface SseRewriteOptions extends ParserOptions {
  /**
   * Upstreams that resend the whole text in every chunk: `true` (always), `false` (never: plain
   * deltas), or `"auto"` (default: cumulative when each of the first three texts extends the one
   * before; the second text waits one chunk for the third).
   */
  cumulative?: "auto" | boolean;
  /** Write diagnostics into the stream as SSE comments `: toolwire <label> {json}` (clients ignore them). Default true. */
  comments?: boolean;
  /** Bytes of one SSE event held for parsing (default 1 MiB); a longer event passes through unparsed with a `limit_exceeded` diagnostic. */
  maxEventBytes?: number;
  /** Called with each diagnostic (synchronously, as the stream runs). */
  onDiagnostic?: (diagnostic: StreamDiagnostic) => void;
}

/**
 * Model text in (string chunks, or UTF-8 bytes split anywhere), parser events out.
 * Throws at construction when `options.parser` is unknown. The parser is freed when the stream
 * ends, errors or is cancelled.
 */
export class ToolCallStream extends TransformStream<string | Uint8Array, ToolCallEvent> {
  constructor(options?: ParserOptions | string);
  /** The resolved parser id (useful with `parser: "auto"`). */
  readonly parser: string;
}

/**
 * An OpenAI-compatible SSE body in (`chat.completion.chunk` or `/v1/completions` chunks, as
 * bytes), the same stream out with each choice's text split into `content`,
 * `reasoning_content` and `tool_calls` deltas. Everything else passes through. A run of one
 * call's argument deltas (or of reasoning) that arrives in one network chunk goes out as one
 * event, the texts joined. Throws at construction on unknown options. Chunks the rewrite leaves as they came are
 * passed on themselves; rewritten chunks are views of shared slabs (see `SseRewriter`). The
 * readable side queues one rewritten chunk (`highWaterMark` 1): a chunk is rewritten when it
 * arrives.
 */
export class SseRewriteStream extends TransformStream<Uint8Array | ArrayBuffer | ArrayBufferView | string, Uint8Array> {
  constructor(options?: SseRewriteOptions | string);
}

/**
 * Rewrites a non-streaming `chat.completion` (or `text_completion`) body, as `parse()` reads
 * each choice's text. An object in gives an object out; a JSON string in, a string out. An
 * unchanged body is returned as given.
 */
export function rewriteChatCompletion<T extends object | string>(body: T, options?: SseRewriteOptions | string): T;

/**
 * The rewriter under `SseRewriteStream`, for code that is not written with Web Streams. Free it when done.
 *
 * Rewritten answers of `push` and `pushOwned` (and the rewritten chunks of `SseRewriteStream`)
 * are views of a slab, an append-only buffer of up to 64 KiB that is never written again where
 * an answer was handed out: answers may share one `ArrayBuffer`, as Node's pooled `Buffer`s do.
 * Do not transfer an answer's `buffer` (`postMessage` with transfer, a byte stream's `enqueue`):
 * that detaches the answers sharing it. Copy (`slice()`) an answer you transfer. Answers written
 * after a transfer go to a new slab.
 */
export class SseRewriter {
  constructor(options?: Omit<SseRewriteOptions, "onDiagnostic"> | string);
  /** Feeds upstream bytes (any chunking); returns the rewritten bytes they complete. */
  push(bytes: Uint8Array): Uint8Array;
  /**
   * Like `push` for bytes handed over (not read or changed afterwards, as a stream's chunks):
   * when the rewrite leaves them as they came, they are returned themselves, not a copy.
   */
  pushOwned(bytes: Uint8Array): Uint8Array;
  /**
   * Like `pushOwned`, but rewritten bytes come back as a view of the wasm memory, valid until
   * the next call into toolwire: read or copy them before.
   */
  pushView(bytes: Uint8Array): Uint8Array;
  /** Ends the stream: flushes held text and open calls; returns the last bytes. */
  finish(): Uint8Array;
  /** The diagnostics reported since the last call. */
  takeDiagnostics(): StreamDiagnostic[];
  /** Releases the wasm memory. The rewriter cannot be used afterwards. */
  free(): void;
  [Symbol.dispose](): void;
}
