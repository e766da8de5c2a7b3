// toolwire/stream for browsers: `await init()` once (idempotent) before building a stream.
export { default, init } from "./index.browser.js";
export * from "./stream.js";
