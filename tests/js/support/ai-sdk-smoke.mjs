// One AI SDK run for the runtime smoke tests (workerd, Chromium): bundled with the real `ai`
// by esbuild, `toolwire/ai-sdk` left to the runtime's own resolution. A Qwen3-Coder model
// streams raw text in 3-character chunks; streamText runs the tool and a second step.
import { streamText, wrapLanguageModel, tool, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { toolwireMiddleware } from "toolwire/ai-sdk";

const RAW = "Looking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>";
const USAGE = { inputTokens: { total: 1 }, outputTokens: { total: 1 } };

function reply(text) {
  const parts = [{ type: "stream-start", warnings: [] }, { type: "text-start", id: "0" }];
  for (let i = 0; i < text.length; i += 3) parts.push({ type: "text-delta", id: "0", delta: text.slice(i, i + 3) });
  parts.push({ type: "text-end", id: "0" }, { type: "finish", usage: USAGE, finishReason: { unified: "stop", raw: "stop" } });
  return { stream: new ReadableStream({ start(c) { for (const p of parts) c.enqueue(p); c.close(); } }) };
}

export async function smoke() {
  const texts = [RAW, "Sunny."];
  let n = 0;
  const model = new MockLanguageModelV4({ modelId: "Qwen/Qwen3-Coder-30B-A3B-Instruct", doStream: async () => reply(texts[n++]) });
  const executed = [];
  const result = streamText({
    model: wrapLanguageModel({ model, middleware: toolwireMiddleware() }),
    prompt: "Weather?",
    tools: { get_weather: tool({ inputSchema: z.object({ city: z.string(), days: z.number().int() }), execute: async (input) => (executed.push(input), "sunny") }) },
    stopWhen: stepCountIs(2),
  });
  const types = [];
  for await (const part of result.fullStream) types.push(part.type);
  const steps = await result.steps;
  return {
    executed,
    steps: steps.length,
    firstText: steps[0].text,
    finishReason: steps[0].finishReason,
    text: await result.text,
    deltas: types.filter((t) => t === "tool-input-delta").length,
  };
}

export const EXPECTED = { executed: [{ city: "Paris", days: 3 }], steps: 2, firstText: "Looking.\n", finishReason: "tool-calls", text: "Sunny." };
