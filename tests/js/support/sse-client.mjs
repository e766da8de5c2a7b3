// What an OpenAI client reads from an SSE stream, written from the spec separately from the
// package: events, comments, and per-choice reassembly of content, reasoning and tool calls
// (by `index`, checking the OpenAI delta shape).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

export const SSE_DIR = new URL("../../sse/", import.meta.url);
export const cases = JSON.parse(readFileSync(new URL("cases.json", SSE_DIR), "utf8"));
export const streamBytes = (file) => new Uint8Array(readFileSync(new URL(file, SSE_DIR)));

export function readEvents(bytes) {
  let text = new TextDecoder().decode(bytes).replaceAll("\r\n", "\n").replaceAll("\r", "\n");
  const events = [];
  const comments = [];
  let kind = null;
  let data = null;
  for (const line of text.split("\n")) {
    if (line === "") {
      if (data !== null) events.push({ kind, data });
      kind = null;
      data = null;
    } else if (line.startsWith(":")) {
      comments.push(line.slice(1));
    } else {
      const i = line.indexOf(":");
      const name = i < 0 ? line : line.slice(0, i);
      let value = i < 0 ? "" : line.slice(i + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (name === "data") data = data === null ? value : `${data}\n${value}`;
      else if (name === "event") kind = value;
    }
  }
  return { events, comments };
}

/** Reassembles a rewritten stream: `{choices: Map<index, {content, reasoning, calls, finish}>, diagnostics, done}`. */
export function reassemble(bytes) {
  const { events, comments } = readEvents(bytes);
  const out = { choices: new Map(), diagnostics: [], comments, events, done: false };
  for (const c of comments) if (c.startsWith(" toolwire ")) out.diagnostics.push(c.split(" ")[2]);
  for (const { kind, data } of events) {
    if (kind !== null) continue;
    assert.ok(!out.done, `data after [DONE]: ${data}`);
    if (data === "[DONE]") {
      out.done = true;
      continue;
    }
    const chunk = JSON.parse(data);
    for (const ch of chunk.choices) {
      if (!out.choices.has(ch.index)) out.choices.set(ch.index, { content: "", reasoning: "", calls: [], finish: null });
      const st = out.choices.get(ch.index);
      const chat = typeof ch.delta === "object" && ch.delta !== null;
      const d = chat ? ch.delta : ch;
      const text = chat ? d.content : d.text;
      if (typeof text === "string") st.content += text;
      if (typeof d.reasoning_content === "string") st.reasoning += d.reasoning_content;
      for (const tc of d.tool_calls ?? []) {
        assert.equal(typeof tc.index, "number", "every tool-call delta has an index");
        if (tc.id !== undefined) {
          assert.ok(!st.calls.some((c) => c.index === tc.index), `index ${tc.index} reused`);
          assert.equal(tc.type, "function");
          assert.equal(tc.function.arguments, "", 'the first delta of a call has arguments ""');
          st.calls.push({ index: tc.index, id: tc.id, name: tc.function.name, arguments: "" });
        } else {
          assert.equal(tc.function.name, undefined, "the name comes only once");
          const call = st.calls.find((c) => c.index === tc.index);
          assert.ok(call, "arguments of a started call");
          call.arguments += tc.function.arguments;
        }
      }
      if (ch.finish_reason != null) {
        assert.equal(st.finish, null, "one finish per choice");
        st.finish = ch.finish_reason;
      }
    }
  }
  return out;
}

/** Checks a rewritten stream against a case of tests/sse/cases.json. */
export function checkCase(c, input, output) {
  const got = reassemble(output);
  const upstream = reassemble(input);
  assert.equal(got.choices.size, c.choices.length, `${c.file}: choices`);
  c.choices.forEach((want, i) => {
    const st = got.choices.get(i);
    assert.equal(st.content, want.content ?? "", `${c.file}: content of choice ${i}`);
    assert.equal(st.reasoning, want.reasoning ?? "", `${c.file}: reasoning of choice ${i}`);
    assert.equal(st.finish, want.finish_reason, `${c.file}: finish of choice ${i}`);
    assert.equal(st.calls.length, want.calls.length, `${c.file}: calls of choice ${i}`);
    st.calls.forEach((call, k) => {
      assert.equal(call.name, want.calls[k].name);
      assert.deepEqual(JSON.parse(call.arguments), want.calls[k].arguments, `${c.file}: arguments of ${call.name}`);
      if (want.calls[k].id) assert.equal(call.id, want.calls[k].id);
    });
  });
  assert.deepEqual(got.diagnostics, c.comments ?? [], `${c.file}: toolwire comments`);
  assert.equal(got.done, upstream.done, `${c.file}: [DONE]`);
  for (const comment of upstream.comments) assert.ok(got.comments.includes(comment), `${c.file}: comment ${comment} lost`);
  for (const e of upstream.events) {
    const usage = e.kind === null && e.data.startsWith("{") && JSON.parse(e.data).choices?.length === 0;
    if (e.kind !== null || usage) assert.ok(got.events.some((g) => g.kind === e.kind && g.data === e.data), `${c.file}: event lost: ${e.data}`);
  }
  return got;
}

/**
 * An event's one delta text (`content`, `reasoning_content`, or the `function.arguments` of one
 * tool call without its id, type and name) when that is all its one choice's delta holds:
 * `{rest, text, at, len}` (the event with the text emptied, as JSON; the text; where its JSON
 * string is in the event), else null.
 */
function mergeable(ev) {
  if (!ev.startsWith("data: ") || !ev.endsWith("\n\n") || ev.slice(6, -2).includes("\n")) return null;
  let v;
  try {
    v = JSON.parse(ev.slice(6, -2));
  } catch {
    return null;
  }
  const choices = v?.choices;
  if (!Array.isArray(choices) || choices.length !== 1) return null;
  const delta = choices[0]?.delta;
  if (delta === null || typeof delta !== "object" || Object.keys(delta).length !== 1) return null;
  let holder, key;
  if (Array.isArray(delta.tool_calls)) {
    const [call, ...more] = delta.tool_calls;
    const keys = call && typeof call === "object" ? Object.keys(call) : [];
    if (more.length || keys.length !== 2 || !keys.includes("index") || typeof call.function !== "object" || call.function === null) return null;
    if (Object.keys(call.function).length !== 1) return null;
    [holder, key] = [call.function, "arguments"];
  } else if ("content" in delta) [holder, key] = [delta, "content"];
  else [holder, key] = [delta, "reasoning_content"];
  const text = holder[key];
  if (typeof text !== "string") return null;
  holder[key] = "";
  const literal = `"${key}":${JSON.stringify(text)}`;
  const d = ev.indexOf('"delta":');
  const at = d < 0 ? -1 : ev.indexOf(literal, d);
  if (at < 0) return null;
  return { rest: JSON.stringify(v), text, at: at + key.length + 3, len: literal.length - key.length - 3 };
}

/**
 * `bytes` (whole SSE events) with each run of neighbouring events that differ only in their one
 * delta text written as one event, the texts joined (a string): the package's rewriter sends a
 * quiet run of deltas within one network chunk as one event; outputs of any chunking agree
 * once such runs are merged.
 */
export function mergeDeltas(bytes) {
  const text = typeof bytes === "string" ? bytes : Buffer.from(bytes).toString();
  const kept = [];
  for (const ev of text.split(/(?<=\n\n)/)) {
    const m = mergeable(ev);
    const last = kept.at(-1);
    if (m && last?.m && last.m.rest === m.rest) {
      last.m.text += m.text;
      last.joined = true;
      continue;
    }
    kept.push({ ev, m, joined: false });
  }
  return kept.map(({ ev, m, joined }) => (joined ? ev.slice(0, m.at) + JSON.stringify(m.text) + ev.slice(m.at + m.len) : ev)).join("");
}
