// The quiet-run fast path of `ToolCallParser.push` (pkg-template/api.js, src/quiet.rs): a push
// the core's hint admits is answered in JS without entering the wasm. Every case of tests/data,
// at every split point, char by char, in 4-character chunks and in random chunkings: each push
// and the finish must give exactly the events the wasm binding gives without the fast path
// (`Plain`: every push fed to the core, nothing answered).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolCallParser } from "toolwire";
import { loadCases } from "./support/cases.mjs";
import { mergeDeltas } from "./support/sse-client.mjs";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "../../pkg");
const { ToolCallParser: Binding, wasmMemory } = await import(join(pkg, "dist/toolwire.js"));
const { decodeEvents } = await import(join(pkg, "events.js"));

// Counts the package's calls into the wasm (the class the package wraps is this one).
let calls = 0;
const pushInput = Binding.prototype.pushInput;
Binding.prototype.pushInput = function (...args) {
  calls++;
  return pushInput.apply(this, args);
};

const utf8In = new TextEncoder();
const utf8Out = new TextDecoder();

/**
 * The core without the package's fast paths: each push's UTF-8 written into the bare binding's
 * input buffer and fed with `pushInput`, nothing answered (`skipped` 0), each result read whole
 * (the text `decodeEvents` reads).
 */
class Plain {
  #w;
  constructor(json) {
    this.#w = new Binding(json);
  }
  push(chunk) {
    const bytes = utf8In.encode(chunk);
    new Uint8Array(wasmMemory().buffer).set(bytes, this.#w.inputBuffer(bytes.length, 0));
    return this.#read(pushInput.call(this.#w, bytes.length, 0));
  }
  finish() {
    return this.#read(this.#w.finishInput(0, 0));
  }
  free() {
    this.#w.free();
  }
  #read(n) {
    return n === 0 ? "" : utf8Out.decode(new Uint8Array(wasmMemory().buffer, this.#w.outputPtr(), n));
  }
}

/** Pushes `chunks` through the package and through the bare binding; returns the quiet pushes. */
function compare(c, chunks, how) {
  const fast = new ToolCallParser(c.options);
  const slow = new Plain(JSON.stringify(c.options));
  let answered = 0;
  try {
    for (const [i, chunk] of chunks.entries()) {
      const want = decodeEvents(slow.push(chunk));
      const before = calls;
      const got = fast.push(chunk);
      answered += calls === before ? 1 : 0;
      assert.deepStrictEqual(got, want, `${c.name}, ${how}: push ${i} ${JSON.stringify(chunk)}`);
    }
    assert.deepStrictEqual(fast.finish(), decodeEvents(slow.finish()), `${c.name}, ${how}: finish`);
  } finally {
    fast.free();
    slow.free();
  }
  return answered;
}

/** `s` cut into pieces of `size` characters (a surrogate pair is never cut). */
function pieces(s, size) {
  const chars = [...s];
  const out = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

/** A small deterministic PRNG (xorshift). */
function rng(seed) {
  let x = seed | 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

const cases = loadCases();

test("every case gives the same events per push with the quiet fast path as without it", () => {
  let quiet = 0;
  let pushes = 0;
  for (const c of cases) {
    const chars = [...c.input];
    for (const [chunks, how] of [[pieces(c.input, 1), "char by char"], [pieces(c.input, 4), "4-character chunks"]]) {
      quiet += compare(c, chunks, how);
      pushes += chunks.length;
    }
    // Every split point (a stride on long cases keeps the suite short).
    const stride = Math.max(1, Math.floor(chars.length / 200));
    for (let cut = 0; cut <= chars.length; cut += stride) {
      compare(c, [chars.slice(0, cut).join(""), chars.slice(cut).join("")], `split at character ${cut}`);
    }
    const next = rng(chars.length + 7);
    for (let r = 0; r < 4; r++) {
      const chunks = [];
      for (let at = 0; at < chars.length; ) {
        const n = 1 + next(12);
        chunks.push(chars.slice(at, at + n).join(""));
        at += n;
      }
      compare(c, chunks, `random chunking ${r}`);
    }
  }
  // The fast path is taken, not only harmless.
  assert.ok(quiet > pushes / 20, `${quiet} of ${pushes} small pushes were answered from the hint`);
});

test("a long argument in 4-byte chunks: deltas answered in JS, limits at the same byte", () => {
  const value = "lorem ipsum dolor sit amet ".repeat(400);
  const input = `<tool_call>\n{"name": "write_file", "arguments": {"path": "a.md", "content": "${value}"}}\n</tool_call>`;
  for (const limits of [undefined, { maxArgsBytes: 5000 }, { maxArgsBytes: 100 }]) {
    const c = { name: `hermes, maxArgsBytes ${limits?.maxArgsBytes ?? "default"}`, options: { parser: "hermes", ...(limits && { limits }) } };
    const chunks = pieces(input, 4);
    const quiet = compare(c, chunks, "4-character chunks");
    // Up to the limit (less the arguments' head), 4 bytes a push.
    const room = Math.min((limits?.maxArgsBytes ?? Infinity) - 40, value.length);
    assert.ok(quiet > (room / 4) * 0.9, `${c.name}: ${quiet} of ${chunks.length} pushes quiet`);
  }
  const xml = `<tool_call>\n<function=write_file>\n<parameter=content>\n${value}\n</parameter>\n</function>\n</tool_call>`;
  const xmlChunks = pieces(xml, 4);
  const before = calls;
  assert.ok(compare({ name: "qwen3_coder", options: { parser: "qwen3_coder" } }, xmlChunks, "4-character chunks") > (value.length / 4) * 0.9);
  // The markup's chunks that continue a held marker (`<function=`, `</parameter>`, ...) or
  // stay inside a tag header (`write_file`) wait in JS too (`Reader::held_marker`,
  // `Reader::held_run`): 23 calls into the wasm without them, 13 with them.
  assert.ok(calls - before <= 13, `${calls - before} qwen3_coder pushes into the wasm`);
});

test("a JSON call's header in 4-byte chunks: the pushes inside `\"name\": \"` and `, \"arguments\": ` wait in JS", () => {
  // Every alignment of the header against the chunks (`Reader::held_run`'s lead); and headers
  // that leave the usual continuation (no space, another key, an escape, a short name limit).
  const c = { name: "hermes header", options: { parser: "hermes" } };
  const tail = '"get_weather", "arguments": {"city": "Paris", "days": 3}}</tool_call> Done.';
  const before = calls;
  for (let shift = 0; shift < 4; shift++) compare(c, pieces(`${"x".repeat(shift)}<tool_call>{"name": ${tail}`, 4), `shift ${shift}`);
  // Pushes into the wasm (of 24 or 25 a shift): 16, 15, 14, 15 without the lead, 12, 12, 10, 13 with it.
  assert.ok(calls - before <= 47, `${calls - before} hermes pushes into the wasm`);
  for (const text of ['<tool_call>{"name":"f","arguments":{"a":1}}</tool_call>', '<tool_call>{"nam\\u0065": "f", "args": {"a": 1}}</tool_call>', '<tool_call>{ "name" : "f" , "arguments" : {}}</tool_call>', '<tool_call>{"name": "f", "name": "g", "arguments": {}}</tool_call>', '<tool_call>{"arguments": {"a": 1}, "name": "f"}</tool_call>']) {
    for (const size of [1, 2, 3, 4, 5]) {
      compare(c, pieces(text, size), `${size}-character chunks`);
      compare({ name: "hermes, maxNameBytes 3", options: { parser: "hermes", limits: { maxNameBytes: 3 } } }, pieces(text, size), `${size}-character chunks`);
      compare({ name: "hermes, maxNameBytes 9", options: { parser: "hermes", limits: { maxNameBytes: 9 } } }, pieces(text, size), `${size}-character chunks`);
    }
  }
});

test("pushBytes and finish hand the waiting quiet characters to the core first", () => {
  const p = new ToolCallParser("hermes");
  const events = [...p.push("Hello"), ...p.push(" there"), ...p.pushBytes(new TextEncoder().encode(", <tool_call>")), ...p.push('{"name": "f", "arguments": {"a": "xy')];
  events.push(...p.push("zw"), ...p.finish());
  p.free();
  const text = events.filter((e) => e.type === "text").map((e) => e.text).join("");
  assert.equal(text, "Hello there, ");
  const end = events.find((e) => e.type === "tool-call-end");
  assert.equal(end.arguments, '{"a": "xyzw"}');
});

test("escapes in a JSON string argument and non-ASCII text are answered in JS where the hint admits them", () => {
  // A code argument full of escapes, and prose, reasoning and an argument with accents, CJK and
  // an emoji (a surrogate pair, whole or cut between two pushes).
  const code = 'fn main() {\\n    println!(\\"héllo\\\\n\\");\\n\\t// 世界 🌍\\n}\\n'.repeat(40);
  const hermes = `Voilà le café ☕ — 日本語のテキスト.<tool_call>\n{"name": "write_file", "arguments": {"path": "a.rs", "content": "${code}"}}\n</tool_call>`;
  for (const size of [4, 7]) {
    const chunks = pieces(hermes, size);
    const quiet = compare({ name: "hermes, escapes and non-ASCII", options: { parser: "hermes" } }, chunks, `${size}-character chunks`);
    // 28% before the hint admitted escapes and non-ASCII, 69% before it admitted a held `\\`.
    assert.ok(quiet > chunks.length * 0.8, `${quiet} of ${chunks.length} pushes answered from the hint`);
  }
  // A surrogate pair cut between two pushes: the wasm path, the same events.
  const emoji = "ab🌍cd".repeat(30);
  const units = [];
  for (let i = 0; i < emoji.length; i += 3) units.push(emoji.slice(i, i + 3));
  compare({ name: "hermes, cut surrogate pairs", options: { parser: "hermes" } }, units, "3-unit chunks");
  const reasoning = `<think>${"réflexion sur le problème, 考える. ".repeat(30)}</think>Réponse: oui.`;
  const chunks = pieces(reasoning, 4);
  const quiet = compare({ name: "qwen3 reasoning, non-ASCII", options: { parser: "hermes", reasoning: "qwen3" } }, chunks, "4-character chunks");
  assert.ok(quiet > chunks.length * 0.7, `${quiet} of ${chunks.length} reasoning pushes answered from the hint`);
});

test("waiting bytes are kept when the input buffer grows and when the memory grows, two parsers interleaved", () => {
  // The quiet pushes' UTF-8 waits in the wasm input buffer (api.js `#view`): a buffer outgrown
  // while bytes wait keeps them, and a memory view detached by growth (another parser's call,
  // or here `grow`) is renewed before a write.
  // Runs of about 40 KB between escapes: longer than a new parser's buffer (at most 16 KiB).
  const code = `${"héllo wörld 世界 🌍 ".repeat(2000)}\\n\\t\\"`.repeat(3);
  const make = (name) => `Hi.<tool_call>\n{"name": "${name}", "arguments": {"content": "${code}", "n": 1}}\n</tool_call> Bye.`;
  const chunks = [pieces(make("a"), 4), pieces(make("b"), 5)];
  const fast = [new ToolCallParser("hermes"), new ToolCallParser("hermes")];
  const slow = [new Plain('"hermes"'), new Plain('"hermes"')];
  const ends = [];
  try {
    for (let i = 0; i < Math.max(chunks[0].length, chunks[1].length); i++) {
      for (const k of [0, 1]) {
        const chunk = chunks[k][i];
        if (chunk === undefined) continue;
        const got = fast[k].push(chunk);
        assert.deepStrictEqual(got, decodeEvents(slow[k].push(chunk)), `parser ${k}: push ${i}`);
        ends.push(...got.filter((e) => e.type === "tool-call-end"));
      }
      if (i % 997 === 0) wasmMemory().grow(1);
    }
    for (const k of [0, 1]) assert.deepStrictEqual(fast[k].finish(), decodeEvents(slow[k].finish()), `parser ${k}: finish`);
    assert.deepStrictEqual(ends.map((e) => [e.name, e.arguments]).sort(), [["a", `{"content": "${code}", "n": 1}`], ["b", `{"content": "${code}", "n": 1}`]]);
  } finally {
    for (const p of [...fast, ...slow]) p.free();
  }
});

// The SSE form (pkg-template/stream.js `SseRewriter` over `pushInput`, src/sse/rewriter.rs
// `push_answered`): network chunks of whole events that the core's hint admits are answered
// without parsing; every chunk's output must be the bare binding's plain `push` once runs of one
// delta text are merged (`mergeDeltas`).
const { SseRewriter: BareRewriter } = await import(join(pkg, "dist/toolwire.js"));
const { SseRewriter } = await import("toolwire/stream");
const sseDir = join(dirname(fileURLToPath(import.meta.url)), "../sse");

/** Feeds `chunks` to the package's rewriter and to the bare binding; returns the answered chunks. */
function compareSse(name, options, chunks) {
  const fast = new SseRewriter(options);
  const slow = new BareRewriter(JSON.stringify(options));
  const before = sseAnswered;
  try {
    for (const [i, chunk] of chunks.entries()) {
      // (The package sends a quiet run of deltas within a chunk as one event.)
      const want = mergeDeltas(slow.push(chunk));
      const got = mergeDeltas(fast.push(chunk));
      assert.equal(got, want, `${name}: chunk ${i}`);
    }
    assert.equal(Buffer.from(fast.finish()).toString(), Buffer.from(slow.finish()).toString(), `${name}: finish`);
  } finally {
    fast.free();
    slow.free();
  }
  return sseAnswered - before;
}
// Counts the chunks the package's rewriters had answered from the hint.
let sseAnswered = 0;
const pushSse = BareRewriter.prototype.pushInput;
BareRewriter.prototype.pushInput = function (...args) {
  const before = this.quietChunks();
  const r = pushSse.apply(this, args);
  sseAnswered += this.quietChunks() - before;
  return r;
};

/** `input` (bytes) cut into events, joined `per` to a network chunk. */
function eventChunks(input, per) {
  const text = Buffer.from(input).toString("latin1");
  const events = text.split(/(?<=\n\n)/);
  const out = [];
  for (let i = 0; i < events.length; i += per) out.push(new Uint8Array(Buffer.from(events.slice(i, i + per).join(""), "latin1")));
  return out;
}

test("SseRewriter: the quiet path writes what the rewriter writes, on every recorded stream and a long call", () => {
  const cases = JSON.parse(readFileSync(join(sseDir, "cases.json"), "utf8"));
  for (const c of cases) {
    const input = readFileSync(join(sseDir, c.file));
    for (const per of [1, 3, 8]) compareSse(`${c.file}, ${per} events a chunk`, c.options, eventChunks(input, per));
  }
  const value = "lorem ipsum dolor sit amet, ".repeat(60);
  const text = `<think>Let me think.</think>Sure. <tool_call>\n{"name": "write_file", "arguments": {"path": "a.md", "content": "${value}"}}\n</tool_call> Done.`;
  const head = '{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":';
  let sse = `data: ${head}{"role":"assistant","content":""},"finish_reason":null}]}\n\n`;
  for (let i = 0; i < text.length; i += 4) sse += `data: ${head}{"content":${JSON.stringify(text.slice(i, i + 4))}},"finish_reason":null}]}\n\n`;
  sse += `data: ${head}{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`;
  const input = new TextEncoder().encode(sse);
  for (const options of [{ parser: "hermes" }, { parser: "hermes", reasoning: "qwen3" }, { parser: "hermes", limits: { maxArgsBytes: 300 } }]) {
    for (const per of [1, 8]) {
      const chunks = eventChunks(input, per);
      const answered = compareSse(`${JSON.stringify(options)}, ${per} a chunk`, options, chunks);
      if (!options.limits) assert.ok(answered > chunks.length * 0.8, `${JSON.stringify(options)}: ${answered} of ${chunks.length} chunks answered`);
    }
  }
});

test("SseRewriter: the quiet path reads escaped texts (prose, reasoning, arguments) as the rewriter does", () => {
  const prose = 'Line one\n\tsays "hi" to C:\\dir/file, A\u0001B caf\u00e9 <b>\n\n';
  const value = 'fn main() {\\n    println!(\\"A/B\\");\\n}\\n'.repeat(20);
  const text = `<think>Think "twice":\n- a/b\n- \\x\n</think>${prose}<tool_call>\n{"name": "write_file", "arguments": {"path": "src/a.rs", "content": "${value}", "note": "${"A/B plain ".repeat(20)}"}}\n</tool_call> Done.\n`;
  const head = '{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":';
  // Some events write `/` as `\/`, `A` as `\u0041` and `e` as `\u0065`, as upstreams may.
  const piece = (s, n) => {
    const json = JSON.stringify(s);
    return n % 3 === 0 ? json.replaceAll("/", "\\/") : n % 3 === 1 ? json.replaceAll("A", "\\u0041").replaceAll("e", "\\u0065") : json;
  };
  let sse = `data: ${head}{"role":"assistant","content":""},"finish_reason":null}]}\n\n`;
  for (let i = 0; i < text.length; i += 4) sse += `data: ${head}{"content":${piece(text.slice(i, i + 4), i / 4)}},"finish_reason":null}]}\n\n`;
  sse += `data: ${head}{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`;
  for (const needle of ["\\\\n", '\\"', "\\u0041", "\\/", "\\u0001"]) assert.ok(sse.includes(needle), needle);
  const input = new TextEncoder().encode(sse);
  for (const options of [{ parser: "hermes" }, { parser: "hermes", reasoning: "qwen3" }, { parser: "hermes", limits: { maxArgsBytes: 300 } }]) {
    for (const per of [1, 3, 8]) {
      const chunks = eventChunks(input, per);
      const answered = compareSse(`escapes, ${JSON.stringify(options)}, ${per} a chunk`, options, chunks);
      if (!options.limits && per === 1) assert.ok(answered > chunks.length / 3, `${JSON.stringify(options)}: ${answered} of ${chunks.length} chunks answered`);
    }
  }
});

test("SseRewriter: the quiet path reads non-ASCII texts (raw and as \\u escapes) as the rewriter does", () => {
  const text = `<think>Réfléchissons… 考えてみる — “quoted”</think>東京は日本の首都です。Ça coûte 5 €. 🙂 <tool_call>\n{"name": "write_file", "arguments": {"path": "notes/東京.md", "content": "${"東京タワー 🗼 café ".repeat(30)}"}}\n</tool_call> 完了。`;
  const head = '{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":';
  const chars = [...text];
  let sse = `data: ${head}{"role":"assistant","content":""},"finish_reason":null}]}\n\n`;
  for (let i = 0; i < chars.length; i += 4) {
    const json = JSON.stringify(chars.slice(i, i + 4).join(""));
    sse += `data: ${head}{"content":${i % 20 === 0 ? json.replaceAll("é", "\\u00e9") : json}},"finish_reason":null}]}\n\n`;
  }
  sse += `data: ${head}{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`;
  assert.ok(sse.includes("\\u00e9") && sse.includes("é"));
  const input = new TextEncoder().encode(sse);
  for (const options of [{ parser: "hermes" }, { parser: "hermes", reasoning: "qwen3" }, { parser: "hermes", limits: { maxArgsBytes: 300 } }]) {
    for (const per of [1, 3, 8]) {
      const chunks = eventChunks(input, per);
      const answered = compareSse(`non-ASCII, ${JSON.stringify(options)}, ${per} a chunk`, options, chunks);
      if (!options.limits && per === 1) assert.ok(answered > chunks.length / 2, `${JSON.stringify(options)}: ${answered} of ${chunks.length} chunks answered`);
    }
  }
});

test("SseRewriter: chunks larger than the kept input buffer, between small ones, write what the rewriter writes", () => {
  const value = "lorem ipsum dolor sit amet, ".repeat(3000);
  const text = `Sure. <tool_call>\n{"name": "write_file", "arguments": {"path": "a.md", "content": "${value}"}}\n</tool_call> Done.`;
  const head = '{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":';
  let sse = `data: ${head}{"role":"assistant","content":""},"finish_reason":null}]}\n\n`;
  for (let i = 0; i < text.length; i += 4) sse += `data: ${head}{"content":${JSON.stringify(text.slice(i, i + 4))}},"finish_reason":null}]}\n\n`;
  sse += `data: ${head}{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`;
  const events = eventChunks(new TextEncoder().encode(sse), 1);
  const join = (list) => new Uint8Array(Buffer.concat(list));
  // Small chunks, one of about 200 KB, small chunks again, one of about 100 KB, the rest.
  const chunks = [...events.slice(0, 300), join(events.slice(300, 2000)), ...events.slice(2000, 2300), join(events.slice(2300, 3000)), ...events.slice(3000)];
  assert.ok(chunks.some((c) => c.length > 150_000));
  const answered = compareSse("large chunks", { parser: "hermes" }, chunks);
  assert.ok(answered > 300, `${answered} chunks answered`);
});

test("SseRewriter: push, pushOwned and pushView give the same bytes; only push copies an unchanged chunk", () => {
  const cases = JSON.parse(readFileSync(join(sseDir, "cases.json"), "utf8"));
  for (const c of cases) {
    const chunks = eventChunks(readFileSync(join(sseDir, c.file)), 1);
    const [a, b, v] = [new SseRewriter(c.options), new SseRewriter(c.options), new SseRewriter(c.options)];
    try {
      for (const [i, chunk] of chunks.entries()) {
        const want = Buffer.from(a.push(chunk)).toString();
        const owned = b.pushOwned(chunk.slice());
        const input = chunk.slice();
        const view = v.pushView(input);
        // A view is read at once (it is valid until the next call into toolwire).
        assert.equal(Buffer.from(view).toString(), want, `${c.file}: pushView, chunk ${i}`);
        assert.equal(Buffer.from(owned).toString(), want, `${c.file}: pushOwned, chunk ${i}`);
        if (view !== input && view.length) assert.notEqual(view.buffer, input.buffer);
      }
      const last = Buffer.from(a.finish()).toString();
      assert.equal(Buffer.from(b.finish()).toString(), last);
      assert.equal(Buffer.from(v.finish()).toString(), last);
    } finally {
      a.free();
      b.free();
      v.free();
    }
  }
});

/** A long call as SSE (prose, a call whose arguments are long, reasoning when `think`). */
function longCallSse(think) {
  const value = "lorem ipsum dolor sit amet, ".repeat(400);
  const text = `${think ? "<think>Let me think.</think>" : ""}Sure. <tool_call>\n{"name": "write_file", "arguments": {"path": "a.md", "content": "${value}"}}\n</tool_call> Done.`;
  const head = '{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":';
  let sse = `data: ${head}{"role":"assistant","content":""},"finish_reason":null}]}\n\n`;
  for (let i = 0; i < text.length; i += 4) sse += `data: ${head}{"content":${JSON.stringify(text.slice(i, i + 4))}},"finish_reason":null}]}\n\n`;
  return new TextEncoder().encode(`${sse}data: ${head}{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`);
}

test("SseRewriter: rewritten answers share slabs; a consumer that transfers an answer's buffer loses nothing written afterwards", () => {
  for (const options of [{ parser: "hermes" }, { parser: "hermes", reasoning: "qwen3" }]) {
    for (const per of [1, 8]) {
      const chunks = eventChunks(longCallSse(!!options.reasoning), per);
      const fast = new SseRewriter(options);
      const slow = new BareRewriter(JSON.stringify(options));
      let shared = 0;
      let detached = 0;
      const kept = [];
      try {
        for (const [i, chunk] of chunks.entries()) {
          const want = mergeDeltas(slow.push(chunk));
          const got = fast.pushOwned(chunk.slice());
          assert.equal(mergeDeltas(got), want, `${JSON.stringify(options)}, ${per} a chunk: chunk ${i}`);
          if (got.buffer.byteLength > got.length) shared++;
          // Now and then (after full slabs) an answer's buffer is transferred away, detaching
          // the answers that share it.
          if (i % (per === 1 ? 1500 : 200) === 30 && got.length) {
            structuredClone(got, { transfer: [got.buffer] });
            detached++;
          } else {
            kept.push([got, want]);
          }
        }
        // The answers not transferred away (some in slabs detached since) keep their bytes:
        // a slab is never written again where an answer was handed out.
        for (const [got, want] of kept) if (got.buffer.byteLength) assert.equal(mergeDeltas(got), want);
        assert.equal(Buffer.from(fast.finish()).toString(), Buffer.from(slow.finish()).toString());
      } finally {
        fast.free();
        slow.free();
      }
      assert.ok(shared > chunks.length / 2 && detached >= 2, `${shared} of ${chunks.length} answers in a slab, ${detached} detached`);
    }
  }
});

test("SseRewriteStream: a reader that transfers each chunk's buffer gets every byte the rewriter writes", async () => {
  const { SseRewriteStream } = await import("toolwire/stream");
  for (const per of [1, 8]) {
    const chunks = eventChunks(longCallSse(false), per);
    const slow = new BareRewriter(JSON.stringify({ parser: "hermes" }));
    const want = mergeDeltas(Buffer.concat([...chunks.map((c) => Buffer.from(slow.push(c))), Buffer.from(slow.finish())]));
    slow.free();
    let i = 0;
    const source = new ReadableStream({ pull: (c) => (i < chunks.length ? c.enqueue(chunks[i++].slice()) : c.close()) });
    const reader = source.pipeThrough(new SseRewriteStream({ parser: "hermes" })).getReader();
    const got = [];
    for (let r; !(r = await reader.read()).done; ) {
      got.push(Buffer.from(r.value));
      structuredClone(r.value, { transfer: [r.value.buffer] });
    }
    assert.equal(mergeDeltas(Buffer.concat(got)), want, `${per} events a chunk`);
  }
});

test("SseRewriter: a quiet run of argument deltas within one network chunk goes out as one event", () => {
  const value = "lorem ipsum dolor sit amet, ".repeat(60);
  const text = `Sure. <tool_call>\n{"name": "write_file", "arguments": {"path": "a.md", "content": "${value}"}}\n</tool_call>`;
  const head = '{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":';
  let sse = "";
  for (let i = 0; i < text.length; i += 4) sse += `data: ${head}{"content":${JSON.stringify(text.slice(i, i + 4))}},"finish_reason":null}]}\n\n`;
  const chunks = eventChunks(new TextEncoder().encode(sse), 8);
  const rw = new SseRewriter({ parser: "hermes" });
  const slow = new BareRewriter(JSON.stringify({ parser: "hermes" }));
  const count = (s) => s.split("\n\n").length - 1;
  let one = 0;
  try {
    for (const chunk of chunks) {
      const got = Buffer.from(rw.push(chunk)).toString();
      const want = Buffer.from(slow.push(chunk)).toString();
      assert.equal(mergeDeltas(got), mergeDeltas(want));
      if (count(got) === 1 && count(want) === 8) one++;
    }
  } finally {
    rw.free();
    slow.free();
  }
  assert.ok(one > chunks.length * 0.8, `${one} of ${chunks.length} chunks came out as one event`);
});
