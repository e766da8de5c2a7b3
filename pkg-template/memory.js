// Views of the wasm memory for the package's fast paths (internal, not an entry): api.js and
// stream.js read results and the core's quiet-run hints through them.
import { wasmMemory } from "./dist/toolwire.js";

let bytes = new Uint8Array(0);
let words = new Uint32Array(0);

/** A byte view of the wasm memory, renewed when the memory grows (which detaches the old buffer). */
export function memoryBytes() {
  if (bytes.byteLength === 0) bytes = new Uint8Array(wasmMemory().buffer);
  return bytes;
}

/** A u32 view of the wasm memory, renewed the same way. */
export function memoryWords() {
  if (words.byteLength === 0) words = new Uint32Array(wasmMemory().buffer);
  return words;
}

/** Copies a quiet-run stop set (four u32 words, bit `b` for ASCII byte `b`) at `words[at]` into `stop`. */
export function readStopSet(words, at, stop) {
  stop[0] = words[at];
  stop[1] = words[at + 1];
  stop[2] = words[at + 2];
  stop[3] = words[at + 3];
}
