// Writes www/examples.json: the playground's gallery, one real example per parser family,
// picked from our cases (tests/data/<parser>/) and vLLM's test vectors
// (tests/corpus/vllm-sample.json). Needs the built package (make build).
//   node scripts/gen-examples.mjs           write www/examples.json
//   node scripts/gen-examples.mjs --check   exit 1 when www/examples.json is out of date
// Per family, the example that reads best wins: it yields calls, without diagnostics, from
// vLLM's corpus, with text around the calls, of a readable length.
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, parsers } from "toolwire";
import { loadCases } from "../tests/js/support/cases.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "www/examples.json");
const read = (path) => JSON.parse(readFileSync(join(root, path), "utf8"));

/** Every candidate as {parser, title, source, text, tools?, reasoning?}. */
function candidates() {
  const list = [];
  for (const c of loadCases()) {
    // Options the playground has no control for (templates, policies, limits) are skipped.
    if (Object.keys(c.header).some((k) => k !== "tools" && k !== "reasoning")) continue;
    const { tools, reasoning } = c.options;
    list.push({ parser: c.parser, title: c.description ?? c.case, source: `tests/data/${c.name}.txt`, text: c.input, tools, reasoning });
  }
  for (const v of read("tests/corpus/vllm-sample.json")) {
    list.push({ parser: v.parser, title: `vLLM test: ${basename(v.source ?? "corpus", ".py")}`, source: "tests/corpus/vllm-sample.json", text: v.model_output, tools: v.tools });
  }
  return list;
}

function score(c, id) {
  let r;
  try {
    r = parse(c.text, { parser: id, tools: c.tools, reasoning: c.reasoning });
  } catch {
    return -Infinity;
  }
  let s = 0;
  if (r.toolCalls.length) s += 100;
  if (r.toolCalls.length > 1) s += 5;
  if (!r.diagnostics.length) s += 50;
  if (c.source.includes("corpus")) s += 20;
  if (r.content?.trim()) s += 10;
  if (r.reasoning) s += 5;
  if (c.text.length > 900) s -= 30;
  if (c.text.length < 40) s -= 10;
  return s;
}

export function examples() {
  const families = parsers();
  const idOf = new Map();
  for (const p of families) for (const n of [p.id, ...p.aliases]) idOf.set(n, p.id);
  const best = new Map();
  for (const c of candidates()) {
    const id = idOf.get(c.parser);
    if (!id || typeof c.text !== "string") continue;
    const s = score(c, id);
    if (!(s > (best.get(id)?.s ?? -Infinity))) continue;
    const e = { family: id, title: c.title, source: c.source, text: c.text };
    if (c.tools) e.tools = c.tools;
    if (c.reasoning) e.reasoning = c.reasoning;
    best.set(id, { s, e });
  }
  return families.filter((p) => best.has(p.id)).map((p) => best.get(p.id).e);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const json = JSON.stringify(examples(), null, 1) + "\n";
  if (process.argv.includes("--check")) {
    let old = "";
    try { old = readFileSync(out, "utf8"); } catch {}
    if (old !== json) {
      console.error("www/examples.json is out of date: run node scripts/gen-examples.mjs");
      process.exit(1);
    }
  } else {
    writeFileSync(out, json);
    console.log(`www/examples.json: ${JSON.parse(json).length} examples`);
  }
}
