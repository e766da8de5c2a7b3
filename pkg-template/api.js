// The API shared by every entry. The wasm must be instantiated before these are called (the
// node and workerd entries do it at import; the browser entry through `init()`).
import {
  parse as wasmParse,
  parsers as wasmParsers,
  detectParser as wasmDetectParser,
  sniffParser as wasmSniffParser,
  classify as wasmClassify,
  ToolCallParser,
} from "./dist/toolwire.js";

export { ToolCallParser };

/** Parses a whole text: `{content, reasoning, toolCalls, diagnostics}`. */
export function parse(text, options) {
  return wasmParse(String(text), options);
}

/** Every parser family: `[{id, aliases, models, description}]`. */
export function parsers() {
  return wasmParsers();
}

/** The parser id for a model name, or null when unknown. */
export function detectParser(model) {
  return wasmDetectParser(String(model ?? "")) ?? null;
}

/** Which families' markers appear in a text, most specific first. */
export function sniffParser(text) {
  return wasmSniffParser(String(text));
}

/** Every family's reading of one text: `[{parser, verdict, count?, content, reasoning, toolCalls, diagnostics}]`. */
export function classify(text, options) {
  return wasmClassify(String(text), options ?? {});
}
