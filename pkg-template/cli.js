#!/usr/bin/env node
// The `toolwire` command (package.json `bin`): `npx toolwire probe --base-url URL --model NAME`.
// Exit codes: 0 the endpoint is usable with some parser; 1 it is not (or it could not be reached);
// 2 bad usage.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { PROBES, formatRate, probe } from "./probe.node.js";

const USAGE = `usage: toolwire probe --base-url URL --model NAME [options]

Probes an OpenAI-compatible endpoint with harmless tools and writes a capability profile
(which parser reads the model's calls, parallel calls, schema adherence, error repair,
reasoning replay, streaming), with the evidence for every sample.

  --base-url URL       the endpoint's OpenAI base URL (http://host:8000/v1; /v1 is added to a bare origin)
  --model NAME         the model name the endpoint serves
  --api-key-env VAR    read the API key from the environment variable VAR
  --out FILE           write the profile to FILE (default: standard output); updated after every sample
  --resume FILE        keep the finished samples of FILE (an earlier, interrupted run); --out defaults to FILE
  --samples K          samples per probe (default 3)
  --probes LIST        comma-separated subset of: ${PROBES.join(", ")}
  --timeout-ms N       per-request timeout (default 60000)
  --max-tokens N       max_tokens per request (default 1024)
  --retries N          retries of a request after a network error or 429/5xx (default 1; 0 to 3)
  --extra-body JSON    fields merged into every request (e.g. '{"temperature": 0.7}')
  -h, --help           this text

Exit code: 0 when the endpoint is usable with some parser, 1 when it is not or cannot be reached, 2 on bad usage.`;

const OPTIONS = {
  "--base-url": "baseUrl", "--model": "model", "--api-key-env": "apiKeyEnv", "--out": "out", "--resume": "resume",
  "--samples": "samples", "--probes": "probes", "--timeout-ms": "timeoutMs", "--max-tokens": "maxTokens",
  "--retries": "retries", "--extra-body": "extraBody",
};

class UsageError extends Error {}

function parseArgs(argv) {
  const [command, ...rest] = argv;
  if (command === "-h" || command === "--help" || command === undefined) return { help: true, command };
  if (command !== "probe") throw new UsageError(`unknown command ${JSON.stringify(command)}; the commands are: probe`);
  const args = {};
  for (let i = 0; i < rest.length; i++) {
    let arg = rest[i];
    if (arg === "-h" || arg === "--help") return { help: true, command };
    let value;
    const eq = arg.indexOf("=");
    if (arg.startsWith("--") && eq > 0) {
      value = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    const key = OPTIONS[arg];
    if (!key) throw new UsageError(`unknown option ${arg}; the options are: ${Object.keys(OPTIONS).join(", ")}`);
    if (value === undefined) {
      value = rest[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
    }
    args[key] = value;
  }
  return args;
}

function integer(value, name, min, max) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(value)}`);
  return n;
}

function options(args) {
  if (!args.baseUrl) throw new UsageError("--base-url is required");
  if (!args.model) throw new UsageError("--model is required");
  const o = { baseUrl: args.baseUrl, model: args.model };
  if (args.apiKeyEnv) {
    o.apiKey = process.env[args.apiKeyEnv];
    if (!o.apiKey) throw new UsageError(`the environment variable ${args.apiKeyEnv} (--api-key-env) is not set`);
  }
  if (args.samples !== undefined) o.samples = integer(args.samples, "--samples", 1, 100);
  if (args.timeoutMs !== undefined) o.timeoutMs = integer(args.timeoutMs, "--timeout-ms", 1, 3_600_000);
  if (args.maxTokens !== undefined) o.maxTokens = integer(args.maxTokens, "--max-tokens", 1, 1_000_000);
  if (args.retries !== undefined) o.retries = integer(args.retries, "--retries", 0, 3);
  if (args.probes !== undefined) {
    o.probes = args.probes.split(",").map((s) => s.trim()).filter(Boolean);
    const bad = o.probes.filter((p) => !PROBES.includes(p));
    if (bad.length || !o.probes.length) throw new UsageError(`--probes: unknown ${bad.join(", ") || "(empty)"}; valid: ${PROBES.join(", ")}`);
  }
  if (args.extraBody !== undefined) {
    try {
      o.extraBody = JSON.parse(args.extraBody);
    } catch (e) {
      throw new UsageError(`--extra-body is not JSON: ${e.message}`);
    }
    if (!o.extraBody || typeof o.extraBody !== "object" || Array.isArray(o.extraBody)) throw new UsageError("--extra-body must be a JSON object");
  }
  if (args.resume) {
    try {
      o.resume = JSON.parse(readFileSync(args.resume, "utf8"));
    } catch (e) {
      throw new UsageError(`--resume ${args.resume}: ${e.code === "ENOENT" ? "no such file" : e.message}`);
    }
  }
  return o;
}

/** Writes the profile atomically (a half-written file would not resume). */
function save(file, profile) {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(profile, null, 2) + "\n");
  renameSync(tmp, file);
}

async function main(argv) {
  let args;
  let o;
  try {
    args = parseArgs(argv);
    if (args.help) {
      process.stdout.write(USAGE + "\n");
      return 0;
    }
    o = options(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`toolwire: ${e.message}\n\n${USAGE}\n`);
    return 2;
  }
  const out = args.out ?? args.resume;
  const log = (line) => process.stderr.write(line + "\n");
  log(`toolwire probe: ${o.model} at ${o.baseUrl}, ${o.samples ?? 3} samples per probe${o.resume ? ` (resuming ${args.resume})` : ""}`);
  let profile;
  try {
    profile = await probe({
      ...o,
      onProgress: (p) => log(p.line),
      onUpdate: out ? (p) => save(out, p) : undefined,
    });
  } catch (e) {
    process.stderr.write(`toolwire: ${e.message}\n`);
    return 2;
  }
  if (out) save(out, profile);
  else process.stdout.write(JSON.stringify(profile, null, 2) + "\n");
  if (profile.error) log(`toolwire probe: stopped: ${profile.error}`);
  log(summary(profile) + (out ? `\nprofile: ${out}` : ""));
  return profile.usable ? 0 : 1;
}

function summary(p) {
  if (!p.usable) return `not usable: ${p.error ?? "no basic sample gave a tool call that a parser reads"}`;
  const yes = (v) => (v === null ? "not measured" : v ? "yes" : "no");
  return [
    `usable with parser ${p.detectedParser} (${p.toolCallFormat === "native" ? "the server parses calls itself" : "calls written as text"})`,
    `  parallel calls: ${yes(p.supportsParallelToolUse)} · streaming: ${yes(p.supportsStreamingToolUse)} · error repair: ${yes(p.errorRepair)} · schema: ${p.schemaLevel ?? "not measured"} · needs reasoning replay: ${yes(p.requiresReasoningReplay)}`,
    `  basic: ${formatRate(p.probes.basic?.rate)}`,
  ].join("\n");
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`toolwire: ${e?.stack ?? e}\n`);
    process.exitCode = 1;
  },
);
