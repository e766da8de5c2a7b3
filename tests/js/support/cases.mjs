// Reads tests/data for JS (the JS package tests, scripts/gen-examples.mjs, scripts/fuzz-seed.mjs):
// the same format as tests/common/data.rs. One case is tests/data/<parser>/<case>.txt (the raw
// model output) and <case>.expect (`# description` and `key: <JSON>` option lines, then the
// expected events, one per line). `tools: "name"` names tests/data/tools/<name>.json.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const dataDir = join(dirname(fileURLToPath(import.meta.url)), "../../data");

const EVENT_KINDS = ["text", "reasoning", "tool-call-start", "tool-call-delta", "tool-call-end", "diagnostic"];
const isEventLine = (line) => EVENT_KINDS.includes(line.split(" ")[0]);

/** vLLM's `--tool-call-parser` names (tests/data/vllm-parsers.txt): the one list of them. */
export function vllmParsers() {
  return readFileSync(join(dataDir, "vllm-parsers.txt"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
}

/** A named tool set. */
export function toolSet(name) {
  return JSON.parse(readFileSync(join(dataDir, "tools", `${name}.json`), "utf8"));
}

/**
 * Splits a .expect file: `{description, options, events}` with `options` the header's keys
 * (a tool set still by name) and `events` the event lines.
 */
export function parseExpect(text) {
  const lines = text.split("\n");
  const first = lines.findIndex(isEventLine);
  const header = first < 0 ? lines : lines.slice(0, first);
  const events = first < 0 ? [] : lines.slice(first).filter((l) => l !== "");
  const description = header.filter((l) => l.startsWith("#")).map((l) => l.slice(1).trim()).join(" ") || null;
  const options = {};
  for (const l of header) {
    if (!l.trim() || l.startsWith("#")) continue;
    const at = l.indexOf(":");
    if (at < 0) throw new Error(`not an option line: ${l}`);
    options[l.slice(0, at).trim()] = JSON.parse(l.slice(at + 1));
  }
  return { description, options, events };
}

/**
 * Every case, sorted by name: `{name: "<parser>/<case>", parser, case, input, description,
 * header, options, events}`. `header` holds the .expect keys as written; `options` is the JS
 * options object (parser set, tool set resolved). `parsers` limits the directories read.
 */
export function loadCases({ parsers } = {}) {
  const out = [];
  for (const parser of readdirSync(dataDir).sort()) {
    const dir = join(dataDir, parser);
    if (parser === "tools" || !statSync(dir).isDirectory()) continue;
    if (parsers && !parsers.includes(parser)) continue;
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith(".txt")) continue;
      const stem = file.slice(0, -4);
      const expectPath = join(dir, `${stem}.expect`);
      const { description, options: header, events } = existsSync(expectPath)
        ? parseExpect(readFileSync(expectPath, "utf8"))
        : { description: null, options: {}, events: [] };
      const options = { ...header, parser };
      if (typeof options.tools === "string") options.tools = toolSet(options.tools);
      out.push({ name: `${parser}/${stem}`, parser, case: stem, input: readFileSync(join(dir, file), "utf8"), description, header, options, events });
    }
  }
  return out;
}

/** The arguments text of each `tool-call-delta` line of a case's events, joined per call. */
export function expectedArguments(events) {
  const args = new Map();
  for (const l of events) {
    const m = /^tool-call-delta (\d+) (.*)$/.exec(l);
    if (!m) continue;
    const text = m[2].startsWith('"') ? JSON.parse(m[2]) : m[2];
    args.set(m[1], (args.get(m[1]) ?? "") + text);
  }
  return [...args.values()];
}

const WHITESPACE = /[\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u; // Rust's char::is_whitespace
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u; // Rust's char::is_control
const atom = (s) => (s === "" || s.startsWith('"') || WHITESPACE.test(s) || CONTROL.test(s) ? JSON.stringify(s) : s);
const rest = (s) =>
  s === "" || s.startsWith('"') || WHITESPACE.test(s[0]) || WHITESPACE.test(s.at(-1)) || CONTROL.test(s) ? JSON.stringify(s) : s;

/** Merged JS events (adjacent text, reasoning and same-call deltas joined) as .expect lines. */
export function renderEvents(events) {
  return events.map((e) => {
    switch (e.type) {
      case "text":
      case "reasoning":
        return `${e.type} ${JSON.stringify(e.text)}`;
      case "tool-call-start":
        return `tool-call-start ${e.index} ${atom(e.name)}${e.id === `call_${e.index}` ? "" : ` id=${atom(e.id)}`}`;
      case "tool-call-delta":
        return `tool-call-delta ${e.index} ${rest(e.argumentsDelta)}`;
      case "tool-call-end":
        return `tool-call-end ${e.index}${e.repaired ? " repaired" : ""}${e.kept ? "" : e.text ? ` left-out ${JSON.stringify(e.text)}` : " left-out"}`;
      case "diagnostic":
        return `diagnostic ${e.label}${e.index == null ? "" : ` ${e.index}`}`;
      default:
        throw new Error(`unknown event type ${e.type}`);
    }
  });
}
