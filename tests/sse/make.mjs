// Writes the upstream SSE streams of tests/sse/*.sse (run: node tests/sse/make.mjs).
//
// Each stream is a model output (the text a vLLM server without a tool parser streams as
// `delta.content`) cut into tokens and framed as vLLM frames it: compact JSON chunks, a role
// chunk first, a finish chunk, an optional usage chunk, `data: [DONE]`. Token cuts and
// multi-token chunks come from a seeded generator, so the files are reproducible. The streams
// are data: the tests read the .sse files, not this script.
import { writeFileSync } from "node:fs";

const dir = new URL("./", import.meta.url);
let seed = 1;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);

/** Model output to token-like pieces: special markers whole, words cut in 1–4 char pieces. */
function tokens(text) {
  const re = /<\|[^|]*\|>|<\/?tool_call>|<think>|<\/think>|\[TOOL_CALLS\]|\[ARGS\]|\s+|[A-Za-z]+|\d+|[^\sA-Za-z\d]/g;
  const out = [];
  for (const m of text.match(re) ?? []) {
    if (/^[A-Za-z]+$|^\d+$/.test(m) && m.length > 4) {
      let i = 0;
      while (i < m.length) {
        const n = 2 + Math.floor(rand() * 3);
        out.push(m.slice(i, i + n));
        i += n;
      }
    } else out.push(m);
  }
  return out;
}

/** Groups tokens into chunk texts: mostly one token, sometimes two or three (a busy server). */
function deltas(text) {
  const t = tokens(text);
  const out = [];
  for (let i = 0; i < t.length; ) {
    const n = rand() < 0.75 ? 1 : 2 + Math.floor(rand() * 2);
    out.push(t.slice(i, i + n).join(""));
    i += n;
  }
  return out;
}

const data = (o) => `data: ${JSON.stringify(o)}\n\n`;

/** A chat stream: `choices` is [{text, finish}] (n ≥ 1), interleaved one chunk per choice. */
function chat({ id, model, choices, usage = true, cumulative = false, done = true, finish = true }) {
  const env = { id, object: "chat.completion.chunk", created: 1732270000, model };
  let s = "";
  const streams = choices.map((c) => deltas(c.text));
  choices.forEach((_, i) => {
    s += data({ ...env, choices: [{ index: i, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }] });
  });
  const sent = choices.map(() => "");
  for (let k = 0; streams.some((d) => k < d.length); k++) {
    streams.forEach((d, i) => {
      if (k >= d.length) return;
      sent[i] += d[k];
      const content = cumulative ? sent[i] : d[k];
      s += data({ ...env, choices: [{ index: i, delta: { content }, logprobs: null, finish_reason: null }] });
    });
  }
  if (finish) {
    choices.forEach((c, i) => {
      s += data({ ...env, choices: [{ index: i, delta: { content: cumulative ? sent[i] : "" }, logprobs: null, finish_reason: c.finish ?? "stop", stop_reason: null }] });
    });
  }
  if (usage) {
    const completion = streams.reduce((n, d) => n + d.length, 0);
    s += data({ ...env, choices: [], usage: { prompt_tokens: 187, total_tokens: 187 + completion, completion_tokens: completion } });
  }
  if (done) s += "data: [DONE]\n\n";
  return s;
}

const write = (name, text) => writeFileSync(new URL(name, dir), text);

// 1. Hermes (Qwen2.5): text, then two parallel calls; parser picked from the chunk's model.
write("hermes-qwen25.sse", chat({
  id: "chatcmpl-5b2e8f0c1d7a4e3b9c6f2a1d8e4b7c0a",
  model: "Qwen/Qwen2.5-7B-Instruct",
  choices: [{ text: 'I\'ll check the weather in both cities.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo", "unit": "celsius"}}\n</tool_call>' }],
}));

// 2. Qwen3-Coder: XML parameters, typed by the request's tools.
write("qwen3-coder.sse", chat({
  id: "chatcmpl-a91c3e7f5d2b4c8e",
  model: "Qwen/Qwen3-Coder-30B-A3B-Instruct",
  choices: [{ text: 'I will search the repository first.\n\n<tool_call>\n<function=search_code>\n<parameter=query>\nfn parse(\n</parameter>\n<parameter=max_results>\n5\n</parameter>\n<parameter=regex>\nfalse\n</parameter>\n</function>\n</tool_call>' }],
}));

// 3. Mistral (v11 format): `[TOOL_CALLS]name[ARGS]{json}`, text before.
write("mistral.sse", chat({
  id: "chatcmpl-7d4f1a2b3c5e6f80",
  model: "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
  choices: [{ text: 'Let me look that up. [TOOL_CALLS]get_stock_price[ARGS]{"symbol": "ACME", "currency": "EUR"}' }],
}));

// 4. Plain text: must come out byte for byte.
write("plain.sse", chat({
  id: "chatcmpl-0f1e2d3c4b5a6978",
  model: "NousResearch/Hermes-3-Llama-3.1-8B",
  choices: [{ text: "Sure! Paris is the capital of France. A JSON object looks like {\"a\": 1}.\n\n- one\n- two" }],
}));

// 4b. Prose with markup-like characters (held back while they could start a marker).
write("prose-markup.sse", chat({
  id: "chatcmpl-1a2b3c4d5e6f7081",
  model: "NousResearch/Hermes-3-Llama-3.1-8B",
  usage: false,
  choices: [{ text: "In HTML write `<b>bold</b>`; `a < b` holds. The tag <tool_call> is not a call here." }],
}));

// 5. n = 2: one choice calls a tool, the other answers in text; chunks interleave.
write("n2.sse", chat({
  id: "chatcmpl-22aa33bb44cc55dd",
  model: "Qwen/Qwen2.5-7B-Instruct",
  choices: [
    { text: 'Checking.<tool_call>\n{"name": "get_time", "arguments": {"zone": "Europe/Paris"}}\n</tool_call>' },
    { text: "It is probably evening in Paris." },
  ],
}));

// 6. Native tool calls from upstream (a server that parsed one call), then a call in the text.
{
  const env = { id: "chatcmpl-99native00ff", object: "chat.completion.chunk", created: 1732270000, model: "Qwen/Qwen2.5-7B-Instruct" };
  const ch = (delta, finish_reason = null) => data({ ...env, choices: [{ index: 0, delta, logprobs: null, finish_reason }] });
  let s = ch({ role: "assistant", content: null });
  s += ch({ tool_calls: [{ index: 0, id: "chatcmpl-tool-8d1f", type: "function", function: { name: "get_weather", arguments: "" } }] });
  s += ch({ tool_calls: [{ index: 0, function: { arguments: '{"city": ' } }] });
  s += ch({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] });
  for (const d of deltas('\n<tool_call>\n{"name": "get_time", "arguments": {"zone": "Europe/Oslo"}}\n</tool_call>')) s += ch({ content: d });
  s += ch({}, "tool_calls");
  s += "data: [DONE]\n\n";
  write("native.sse", s);
}

// 7. A cumulative upstream: every chunk repeats the whole text so far.
write("cumulative.sse", chat({
  id: "chatcmpl-c0c0c0c0cumulative",
  model: "Qwen/Qwen2.5-7B-Instruct",
  cumulative: true,
  usage: false,
  choices: [{ text: 'One moment.<tool_call>\n{"name": "lookup", "arguments": {"term": "SSE"}}\n</tool_call>' }],
}));

// 8. CRLF line ends, a byte order mark, keep-alive comments, an unknown event, id and retry fields.
{
  const base = chat({
    id: "chatcmpl-crlf0001",
    model: "Qwen/Qwen2.5-7B-Instruct",
    usage: false,
    choices: [{ text: 'Sure.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lima"}}\n</tool_call>' }],
  });
  const events = base.split("\n\n").filter(Boolean);
  let s = "\uFEFF: connected\r\nretry: 3000\r\n\r\n";
  events.forEach((e, i) => {
    if (i === 3) s += ": keep-alive\r\n\r\n";
    if (i === 6) s += "event: ping\r\ndata: {\"t\": 1}\r\n\r\n";
    s += `id: ${i}\r\n${e}\r\n\r\n`;
  });
  write("crlf-comments.sse", s);
}

// 9. /v1/completions: `choices[].text`.
{
  const env = { id: "cmpl-4e5f6a7b8c9d", object: "text_completion", created: 1732270000, model: "Qwen/Qwen2.5-7B-Instruct" };
  let s = "";
  for (const d of deltas('Answer: <tool_call>\n{"name": "add", "arguments": {"a": 2, "b": 3}}\n</tool_call>')) {
    s += data({ ...env, choices: [{ index: 0, text: d, logprobs: null, finish_reason: null, stop_reason: null }] });
  }
  s += data({ ...env, choices: [{ index: 0, text: "", logprobs: null, finish_reason: "stop", stop_reason: null }] });
  s += data({ ...env, choices: [], usage: { prompt_tokens: 12, total_tokens: 40, completion_tokens: 28 } });
  s += "data: [DONE]\n\n";
  write("completions.sse", s);
}

// 10. Qwen3 with reasoning: <think>…</think>, then a call.
write("qwen3-reasoning.sse", chat({
  id: "chatcmpl-3a3a3a3a-think",
  model: "Qwen/Qwen3-8B",
  choices: [{ text: '<think>\nThe user wants the weather; I should call the tool.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Berlin"}}\n</tool_call>' }],
}));

// 11. A stream cut off mid-call: no finish chunk, no [DONE].
write("truncated.sse", chat({
  id: "chatcmpl-trunc000",
  model: "Qwen/Qwen2.5-7B-Instruct",
  usage: false,
  done: false,
  finish: false,
  choices: [{ text: 'Writing it.<tool_call>\n{"name": "write_file", "arguments": {"path": "a.txt", "content": "hel' }],
}));
