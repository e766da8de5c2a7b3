// The SSE rewrite benchmarks' upstream (benches/run.mjs section 5, benches/sse-ab.mjs).

const encoder = new TextEncoder();
const repeatTo = (unit, size) => unit.repeat(Math.max(1, Math.ceil(size / unit.length)));

/**
 * A vLLM-style upstream (no tool parser) built from `streams` (benches/streams.json): `tokens`
 * chunk objects of about 4 characters each (prose, then one Hermes call whose arguments carry
 * the rest; with `think`, a reasoning block first), a finish chunk with usage, `[DONE]`;
 * `perChunk` events per network chunk. With `code`, the argument is a source file
 * (`streams.code`) JSON-escaped as a model writes it: newlines, tabs, quotes and backslashes as
 * escapes, in the text and again on the wire. Returns the network chunks (UTF-8) and the number
 * of events.
 */
export function sseUpstream(streams, tokens, think, perChunk, code = false) {
  const value = code ? JSON.stringify(repeatTo(streams.code, tokens * 4)).slice(1, -1) : repeatTo(streams.value, tokens * 4);
  const lead = (think ? `<think>${streams.prose.repeat(2)}</think>\n\n` : "") + streams.prose;
  const text = `${lead}<tool_call>\n{"name": "write_file", "arguments": {"path": "notes.md", "content": "${value}`.slice(0, tokens * 4 - 4) + '"}}\n</tool_call>';
  const head = '{"id":"chatcmpl-7f3a9c2e41b84d0f","object":"chat.completion.chunk","created":1732300000,"model":"Qwen/Qwen3-8B","choices":[{"index":0,"delta":';
  const events = [`data: ${head}{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n`];
  for (let i = 0; i < text.length; i += 4) events.push(`data: ${head}{"content":${JSON.stringify(text.slice(i, i + 4))}},"logprobs":null,"finish_reason":null}]}\n\n`);
  events.push(`data: ${head}{},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":${tokens},"total_tokens":${tokens + 12}}}\n\n`, "data: [DONE]\n\n");
  const chunks = [];
  for (let i = 0; i < events.length; i += perChunk) chunks.push(encoder.encode(events.slice(i, i + perChunk).join("")));
  return { chunks, events: events.length };
}
