// What a paste is (no DOM, no package: also run in Node by tests/www/units.test.mjs):
//   {kind: "sse", sse, blocks, ignored, model}  a captured chat.completion.chunk stream
//                                               (`data: {...}` lines from vLLM, llama.cpp, a proxy)
//   {kind: "completion", body, model}           a non-streaming chat.completion (or text_completion) body
//   {kind: "profile", profile}                  a `toolwire probe` capability profile
//   {kind: "text"}                              anything else: raw model output
// Raw model output that is itself JSON (a bare `{"name": …, "arguments": …}` call) stays text:
// a body needs `choices`, a profile `probeVersion` and `probes`.

/** Classifies a paste. */
export function recognize(text) {
  const trimmed = text.trim();
  if (!trimmed) return { kind: "text" };
  if (trimmed.startsWith("{")) {
    let value;
    try {
      value = JSON.parse(trimmed);
    } catch {
      value = undefined;
    }
    if (isProfile(value)) return { kind: "profile", profile: value };
    if (isCompletion(value)) return { kind: "completion", body: value, model: typeof value.model === "string" ? value.model : "" };
  }
  return sse(text) ?? { kind: "text" };
}

function isProfile(v) {
  return !!v && typeof v === "object" && typeof v.probeVersion === "number" && !!v.probes && typeof v.probes === "object" && !Array.isArray(v.probes);
}

function isCompletion(v) {
  return !!v && typeof v === "object" && Array.isArray(v.choices) && v.choices.length > 0 &&
    v.choices.every((c) => c && typeof c === "object" && ((c.message && typeof c.message === "object") || typeof c.text === "string"));
}

/** A chunk event's JSON: an object with a `choices` array (usage chunks have an empty one). */
function chunkJson(payload) {
  try {
    const v = JSON.parse(payload);
    return v && typeof v === "object" && Array.isArray(v.choices) ? v : null;
  } catch {
    return null;
  }
}

/**
 * An SSE capture, re-framed: every `data:` line is one event (captures often lose the blank
 * lines between events), with the `event:`/`id:` lines before it; comments are kept; anything
 * else (HTTP headers of `curl -i`, a shell prompt) is left out and counted.
 */
function sse(text) {
  const lines = text.split(/\r\n|\r|\n/);
  const blocks = [];
  let fields = [];
  let ignored = 0;
  let chunks = 0;
  let model = "";
  for (const line of lines) {
    if (line.trim() === "") continue;
    if (/^data:/.test(line)) {
      const payload = line.slice(5).replace(/^ /, "");
      const json = payload === "[DONE]" ? null : chunkJson(payload);
      if (json) {
        chunks++;
        if (!model && typeof json.model === "string") model = json.model;
      }
      blocks.push({ text: [...fields, line].join("\n") + "\n\n", data: payload, json, done: payload === "[DONE]" });
      fields = [];
    } else if (/^(event|id|retry):/.test(line)) {
      fields.push(line);
    } else if (line.startsWith(":")) {
      blocks.push({ text: `${line}\n\n`, comment: line.slice(1).trim() });
    } else {
      ignored++;
    }
  }
  if (!chunks) return null;
  return { kind: "sse", sse: blocks.map((b) => b.text).join(""), blocks, ignored, model };
}
