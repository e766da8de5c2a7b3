// workerd (Cloudflare Workers) entry: the wasm is a static import (compiled by the runtime,
// no fetch, no compile from bytes) and instantiated synchronously at import.
import wasm from "./dist/toolwire_bg.wasm";
import { initSync } from "./dist/toolwire.js";

initSync({ module: wasm });

export * from "./api.js";

/** Ready on import; kept for symmetry with the browser entry. */
export default function init() {
  return Promise.resolve();
}
export { init };
