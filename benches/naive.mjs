// The naive baseline for the side-by-side bench: accumulate the text and re-parse all of it on
// every chunk (what a quick streaming integration does), emitting only what is new: content
// not inside a call or a possibly partial marker, and calls once complete. Work is quadratic
// in the stream length. Returns the number of calls.

const complete = (re, buf, onCall) => {
  let text = "";
  let last = 0;
  let calls = 0;
  re.lastIndex = 0;
  for (let m; (m = re.exec(buf)); ) {
    text += buf.slice(last, m.index);
    last = re.lastIndex;
    if (onCall(m)) calls++;
  }
  // An open call or a partial marker at the end is not text yet.
  let rest = buf.slice(last);
  const open = rest.indexOf("<tool_call>");
  if (open >= 0) rest = rest.slice(0, open);
  for (let k = Math.min(rest.length, 10); k > 0; k--) {
    if ("<tool_call>".startsWith(rest.slice(-k))) {
      rest = rest.slice(0, -k);
      break;
    }
  }
  return { text: text + rest, calls };
};

function run(chunks, re, onCall) {
  let buf = "";
  let emittedText = 0;
  let emittedCalls = 0;
  const out = [];
  for (const c of chunks) {
    buf += c;
    const { text, calls } = complete(re, buf, onCall);
    if (text.length > emittedText) out.push(text.slice(emittedText));
    emittedText = text.length;
    emittedCalls = calls;
  }
  return emittedCalls;
}

/** Hermes: `<tool_call>{"name", "arguments"}</tool_call>`. */
export function naiveHermes(chunks) {
  return run(chunks, /<tool_call>([\s\S]*?)<\/tool_call>/g, (m) => {
    try {
      const v = JSON.parse(m[1]);
      return typeof v.name === "string";
    } catch {
      return false;
    }
  });
}

/** Qwen3-Coder: `<tool_call><function=NAME><parameter=K>V</parameter>…</function></tool_call>`, values typed by the tools. */
export function naiveQwen3Coder(chunks, tools) {
  const schemas = new Map(tools.map((t) => [t.function.name, t.function.parameters?.properties ?? {}]));
  return run(chunks, /<tool_call>\s*<function=([^>]+)>([\s\S]*?)<\/function>\s*<\/tool_call>/g, (m) => {
    const props = schemas.get(m[1].trim()) ?? {};
    const args = {};
    for (const p of m[2].matchAll(/<parameter=([^>]+)>\n?([\s\S]*?)\n?<\/parameter>/g)) {
      const type = props[p[1]]?.type;
      args[p[1]] = type === "integer" || type === "number" ? Number(p[2]) : type === "boolean" ? p[2] === "true" : p[2];
    }
    JSON.stringify(args);
    return true;
  });
}
