import type { LanguageModelV3Middleware, LanguageModelV4Middleware } from "@ai-sdk/provider";
import type { Diagnostic, ParserOptions } from "./index.js";

export type { Diagnostic, DiagnosticLabel, ParserOptions } from "./index.js";

/** Loads the wasm. The middleware does it itself in browsers; a resolved no-op in Node and workerd. Idempotent. */
export default function init(input?: string | URL | Request | Response | BufferSource | WebAssembly.Module): Promise<void>;
export { init };

/** A parser diagnostic, with the call's AI SDK id and tool name when it is about a call. */
export interface MiddlewareDiagnostic extends Diagnostic {
  toolCallId?: string;
  toolName?: string;
}

/**
 * The options of `ToolCallParser` (the parser id or `"auto"`, `reasoning`, `thinking`, the
 * policy switches, `idPrefix`, `limits`, ...) plus the middleware's own. `tools` are not an
 * option: each call's tools (`params.tools`) are used. `model` defaults to the wrapped model's
 * id (for `parser: "auto"`). `idPrefix` defaults to a fresh random prefix per model call, so
 * ids stay unique across the steps of a run.
 *
 * A call whose arguments the parser had to close (cut off, malformed) and that `parse()` leaves
 * out (its end event says `kept: false`: the family's default, unless `recover`,
 * `recoverTruncated` (cut-off calls) or `policy: "lenient"` keeps it) reaches the SDK as an
 * invalid tool call, with its arguments as the model wrote them as `input`.
 */
export interface ToolwireMiddlewareOptions extends Omit<ParserOptions, "tools"> {
  /** Called with each diagnostic as the model's output is read (synchronously). */
  onDiagnostic?: (diagnostic: MiddlewareDiagnostic) => void;
  /**
   * For models with no native tool support: render the call's function tools and the family's
   * call format into the system prompt, turn earlier calls and results into text, and send no
   * `tools` to the model. Default `false`. Formats exist for the parsers in `promptFormats`.
   */
  promptTools?: boolean;
}

/**
 * An AI SDK 7 middleware (`LanguageModelV4Middleware`) for `wrapLanguageModel({model, middleware})`:
 * text parts of the model become text, reasoning and tool-call parts. Throws (in Node and
 * workerd) on unknown options values, e.g. an unknown parser id.
 */
export function toolwireMiddleware(options?: ToolwireMiddlewareOptions | string): LanguageModelV4Middleware;

/** The same middleware for AI SDK 6 (`LanguageModelV3Middleware`). */
export function toolwireMiddlewareV3(options?: ToolwireMiddlewareOptions | string): LanguageModelV3Middleware;

/** The parser ids `promptTools` can write a call format for. */
export const promptFormats: readonly string[];

/** Writes calls in a family's format, as `promptTools` shows them to the model. Throws for a parser without a format. */
export function formatToolCalls(parser: string, calls: Array<{ name: string; args: Record<string, unknown> }>): string;
