// Seeds the fuzz corpora from our cases (tests/data) and vLLM's vectors
// (tests/corpus/vllm-sample.json).
//   node scripts/fuzz-seed.mjs [out dir = fuzz/seeds]
// Writes <out>/engine/<hash> (model outputs in the engine targets' input layout, see
// fuzz/src/lib.rs: flags, chunking seed, reasoning pick, `PARSER\n`, text) and
// <out>/json/<hash> (argument objects and tool schemas) and <out>/sse/<hash> (the recorded
// upstream streams of tests/sse in the sse target's layout: flags, chunking seed, `PARSER\n`,
// bytes). `make fuzz` passes these directories
// to libFuzzer as read-only seed corpora.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expectedArguments, loadCases } from "../tests/js/support/cases.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = process.argv[2] ?? join(root, "fuzz/seeds");
rmSync(out, { recursive: true, force: true });
for (const d of ["engine", "json", "sse"]) mkdirSync(join(out, d), { recursive: true });

const cases = [];
for (const c of loadCases()) {
  const { tools, reasoning, ...options } = c.options;
  const calls = expectedArguments(c.events).flatMap((a) => {
    try { return [{ arguments: JSON.parse(a) }]; } catch { return []; }
  });
  cases.push({ parser: c.parser, input: c.input, tools, reasoning, calls, options });
}
for (const v of JSON.parse(readFileSync(join(root, "tests/corpus/vllm-sample.json"), "utf8"))) {
  cases.push({ parser: v.parser, input: v.model_output, tools: v.tools, calls: v.expected_calls });
}

const write = (dir, bytes) => writeFileSync(join(out, dir, createHash("sha1").update(bytes).digest("hex").slice(0, 16)), bytes);
let engine = 0, json = 0;
for (const c of cases) {
  if (typeof c.input !== "string" || typeof c.parser !== "string") continue;
  // Flags: bit 0 tools, bit 3 reasoning, bits 5-7 chunking style 2 (random pieces of 1-4 bytes).
  let flags = (c.tools ? 1 : 0) | (c.reasoning ? 8 : 0) | (2 << 5);
  if (c.options?.keepMalformed === false || c.options?.policy === "strict") flags |= 1 << 1;
  if (c.options?.limits) flags |= 16;
  write("engine", Buffer.concat([Buffer.from([flags, 7, 0]), Buffer.from(`${c.parser}\n${c.input}`, "utf8")]));
  engine++;
  for (const call of c.calls ?? []) {
    if (call?.arguments != null) { write("json", Buffer.from(JSON.stringify(call.arguments, null, 1))); json++; }
  }
  if (c.tools) { write("json", Buffer.from(JSON.stringify(c.tools))); json++; }
}
let sse = 0;
for (const c of JSON.parse(readFileSync(join(root, "tests/sse/cases.json"), "utf8"))) {
  const bytes = readFileSync(join(root, "tests/sse", c.file));
  const parser = c.options?.parser ?? "auto";
  for (const flags of [2 << 5, (2 << 5) | 16 | 1]) {
    write("sse", Buffer.concat([Buffer.from([flags, 11]), Buffer.from(`${parser}\n`), bytes]));
    sse++;
  }
}
console.log(`fuzz seeds: ${engine} engine inputs, ${json} JSON texts, ${sse} SSE streams in ${out}`);
