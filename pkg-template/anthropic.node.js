// toolwire/anthropic for Node: the wasm is instantiated at import by the node entry.
export { default, init } from "./index.node.js";
export * from "./anthropic.js";
