// The API shared by every entry. The wasm must be instantiated before these are called (the
// node and workerd entries do it at import; the browser entry through `init()`).
// Options cross into the wasm as JSON text and results come back as JSON text: one
// JSON.stringify and one JSON.parse per call (a push giving one event skips JSON: `events`).
import {
  parse as wasmParse,
  detectParser as wasmDetectParser,
  sniffParser as wasmSniffParser,
  classify as wasmClassify,
  ToolCallParser as WasmParser,
  wasmMemory,
} from "./dist/toolwire.js";
import * as meta from "./meta.js";
import { decodeEvents as events } from "./events.js";

/** Options as JSON text: an options object, or a parser name. */
export function optionsJson(options) {
  return JSON.stringify(typeof options === "string" ? { parser: options } : (options ?? {}));
}

/** The text argument of `what`: a string, else a TypeError that says what was expected. */
function text(value, what) {
  if (typeof value === "string") return value;
  throw new TypeError(`${what}: expected the model's text as a string, got ${describe(value)}`);
}

/** A short description of a value's type for error messages. */
function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  return typeof value === "object" ? `an object (${Object.prototype.toString.call(value).slice(8, -1)})` : typeof value;
}

/** Parses a whole text: `{content, reasoning, toolCalls, diagnostics}`. */
export function parse(input, options) {
  return JSON.parse(wasmParse(text(input, "parse"), optionsJson(options)));
}

const copy = (list) => list.map((x) => ({ ...x, aliases: [...x.aliases], ...(x.models && { models: [...x.models] }) }));

/** Every parser family: `[{id, aliases, models, description}]` (a fresh copy). */
export function parsers() {
  return copy(meta.parsers);
}

/** Every reasoning parser (vLLM `--reasoning-parser` names): `[{id, aliases, description}]`. */
export function reasoningParsers() {
  return copy(meta.reasoningParsers);
}

/** The parser id for a model name, or null when unknown. */
export function detectParser(model) {
  return wasmDetectParser(String(model ?? "")) ?? null;
}

/** Which families' markers appear in a text, most specific first. */
export function sniffParser(input) {
  return JSON.parse(wasmSniffParser(text(input, "sniffParser")));
}

/** Every family's reading of one text: `[{parser, verdict, count?, content, reasoning, toolCalls, diagnostics}]`. */
export function classify(input, options) {
  return JSON.parse(wasmClassify(text(input, "classify"), optionsJson(options)));
}

const utf8In = new TextEncoder();
const utf8Out = new TextDecoder();
/** A view of the wasm memory, renewed when the memory grows (which detaches the old buffer). */
let memoryView = new Uint8Array(0);
function memory() {
  if (memoryView.byteLength === 0) memoryView = new Uint8Array(wasmMemory().buffer);
  return memoryView;
}

/** A string of `len` bytes of UTF-8 at `ptr` in wasm memory (short ASCII without TextDecoder). */
function readString(ptr, len) {
  const m = memory();
  if (len <= 64) {
    let s = "";
    for (let i = ptr; i < ptr + len; i++) {
      const b = m[i];
      if (b >= 0x80) return utf8Out.decode(m.subarray(ptr, ptr + len));
      s += String.fromCharCode(b);
    }
    return s;
  }
  return utf8Out.decode(m.subarray(ptr, ptr + len));
}

/**
 * A streaming parser: `push(chunk)` / `finish()` return arrays of events. Free it when done.
 * `push` writes the chunk's UTF-8 into an input buffer in wasm memory (ASCII without
 * TextEncoder) and reads the result only when there are events (numbers in the README).
 */
export class ToolCallParser {
  #wasm;
  #finished = false;
  /** The wasm input buffer: its address and size (0: none yet). */
  #input = 0;
  #inputSize = 0;

  constructor(options) {
    this.#wasm = new WasmParser(optionsJson(options));
  }

  /** The resolved parser id (useful with `parser: "auto"`). */
  get parser() {
    return this.#live().parser;
  }

  /** Feeds a text chunk; returns the events it completes. */
  push(chunk) {
    if (typeof chunk !== "string") {
      throw new TypeError(`ToolCallParser.push: expected a string chunk (pushBytes takes a Uint8Array), got ${describe(chunk)}`);
    }
    const wasm = this.#open("push");
    const n = chunk.length;
    // A UTF-16 unit is at most 3 bytes of UTF-8.
    if (n * 3 > this.#inputSize) {
      this.#inputSize = Math.max(n * 3, 256);
      this.#input = wasm.inputBuffer(this.#inputSize);
    }
    const at = this.#input;
    let m = memory();
    let len = 0;
    while (len < n) {
      const c = chunk.charCodeAt(len);
      if (c >= 0x80) break;
      m[at + len++] = c;
    }
    if (len < n) len += utf8In.encodeInto(chunk.slice(len), m.subarray(at + len, at + this.#inputSize)).written;
    const out = wasm.pushInput(len);
    return out === 0 ? [] : events(readString(wasm.outputPtr(), out));
  }

  /** Feeds UTF-8 bytes (a code point may be split across chunks). */
  pushBytes(bytes) {
    if (!(bytes instanceof Uint8Array)) {
      throw new TypeError(`ToolCallParser.pushBytes: expected a Uint8Array (push takes a string), got ${describe(bytes)}`);
    }
    return events(this.#open("pushBytes").pushBytes(bytes));
  }

  /** Ends the input: flushes held text, ends an open call (reporting truncation). Once only. */
  finish() {
    const wasm = this.#open("finish");
    this.#finished = true;
    return events(wasm.finish());
  }

  /** Releases the wasm memory; the parser cannot be used afterwards. Safe to call twice. */
  free() {
    this.#wasm?.free();
    this.#wasm = undefined;
  }

  #live() {
    if (!this.#wasm) throw new Error("this ToolCallParser was freed");
    return this.#wasm;
  }

  /** The wasm parser, when it still takes input. */
  #open(method) {
    const wasm = this.#live();
    if (this.#finished) throw new Error(`ToolCallParser.${method}: this parser is finished (finish() was called); create a new one for the next text`);
    return wasm;
  }
}
if (typeof Symbol.dispose === "symbol") ToolCallParser.prototype[Symbol.dispose] = ToolCallParser.prototype.free;
