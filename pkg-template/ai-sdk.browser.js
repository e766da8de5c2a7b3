// toolwire/ai-sdk for browsers: the middleware awaits `init()` (idempotent) before its first
// parser, so it works without a separate `await init()`; options are checked at the first call.
import { init } from "./index.browser.js";
import { createMiddleware } from "./ai-sdk.js";

const env = { ready: () => init(), eager: false };

/** An AI SDK 7 middleware (`LanguageModelV4Middleware`) that parses tool calls out of model text. */
export function toolwireMiddleware(options) {
  return createMiddleware("v4", options, env);
}

/** The same for AI SDK 6 (`LanguageModelV3Middleware`). */
export function toolwireMiddlewareV3(options) {
  return createMiddleware("v3", options, env);
}

export { formatToolCalls, promptFormats } from "./ai-sdk.js";
export { default, init } from "./index.browser.js";
