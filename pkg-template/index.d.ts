/** An OpenAI tool definition (only `function.name` and `function.parameters` are read). */
export interface ToolDefinition {
  type?: "function";
  function: { name: string; description?: string; parameters?: JsonSchema; strict?: boolean };
}

/** A JSON Schema object (the subset toolwire reads: types, properties, required, enum, anyOf/oneOf/allOf, items, $ref, ranges). */
export type JsonSchema = { [key: string]: unknown };

/**
 * Limits on what a parser buffers (contract invariant 6). Each one, when hit, gives a
 * `limit_exceeded` diagnostic and parsing goes on safely.
 */
export interface ParserLimits {
  /** Bytes of one call's arguments (default 8 MiB = 8388608). Over it the arguments are cut and closed (the call ends `repaired`). */
  maxArgsBytes?: number;
  /** Nesting depth of a call's arguments, the arguments object counting as the first level (default 127, also the most that takes effect: the deepest JSON serde_json reads back). Deeper JSON/pythonic/key-value arguments are closed at the limit (the rest is text); a typed XML value that would nest deeper is kept as a string; MiniMax-M3 elements nested deeper end the call. */
  maxDepth?: number;
  /** Bytes a possible call may stay undecided before it is released as text, or a typed value may wait for its close tag before it streams as a string (default 1 MiB = 1048576). */
  maxBufferBytes?: number;
  /** Bytes of a tool name or parameter key (default 512). A longer name's markup is text. */
  maxNameBytes?: number;
}

export interface ParserOptions {
  /** A parser id or alias from `parsers()` (vLLM `--tool-call-parser` names), or `"auto"` (detect from `model`). Default `"auto"`. */
  parser?: string;
  /** The model name; used by `parser: "auto"`. */
  model?: string;
  /** OpenAI tool definitions: arguments are coerced to the declared types and validated. */
  tools?: ToolDefinition[];
  /** A vLLM `--reasoning-parser` name (e.g. `"qwen3"`, `"deepseek_r1"`): reasoning comes out as `reasoning` events. */
  reasoning?: string;
  /**
   * Thinking on or off, as vLLM's `enable_thinking`/`thinking` (unset: the reasoning parser's
   * default). `false` starts the output in content for parsers that start in reasoning (`qwen3`,
   * `deepseek_r1`, `glm45`, ...; not `step3p5`, whose template always opens `<think>`); `true`
   * starts it in reasoning for those off by default (`deepseek_v3`, `deepseek_v41`).
   */
  thinking?: boolean;
  /** Prefix of generated call ids (default `"call_"`; ids are `${idPrefix}${index}`). */
  idPrefix?: string;
  /**
   * A preset for the four recovery options below (src/policy.rs): `"strict"` (only well-formed
   * calls count; malformed markup is dropped from content) or `"lenient"` (keep everything that
   * can be read as a call). Options given one by one override the preset.
   */
  policy?: "strict" | "lenient";
  /** Keep calls whose arguments the parser had to close (truncated or malformed) in `parse()` results. Default: per family (off for most). */
  recover?: boolean;
  /** Keep a final call cut off by the end of the output (`truncation`) in `parse()` results, even with `recover` off. Default: as `recover`. */
  recoverTruncated?: boolean;
  /** Markup that opened a call but is not one comes back as text, with a diagnostic (default `true`); `false` drops it (the diagnostic stays). */
  keepMalformed?: boolean;
  /** Also read bare `{"name": …, "arguments": …}` objects in prose, for families whose syntax has no bare start (default `false`). */
  bareJson?: boolean;
  /** The response template of the template-driven parsers `hf` and `beam` (ignored by the others). */
  template?: ResponseTemplate;
  limits?: ParserLimits;
}

/**
 * A wire format given at run time (vLLM's `response_template`). Marker keys take a string or an
 * array of strings. `payload`: `"json"` (default), `"json_array"`, or a parser id whose payload
 * reader reads each call (e.g. `"gemma4"`, `"mistral"`, `"openai"`); with a parser id, omitted
 * marker keys default to that parser's markers.
 */
export interface ResponseTemplate {
  tool_call_start?: string | string[];
  tool_call_end?: string | string[];
  tool_section_start?: string | string[];
  tool_section_end?: string | string[];
  payload?: string;
  reasoning_start?: string | string[];
  reasoning_end?: string | string[];
  /** The output starts inside reasoning. */
  reasoning_implicit?: boolean;
  /** Tokens dropped from the content. */
  ignore?: string | string[];
}

export type DiagnosticLabel =
  | "malformed_json"
  | "truncation"
  | "escaping_error"
  | "wrong_tool"
  | "hallucinated_param"
  | "missing_required"
  | "type_coercion"
  | "schema_violation"
  | "parallel_collapse"
  | "limit_exceeded";

/** Content for the user. Never contains a byte of tool-call markup. */
export interface TextEvent { type: "text"; text: string }
/** Reasoning text (with a reasoning parser, or formats that carry a reasoning channel). */
export interface ReasoningEvent { type: "reasoning"; text: string }
/** A call began; its name is known. `index` counts calls from 0 in this stream. */
export interface ToolCallStartEvent { type: "tool-call-start"; index: number; id: string; name: string }
/** The next fragment of the arguments JSON text (append-only; never re-sent). */
export interface ToolCallDeltaEvent { type: "tool-call-delta"; index: number; argumentsDelta: string }
/** The call is complete; `arguments` is the concatenation of its deltas: one JSON object. */
export interface ToolCallEndEvent {
  type: "tool-call-end";
  index: number;
  id: string;
  name: string;
  arguments: string;
  /** Present (true) when the parser had to close the arguments itself (truncation, malformed JSON, a limit). */
  repaired?: true;
  /**
   * Whether `parse()` lists this call: false only for a repaired call the recovery policy leaves
   * out (the family's default, `recover`, `recoverTruncated`, `policy`). The merge rule: a
   * consumer merging events keeps a call iff its end event says `kept` (else its `text` is
   * content at its place); the result then equals `parse()` for any chunking.
   */
  kept: boolean;
  /**
   * With `kept: false`: the call's markup exactly as written (from its opening marker), content
   * at the call's place, as `parse()` gives it (absent under `keepMalformed: false`).
   */
  text?: string;
}
/** Something was wrong; the parser continued. */
export interface DiagnosticEvent { type: "diagnostic"; label: DiagnosticLabel; message: string; index?: number }

export type ToolCallEvent =
  | TextEvent
  | ReasoningEvent
  | ToolCallStartEvent
  | ToolCallDeltaEvent
  | ToolCallEndEvent
  | DiagnosticEvent;

export interface ToolCall { id: string; name: string; /** JSON object text */ arguments: string }
export interface Diagnostic { label: DiagnosticLabel; message: string; index?: number }

export interface ParseResult {
  content: string | null;
  reasoning: string | null;
  toolCalls: ToolCall[];
  diagnostics: Diagnostic[];
}

export interface ParserInfo { id: string; aliases: string[]; models: string[]; description: string }

/** Loads the wasm. Needed once in browsers; a resolved no-op in Node and workerd. Idempotent. */
export default function init(input?: string | URL | Request | Response | BufferSource | WebAssembly.Module): Promise<void>;
export { init };

/**
 * Parses a whole text. Equals streaming it in one chunk and calling `finish()`. Throws an Error
 * on an unknown parser, a TypeError when `text` is not a string.
 */
export function parse(text: string, options?: ParserOptions | string): ParseResult;

/** Every parser family. */
export function parsers(): ParserInfo[];

export interface ReasoningParserInfo { id: string; aliases: string[]; description: string }

/** Every reasoning parser (vLLM `--reasoning-parser` names), for the `reasoning` option. */
export function reasoningParsers(): ReasoningParserInfo[];

/** The parser id for a model name (most specific match), or null when unknown. */
export function detectParser(model: string): string | null;

/** Which families' markers appear in a text, most specific first (e.g. `["hermes", "generic"]`). */
export function sniffParser(text: string): string[];

/** One family's reading of a text. */
export interface Classification extends ParseResult {
  parser: string;
  /** `"calls"` (with `count`), `"no_call"`, or the diagnostic label that explains why no call came out. */
  verdict: "calls" | "no_call" | DiagnosticLabel;
  count?: number;
}

/** Every family's reading of one text (the playground's table). Options as for `parse`, minus `parser`. */
export function classify(text: string, options?: Omit<ParserOptions, "parser" | "model">): Classification[];

/** A streaming parser. Free it with `free()` (or `Symbol.dispose`) when done. */
export class ToolCallParser {
  /** Throws an Error listing the valid parser ids when `options.parser` is unknown, and one
   * naming the valid keys for an unknown option key. */
  constructor(options?: ParserOptions | string);
  /** The resolved parser id. */
  readonly parser: string;
  /** Feeds a text chunk of any size; returns the events it completes. A TypeError for anything but a string; an Error after `finish()`. */
  push(chunk: string): ToolCallEvent[];
  /** Feeds UTF-8 bytes; a code point split across chunks is joined. A TypeError for anything but a Uint8Array; an Error after `finish()`. */
  pushBytes(bytes: Uint8Array): ToolCallEvent[];
  /** Ends the input: flushes held text, ends an open call (reporting truncation). Once: a second call throws. */
  finish(): ToolCallEvent[];
  /**
   * Releases the parser: its wasm memory goes back to the module, or to a small pool (at most
   * four) that the next `new ToolCallParser` takes from, rebuilt as new. The parser cannot be
   * used afterwards; a second call does nothing. A program that builds a parser per reply and
   * frees it when done does not pay for its buffers again.
   */
  free(): void;
  [Symbol.dispose](): void;
}
