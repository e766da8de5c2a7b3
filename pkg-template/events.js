// The one decoder of the events a push/finish returns across the wasm boundary (src/wasm.rs
// `drain`). No imports: api.js uses it, and tests/wasm.rs imports this file to read the same
// strings, so the encoding is decoded in exactly one place.

/**
 * Events as `push`/`finish` return them. A `tool-call-end` event carries `kept` (false: `parse()`
 * leaves the call out); merging events by that rule gives `parse()`'s result.
 *
 * `""`: no event; `t…`: one text event; `r…`: one reasoning event; `dN:…`: one arguments delta
 * of call N; `[…`: a JSON array of events. The short forms skip JSON for the batches most
 * pushes give (measured in benches/run.mjs).
 */
export function decodeEvents(s) {
  switch (s.charCodeAt(0)) {
    case 116: // t
      return [{ type: "text", text: s.slice(1) }];
    case 114: // r
      return [{ type: "reasoning", text: s.slice(1) }];
    case 100: { // d
      const colon = s.indexOf(":");
      return [{ type: "tool-call-delta", index: Number(s.slice(1, colon)), argumentsDelta: s.slice(colon + 1) }];
    }
    case 91: // [
      return JSON.parse(s);
    default:
      if (s.length === 0) return [];
      throw new Error(`toolwire: unknown event encoding ${JSON.stringify(s.slice(0, 20))}`);
  }
}
