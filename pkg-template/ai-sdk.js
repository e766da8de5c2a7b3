// toolwire/ai-sdk: a Vercel AI SDK language-model middleware (LanguageModelV4Middleware for
// `ai` 7, LanguageModelV3Middleware for `ai` 6) that turns the tool calls an open model writes
// as text into the SDK's own stream parts and content. Plain JS over `ToolCallParser`; the
// runtime entries (ai-sdk.node.js, .workerd.js, .browser.js) load the wasm and bind `ready`.
import { ToolCallParser } from "./api.js";

/** Diagnostics after which the parser closes a call's arguments itself (a repair). */
const REPAIRS = new Set(["truncation", "malformed_json", "limit_exceeded"]);

/** Finish reasons that become `tool-calls` when the middleware emitted calls. */
const REWRITTEN_FINISH = new Set(["stop", "other"]);

/** A fresh random suffix for call ids (unique across the steps of a run). */
function randomId() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  return Array.from(bytes, (b) => alnum[b % 62]).join("");
}

/** The function tools of a call (provider-defined tools are left to the provider). */
function functionTools(tools) {
  return (tools ?? []).filter((t) => t && t.type === "function" && typeof t.name === "string");
}

/** AI SDK function tools as the OpenAI tool definitions `ToolCallParser` reads. */
function openAiTools(tools) {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, ...(t.description !== undefined && { description: t.description }), parameters: t.inputSchema ?? {} },
  }));
}

/**
 * Splits the middleware's options: `onDiagnostic` and `promptTools` are the middleware's own and
 * never reach `ToolCallParser`; the rest are parser options.
 */
function splitOptions(options) {
  if (typeof options === "string") options = { parser: options };
  if (options === undefined || options === null) options = {};
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new TypeError(`toolwireMiddleware: expected an options object like {parser: "hermes"} or a parser id, got ${typeof options}`);
  }
  const { onDiagnostic, promptTools = false, ...parser } = options;
  if (onDiagnostic !== undefined && typeof onDiagnostic !== "function") {
    throw new TypeError("toolwireMiddleware: `onDiagnostic` must be a function (diagnostic) => void");
  }
  if (typeof promptTools !== "boolean") throw new TypeError("toolwireMiddleware: `promptTools` must be a boolean");
  if (parser.tools !== undefined) {
    throw new TypeError("toolwireMiddleware: tools come from each call (the `tools` of generateText/streamText); remove the `tools` option");
  }
  return { onDiagnostic, promptTools, parser };
}

/**
 * Parser events in, AI SDK stream parts out (through `emit`): text and reasoning blocks with
 * their own ids, closed before a call starts; `tool-input-*` as arguments stream; one
 * `tool-call` per call. A call whose end event says `kept: false` (`parse()` leaves it out: a
 * repaired call the recovery policy does not keep, the family's default included) gets, as
 * `input`, its arguments as far as the model wrote them (not JSON), so the SDK's
 * invalid-tool-call path (and `repairToolCall`) applies; the parser's closing deltas are not
 * sent for it, nor its markup as text (the end event's `text`).
 */
class Converter {
  #emit;
  #onDiagnostic;
  #open = null; // {type: "text" | "reasoning", id}
  #blocks = 0;
  #calls = new Map(); // index -> {id, name, streamed, cut, suppress}
  calls = 0;

  constructor(emit, onDiagnostic) {
    this.#emit = emit;
    this.#onDiagnostic = onDiagnostic;
  }

  /** Converts one batch of events (the result of one push or finish). */
  feed(events) {
    // Calls that end in this batch left out (`kept: false`): their deltas after the repair
    // diagnostic are the parser's closing, not the model's text.
    let dropped = null;
    for (const e of events) {
      if (e.type === "tool-call-end" && !e.kept) (dropped ??= new Set()).add(e.index);
    }
    for (const e of events) {
      switch (e.type) {
        case "text":
        case "reasoning":
          if (e.text) this.#block(e.type, e.text);
          break;
        case "tool-call-start":
          this.close();
          this.#calls.set(e.index, { id: e.id, name: e.name, streamed: "", cut: -1, suppress: false });
          this.#emit({ type: "tool-input-start", id: e.id, toolName: e.name });
          break;
        case "tool-call-delta": {
          const call = this.#calls.get(e.index);
          if (!call) break;
          call.streamed += e.argumentsDelta;
          if (!call.suppress && e.argumentsDelta) this.#emit({ type: "tool-input-delta", id: call.id, delta: e.argumentsDelta });
          break;
        }
        case "tool-call-end":
          this.#end(e);
          break;
        case "diagnostic": {
          const call = e.index === undefined ? undefined : this.#calls.get(e.index);
          if (call && REPAIRS.has(e.label)) {
            call.cut = call.streamed.length;
            if (dropped?.has(e.index)) call.suppress = true;
          }
          this.#onDiagnostic?.(call ? { ...e, toolCallId: call.id, toolName: call.name } : { ...e });
          break;
        }
      }
    }
  }

  /** Closes the open text or reasoning block. */
  close() {
    if (this.#open) this.#emit({ type: `${this.#open.type}-end`, id: this.#open.id });
    this.#open = null;
  }

  #block(type, text) {
    if (this.#open?.type !== type) {
      this.close();
      this.#open = { type, id: `toolwire-${type}-${this.#blocks++}` };
      this.#emit({ type: `${type}-start`, id: this.#open.id });
    }
    this.#emit({ type: `${type}-delta`, id: this.#open.id, delta: text });
  }

  #end(e) {
    const call = this.#calls.get(e.index) ?? { id: e.id, name: e.name, cut: -1 };
    this.#calls.delete(e.index);
    const invalid = !e.kept && call.cut >= 0;
    const input = invalid ? call.streamed.slice(0, call.cut) : e.arguments;
    this.#emit({ type: "tool-input-end", id: e.id });
    this.#emit({ type: "tool-call", toolCallId: e.id, toolName: e.name, input });
    this.calls++;
  }
}

/** `finish` with `tool-calls` when calls were emitted and the model said `stop` or `other`. */
function finishReason(reason, calls) {
  if (calls === 0 || !reason || typeof reason !== "object" || !REWRITTEN_FINISH.has(reason.unified)) return reason;
  return { ...reason, unified: "tool-calls" };
}

/**
 * The middleware for one AI SDK spec version. `env.ready()` resolves when the wasm is
 * instantiated; `env.eager` says it already is at construction (Node, workerd), so bad options
 * throw right away.
 */
export function createMiddleware(specificationVersion, options, env) {
  const { onDiagnostic, promptTools, parser: parserOptions } = splitOptions(options);
  if (env.eager) new ToolCallParser({ ...parserOptions, model: parserOptions.model ?? "" }).free();
  // Function tools of calls whose params transformParams rewrote (it removes them from params).
  const prompted = new WeakMap();

  /** A parser for one model call: the call's tools, the wrapped model's id, fresh call ids. */
  function parserFor(params, model) {
    const tools = prompted.get(params) ?? functionTools(params.tools);
    return new ToolCallParser({
      ...parserOptions,
      model: parserOptions.model ?? model?.modelId ?? "",
      idPrefix: parserOptions.idPrefix ?? `call_${randomId()}_`,
      ...(tools.length > 0 && { tools: openAiTools(tools) }),
    });
  }

  const middleware = {
    specificationVersion,

    async wrapStream({ doStream, params, model }) {
      await env.ready();
      const parser = parserFor(params, model);
      let result;
      try {
        result = await doStream();
      } catch (e) {
        parser.free();
        throw e;
      }
      let freed = false;
      const free = () => {
        if (!freed) parser.free();
        freed = true;
      };
      let converter;
      let done = false;
      const end = () => {
        if (done) return;
        done = true;
        converter.feed(parser.finish());
        converter.close();
      };
      const stream = result.stream.pipeThrough(new TransformStream({
        start(controller) {
          converter = new Converter((part) => controller.enqueue(part), onDiagnostic);
        },
        transform(part, controller) {
          try {
            if (done) return controller.enqueue(part);
            switch (part.type) {
              case "text-start":
              case "text-end":
                return; // the text blocks the middleware emits replace the model's
              case "text-delta":
                return converter.feed(parser.push(part.delta));
              case "finish":
                end();
                free();
                return controller.enqueue({ ...part, finishReason: finishReason(part.finishReason, converter.calls) });
              default:
                return controller.enqueue(part);
            }
          } catch (e) {
            free();
            throw e;
          }
        },
        flush() {
          try {
            end();
          } finally {
            free();
          }
        },
        cancel() {
          free();
        },
      }));
      return { ...result, stream };
    },

    async wrapGenerate({ doGenerate, params, model }) {
      await env.ready();
      const result = await doGenerate();
      const parser = parserFor(params, model);
      const content = [];
      let block = null;
      const converter = new Converter((part) => {
        switch (part.type) {
          case "text-start":
          case "reasoning-start":
            block = { type: part.type.slice(0, -6), text: "" };
            content.push(block);
            break;
          case "text-delta":
          case "reasoning-delta":
            block.text += part.delta;
            break;
          case "tool-call":
            content.push(part);
            break;
        }
      }, onDiagnostic);
      try {
        for (const part of result.content) {
          if (part.type === "text") converter.feed(parser.push(part.text));
          else content.push(part);
        }
        converter.feed(parser.finish());
        converter.close();
      } finally {
        parser.free();
      }
      return { ...result, content, finishReason: finishReason(result.finishReason, converter.calls) };
    },
  };

  if (promptTools) {
    middleware.transformParams = async ({ params, model }) => {
      await env.ready();
      const parser = new ToolCallParser({ ...parserOptions, model: parserOptions.model ?? model?.modelId ?? "" });
      const family = parser.parser;
      parser.free();
      const out = promptParams(params, family);
      if (out !== params) prompted.set(out, functionTools(params.tools));
      return out;
    };
  }
  return middleware;
}

// ---------------------------------------------------------------------------------------------
// promptTools: the tools and the family's call format in the system prompt, for models without
// native tool support (the server gets no `tools`). Each format writes calls the family's parser
// reads back (tests/js/ai-sdk.test.mjs checks every format round-trips through parse()).

const json = (v) => JSON.stringify(v);

/** A Python literal (pythonic families). */
function python(v) {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : "None";
  if (typeof v === "string") return json(v);
  if (Array.isArray(v)) return `[${v.map(python).join(", ")}]`;
  return `{${Object.entries(v).map(([k, x]) => `${json(k)}: ${python(x)}`).join(", ")}}`;
}

/** A Gemma 4 value: strings in `<|"|>` quotes, other scalars bare, nested objects and arrays. */
function gemma(v) {
  if (typeof v === "string") return `<|"|>${v}<|"|>`;
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return `[${v.map(gemma).join(",")}]`;
  if (typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `${k}:${gemma(x)}`).join(",")}}`;
  return String(v);
}

const hermesResult = (name, text) => `<tool_response>\n${text}\n</tool_response>`;
const plainResult = (name, text) => `Result of ${name}:\n${text}`;

/**
 * Call formats by parser id: `call(name, args)` writes one call as the model should; `join`
 * separates several calls; `result(name, text)` renders a tool result for the next turn.
 */
const FORMATS = {
  hermes: {
    call: (name, args) => `<tool_call>\n${json({ name, arguments: args })}\n</tool_call>`,
    join: "\n",
    result: hermesResult,
  },
  qwen3_coder: {
    call: (name, args) =>
      `<tool_call>\n<function=${name}>\n${Object.entries(args)
        .map(([k, v]) => `<parameter=${k}>\n${typeof v === "string" ? v : json(v)}\n</parameter>\n`)
        .join("")}</function>\n</tool_call>`,
    join: "\n",
    result: hermesResult,
  },
  mistral: {
    call: (name, args) => `[TOOL_CALLS]${name}[ARGS]${json(args)}`,
    join: "",
    result: (name, text) => `[TOOL_RESULTS]${json({ name, content: text })}[/TOOL_RESULTS]`,
  },
  llama3_json: {
    call: (name, args) => json({ name, parameters: args }),
    join: "; ",
    result: plainResult,
  },
  pythonic: {
    call: (name, args) => `[${name}(${Object.entries(args).map(([k, v]) => `${k}=${python(v)}`).join(", ")})]`,
    join: null, // several calls share one list: [f(a=1), g(b=2)]
    result: plainResult,
  },
  gemma4: {
    call: (name, args) => `<|tool_call>call:${name}${gemma(args)}<tool_call|>`,
    join: "",
    result: plainResult,
  },
};
FORMATS.generic = FORMATS.hermes;

/** The parser ids `promptTools` has a call format for. */
export const promptFormats = Object.freeze(Object.keys(FORMATS).sort());

/** Writes calls `[{name, args}]` in a family's format (the text a model should write). */
export function formatToolCalls(parser, calls) {
  const f = format(parser);
  if (f.join === null) {
    const inner = calls.map(({ name, args }) => f.call(name, args).slice(1, -1));
    return `[${inner.join(", ")}]`;
  }
  return calls.map(({ name, args }) => f.call(name, args)).join(f.join);
}

function format(parser) {
  const f = FORMATS[parser];
  if (!f) throw new Error(`toolwireMiddleware: promptTools has no call format for parser \`${parser}\`; formats exist for: ${promptFormats.join(", ")}`);
  return f;
}

/** An example value for a JSON Schema (the prompt's sample call). */
function example(schema, depth = 0) {
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  if (schema?.enum?.length) return schema.enum[0];
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return true;
  if (type === "array") return depth < 2 ? [example(schema.items, depth + 1)] : [];
  if (type === "object" || schema?.properties) {
    const out = {};
    const props = schema?.properties ?? {};
    const keys = schema?.required?.length ? schema.required : Object.keys(props);
    if (depth < 2) for (const k of keys) out[k] = example(props[k], depth + 1);
    return out;
  }
  return "...";
}

/** The text of one tool result (`LanguageModelV4ToolResultOutput`). */
function resultText(output) {
  switch (output?.type) {
    case "text":
      return output.value;
    case "json":
      return json(output.value);
    case "error-text":
      return `Error: ${output.value}`;
    case "error-json":
      return `Error: ${json(output.value)}`;
    case "execution-denied":
      return `The tool was not run (execution denied${output.reason ? `: ${output.reason}` : ""}).`;
    case "content":
      return output.value.map((p) => (p.type === "text" ? p.text : `[${p.type}${p.mediaType ? ` ${p.mediaType}` : ""}]`)).join("\n");
    default:
      return json(output ?? null);
  }
}

/** The system prompt that teaches a family's call format and lists the tools. */
function systemPrompt(tools, parser, toolChoice) {
  const f = format(parser);
  const list = tools.map((t) => {
    const { $schema, ...parameters } = t.inputSchema ?? {};
    return json({ name: t.name, ...(t.description && { description: t.description }), parameters });
  });
  const first = tools[0];
  const lines = [
    "You can call these tools (JSON Schema of each tool's parameters):",
    ...list,
    "",
    "To call a tool, write the call exactly in this format (name and arguments of your choice):",
    formatToolCalls(parser, [{ name: first.name, args: example(first.inputSchema ?? {}) }]),
    "",
    "You may write several calls in a row. After your calls, stop: the results come back in the next message" +
      ` (as ${f.result("NAME", "RESULT").replace("\n", " ").replace("\n", " ")}).`,
  ];
  if (toolChoice?.type === "required") lines.push("You must call at least one tool in this reply.");
  else if (toolChoice?.type === "tool") lines.push(`You must call the tool \`${toolChoice.toolName}\` in this reply.`);
  else lines.push("Call a tool only when it helps; otherwise answer directly.");
  return lines.join("\n");
}

/** Merges adjacent text parts, and adjacent user messages (chat templates want alternation). */
function mergeText(parts) {
  const out = [];
  for (const p of parts) {
    const last = out.at(-1);
    if (p.type === "text" && last?.type === "text" && !p.providerOptions && !last.providerOptions) out[out.length - 1] = { ...last, text: `${last.text}\n${p.text}` };
    else out.push(p);
  }
  return out;
}

/**
 * Params for a model without native tools: the function tools and the call format go into the
 * system prompt, earlier calls and results become text, `tools`/`toolChoice` keep only what the
 * provider itself handles (provider-defined tools). `toolChoice: none` or no function tools: no
 * prompt, function tools removed.
 */
function promptParams(params, parser) {
  const tools = functionTools(params.tools);
  const providerTools = (params.tools ?? []).filter((t) => !tools.includes(t));
  const base = {
    ...params,
    tools: providerTools.length ? providerTools : undefined,
    toolChoice: providerTools.length ? params.toolChoice : undefined,
  };
  if (tools.length === 0 || params.toolChoice?.type === "none") return tools.length === 0 ? params : base;
  const f = format(parser);
  const prompt = [];
  let system = false;
  for (const m of params.prompt) {
    if (m.role === "system" && !system) {
      system = true;
      prompt.push({ ...m, content: `${m.content}\n\n${systemPrompt(tools, parser, params.toolChoice)}` });
    } else if (m.role === "assistant") {
      const calls = [];
      const content = [];
      const flush = () => {
        if (calls.length) content.push({ type: "text", text: formatToolCalls(parser, calls.splice(0)) });
      };
      for (const p of m.content) {
        if (p.type === "tool-call" && !p.providerExecuted) {
          calls.push({ name: p.toolName, args: typeof p.input === "string" ? safeParse(p.input) : (p.input ?? {}) });
        } else if (p.type === "tool-result") {
          flush();
          content.push({ type: "text", text: f.result(p.toolName, resultText(p.output)) });
        } else {
          flush();
          content.push(p);
        }
      }
      flush();
      prompt.push({ ...m, content: mergeText(content) });
    } else if (m.role === "tool") {
      const text = m.content.filter((p) => p.type === "tool-result").map((p) => ({ type: "text", text: f.result(p.toolName, resultText(p.output)) }));
      const last = prompt.at(-1);
      if (last?.role === "user") prompt[prompt.length - 1] = { ...last, content: mergeText([...last.content, ...text]) };
      else if (text.length) prompt.push({ role: "user", content: mergeText(text) });
    } else if (m.role === "user" && prompt.at(-1)?.role === "user") {
      const last = prompt.at(-1);
      prompt[prompt.length - 1] = { ...last, content: mergeText([...last.content, ...m.content]) };
    } else {
      prompt.push(m);
    }
  }
  if (!system) prompt.unshift({ role: "system", content: systemPrompt(tools, parser, params.toolChoice) });
  return { ...base, prompt };
}

function safeParse(text) {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}
