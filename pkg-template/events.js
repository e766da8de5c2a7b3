// The one decoder of the events a push/finish returns across the wasm boundary (src/wasm.rs
// `drain`). No imports: api.js uses it, and tests/wasm.rs imports this file to read the same
// strings, so the encoding is decoded in exactly one place.

/** The numbers of the record being read (`decodeEvents`). */
const numbers = new Float64Array(8);

/**
 * Events as `push`/`finish` return them. A `tool-call-end` event carries `kept` (false: `parse()`
 * leaves the call out, and its `text` is the call's markup, content at its place); merging
 * events by that rule gives `parse()`'s result.
 *
 * `""`: no event; `t…`: one text event; `r…`: one reasoning event; `dN:…`: one arguments delta
 * of call N (most pushes give one of these); `*…`: a record per event, each a tag, decimal
 * numbers separated by `,` and ended by `:` (the event's numbers, then the UTF-16 lengths of
 * its strings), then the strings as they are: `t`/`r` text; `s` index: id, name; `d` index:
 * delta; `e` index, flags (1 repaired, 2 kept): id, name, arguments, text; `g` index + 1 or 0:
 * label, message. No JSON: nothing escaped in the wasm or parsed here for what may be a whole
 * file (measured in benches/run.mjs).
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
    case 42: { // *
      const list = [];
      const f = numbers;
      let at = 1;
      while (at < s.length) {
        const tag = s.charCodeAt(at++);
        for (let k = 0, v = 0; ; ) {
          const c = s.charCodeAt(at++);
          if (c >= 48 && c <= 57) {
            v = v * 10 + c - 48;
            continue;
          }
          f[k++] = v;
          v = 0;
          if (c !== 44) break;
        }
        switch (tag) {
          case 116:
            list.push({ type: "text", text: s.slice(at, (at += f[0])) });
            break;
          case 114:
            list.push({ type: "reasoning", text: s.slice(at, (at += f[0])) });
            break;
          case 115:
            list.push({ type: "tool-call-start", index: f[0], id: s.slice(at, (at += f[1])), name: s.slice(at, (at += f[2])) });
            break;
          case 100:
            list.push({ type: "tool-call-delta", index: f[0], argumentsDelta: s.slice(at, (at += f[1])) });
            break;
          case 101: {
            const e = { type: "tool-call-end", index: f[0], id: s.slice(at, (at += f[2])), name: s.slice(at, (at += f[3])), arguments: s.slice(at, (at += f[4])) };
            if ((f[1] & 1) !== 0) e.repaired = true;
            e.kept = (f[1] & 2) !== 0;
            if (f[5] !== 0) e.text = s.slice(at, (at += f[5]));
            list.push(e);
            break;
          }
          case 103: {
            const e = { type: "diagnostic", label: s.slice(at, (at += f[1])), message: s.slice(at, (at += f[2])) };
            if (f[0] !== 0) e.index = f[0] - 1;
            list.push(e);
            break;
          }
          default:
            throw new Error(`toolwire: unknown event record ${JSON.stringify(s.slice(at - 1, at + 20))}`);
        }
      }
      return list;
    }
    default:
      if (s.length === 0) return [];
      throw new Error(`toolwire: unknown event encoding ${JSON.stringify(s.slice(0, 20))}`);
  }
}
