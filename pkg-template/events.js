// The one decoder of the events a push/finish returns across the wasm boundary (src/wasm.rs
// `drain`). No imports: api.js uses it, and tests/wasm.rs imports this file to read the same
// strings, so the encoding is decoded in exactly one place.

/**
 * Events as `push`/`finish` return them. A `tool-call-end` event carries `kept` (false: `parse()`
 * leaves the call out, and its `text` is the call's markup, content at its place); merging
 * events by that rule gives `parse()`'s result.
 *
 * `""`: no event; `t…`: one text event; `r…`: one reasoning event; `dN:…`: one arguments delta
 * of call N; `[…`: a JSON array of events, then the arguments of each `tool-call-end` in it,
 * each after a NUL, as they are (no JSON string escaping for what may be a whole file). The
 * short forms skip JSON for the batches most pushes give (measured in benches/run.mjs).
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
    case 91: { // [
      // Each tool-call-end's arguments follow the array, each after a NUL (in the array:
      // `"arguments":""`); JSON text holds no raw NUL.
      const cut = s.indexOf("\0");
      if (cut < 0) return JSON.parse(s);
      const list = JSON.parse(s.slice(0, cut));
      const args = s.slice(cut + 1).split("\0");
      let k = 0;
      for (const e of list) if (e.type === "tool-call-end") e.arguments = args[k++];
      return list;
    }
    default:
      if (s.length === 0) return [];
      throw new Error(`toolwire: unknown event encoding ${JSON.stringify(s.slice(0, 20))}`);
  }
}
