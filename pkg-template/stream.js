// toolwire/stream: Web Streams over the wasm API (contract §4 and §6), shared by every runtime
// entry. The wasm must be instantiated before a stream is built: the node and workerd entries
// do it at import; in browsers `await init()` first.
// As in api.js, options cross into the wasm as JSON text; rewritten SSE crosses as bytes.
import { SseRewriter as WasmRewriter, rewriteCompletionBody } from "./dist/toolwire.js";
import { ToolCallParser, optionsJson } from "./api.js";
import { memoryWords, readStopSet } from "./memory.js";

/** `SseRewriter`'s push for chunks nobody changes afterwards (the stream's). */
const pushOwned = Symbol("pushOwned");

/** At most this many bytes of answered texts wait for the core (then the next chunk goes in). */
const PENDING_MAX = 1 << 16;
/** A pending buffer larger than this is not kept after use. */
const PENDING_KEEP = 1 << 12;

/**
 * The push/finish rewriter under `SseRewriteStream`, for code that does not use Web Streams:
 * `push(bytes)` and `finish()` return rewritten bytes. Free it when done.
 *
 * Quiet runs: after each call into the wasm the core may say (`quietPtr`, `quietHint`;
 * src/sse/rewriter.rs `SseQuiet`) that upstream events made of the same bytes as the last one
 * but for a plain text (ASCII outside a set of bytes, within a byte budget) would each come
 * out as the same event (`verbatim`) or as fixed bytes around that text (the arguments of the
 * open call, reasoning). A network chunk made only of such events is answered here without
 * entering the wasm; their texts go to the choice's parser before the next chunk
 * (`pushAfterQuiet`), so the parser still sees every byte.
 */
export class SseRewriter {
  #wasm;
  /** Where the hint's numbers are (a u32 index into the memory) and the hint as read. */
  #quietAt;
  #version = 0;
  #budget = 0;
  #stop = new Int32Array(4);
  #verbatim = false;
  #inPrefix = null;
  #inSuffix = null;
  #outPrefix = null;
  #outSuffix = null;
  /** Texts of answered events not yet handed to the core (`#pendingLen` bytes of it). */
  #pending = new Uint8Array(0);
  #pendingLen = 0;
  #spans = new Int32Array(16);

  constructor(options) {
    this.#wasm = new WasmRewriter(optionsJson(options));
    this.#quietAt = this.#wasm.quietPtr() >>> 2;
  }

  /** Feeds upstream bytes (any chunking); returns the rewritten bytes they complete. */
  push(chunk) {
    if (!(chunk instanceof Uint8Array)) {
      const got = chunk === null ? "null" : Array.isArray(chunk) ? "an array" : typeof chunk;
      throw new TypeError(`SseRewriter.push: expected the upstream's bytes as a Uint8Array, got ${got}`);
    }
    const out = this[pushOwned](chunk);
    // A verbatim answer is `chunk` itself: the caller keeps its own bytes.
    return out === chunk ? chunk.slice() : out;
  }

  /** Like `push` for a chunk nobody changes afterwards: a verbatim answer may be `chunk` itself. */
  [pushOwned](chunk) {
    const wasm = this.#live();
    if (this.#version !== 0) {
      const out = this.#answer(chunk);
      if (out !== null) return out;
    }
    let out;
    if (this.#pendingLen > 0) {
      out = wasm.pushAfterQuiet(this.#takePending(), chunk);
    } else {
      out = wasm.push(chunk);
    }
    this.#readQuiet(wasm);
    return out;
  }

  /** The answer for a chunk of quiet events, or null when it is not one. */
  #answer(chunk) {
    const ip = this.#inPrefix;
    const is = this.#inSuffix;
    const stop = this.#stop;
    const n = chunk.length;
    const ipn = ip.length;
    const isn = is.length;
    // Where each event's text is: start, end pairs (a reused buffer).
    let spans = this.#spans;
    let k = 0;
    let at = 0;
    let texts = 0;
    while (at < n) {
      if (at + ipn > n) return null;
      for (let i = ipn - 1; i >= 0; i--) if (chunk[at + i] !== ip[i]) return null;
      const start = at + ipn;
      let j = start;
      while (j < n) {
        const b = chunk[j];
        if (b >= 0x80 || (stop[b >> 5] >>> (b & 31)) & 1) break;
        j++;
      }
      if (j + isn > n) return null;
      for (let i = 0; i < isn; i++) if (chunk[j + i] !== is[i]) return null;
      if (k + 2 > spans.length) spans = this.#spans = new Int32Array(spans.length * 2);
      spans[k++] = start;
      spans[k++] = j;
      texts += j - start;
      at = j + isn;
    }
    if (at === 0 || this.#pendingLen + texts > this.#budget) return null;
    // The texts wait for the core in a reused buffer.
    let q = this.#pending;
    let w = this.#pendingLen;
    if (w + texts > q.length) {
      const grown = new Uint8Array(Math.max(q.length * 2, w + texts, 256));
      grown.set(q.subarray(0, w));
      q = this.#pending = grown;
    }
    for (let i = 0; i < k; i += 2) for (let j = spans[i]; j < spans[i + 1]; j++) q[w++] = chunk[j];
    this.#pendingLen = w;
    if (this.#verbatim) return chunk;
    const op = this.#outPrefix;
    const os = this.#outSuffix;
    const out = new Uint8Array((op.length + os.length) * (k >> 1) + texts);
    w = 0;
    for (let i = 0; i < k; i += 2) {
      out.set(op, w);
      w += op.length;
      for (let j = spans[i]; j < spans[i + 1]; j++) out[w++] = chunk[j];
      out.set(os, w);
      w += os.length;
    }
    return out;
  }

  /** The texts of answered events, joined, and none pending any more. */
  #takePending() {
    const q = this.#pending.slice(0, this.#pendingLen);
    this.#pendingLen = 0;
    if (this.#pending.length > PENDING_KEEP) this.#pending = new Uint8Array(0);
    return q;
  }

  /** Reads the core's quiet-run hint (after every call that took input). */
  #readQuiet(wasm) {
    const m = memoryWords();
    const at = this.#quietAt;
    const version = m[at];
    if (version !== 0) {
      this.#budget = Math.min(m[at + 1], PENDING_MAX);
      readStopSet(m, at + 2, this.#stop);
      if (version !== this.#version) {
        const h = wasm.quietHint();
        const v = new DataView(h.buffer, h.byteOffset, h.byteLength);
        const lens = [v.getUint32(4, true), v.getUint32(8, true), v.getUint32(12, true), v.getUint32(16, true)];
        let o = 20;
        const part = (len) => h.subarray(o, (o += len));
        this.#verbatim = v.getUint32(0, true) !== 0;
        this.#inPrefix = part(lens[0]);
        this.#inSuffix = part(lens[1]);
        this.#outPrefix = part(lens[2]);
        this.#outSuffix = part(lens[3]);
      }
    }
    this.#version = version;
  }

  /** Hands the texts of answered events to the core (before anything else reaches it). */
  #flush(wasm) {
    if (this.#pendingLen === 0) return new Uint8Array(0);
    const out = wasm.pushAfterQuiet(this.#takePending(), new Uint8Array(0));
    this.#readQuiet(wasm);
    return out;
  }

  /** Ends the stream: flushes held text and open calls; returns the last bytes. */
  finish() {
    const wasm = this.#live();
    const before = this.#flush(wasm);
    this.#version = 0;
    const out = wasm.finish();
    if (before.length === 0) return out;
    const both = new Uint8Array(before.length + out.length);
    both.set(before);
    both.set(out, before.length);
    return both;
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
      (chunk, c) => enqueue(c, rw[pushOwned](bytes(chunk, "SseRewriteStream"))),
      (c) => enqueue(c, rw.finish()),
      report,
    ));
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
