// Browser entry: `await init()` once (idempotent) before using the API. By default the wasm
// is fetched from next to this file; pass a URL, Response, bytes or WebAssembly.Module instead.
import initWasm from "./dist/toolwire.js";

export * from "./api.js";

let ready;

/** Loads the wasm. Safe to call many times; later calls return the first promise. */
export default function init(input) {
  ready ??= initWasm(input === undefined ? undefined : { module_or_path: input }).then(() => undefined);
  return ready;
}
export { init };
