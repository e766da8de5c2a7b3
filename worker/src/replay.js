// A replay upstream: an OpenAI-compatible server that does not parse tool calls, answering
// with recorded model outputs (raw tool-call text) of several families, chosen by the request's
// `model`. `make worker` puts the worker in front of it when no UPSTREAM_URL is given, so the
// worker can be tried with no model server. Plain Web APIs: runs in Node and in workerd.

/** Recorded outputs: [model substrings, a model name, the raw text the model wrote]. */
export const RECORDINGS = [
  [["coder"], "Qwen/Qwen3-Coder-30B-A3B-Instruct",
    "I'll look that up.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"],
  [["mistral", "ministral", "magistral", "devstral"], "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
    '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "days": 3}'],
  [["llama-3", "llama3"], "meta-llama/Llama-3.1-8B-Instruct",
    '{"name": "get_weather", "parameters": {"city": "Paris", "days": 3}}'],
  [["gemma-4", "gemma4"], "google/gemma-4-31B-it",
    '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>'],
  [["kimi"], "moonshotai/Kimi-K2-Instruct",
    'Checking. <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris", "days": 3}<|tool_call_end|><|tool_calls_section_end|>'],
  [["gpt-oss"], "openai/gpt-oss-20b",
    '<|channel|>analysis<|message|>The user wants the weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris", "days": 3}<|call|>'],
  // Hermes JSON (Qwen2.5, Hermes 3): also the answer for any other model.
  [[""], "Qwen/Qwen2.5-7B-Instruct",
    'Let me check the weather for you.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>'],
];

/** The recording for a model name. */
export function recordingFor(model) {
  const m = String(model ?? "").toLowerCase();
  return RECORDINGS.find(([keys]) => keys.some((k) => m.includes(k)));
}

/**
 * Answers one request as the upstream would. `delayMs` paces streamed chunks (0 in tests);
 * `chunk` is the number of characters per streamed delta.
 */
export async function replay(request, { delayMs = 0, chunk = 4 } = {}) {
  const url = new URL(request.url);
  if (request.method === "GET" && url.pathname.endsWith("/v1/models")) {
    return Response.json({ object: "list", data: RECORDINGS.map(([, id]) => ({ id, object: "model", owned_by: "toolwire-replay" })) });
  }
  if (request.method !== "POST" || !url.pathname.endsWith("/v1/chat/completions")) {
    return Response.json({ error: { message: `replay upstream: no route for ${request.method} ${url.pathname}`, type: "invalid_request_error", code: "not_found" } }, { status: 404 });
  }
  let body;
  try {
    body = await request.json();
  } catch {
    return Response.json({ error: { message: "replay upstream: the body is not JSON", type: "invalid_request_error", code: "bad_json" } }, { status: 400 });
  }
  const [, model, text] = recordingFor(body.model);
  const id = "chatcmpl-replay" + Math.abs(hash(text + (body.model ?? ""))).toString(36);
  const created = 1767225600;
  const name = body.model ?? model;
  if (!body.stream) {
    return Response.json({
      id, object: "chat.completion", created, model: name,
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage: { prompt_tokens: 20, completion_tokens: text.length, total_tokens: 20 + text.length },
    });
  }
  const chunkOf = (delta, finish = null) => ({ id, object: "chat.completion.chunk", created, model: name, choices: [{ index: 0, delta, finish_reason: finish }] });
  const events = [chunkOf({ role: "assistant", content: "" })];
  const chars = [...text];
  for (let i = 0; i < chars.length; i += chunk) events.push(chunkOf({ content: chars.slice(i, i + chunk).join("") }));
  events.push(chunkOf({}, "stop"));
  const encoder = new TextEncoder();
  let i = 0;
  return new Response(
    new ReadableStream({
      async pull(controller) {
        if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
        if (i < events.length) controller.enqueue(encoder.encode(`data: ${JSON.stringify(events[i++])}\n\n`));
        else {
          controller.enqueue(encoder.encode("data: [DONE]\n\n"));
          controller.close();
        }
      },
    }),
    { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } },
  );
}

function hash(s) {
  let h = 0;
  for (const c of s) h = (h * 31 + c.codePointAt(0)) | 0;
  return h;
}
