// What the SSE rewrite makes of a captured stream or a completion body (no DOM: also run in
// Node by tests/www/units.test.mjs). `stream` is the package's toolwire/stream module.
//
// A stream is fed to an SseRewriter one upstream event at a time, so every rewritten event is
// tied to the upstream event after which it came out. Per choice, each row pairs what came in
// (the choice's delta in that event) with what went out for it.

/** One chunk choice as parts: role, content, reasoning, call starts and arguments, finish. */
export function parts(choice) {
  const out = [];
  const delta = choice?.delta && typeof choice.delta === "object" ? choice.delta : choice ?? {};
  if (typeof delta.role === "string") out.push({ kind: "role", text: delta.role });
  const reasoning = typeof delta.reasoning_content === "string" ? delta.reasoning_content : typeof delta.reasoning === "string" ? delta.reasoning : "";
  if (reasoning) out.push({ kind: "reasoning", text: reasoning });
  const content = typeof delta.content === "string" ? delta.content : typeof choice?.text === "string" ? choice.text : "";
  if (content) out.push({ kind: "content", text: content });
  for (const tc of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
    if (tc?.function?.name) out.push({ kind: "call", index: tc.index, id: tc.id ?? "", text: tc.function.name });
    if (typeof tc?.function?.arguments === "string" && tc.function.arguments) out.push({ kind: "args", index: tc.index, text: tc.function.arguments });
  }
  if (choice?.finish_reason != null) out.push({ kind: "finish", text: String(choice.finish_reason) });
  return out;
}

/** Splits SSE text into events `{data, json, done, comment}`; `rest` is an unfinished tail. */
function events(text) {
  const out = [];
  const blocks = text.replace(/\r\n?/g, "\n").split("\n\n");
  const rest = blocks.pop();
  for (const block of blocks) {
    const data = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) out.push({ comment: line.slice(1).trim() });
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (!data.length) continue;
    const payload = data.join("\n");
    let json = null;
    try {
      json = payload === "[DONE]" ? null : JSON.parse(payload);
    } catch {
      json = null;
    }
    out.push({ data: payload, json, done: payload === "[DONE]" });
  }
  return { events: out, rest };
}

/** Per-choice state: what the parts add up to. */
function merge(into, ps) {
  for (const p of ps) {
    if (p.kind === "content") into.content += p.text;
    else if (p.kind === "reasoning") into.reasoning += p.text;
    else if (p.kind === "call") into.calls.push({ index: p.index, id: p.id, name: p.text, arguments: "" });
    else if (p.kind === "args") {
      const call = into.calls.find((c) => c.index === p.index) ?? into.calls.at(-1);
      if (call) call.arguments += p.text;
    } else if (p.kind === "finish") into.finish = p.text;
  }
}

const blank = () => ({ content: "", reasoning: "", calls: [], finish: null });

/**
 * A capture (recognize.js `blocks`) through the SSE rewrite with `options`:
 * `{choices: [{index, rows, upstream, rewritten}], shared, diagnostics, output, error?}`.
 * A row is `{n, upstream: parts, rewritten: parts, diagnostics}`; `n` is the upstream event's
 * number (1-based; "end" for what finish() gave). `shared` lists events that are no choice's
 * ([DONE], usage chunks, comments).
 */
export function analyseStream(stream, blocks, options) {
  const byChoice = new Map();
  const choice = (i) => {
    if (!byChoice.has(i)) byChoice.set(i, { index: i, rows: new Map(), upstream: blank(), rewritten: blank() });
    return byChoice.get(i);
  };
  const row = (c, n) => {
    if (!c.rows.has(n)) c.rows.set(n, { n, upstream: [], rewritten: [], diagnostics: [] });
    return c.rows.get(n);
  };
  const shared = [];
  const diagnostics = [];
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  let output = "";
  let pending = "";
  let rw;
  const take = (n, bytes) => {
    const text = dec.decode(bytes, { stream: n !== "end" });
    output += text;
    const split = events(pending + text + (n === "end" ? "\n\n" : ""));
    pending = split.rest;
    for (const e of split.events) {
      if (e.comment !== undefined) continue;
      const list = Array.isArray(e.json?.choices) ? e.json.choices : [];
      for (const ch of list) {
        const c = choice(ch.index ?? 0);
        const ps = parts(ch);
        merge(c.rewritten, ps);
        row(c, n).rewritten.push(...ps);
      }
    }
    for (const d of rw.takeDiagnostics()) {
      diagnostics.push({ ...d, n });
      const c = choice(d.choice ?? 0);
      row(c, n).diagnostics.push(d);
    }
  };
  try {
    rw = new stream.SseRewriter({ ...options, comments: false });
  } catch (e) {
    return { choices: [], shared, diagnostics, output, error: String(e.message ?? e) };
  }
  try {
    blocks.forEach((b, i) => {
      const n = i + 1;
      if (b.comment !== undefined) shared.push({ n, kind: "comment", text: b.comment });
      else if (b.done) shared.push({ n, kind: "done", text: "[DONE]" });
      else if (!b.json) shared.push({ n, kind: "bad", text: b.data });
      else if (!b.json.choices.length) shared.push({ n, kind: b.json.usage ? "usage" : "empty", text: b.data });
      for (const ch of b.json?.choices ?? []) {
        const c = choice(ch.index ?? 0);
        const ps = parts(ch);
        merge(c.upstream, ps);
        row(c, n).upstream.push(...ps);
      }
      take(n, rw.push(enc.encode(b.text)));
    });
    take("end", rw.finish());
  } catch (e) {
    return { choices: [], shared, diagnostics, output, error: String(e.message ?? e) };
  } finally {
    rw.free();
  }
  const choices = [...byChoice.values()].sort((a, b) => a.index - b.index).map((c) => ({
    ...c,
    rows: [...c.rows.values()].filter((r) => r.upstream.length || r.rewritten.length || r.diagnostics.length),
  }));
  return { choices, shared, diagnostics, output };
}

/** A completion body through rewriteChatCompletion: `{choices: [{index, upstream, rewritten}], diagnostics, error?}`. */
export function analyseBody(stream, body, options) {
  const diagnostics = [];
  let fixed;
  try {
    fixed = stream.rewriteChatCompletion(body, { ...options, onDiagnostic: (d) => diagnostics.push(d) });
  } catch (e) {
    return { choices: [], diagnostics, error: String(e.message ?? e) };
  }
  const message = (ch) => {
    const m = ch?.message ?? {};
    const out = blank();
    out.content = typeof m.content === "string" ? m.content : typeof ch?.text === "string" ? ch.text : "";
    out.reasoning = typeof m.reasoning_content === "string" ? m.reasoning_content : typeof m.reasoning === "string" ? m.reasoning : "";
    const calls = Array.isArray(m.tool_calls) ? m.tool_calls : Array.isArray(ch?.tool_calls) ? ch.tool_calls : [];
    out.calls = calls.map((c, i) => ({ index: i, id: c.id ?? "", name: c.function?.name ?? "", arguments: c.function?.arguments ?? "" }));
    out.finish = ch?.finish_reason ?? null;
    return out;
  };
  const choices = body.choices.map((ch, i) => ({ index: ch.index ?? i, upstream: message(ch), rewritten: message(fixed.choices?.[i]) }));
  return { choices, diagnostics };
}

/**
 * What the upstream sent per choice, joined (before any rewrite): `[{index, content, reasoning,
 * calls, finish}]`. The content is the raw text the family table reads.
 */
export function upstreamChoices(recognized) {
  const byChoice = new Map();
  const add = (i, ps) => {
    if (!byChoice.has(i)) byChoice.set(i, { index: i, ...blank() });
    merge(byChoice.get(i), ps);
  };
  if (recognized.kind === "sse") {
    for (const b of recognized.blocks) for (const ch of b.json?.choices ?? []) add(ch.index ?? 0, parts(ch));
  } else if (recognized.kind === "completion") {
    recognized.body.choices.forEach((ch, i) => {
      const m = ch.message ?? {};
      add(ch.index ?? i, parts({ delta: { ...m, tool_calls: (m.tool_calls ?? []).map((c, k) => ({ ...c, index: k })) }, text: ch.text, finish_reason: ch.finish_reason }));
    });
  }
  return [...byChoice.values()].sort((a, b) => a.index - b.index);
}
