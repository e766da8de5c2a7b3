// The playground's state in the URL fragment, so a link reproduces what one sees.
//   #j=<base64url JSON>            short states
//   #z=<base64url deflate-raw JSON> when compression makes it shorter (CompressionStream)
// Only fields that differ from DEFAULTS are written.

export const DEFAULTS = { text: "", model: "", reasoning: "", tools: "", family: "", filter: "all", chunk: 1, speed: "100", wire: "", choice: 0 };

const enc = new TextEncoder();
const dec = new TextDecoder();

function toB64url(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromB64url(text) {
  const s = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return bytes;
}

async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/** The fragment (with `#`) for a state; "" for the default state. */
export async function encodeState(state) {
  const diff = {};
  for (const [k, v] of Object.entries(DEFAULTS)) if (state[k] !== undefined && state[k] !== v) diff[k] = state[k];
  if (!Object.keys(diff).length) return "";
  const bytes = enc.encode(JSON.stringify(diff));
  let best = "#j=" + toB64url(bytes);
  if (typeof CompressionStream === "function" && bytes.length > 200) {
    try {
      const z = "#z=" + toB64url(await pipe(bytes, new CompressionStream("deflate-raw")));
      if (z.length < best.length) best = z;
    } catch {
      // keep the uncompressed form
    }
  }
  return best;
}

/** The state in a fragment: {state} or {error} (a broken or unsupported link). */
export async function decodeState(hash) {
  const m = /^#?([jz])=([A-Za-z0-9_-]*)$/.exec(hash);
  if (!m) return { state: { ...DEFAULTS } };
  try {
    let bytes = fromB64url(m[2]);
    if (m[1] === "z") {
      if (typeof DecompressionStream !== "function") return { state: { ...DEFAULTS }, error: "this link is compressed and this browser cannot decompress it" };
      bytes = await pipe(bytes, new DecompressionStream("deflate-raw"));
    }
    const data = JSON.parse(dec.decode(bytes));
    const state = { ...DEFAULTS };
    for (const k of Object.keys(DEFAULTS)) if (typeof data[k] === typeof DEFAULTS[k]) state[k] = data[k];
    return { state };
  } catch {
    return { state: { ...DEFAULTS }, error: "this link is damaged (the state in it cannot be read)" };
  }
}
