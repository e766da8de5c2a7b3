// toolwire/anthropic for workerd (Cloudflare Workers): the wasm is a static import, instantiated
// at import by the workerd entry.
export { default, init } from "./index.workerd.js";
export * from "./anthropic.js";
