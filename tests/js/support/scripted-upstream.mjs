// Scripted OpenAI-compatible upstreams on 127.0.0.1 for the probe's tests: an obedient "model"
// (it does what a prompt asks, reading the values from the prompt and the tool results), written
// in one format, with the quirks real deployments show. Not a mock of the probe: it reads the
// conversation it is sent, so a probe that sends the wrong history gets the wrong answer.
import { createServer } from "node:http";

/** The behaviours of the list (and one more for streaming). */
export const BEHAVIOURS = {
  // A server that parses calls itself (structured tool_calls, streamed as tool_calls deltas).
  native: { format: "native" },
  // A raw-text Hermes model (the server passes text through); it cannot recover from a tool error.
  hermes: { format: "hermes", noRepair: true },
  // A Qwen3-Coder model (XML parameters, raw text) that leaves out a required parameter (tag).
  "qwen3-coder-lax": { format: "qwen3_coder", drop: { probe_echo: ["tag"] } },
  // A model that collapses parallel calls into one (Hermes text).
  collapse: { format: "hermes", collapse: true },
  // A thinking model: reasoning_content on every turn, 400 when a tool-call turn comes back without it.
  thinking: { format: "native", reasoning: true, requireReasoning: true },
  // A server whose streamed tool calls repeat the whole arguments at the end (a known server bug).
  "stream-doubled": { format: "native", doubleStreamedArgs: true },
  // Accepts the connection and never answers.
  hang: { hang: true },
};

/**
 * Starts a behaviour: `{url (the /v1 base), requests, close(), breakAfter(n)}`. `breakAfter(n)`
 * drops the connection of every request after the next `n` (a server going away mid-run);
 * `breakAfter(Infinity)` heals it.
 */
export async function startUpstream(name, { chunk = 7 } = {}) {
  const behaviour = BEHAVIOURS[name];
  if (!behaviour) throw new Error(`unknown behaviour ${name}`);
  const requests = [];
  let budget = Infinity;
  const server = createServer(async (req, res) => {
    if (behaviour.hang) return; // never answers
    if (budget-- <= 0) return req.socket.destroy();
    let text = "";
    for await (const part of req) text += part;
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      return json(res, 400, { error: { message: "body is not JSON", type: "invalid_request_error" } });
    }
    requests.push({ path: req.url, headers: req.headers, body });
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") return json(res, 404, { error: { message: `no route ${req.url}` } });
    if (behaviour.requireReasoning) {
      const bare = body.messages.find((m) => m.role === "assistant" && m.tool_calls?.length && !m.reasoning_content);
      if (bare) return json(res, 400, { error: { message: "assistant messages with tool_calls must include reasoning_content in thinking mode", type: "invalid_request_error" } });
    }
    const turn = respond(behaviour, body.messages);
    if (body.stream) return stream(res, behaviour, body, turn, chunk);
    json(res, 200, completion(behaviour, body, turn));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    breakAfter: (n) => {
      budget = n;
    },
    close: () => new Promise((r) => {
      server.closeAllConnections();
      server.close(r);
    }),
  };
}

/** A port on 127.0.0.1 where nothing listens. */
export async function downUrl() {
  const server = createServer();
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const port = server.address().port;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}/v1`;
}

/** What the obedient model does next: `{calls: [{name, args}]}` or `{text}`. */
function respond(b, messages) {
  const prompt = messages.filter((m) => m.role === "user").map((m) => m.content).join("\n");
  const results = messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content));
  const last = results.at(-1);
  const q = (re) => re.exec(prompt)?.[1];
  let calls;
  if (last) {
    const moved = /file you want is at ([^\s:]+)/.exec(last.error?.message ?? "");
    if (moved && results.length === 1) {
      const prev = [...messages].reverse().find((m) => m.role === "assistant").tool_calls[0];
      const path = b.noRepair ? JSON.parse(prev.function.arguments).path : moved[1];
      calls = [{ name: "probe_fail_once", args: { path } }];
    } else {
      const facts = Object.entries(last).filter(([, v]) => typeof v !== "object").map(([k, v]) => `${k} ${v}`).join(", ");
      return { text: `Done: the tool returned ${facts}.` };
    }
  } else if (/probe_add/.test(prompt)) {
    calls = [...prompt.matchAll(/(\d+) (?:plus|and) (\d+)/g)].map((m) => ({ name: "probe_add", args: { a: Number(m[1]), b: Number(m[2]) } }));
  } else if (/probe_fail_once/.test(prompt)) {
    calls = [{ name: "probe_fail_once", args: { path: q(/path "([^"]+)"/) } }];
  } else if (/probe_echo/.test(prompt)) {
    const args = { message: q(/message "([^"]+)"/), tag: q(/tag "([^"]+)"/) };
    const meta = /lang "(\w+)" and level (\d+)/.exec(prompt);
    if (meta) args.meta = { lang: meta[1], level: Number(meta[2]) };
    calls = [{ name: "probe_echo", args }];
  } else {
    return { text: "Hello! How can I help?" };
  }
  if (b.collapse) calls = calls.slice(0, 1);
  for (const c of calls) for (const k of b.drop?.[c.name] ?? []) delete c.args[k];
  return { calls };
}

const REASONING = "The user asks for a tool call; I will make it with the given values.";

/** The turn as the server sends it: `{content, tool_calls, reasoning_content, finish}`. */
function render(b, turn) {
  const out = { content: null, tool_calls: null, reasoning_content: b.reasoning ? REASONING : null, finish: "stop" };
  if (turn.text) {
    out.content = turn.text;
    return out;
  }
  if (b.format === "native") {
    out.tool_calls = turn.calls.map((c, i) => ({ id: `call_${i}_${c.name}`, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } }));
    out.finish = "tool_calls";
  } else if (b.format === "hermes") {
    out.content = "I'll use the tool.\n" + turn.calls.map((c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.args })}\n</tool_call>`).join("\n");
  } else if (b.format === "qwen3_coder") {
    const param = ([k, v]) => `<parameter=${k}>\n${typeof v === "string" ? v : JSON.stringify(v)}\n</parameter>\n`;
    out.content = turn.calls.map((c) => `<tool_call>\n<function=${c.name}>\n${Object.entries(c.args).map(param).join("")}</function>\n</tool_call>`).join("\n");
  }
  return out;
}

function completion(b, body, turn) {
  const r = render(b, turn);
  const message = { role: "assistant", content: r.content };
  if (r.tool_calls) message.tool_calls = r.tool_calls;
  if (r.reasoning_content) message.reasoning_content = r.reasoning_content;
  return {
    id: "chatcmpl-scripted", object: "chat.completion", created: 1767225600, model: body.model,
    choices: [{ index: 0, message, finish_reason: r.finish }],
    usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
  };
}

function stream(res, b, body, turn, size) {
  const r = render(b, turn);
  const chunk = (delta, finish = null) => ({ id: "chatcmpl-scripted", object: "chat.completion.chunk", created: 1767225600, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] });
  const events = [chunk({ role: "assistant", content: "" })];
  const pieces = (s) => {
    const out = [];
    for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
    return out;
  };
  if (r.reasoning_content) for (const p of pieces(r.reasoning_content)) events.push(chunk({ reasoning_content: p }));
  if (r.content) for (const p of pieces(r.content)) events.push(chunk({ content: p }));
  (r.tool_calls ?? []).forEach((c, index) => {
    events.push(chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.function.name, arguments: "" } }] }));
    for (const p of pieces(c.function.arguments)) events.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
    if (b.doubleStreamedArgs) events.push(chunk({ tool_calls: [{ index, function: { arguments: c.function.arguments } }] }));
  });
  events.push(chunk({}, r.finish));
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
  res.end("data: [DONE]\n\n");
}

function json(res, status, value) {
  const text = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
