// A/B of two built packages' SseRewriteStream against an identity TransformStream, in one process.
//   node benches/sse-ab.mjs OLD_PKG_DIR NEW_PKG_DIR [REPS=21] [TOKENS=150,2000,20000] [PER=8] [code]
// Streams as benches/run.mjs section 5 builds them (Hermes, `tokens` chunk objects of ~4
// characters, PER events a network chunk; `code`: the source-file argument). For each size:
// warm-up, then REPS rounds alternating identity / old / new (order reversed every other round),
// each a batch of streams (~20,000 events a batch), CPU time per stream (µs, medians); `paired`
// is the median of new/old per round. The 150-token stream (156 events) is dominated by the
// one-off work of a stream, the 20,000-token one by the steady per-chunk work. The slots are
// not quite alike (the package in the last slot read a few % slower: ninth session, Q12): run
// it again with OLD and NEW swapped.
import { readFileSync } from "node:fs";
import { sseUpstream } from "./sse-upstream.mjs";
const [oldDir, newDir, repsArg, sizesArg, perArg, codeArg] = process.argv.slice(2);
const O = await import(`${oldDir}/stream.node.js`);
const N = await import(`${newDir}/stream.node.js`);
const streams = JSON.parse(readFileSync(new URL("./streams.json", import.meta.url), "utf8"));
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const pipeOnce = async (chunks, make) => {
  let i = 0;
  const source = new ReadableStream({ pull: (c) => (i < chunks.length ? c.enqueue(chunks[i++]) : c.close()) });
  const reader = source.pipeThrough(make()).getReader();
  const out = [];
  let r;
  while (!(r = await reader.read()).done) out.push(r.value);
  return out;
};
const cat = (parts) => Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.length))).toString();
const REPS = +(repsArg || 21);
const per = +(perArg || 8);
const code = codeArg === "code";
const opts = { parser: "hermes" };
const makes = [() => new TransformStream(), () => new O.SseRewriteStream(opts), () => new N.SseRewriteStream(opts)];
for (const tokens of (sizesArg || "150,2000,20000").split(",").map(Number)) {
  const { chunks, events } = sseUpstream(streams, tokens, false, per, code);
  if (cat(await pipeOnce(chunks, makes[1])) !== cat(await pipeOnce(chunks, makes[2]))) console.log(`OUTPUT DIFFERS (${events} events)`);
  const B = Math.max(1, Math.round(20000 / tokens));
  for (const m of makes) { const w = cpuMs(); while (cpuMs() - w < 400) await pipeOnce(chunks, m); }
  const ts = makes.map(() => []);
  for (let r = 0; r < REPS; r++) for (const k of (r & 1 ? [2, 1, 0] : [0, 1, 2])) {
    const t = cpuMs();
    for (let j = 0; j < B; j++) await pipeOnce(chunks, makes[k]);
    ts[k].push(((cpuMs() - t) / B) * 1000);
  }
  const [id, o, n] = ts.map(median);
  const paired = median(ts[1].map((x, i) => ts[2][i] / x));
  console.log(`${events} events, ${per}/chunk${code ? ", code" : ""}: identity ${id.toFixed(1)} µs, old ${o.toFixed(1)} (${(o / id).toFixed(2)}x, +${(o - id).toFixed(1)}), new ${n.toFixed(1)} (${(n / id).toFixed(2)}x, +${(n - id).toFixed(1)}); new/old ${(n / o).toFixed(3)}, paired ${paired.toFixed(3)}`);
}
