// toolwire/stream: Web Streams over the wasm API (contract §4 and §6), shared by every runtime
// entry. The wasm must be instantiated before a stream is built: the node and workerd entries
// do it at import; in browsers `await init()` first.
// As in api.js, options cross into the wasm as JSON text; rewritten SSE crosses as bytes.
import { SseRewriter as WasmRewriter, rewriteCompletionBody } from "./dist/toolwire.js";
import { ToolCallParser, optionsJson } from "./api.js";
import { memoryBytes, memoryWords } from "./memory.js";

/** `pushInput`'s answer when the output is the input chunk itself. */
const VERBATIM = 0xffffffff;
/** The wasm drops an input buffer larger than this after use (src/wasm.rs `SSE_BUFFER_KEEP`). */
const INPUT_KEEP = 1 << 16;
const EMPTY = new Uint8Array(0);
/** Sizes of the slabs rewritten answers are copied into: the first, the largest (see `pushOwned`). */
const SLAB_MIN = 1 << 12;
const SLAB_MAX = 1 << 16;

/**
 * The push/finish rewriter under `SseRewriteStream`, for code that does not use Web Streams:
 * `push(bytes)` and `finish()` return rewritten bytes. Free it when done.
 *
 * One call into the wasm per chunk, no allocation there: the chunk is copied into a reused
 * input buffer (`inputBuffer`), `pushInput` rewrites it into a reused output buffer and says
 * where (`outputAt`). Quiet runs (src/sse/rewriter.rs `SseQuiet`, `push_answered`): a chunk
 * made only of events that are the last one's bytes but for a plain text is answered from
 * bytes the core wrote once, without parsing; when every such event comes out as it came, the
 * answer is the chunk itself and nothing is copied out.
 *
 * Rewritten answers of `push` and `pushOwned` are views of a slab (an append-only buffer of up
 * to 64 KiB, never written again where an answer was handed out): answers may share one
 * `ArrayBuffer`, as Node's pooled `Buffer`s do. A new buffer per answer costs more than the
 * rewrite. Do not transfer an answer's `buffer` (`postMessage` with transfer, a byte stream's
 * `enqueue`): it would detach the answers that share it; copy (`slice()`) one you transfer.
 * Answers written after a transfer go to a new slab.
 */
export class SseRewriter {
  #wasm;
  /** Where `outputAt` is (a u32 index into the memory). */
  #outAt;
  /** The input buffer's address and size (0: ask `inputBuffer`). */
  #inPtr = 0;
  #inCap = 0;
  /** The slab rewritten answers are copied into, and where its free part starts. */
  #slab = EMPTY;
  #slabAt = 0;

  constructor(options) {
    this.#wasm = new WasmRewriter(optionsJson(options));
    this.#outAt = this.#wasm.outputAt() >>> 2;
  }

  /** Feeds upstream bytes (any chunking); returns the rewritten bytes they complete. */
  push(chunk) {
    if (!(chunk instanceof Uint8Array)) {
      const got = chunk === null ? "null" : Array.isArray(chunk) ? "an array" : typeof chunk;
      throw new TypeError(`SseRewriter.push: expected the upstream's bytes as a Uint8Array, got ${got}`);
    }
    const out = this.pushOwned(chunk);
    // A verbatim answer is `chunk` itself: the caller keeps its own bytes.
    return out === chunk ? chunk.slice() : out;
  }

  /**
   * Like `push` for bytes the caller hands over (it does not read or change them afterwards,
   * as with a stream's chunks): when the rewrite leaves them as they came, the answer is
   * `chunk` itself, not a copy.
   */
  pushOwned(chunk) {
    const out = this.pushView(chunk);
    return out === chunk || out.length === 0 ? out : this.#own(out);
  }

  /** A copy of `out` (a view of the wasm memory) in the slab, or its own buffer when large. */
  #own(out) {
    const n = out.length;
    if (n > SLAB_MAX >> 2) return out.slice();
    let slab = this.#slab;
    // A new slab when this one is full; a detached one (a consumer transferred an answer's
    // buffer) reads as empty, so it is full.
    if (this.#slabAt + n > slab.length) {
      slab = this.#slab = new Uint8Array(Math.min(SLAB_MAX, Math.max(slab.length * 2, SLAB_MIN, n)));
      this.#slabAt = 0;
    }
    const at = this.#slabAt;
    slab.set(out, at);
    this.#slabAt = at + n;
    return slab.subarray(at, at + n);
  }

  /**
   * Like `pushOwned`, without copying the rewritten bytes out: a rewritten answer is a view of
   * the wasm memory, valid until the next call into toolwire (read or copy it before). For
   * callers that copy the answers into buffers of their own.
   */
  pushView(chunk) {
    if (!(chunk instanceof Uint8Array)) return this.push(chunk);
    const wasm = this.#live();
    const n = chunk.length;
    if (n === 0) return EMPTY;
    if (n > this.#inCap) {
      this.#inCap = Math.max(n, Math.min(this.#inCap * 2, INPUT_KEEP), 1024);
      this.#inPtr = wasm.inputBuffer(this.#inCap);
    }
    memoryBytes().set(chunk, this.#inPtr);
    const r = wasm.pushInput(n);
    if (n > INPUT_KEEP) this.#inCap = 0;
    if (r === VERBATIM) return chunk;
    if (r === 0) return EMPTY;
    const ptr = memoryWords()[this.#outAt];
    return memoryBytes().subarray(ptr, ptr + r);
  }

  /** Ends the stream: flushes held text and open calls; returns the last bytes. */
  finish() {
    return this.#live().finish();
  }

  /** The diagnostics reported since the last call: `[{label, message, index?, choice?}]`. */
  takeDiagnostics() {
    return JSON.parse(this.#live().takeDiagnostics());
  }

  /** Releases the wasm memory; the rewriter cannot be used afterwards. Safe to call twice. */
  free() {
    this.#wasm?.free();
    this.#wasm = undefined;
  }

  #live() {
    if (!this.#wasm) throw new Error("this SseRewriter was freed");
    return this.#wasm;
  }
}
if (typeof Symbol.dispose === "symbol") SseRewriter.prototype[Symbol.dispose] = SseRewriter.prototype.free;

const encoder = new TextEncoder();

/** A binary chunk (or a string) as a Uint8Array view; anything else is a TypeError, not text. */
function bytes(chunk, what) {
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (typeof chunk === "string") return encoder.encode(chunk);
  const got = chunk === null ? "null" : Array.isArray(chunk) ? "an array" : typeof chunk;
  throw new TypeError(`${what}: expected chunks of text (a string) or bytes (Uint8Array, ArrayBuffer, ArrayBufferView), got ${got}`);
}

/** Splits `{onDiagnostic, ...options}`; a string is a parser name. */
function split(options) {
  if (options == null || typeof options !== "object") return [options, undefined];
  const { onDiagnostic, ...rest } = options;
  return [rest, onDiagnostic];
}

/**
 * A transformer around an object with `push`/`finish`/`free`: the object is freed exactly once,
 * when the stream flushes, errors (a throwing push) or is cancelled.
 */
function transformer(wasm, push, finish, after) {
  let freed = false;
  const free = () => {
    if (!freed) {
      freed = true;
      wasm.free();
    }
  };
  return {
    transform(chunk, controller) {
      try {
        push(chunk, controller);
        after();
      } catch (e) {
        free();
        throw e;
      }
    },
    flush(controller) {
      try {
        finish(controller);
        after();
      } finally {
        free();
      }
    },
    cancel() {
      free();
    },
  };
}

/**
 * Model text in (string chunks, or UTF-8 bytes), parser events out (`text`, `reasoning`,
 * `tool-call-start`, `tool-call-delta`, `tool-call-end`, `diagnostic`). Throws at construction
 * on an unknown parser.
 */
export class ToolCallStream extends TransformStream {
  constructor(options) {
    const parser = new ToolCallParser(options);
    const id = parser.parser;
    const enqueue = (controller, events) => {
      for (const e of events) controller.enqueue(e);
    };
    super(transformer(
      parser,
      (chunk, c) => enqueue(c, typeof chunk === "string" ? parser.push(chunk) : parser.pushBytes(bytes(chunk, "ToolCallStream"))),
      (c) => enqueue(c, parser.finish()),
      () => {},
    ));
    /** The resolved parser id. */
    this.parser = id;
  }
}

/**
 * The readable side's queue of `SseRewriteStream`: one rewritten chunk. An upstream chunk is
 * rewritten when it arrives, not when the consumer asks for it (the default of 0 chunks); the
 * stream machinery then takes fewer promise round trips a chunk (2,006 events, eight a network
 * chunk: about 7% less CPU for the stream). Backpressure holds after one chunk.
 */
const REWRITTEN_QUEUE = { highWaterMark: 1 };

/**
 * Upstream OpenAI-compatible SSE bytes in (e.g. `response.body`), the same stream with tool
 * calls parsed out of the text. Options: the parser options plus `cumulative`, `comments`,
 * `maxEventBytes` and `onDiagnostic(d)`.
 */
export class SseRewriteStream extends TransformStream {
  constructor(options) {
    const [opts, onDiagnostic] = split(options);
    const rw = new SseRewriter(opts);
    const report = onDiagnostic
      ? () => {
          for (const d of rw.takeDiagnostics()) onDiagnostic(d);
        }
      : () => {};
    const enqueue = (controller, out) => {
      if (out.length) controller.enqueue(out);
    };
    super(transformer(
      rw,
      (chunk, c) => enqueue(c, rw.pushOwned(bytes(chunk, "SseRewriteStream"))),
      (c) => enqueue(c, rw.finish()),
      report,
    ), undefined, REWRITTEN_QUEUE);
  }
}

/**
 * Rewrites a non-streaming `chat.completion` (or `text_completion`) body: an object in, an
 * object out; a JSON string in, a string out. Unchanged bodies come back as given.
 */
export function rewriteChatCompletion(body, options) {
  const [opts, onDiagnostic] = split(options);
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const r = JSON.parse(rewriteCompletionBody(text, optionsJson(opts)));
  if (onDiagnostic) for (const d of r.diagnostics) onDiagnostic(d);
  if (r.body === null) return body;
  return typeof body === "string" ? r.body : JSON.parse(r.body);
}
