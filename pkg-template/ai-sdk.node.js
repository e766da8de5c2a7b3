// toolwire/ai-sdk for Node: the wasm is instantiated at import by the node entry,
// so bad options throw when the middleware is made.
import { init } from "./index.node.js";
import { createMiddleware } from "./ai-sdk.js";

const env = { ready: init, eager: true };

/** An AI SDK 7 middleware (`LanguageModelV4Middleware`) that parses tool calls out of model text. */
export function toolwireMiddleware(options) {
  return createMiddleware("v4", options, env);
}

/** The same for AI SDK 6 (`LanguageModelV3Middleware`). */
export function toolwireMiddlewareV3(options) {
  return createMiddleware("v3", options, env);
}

export { formatToolCalls, promptFormats } from "./ai-sdk.js";
export { default, init } from "./index.node.js";
