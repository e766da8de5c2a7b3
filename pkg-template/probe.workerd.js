// toolwire/probe for workerd (Cloudflare Workers): the wasm is a static import, instantiated
// at import by the workerd entry.
export { default, init } from "./index.workerd.js";
export * from "./probe.js";
