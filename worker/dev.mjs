// `make worker`: the worker in workerd (Miniflare) on http://127.0.0.1:8787, in front of
// UPSTREAM_URL, or of the replay upstream (recorded model outputs; src/replay.js) when none is
// given. Other variables of the README's configuration table are read from the environment.
import { readFileSync } from "node:fs";
import { Miniflare } from "miniflare";
import { workerModules, MODULES_ROOT, COMPATIBILITY_DATE } from "./modules.mjs";
import { replay } from "./src/replay.js";

const port = Number(process.env.PORT || 8787);
const vars = {};
for (const k of ["UPSTREAM_URL", "TOOL_CALL_PARSER", "FALLBACK_PARSER", "REASONING_PARSER", "UPSTREAM_API_KEY", "CORS_ORIGINS", "MAX_BODY_BYTES", "TOOLWIRE_COMMENTS",
  "PROFILE", "RETRY_ON", "MAX_RETRIES", "FALLBACK_MODEL", "RETRY_BASE_MS", "RETRY_HOLD_BYTES", "MODEL_MAP", "MAX_OUTPUT_TOKENS", "PING_INTERVAL_MS"]) {
  if (process.env[k]) vars[k] = process.env[k];
}
// PROFILE may name the file `toolwire probe --out` wrote.
if (vars.PROFILE && !vars.PROFILE.trimStart().startsWith("{")) vars.PROFILE = readFileSync(vars.PROFILE, "utf8");
const replaying = !vars.UPSTREAM_URL;
if (replaying) vars.UPSTREAM_URL = "http://replay.upstream";

const mf = new Miniflare({
  modules: workerModules(),
  modulesRoot: MODULES_ROOT,
  compatibilityDate: COMPATIBILITY_DATE,
  bindings: vars,
  host: "127.0.0.1",
  port,
  ...(replaying && { outboundService: (request) => replay(request, { delayMs: 30 }) }),
});
const url = await mf.ready;
const base = url.href.replace(/\/$/, "");
console.log(`toolwire worker: ${base} in front of ${replaying ? "the replay upstream (recorded model outputs)" : vars.UPSTREAM_URL}`);
console.log(`try:
  curl -sN ${base}/v1/chat/completions -H 'content-type: application/json' \\
    -d '{"model": "Qwen3-Coder-30B-A3B-Instruct", "stream": true, "messages": [{"role": "user", "content": "weather in Paris?"}]}'
  curl -s ${base}/v1/chat/completions -H 'content-type: application/json' \\
    -d '{"model": "Mistral-Small-3.2-24B-Instruct-2506", "messages": [{"role": "user", "content": "weather in Paris?"}]}'
  curl -sN ${base}/v1/messages -H 'content-type: application/json' \\
    -d '{"model": "moonshotai/Kimi-K2-Instruct", "max_tokens": 1024, "stream": true, "messages": [{"role": "user", "content": "weather in Paris?"}]}'
Claude Code: ANTHROPIC_BASE_URL=${base} ANTHROPIC_AUTH_TOKEN=unused ANTHROPIC_MODEL=<upstream model> claude
(Ctrl-C to stop)`);
const stop = async () => {
  await mf.dispose();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
