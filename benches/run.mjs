// `make bench`: prints the benchmark tables (contract §7).
//   node benches/run.mjs [--quick] [--no-native]
// 1. Native tables (cargo bench --bench native).
// 2. The built package (pkg/, through its JS API) in this Node process, per payload kind: MB/s
//    whole and in 4-byte chunks, ns per 4-byte chunk, the 10x/1x time ratio at 1-byte chunks,
//    peak wasm memory (a fresh process per kind).
// 3. The JS boundary: what one push costs with each way of returning events.
// 4. Side by side on the same Hermes and Qwen3-Coder streams and chunks: toolwire,
//    @ai-sdk-tool/parser (its stream parser's transform, driven synchronously) and a naive
//    accumulate-and-reparse baseline (naive.mjs); time ratios at 1x and 10x.
// Every figure is the median of several runs in one process; the machine is shared and noisy,
// so compare the ratios, not the absolute times.
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cpus } from "node:os";
import { ToolCallParser } from "toolwire";
import { naiveHermes, naiveQwen3Coder } from "./naive.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const REPS = quick ? 3 : 7;
const SIZE = quick ? 256 * 1024 : 1024 * 1024; // throughput inputs
const LIN = quick ? 20_000 : 100_000; // 1x input of the 10x/1x ratio (1-byte chunks)
const PEER = quick ? 8_000 : 16_000; // 1x input of the peer comparison
const streams = JSON.parse(readFileSync(join(root, "benches/streams.json"), "utf8"));
const MB = 1024 * 1024;

const repeatTo = (unit, size) => unit.repeat(Math.max(1, Math.ceil(size / unit.length)));
const chunk = (s, n) => {
  const out = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
};
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
const bytes = (s) => Buffer.byteLength(s);
const mbps = (s, ms) => (bytes(s) / MB / (ms / 1000)).toFixed(0);
function time(fn, reps = REPS) {
  const ts = [];
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    fn();
    ts.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(ts);
}
/** Streams `chunks` through a toolwire parser; returns the number of tool calls ended. */
function toolwire(parser, chunks, tools) {
  const p = new ToolCallParser({ parser, tools });
  let calls = 0;
  for (const c of chunks) for (const e of p.push(c)) if (e.type === "tool-call-end") calls++;
  for (const e of p.finish()) if (e.type === "tool-call-end") calls++;
  p.free();
  return calls;
}
const table = (head, rows) => {
  console.log(`| ${head.join(" | ")} |`);
  console.log(`|${head.map(() => "---").join("|")}|`);
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  console.log();
};

// 1. Native.
if (!args.includes("--no-native")) {
  execFileSync("cargo", ["bench", "--quiet", "--no-default-features", "--bench", "native", "--", ...(quick ? ["--quick"] : [])], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
}

console.log(`Machine: ${cpus()[0]?.model ?? "?"} (${cpus().length} cores), Node ${process.version}; medians of ${REPS} runs.`);
console.log();

// 2. wasm through JS, per payload kind.
console.log(`## wasm through JS (package pkg/, \`ToolCallParser.push\` in Node): MB/s, ns per 4-byte chunk`);
console.log();
const rows = [];
for (const k of streams.kinds) {
  const plain = repeatTo(streams.prose, SIZE);
  const dense = repeatTo(k.unit.replaceAll("{V}", "Paris"), SIZE);
  const big = k.unit.replaceAll("{V}", repeatTo(streams.value, SIZE));
  const cells = [];
  for (const s of [plain, dense, big]) {
    cells.push(mbps(s, time(() => toolwire(k.parser, [s]))));
    const c4 = chunk(s, 4);
    const ms = time(() => toolwire(k.parser, c4));
    cells.push(`${mbps(s, ms)} (${((ms * 1e6) / c4.length).toFixed(0)} ns)`);
  }
  const ratio = (s) => {
    const small = s.slice(0, LIN);
    const large = small.repeat(10);
    const a = time(() => toolwire(k.parser, chunk(small, 1)));
    const b = time(() => toolwire(k.parser, chunk(large, 1)));
    return (b / a).toFixed(1);
  };
  const bigSmall = k.unit.replaceAll("{V}", streams.value.repeat(Math.ceil(LIN / streams.value.length)));
  const bigLarge = k.unit.replaceAll("{V}", streams.value.repeat(Math.ceil(LIN / streams.value.length) * 10));
  const argRatio = time(() => toolwire(k.parser, chunk(bigLarge, 1))) / time(() => toolwire(k.parser, chunk(bigSmall, 1)));
  rows.push([k.kind, `\`${k.parser}\``, ...cells, `${ratio(plain)} / ${ratio(dense)} / ${argRatio.toFixed(1)}`, peakMemory(k)]);
}
table(
  ["stream", "parser", "plain whole", "plain 4 B (ns/chunk)", "dense whole", "dense 4 B (ns/chunk)", `one ${SIZE / MB >= 1 ? SIZE / MB + " MiB" : SIZE / 1024 + " KiB"} arg whole`, "one arg 4 B (ns/chunk)", "10x/1x at 1 B (text / dense / arg)", "peak wasm memory (dense / arg)"],
  rows,
);

/** Peak wasm memory of a fresh Node process streaming the dense and one-argument streams in 4-byte chunks. */
function peakMemory(k) {
  const script = `
    import { readFileSync } from "node:fs";
    import { ToolCallParser } from "toolwire";
    import { initSync } from ${JSON.stringify(join(root, "pkg/dist/toolwire.js"))};
    const w = initSync({ module: new Uint8Array() });
    const [parser, which, size] = JSON.parse(process.argv[1]);
    const streams = JSON.parse(readFileSync("benches/streams.json", "utf8"));
    const unit = streams.kinds.find((k) => k.parser === parser).unit;
    const rep = (u, n) => u.repeat(Math.max(1, Math.ceil(n / u.length)));
    const text = which === "dense" ? rep(unit.replaceAll("{V}", "Paris"), size) : which === "arg" ? unit.replaceAll("{V}", rep(streams.value, size)) : "";
    const p = new ToolCallParser({ parser });
    for (let i = 0; i < text.length; i += 4) p.push(text.slice(i, i + 4));
    p.finish(); p.free();
    console.log(w.memory.buffer.byteLength);`;
  const run = (which) => {
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script, JSON.stringify([k.parser, which, SIZE])], { cwd: root, encoding: "utf8" });
    return r.status === 0 ? Number(r.stdout.trim()) : NaN;
  };
  const empty = run("none");
  const fmt = (n) => (Number.isFinite(n) && Number.isFinite(empty) ? `+${((n - empty) / 1024).toFixed(0)} KiB` : "?");
  return `${fmt(run("dense"))} / ${fmt(run("arg"))}`;
}

// 3. The JS boundary: one push of a 4-byte chunk, by way of returning events.
{
  const { ToolCallParser: Raw } = await import(join(root, "pkg/dist/toolwire.js"));
  const k = streams.kinds[0];
  const c4 = chunk(repeatTo(k.unit.replaceAll("{V}", "Paris"), SIZE / 4), 4);
  const opts = JSON.stringify({ parser: k.parser });
  const variants = {
    "wasm-bindgen `push` only (string in, string out, not read)": () => {
      const p = new Raw(opts);
      for (const c of c4) p.push(c);
      p.finish();
      p.free();
    },
    "package API (`push`: short forms for one-event batches, else JSON.parse)": () => {
      const p = new ToolCallParser({ parser: k.parser });
      for (const c of c4) p.push(c);
      p.finish();
      p.free();
    },
    "package API `pushBytes` (UTF-8 encoded in JS first)": () => {
      const p = new ToolCallParser({ parser: k.parser });
      const enc = new TextEncoder();
      for (const c of c4) p.pushBytes(enc.encode(c));
      p.finish();
      p.free();
    },
  };
  console.log(`## The JS boundary: ns per 4-byte push (\`${k.parser}\` dense stream, ${c4.length} pushes)`);
  console.log();
  table(["way", "ns per push"], Object.entries(variants).map(([name, fn]) => [name, ((time(fn) * 1e6) / c4.length).toFixed(0)]));
}

// 4. Side by side with @ai-sdk-tool/parser and the naive baseline.
{
  let peer;
  try {
    peer = await import("@ai-sdk-tool/parser");
  } catch (e) {
    console.log(`@ai-sdk-tool/parser could not be loaded (${e.message}); peer comparison skipped.`);
  }
  const tools = streams.tools;
  const sdkTools = tools.map((t) => ({ type: "function", name: t.function.name, description: t.function.description, inputSchema: t.function.parameters }));
  /** The peer's stream parser, its transform called synchronously (the Web Stream machinery bypassed). */
  const peerRun = (protocol, chunks) => {
    const Real = globalThis.TransformStream;
    let transformer;
    globalThis.TransformStream = class {
      constructor(t) {
        transformer = t;
      }
    };
    try {
      protocol.createStreamParser({ tools: sdkTools });
    } finally {
      globalThis.TransformStream = Real;
    }
    let calls = 0;
    const controller = { enqueue: (p) => void (p.type === "tool-call" && calls++), error: (e) => { throw e; }, terminate() {} };
    transformer.start?.(controller);
    controller.enqueue({ type: "text-start", id: "t" });
    for (const c of chunks) transformer.transform({ type: "text-delta", id: "t", delta: c }, controller);
    transformer.transform({ type: "text-end", id: "t" }, controller);
    transformer.transform({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: {} }, controller);
    transformer.flush?.(controller);
    return calls;
  };
  const protocols = peer && { hermes: peer.hermesProtocol(), qwen3coder: peer.qwen3CoderProtocol() };
  const naive = { hermes: naiveHermes, qwen3coder: naiveQwen3Coder };
  const rows = [];
  for (const s of streams.peers) {
    for (const size of [PEER, PEER * 10]) {
      const text = repeatTo(s.unit.replaceAll("{V}", "Paris"), size);
      const c4 = chunk(text, 4);
      const expected = toolwire(s.parser, c4, tools);
      const tw = time(() => toolwire(s.parser, c4, tools));
      const cells = [`${s.name}`, `${(bytes(text) / 1024).toFixed(0)} KiB`, `${expected}`, tw.toFixed(1)];
      if (protocols) {
        const got = peerRun(protocols[s.peer], c4);
        const ms = time(() => peerRun(protocols[s.peer], c4));
        cells.push(`${ms.toFixed(1)}${got === expected ? "" : ` (${got} calls)`}`, `${(ms / tw).toFixed(1)}x`);
      } else {
        cells.push("-", "-");
      }
      // Quadratic: one run of the 10x input is plenty.
      let got;
      const ms = time(() => (got = naive[s.peer](c4, tools)), quick || size > PEER ? 1 : 3);
      cells.push(`${ms.toFixed(1)}${got === expected ? "" : ` (${got} calls)`}`, `${(ms / tw).toFixed(1)}x`);
      rows.push(cells);
    }
  }
  const version = JSON.parse(readFileSync(join(root, "node_modules/@ai-sdk-tool/parser/package.json"), "utf8")).version;
  console.log(`## Side by side, 4-byte chunks, with tools (ms; ratio = their time / toolwire's): toolwire (wasm), @ai-sdk-tool/parser ${version}, naive accumulate-and-reparse`);
  console.log();
  table(["stream", "size", "calls", "toolwire ms", "@ai-sdk-tool/parser ms", "ratio", "naive ms", "ratio"], rows);
}
