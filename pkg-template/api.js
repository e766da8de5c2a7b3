// The API shared by every entry. The wasm must be instantiated before these are called (the
// node and workerd entries do it at import; the browser entry through `init()`).
// Options cross into the wasm as JSON text; whole-text results come back as JSON text, and a
// streaming parser's events in a form read without JSON (`decodeEvents` in events.js).
import {
  parse as wasmParse,
  detectParser as wasmDetectParser,
  sniffParser as wasmSniffParser,
  classify as wasmClassify,
  ToolCallParser as WasmParser,
} from "./dist/toolwire.js";
import { memoryBytes, memoryWords, readStopSet } from "./memory.js";
import * as meta from "./meta.js";
import { decodeEvents as events } from "./events.js";

/** Options as JSON text: an options object, or a parser name. */
export function optionsJson(options) {
  return JSON.stringify(typeof options === "string" ? { parser: options } : (options ?? {}));
}

/** The options text of the latest parser, and what it says as a fresh copy (`parserOptionsJson`). */
let lastJson = "";
let lastCopy;

/**
 * `optionsJson` for a parser: a program usually builds every parser with the same options (the
 * same tools). When `options` say exactly what the latest parser's said (`sameJson`: a walk
 * over them, about a third of `JSON.stringify`'s time), the latest text is reused. The copy is
 * the package's own (`JSON.parse` of the text), so options mutated in place since, at any
 * depth, are compared by what they say now, never by identity.
 */
function parserOptionsJson(options) {
  const o = typeof options === "string" ? { parser: options } : (options ?? {});
  if (lastCopy !== undefined && sameJson(o, lastCopy, 0)) return lastJson;
  const json = JSON.stringify(o);
  if (json !== undefined) {
    lastJson = json;
    lastCopy = JSON.parse(json);
  }
  return json;
}

/**
 * True when `JSON.stringify(value)` is the text that `copy` was parsed from: the same own keys
 * in the same order with the same values (a value `JSON.stringify` would write otherwise,
 * `undefined`, a function, a `toJSON`, a non-finite number, a hole, compares unequal; so does
 * nesting deeper than 32).
 */
function sameJson(value, copy, depth) {
  if (value === copy) return true;
  if (typeof value !== "object" || value === null || typeof copy !== "object" || copy === null || depth > 32 || typeof value.toJSON === "function") return false;
  if (Array.isArray(copy)) {
    if (!Array.isArray(value) || value.length !== copy.length) return false;
    for (let i = 0; i < copy.length; i++) if (!sameJson(value[i], copy[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const copyKeys = Object.keys(copy);
  if (keys.length !== copyKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (k !== copyKeys[i] || !sameJson(value[k], copy[k], depth + 1)) return false;
  }
  return true;
}

/** The text argument of `what`: a string, else a TypeError that says what was expected. */
function text(value, what) {
  if (typeof value === "string") return value;
  throw new TypeError(`${what}: expected the model's text as a string, got ${describe(value)}`);
}

/** A short description of a value's type for error messages. */
function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  return typeof value === "object" ? `an object (${Object.prototype.toString.call(value).slice(8, -1)})` : typeof value;
}

/** Parses a whole text: `{content, reasoning, toolCalls, diagnostics}`. */
export function parse(input, options) {
  return JSON.parse(wasmParse(text(input, "parse"), optionsJson(options)));
}

const copy = (list) => list.map((x) => ({ ...x, aliases: [...x.aliases], ...(x.models && { models: [...x.models] }) }));

/** Every parser family: `[{id, aliases, models, description}]` (a fresh copy). */
export function parsers() {
  return copy(meta.parsers);
}

/** Every reasoning parser (vLLM `--reasoning-parser` names): `[{id, aliases, description}]`. */
export function reasoningParsers() {
  return copy(meta.reasoningParsers);
}

/** The parser id for a model name, or null when unknown. */
export function detectParser(model) {
  return wasmDetectParser(String(model ?? "")) ?? null;
}

/** Which families' markers appear in a text, most specific first. */
export function sniffParser(input) {
  return JSON.parse(wasmSniffParser(text(input, "sniffParser")));
}

/** Every family's reading of one text: `[{parser, verdict, count?, content, reasoning, toolCalls, diagnostics}]`. */
export function classify(input, options) {
  return JSON.parse(wasmClassify(text(input, "classify"), optionsJson(options)));
}

const utf8In = new TextEncoder();
const utf8Out = new TextDecoder();
/** A string of `len` bytes of UTF-8 at `ptr` in wasm memory (short ASCII without TextDecoder). */
function readString(ptr, len) {
  const m = memoryBytes();
  if (len <= 64) {
    let s = "";
    for (let i = ptr; i < ptr + len; i++) {
      const b = m[i];
      if (b >= 0x80) return utf8Out.decode(m.subarray(ptr, ptr + len));
      s += String.fromCharCode(b);
    }
    return s;
  }
  return utf8Out.decode(m.subarray(ptr, ptr + len));
}

/** The second character of a JSON simple escape: `"`, `\\`, `/`, `b`, `f`, `n`, `r`, `t`. */
function isSimpleEscape(c) {
  return c === 34 || c === 92 || c === 47 || c === 98 || c === 102 || c === 110 || c === 114 || c === 116;
}

/** At most this many characters of quiet pushes wait for the next call into the wasm. */
const PENDING_MAX = 1 << 16;
/** The input buffer size a new parser starts with: the largest one recent parsers needed. */
let inputSizeHint = 256;
const INPUT_HINT_MAX = 1 << 14;
/**
 * Freed parsers' wasm objects, for the next parsers to take (`renew`: a parser exactly as new,
 * its buffers' allocations kept, `ToolCallParser::recycle` in src/parser.rs: a program builds
 * a parser per reply). Flat: the wasm object, its input buffer's address and size (0 and 0:
 * none). At most `POOL_MAX` of them, none that read more than `SPARE_MAX_BYTES` of input or has
 * an input buffer over that size (so a pooled parser's buffers are small; the core keeps none
 * over that size either).
 */
const pool = [];
const POOL_MAX = 4;
const SPARE_MAX_BYTES = 1 << 16;

/**
 * The hint's kind when no event comes from the bytes of a lead (exact, maybe none) and then
 * until a byte of the stop set (`ToolCallParser::held_run`); a held marker (the core holds a
 * proper prefix of one, `ToolCallParser::held_marker`) comes as a lead with nothing after it.
 */
const HELD_RUN = 5;

/** `pushInput`'s `skipped` for `pushBytes` (src/wasm.rs `BYTES`, `usize::MAX`). */
const BYTES = 0xffffffff;

/**
 * A streaming parser: `push(chunk)` / `finish()` return arrays of events. Free it when done.
 * `push` writes the chunk's UTF-8 into an input buffer in wasm memory (ASCII without
 * TextEncoder) and reads the result only when there are events (numbers in the README).
 *
 * Quiet runs: after each call into the wasm the core says (`quietPtr`, src/quiet.rs) whether
 * the next chunks, if they are ASCII without certain bytes, would just come back as one text,
 * reasoning or arguments event each. Such a push is answered here without entering the wasm;
 * its characters wait (at most the core's byte budget, at most `PENDING_MAX`) and go in
 * before the next chunk that is not quiet (or at `finish`), marked as answered already, so the
 * core still sees every byte and leaves their events out. When all the core holds is a proper
 * prefix of a marker (`<too` of `<tool_call>`), the hint gives the bytes that continue it: a
 * chunk that continues it without completing it gives no event and waits too, fed as it is;
 * so does ASCII inside a call's header string (the name, a key) short of its closing quote.
 */
export class ToolCallParser {
  #wasm;
  #finished = false;
  /**
   * The wasm input buffer: its address and size (0: none yet), and a view of the memory (a
   * view detached by memory growth has length 0: `#view` renews it).
   */
  #inputAt = 0;
  #inputSize = 0;
  #mem = memoryBytes();
  /**
   * Where the core's quiet-run hint is (a u32 index into the memory), and what it says; kind
   * `HELD_RUN`: the lead's address (`#quietIndex`) and length (`#leadBytes`), the budget (the
   * lead's and the run's) and the stop set of a header no event comes from.
   */
  #quietAt = 0;
  #quietKind = 0;
  #quietIndex = 0;
  #quietBudget = 0;
  #leadBytes = 0;
  #stop = new Int32Array(4);
  /** Simple escapes are quiet (the stop set's DEL bit); so are whole non-ASCII characters. */
  #quietEscapes = false;
  #quietUtf8 = false;
  /** The core holds the `\\` of an escape in an argument string: the next quiet chunk completes it. */
  #quietBackslash = false;
  /**
   * Bytes of pushes answered already (quiet ones, `#pendingBytes` of them) or held (continuing
   * a held marker or in a held run, `#heldBytes` of them, ASCII), not yet handed to the core: their UTF-8 waits
   * at the start of the input buffer, written there as the characters are checked (a cached
   * view: cheaper than a string of 4-character pieces flattened and encoded at the hand-off).
   * One kind at a time: a hint is renewed only by a call that takes all that waits.
   */
  #pendingBytes = 0;
  #heldBytes = 0;
  /** Bytes of input so far, but for those waiting (`pool`: a parser that read more is not kept). */
  #fed = 0;

  constructor(options) {
    const json = parserOptionsJson(options);
    if (pool.length === 0) {
      this.#wasm = new WasmParser(json);
    } else {
      // A freed parser's wasm object, made what `new WasmParser(json)` makes (or left in the pool when `json` is refused).
      const size = pool.pop();
      const at = pool.pop();
      const wasm = pool.pop();
      try {
        wasm.renew(json);
      } catch (e) {
        pool.push(wasm, at, size);
        throw e;
      }
      this.#wasm = wasm;
      this.#inputAt = at;
      this.#inputSize = size;
    }
    this.#quietAt = this.#wasm.quietPtr() >>> 2;
    this.#readQuiet();
  }

  /** The resolved parser id (useful with `parser: "auto"`). */
  get parser() {
    return this.#live().parser;
  }

  /**
   * Feeds a text chunk; returns the events it completes. Most quiet pushes (ASCII outside the
   * stop set, room in the input buffer: nothing is held under a quiet hint, what waits is
   * `#pendingBytes`; a live view) are answered here, a body small enough for V8 to inline into
   * the caller's loop; the rest in `#pushRest` (non-ASCII, escapes, a held `\\`, growth, calls
   * into the wasm).
   */
  push(chunk) {
    const kind = this.#quietKind;
    if (kind !== 0 && kind < HELD_RUN && typeof chunk === "string" && !this.#quietBackslash) {
      const n = chunk.length;
      const pending = this.#pendingBytes;
      const m = this.#mem;
      if (n !== 0 && pending + n <= this.#quietBudget && pending + n * 3 <= this.#inputSize && m.length !== 0) {
        const at = this.#inputAt + pending;
        const stop = this.#stop;
        let i = 0;
        for (; i < n; i++) {
          const c = chunk.charCodeAt(i);
          if (c >= 0x80 || ((stop[c >> 5] >>> (c & 31)) & 1) !== 0) break;
          m[at + i] = c;
        }
        if (i === n) {
          this.#pendingBytes = pending + n;
          return kind === 1 ? [{ type: "text", text: chunk }] : kind === 2 ? [{ type: "reasoning", text: chunk }] : [{ type: "tool-call-delta", index: this.#quietIndex, argumentsDelta: chunk }];
        }
      }
    }
    return this.#pushRest(chunk);
  }

  /** `push` of a chunk its fast path did not answer. */
  #pushRest(chunk) {
    if (typeof chunk !== "string") {
      throw new TypeError(`ToolCallParser.push: expected a string chunk (pushBytes takes a Uint8Array), got ${describe(chunk)}`);
    }
    const n = chunk.length;
    // A hint means a live parser that takes input (`finish` and `free` clear it).
    if (this.#quietKind === HELD_RUN) {
      if (n !== 0 && this.#heldBytes + n <= this.#quietBudget && this.#continuesRun(chunk)) {
        this.#heldBytes += n;
        return [];
      }
    } else if (this.#quietKind !== 0 && this.#pendingBytes + n <= this.#quietBudget) {
      // A chunk of n UTF-16 units is at least n bytes of UTF-8 (at most 3n: the room for it).
      let bytes = -1;
      // A held `\\`: the chunk starts with the escape's second character, the event with `\\`.
      const held = this.#quietBackslash;
      const m = this.#view(n * 3);
      const at = this.#inputAt + this.#pendingBytes;
      let i = 0;
      if (!held) {
        // ASCII outside the stop set (most chunks) here, written as checked; the rest in `#quietBytes`.
        const stop = this.#stop;
        for (; i < n; i++) {
          const c = chunk.charCodeAt(i);
          if (c >= 0x80 || ((stop[c >> 5] >>> (c & 31)) & 1) !== 0) break;
          m[at + i] = c;
        }
        bytes = i === n ? n : this.#quietBytes(chunk, i);
      } else if (n === 0 || isSimpleEscape(chunk.charCodeAt(0))) {
        bytes = this.#quietBytes(chunk, n === 0 ? 0 : 1);
      }
      if (bytes >= 0 && this.#pendingBytes + bytes <= this.#quietBudget) {
        if (n === 0) return [];
        if (i !== n) utf8In.encodeInto(chunk, m.subarray(at, at + n * 3));
        this.#pendingBytes += bytes;
        this.#quietBackslash = false;
        switch (this.#quietKind) {
          case 1:
            return [{ type: "text", text: chunk }];
          case 2:
            return [{ type: "reasoning", text: chunk }];
          default:
            return [{ type: "tool-call-delta", index: this.#quietIndex, argumentsDelta: held ? "\\" + chunk : chunk }];
        }
      }
    }
    const wasm = this.#open("push");
    const skipped = this.#pendingBytes;
    const out = wasm.pushInput(this.#input(chunk), skipped);
    this.#readQuiet();
    return out === 0 ? [] : events(readString(wasm.outputPtr(), out));
  }

  /**
   * The memory view, with room for `need` bytes in the input buffer after those waiting: a
   * larger buffer (twice the size at least) keeps them (`inputBuffer`).
   */
  #view(need) {
    const used = this.#pendingBytes + this.#heldBytes;
    if (used + need > this.#inputSize) {
      this.#inputSize = Math.max(used + need, this.#inputSize * 2, inputSizeHint);
      if (this.#inputSize > inputSizeHint) inputSizeHint = Math.min(this.#inputSize, INPUT_HINT_MAX);
      this.#inputAt = this.#live().inputBuffer(this.#inputSize, used);
      return (this.#mem = memoryBytes());
    }
    const m = this.#mem;
    return m.length !== 0 ? m : (this.#mem = memoryBytes());
  }

  /**
   * True when `chunk` is ASCII that continues a held run (`HELD_RUN`) where the held pushes
   * left it: the lead's bytes, then none of the stop set; writes it.
   */
  #continuesRun(chunk) {
    const n = chunk.length;
    const m = this.#view(n);
    const stop = this.#stop;
    const held = this.#heldBytes;
    const lead = this.#leadBytes - held;
    const at = this.#quietIndex + held;
    const to = this.#inputAt + held;
    for (let i = 0; i < n; i++) {
      const c = chunk.charCodeAt(i);
      if (c >= 0x80 || (i < lead ? c !== m[at + i] : ((stop[c >> 5] >>> (c & 31)) & 1) !== 0)) return false;
      m[to + i] = c;
    }
    return true;
  }

  /**
   * The UTF-8 length of `chunk` when the hint admits it (as `Quiet::admits` in src/quiet.rs),
   * else -1: no ASCII byte of the stop set, but for a whole simple escape (`\\n`, `\\"`, ...)
   * when the set marks escapes quiet (its DEL bit, `Stop::ESCAPES`); non-ASCII characters only
   * when the hint says so (`utf8`), whole (a surrogate pair in the chunk). Reads from `from`
   * (the characters before it are ASCII and admitted).
   */
  #quietBytes(chunk, from) {
    const stop = this.#stop;
    const n = chunk.length;
    let bytes = n;
    for (let i = from; i < n; i++) {
      const c = chunk.charCodeAt(i);
      if (c < 0x80) {
        if (((stop[c >> 5] >>> (c & 31)) & 1) === 0) continue;
        if (c === 92 && this.#quietEscapes && i + 1 < n && isSimpleEscape(chunk.charCodeAt(i + 1))) {
          i++;
          continue;
        }
        return -1;
      }
      if (!this.#quietUtf8) return -1;
      if (c < 0x800) bytes += 1;
      else if (c < 0xd800 || c > 0xdfff) bytes += 2;
      else if (c <= 0xdbff && i + 1 < n && (chunk.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        bytes += 2;
        i++;
      } else return -1;
    }
    return bytes;
  }

  /**
   * Writes `text`'s UTF-8 into the input buffer after the bytes waiting, which no longer wait;
   * returns the length of it all in bytes.
   */
  #input(text) {
    const n = text.length;
    const m = this.#view(n * 3);
    const at = this.#inputAt + this.#pendingBytes + this.#heldBytes;
    this.#pendingBytes = 0;
    this.#heldBytes = 0;
    let len = 0;
    // Short ASCII without TextEncoder; a long text in one go.
    if (n <= 64) {
      while (len < n) {
        const c = text.charCodeAt(len);
        if (c >= 0x80) break;
        m[at + len++] = c;
      }
    }
    if (len < n) len += utf8In.encodeInto(len === 0 ? text : text.slice(len), m.subarray(at + len, this.#inputAt + this.#inputSize)).written;
    const all = at - this.#inputAt + len;
    this.#fed += all;
    return all;
  }

  /** Reads the core's quiet-run hint (after every call that took input). */
  #readQuiet() {
    const w = memoryWords();
    const at = this.#quietAt;
    this.#quietKind = w[at];
    if (this.#quietKind === 0) return;
    this.#quietIndex = w[at + 1];
    this.#quietBudget = Math.min(w[at + 2], PENDING_MAX);
    readStopSet(w, at + 3, this.#stop);
    this.#quietEscapes = this.#stop[3] < 0;
    this.#quietUtf8 = (w[at + 7] & 1) !== 0;
    this.#quietBackslash = (w[at + 7] & 2) !== 0;
    // (`HELD_RUN`: the flags word is the lead's length; the two flags above are not read then.)
    this.#leadBytes = w[at + 7];
  }

  /** Hands the characters waiting to the core (the quiet ones' events were returned already). */
  #flush(wasm) {
    const skipped = this.#pendingBytes;
    if (skipped + this.#heldBytes !== 0) {
      wasm.pushInput(this.#input(""), skipped);
      this.#readQuiet();
    }
  }

  /** Feeds UTF-8 bytes (a code point may be split across chunks). */
  pushBytes(bytes) {
    if (!(bytes instanceof Uint8Array)) {
      throw new TypeError(`ToolCallParser.pushBytes: expected a Uint8Array (push takes a string), got ${describe(bytes)}`);
    }
    const wasm = this.#open("pushBytes");
    this.#flush(wasm);
    // Through the input buffer as a string's UTF-8 is, marked as bytes (`skipped` BYTES): the
    // core's UTF-8 decoder joins code points split across pushes.
    const n = bytes.length;
    this.#view(n).set(bytes, this.#inputAt);
    this.#fed += n;
    const out = wasm.pushInput(n, BYTES);
    this.#readQuiet();
    return out === 0 ? [] : events(readString(wasm.outputPtr(), out));
  }

  /** Ends the input: flushes held text, ends an open call (reporting truncation). Once only. */
  finish() {
    const wasm = this.#open("finish");
    // The characters waiting go in with the same call.
    const skipped = this.#pendingBytes;
    const out = wasm.finishInput(skipped + this.#heldBytes === 0 ? 0 : this.#input(""), skipped);
    this.#finished = true;
    this.#quietKind = 0;
    return out === 0 ? [] : events(readString(wasm.outputPtr(), out));
  }

  /**
   * Releases the wasm memory (or hands it to the next parser: `pool`); the parser cannot be
   * used afterwards. Safe to call twice.
   */
  free() {
    const wasm = this.#wasm;
    if (wasm === undefined) return;
    this.#wasm = undefined;
    this.#quietKind = 0;
    if (pool.length < POOL_MAX * 3 && this.#inputSize <= SPARE_MAX_BYTES && this.#fed <= SPARE_MAX_BYTES) {
      pool.push(wasm, this.#inputAt, this.#inputSize);
    } else {
      wasm.free();
    }
  }

  #live() {
    if (!this.#wasm) throw new Error("this ToolCallParser was freed");
    return this.#wasm;
  }

  /** The wasm parser, when it still takes input. */
  #open(method) {
    const wasm = this.#live();
    if (this.#finished) throw new Error(`ToolCallParser.${method}: this parser is finished (finish() was called); create a new one for the next text`);
    return wasm;
  }
}
if (typeof Symbol.dispose === "symbol") ToolCallParser.prototype[Symbol.dispose] = ToolCallParser.prototype.free;
