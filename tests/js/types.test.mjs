// The package's TypeScript declarations, compiled with `tsc` (strict, nodenext resolution) the
// way a consumer's project sees them (skipLibCheck, as usual): every entry's options take the one
// shared ParserOptions, the V4 middleware fits the real `ai` 7 `wrapLanguageModel`, and wrong
// uses are errors (each `@ts-expect-error` line must produce one, or tsc reports it unused).
// (The V3 type is not checked against ai 6 here: in this repository `@ai-sdk/provider` resolves
// to 4.x, while a project on ai 6 resolves the 3.x that ai 6 brings; ai 6 runs in ai-sdk.test.mjs.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import ts from "typescript";

const SOURCE = `
import { parse, classify, ToolCallParser, type ParserOptions, type ToolCallEvent } from "toolwire";
import { SseRewriteStream, ToolCallStream, rewriteChatCompletion } from "toolwire/stream";
import { toolwireMiddleware, toolwireMiddlewareV3, formatToolCalls, promptFormats, type ToolwireMiddlewareOptions } from "toolwire/ai-sdk";
import { toOpenAIRequest, toAnthropicMessage, AnthropicSseStream, AnthropicError, toAnthropicToolId, toOpenAIToolCallId, type AnthropicMessage } from "toolwire/anthropic";
import { wrapLanguageModel, streamText } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const options: ParserOptions = {
  parser: "hermes", model: "m", reasoning: "qwen3", thinking: false, idPrefix: "c_",
  policy: "strict", recover: true, recoverTruncated: false, keepMalformed: false, bareJson: true,
  limits: { maxArgsBytes: 1, maxDepth: 2, maxBufferBytes: 3, maxNameBytes: 4 },
  tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
};
parse("x", options);
classify("x", { policy: "lenient", bareJson: true });
const events: ToolCallEvent[] = new ToolCallParser(options).push("x");
new ToolCallStream(options);
new SseRewriteStream({ ...options, cumulative: "auto", onDiagnostic: (d) => d.choice });
rewriteChatCompletion({ id: "x" }, { ...options, comments: false });
const { tools, ...rest } = options;
const mw: ToolwireMiddlewareOptions = { ...rest, promptTools: true, onDiagnostic: (d) => [d.label, d.toolCallId, d.toolName] };
const model = wrapLanguageModel({ model: new MockLanguageModelV4(), middleware: toolwireMiddleware(mw) });
streamText({ model, prompt: "x" });
wrapLanguageModel({ model: new MockLanguageModelV4(), middleware: [toolwireMiddleware("hermes")] });
const v3: "v3" = toolwireMiddlewareV3({ parser: "hermes" }).specificationVersion;
const text: string = formatToolCalls(promptFormats[0], [{ name: "f", args: { a: 1 } }]);
const request = { model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "hi" }] };
const upstream: string = toOpenAIRequest(request, { model: { "claude-*": "qwen3-coder" }, maxTokens: 8192, reasoningField: "reasoning" }).model;
const message: AnthropicMessage = toAnthropicMessage({ choices: [] }, { parser: "hermes", request, onDiagnostic: (d) => d.label === "parallel_calls" });
new AnthropicSseStream({ ...rest, request, pingIntervalMs: 10000 });
const status: number = new AnthropicError(400, "x").status;
const id: string = toOpenAIToolCallId(toAnthropicToolId("call_1"));

// @ts-expect-error reasoningField is "reasoning_content" or "reasoning"
toOpenAIRequest(request, { reasoningField: "thoughts" });
// @ts-expect-error policy is "strict" or "lenient"
parse("x", { policy: "loose" });
// @ts-expect-error bareJson is a boolean
new ToolCallParser({ bareJson: "yes" });
// @ts-expect-error push takes a string (pushBytes a Uint8Array)
new ToolCallParser().push({});
// @ts-expect-error parse takes the model's text as a string
parse(null);
// @ts-expect-error tools come from each call, not from the middleware's options
toolwireMiddleware({ tools: [] });
export { events, text, v3, upstream, message, status, id };
`;

test("the .d.ts files compile against ai 7 and reject wrong uses", () => {
  const dir = new URL("artifacts/types/", import.meta.url);
  mkdirSync(dir, { recursive: true });
  const file = new URL("use.ts", dir).pathname;
  writeFileSync(file, SOURCE);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.esnext.disposable.d.ts"],
    types: [],
    skipLibCheck: true,
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.split("node_modules/").at(-1)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : "";
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
  assert.deepEqual(diagnostics, []);
});
