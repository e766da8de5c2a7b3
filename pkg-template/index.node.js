// Node entry: reads the wasm next to this file and instantiates it synchronously at import,
// so the API is ready on import (and `require("toolwire")` works through require(esm)).
import { readFileSync } from "node:fs";
import { initSync } from "./dist/toolwire.js";

initSync({ module: readFileSync(new URL("./dist/toolwire_bg.wasm", import.meta.url)) });

export * from "./api.js";

/** Ready on import; kept for symmetry with the browser entry. */
export default function init() {
  return Promise.resolve();
}
export { init };
