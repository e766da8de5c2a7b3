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
} from "./dist/toolwire.js";
import * as meta from "./meta.js";

/** Options as JSON text: an options object, or a parser name. */
export function optionsJson(options) {
  return JSON.stringify(typeof options === "string" ? { parser: options } : (options ?? {}));
}

/** Parses a whole text: `{content, reasoning, toolCalls, diagnostics}`. */
export function parse(text, options) {
  return JSON.parse(wasmParse(String(text), optionsJson(options)));
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
export function sniffParser(text) {
  return JSON.parse(wasmSniffParser(String(text)));
}

/** Every family's reading of one text: `[{parser, verdict, count?, content, reasoning, toolCalls, diagnostics}]`. */
export function classify(text, options) {
  return JSON.parse(wasmClassify(String(text), optionsJson(options)));
}

/**
 * Reads the events of one push (src/wasm.rs `drain`): `""` none, `t…` one text, `r…` one
 * reasoning, `dN:…` one arguments delta of call N, else a JSON array. The short forms skip
 * JSON for the batches most pushes give (measured in benches/run.mjs).
 */
function events(s) {
  switch (s.charCodeAt(0)) {
    case 116: // t
      return [{ type: "text", text: s.slice(1) }];
    case 114: // r
      return [{ type: "reasoning", text: s.slice(1) }];
    case 100: { // d
      const colon = s.indexOf(":");
      return [{ type: "tool-call-delta", index: Number(s.slice(1, colon)), argumentsDelta: s.slice(colon + 1) }];
    }
    case 91: // [
      return JSON.parse(s);
    default:
      return [];
  }
}

/** A streaming parser: `push(chunk)` / `finish()` return arrays of events. Free it when done. */
export class ToolCallParser {
  #wasm;

  constructor(options) {
    this.#wasm = new WasmParser(optionsJson(options));
  }

  /** The resolved parser id (useful with `parser: "auto"`). */
  get parser() {
    return this.#live().parser;
  }

  /** Feeds a text chunk; returns the events it completes. */
  push(chunk) {
    return events(this.#live().push(String(chunk)));
  }

  /** Feeds UTF-8 bytes (a code point may be split across chunks). */
  pushBytes(bytes) {
    return events(this.#live().pushBytes(bytes));
  }

  /** Ends the input: flushes held text, ends an open call (reporting truncation). */
  finish() {
    return events(this.#live().finish());
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
}
if (typeof Symbol.dispose === "symbol") ToolCallParser.prototype[Symbol.dispose] = ToolCallParser.prototype.free;
