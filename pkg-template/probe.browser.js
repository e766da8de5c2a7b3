// toolwire/probe for browsers: `await init()` once (idempotent) before probing. The endpoint
// must allow the page's origin (CORS).
export { default, init } from "./index.browser.js";
export * from "./probe.js";
