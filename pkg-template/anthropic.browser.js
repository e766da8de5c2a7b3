// toolwire/anthropic for browsers: `await init()` once (idempotent) before building a stream or
// translating a response.
export { default, init } from "./index.browser.js";
export * from "./anthropic.js";
