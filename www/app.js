// The playground: paste raw model output, see how every parser family reads it, replay one
// family's stream. State lives in the URL fragment (state.js); classification runs in a
// worker (worker.js) with a main-thread fallback; the replay is replay.js.
import init, * as api from "toolwire";
import { classifyAll, sniff, trimRows } from "./classify.js";
import { DEFAULTS, decodeState, encodeState } from "./state.js";
import { Replay } from "./replay.js";

const $ = (id) => document.getElementById(id);

/** A DOM element: el("td", {class: "x", dataset: {a: 1}}, child, "text", …). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "dataset") Object.assign(node.dataset, v);
    else if (k in node && k !== "list") node[k] = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

const TABLE_TEXT = 280; // characters of content/reasoning shown in a table cell
const kb = (n) => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KB`);
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

let state = { ...DEFAULTS };
let families = []; // parsers()
let byId = new Map(); // id -> ParserInfo
let examples = [];
let result = null; // the last classification {rows, native, ms, ...}
let tools; // parsed tools (undefined when none or invalid)
let reasoners = []; // valid reasoning parser names, when known

// ---------------------------------------------------------------------------------------
// Boot

async function boot() {
  try {
    await init();
  } catch (e) {
    banner(`Could not load the toolwire package (${e.message}). Build it with \`make build\`, then reload.`);
    return;
  }
  families = api.parsers();
  byId = new Map(families.map((f) => [f.id, f]));
  reasoners = reasoningNames();
  $("models").replaceChildren(...[...new Set(families.flatMap((f) => f.models))].sort().map((m) => el("option", { value: m })));
  $("reasoners").replaceChildren(...reasoners.map((r) => el("option", { value: r })));
  $("family-count").textContent = String(families.length);

  fetch("./examples.json")
    .then((r) => (r.ok ? r.json() : []))
    .then((list) => {
      examples = list.filter((e) => byId.has(e.family));
      $("example").append(...examples.map((e, i) => el("option", { value: String(i) }, `${e.family} — ${e.title}`)));
    })
    .catch(() => {});

  await loadFromUrl();
  wire();
  startWorker();
  classify(true);
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("./sw.js").catch(() => {});
  document.body.dataset.ready = "true";
}

/** The valid reasoning parser names and aliases (older packages without the list: []). */
function reasoningNames() {
  return api.reasoningParsers ? api.reasoningParsers().flatMap((r) => [r.id, ...r.aliases]) : [];
}

async function loadFromUrl() {
  const { state: s, error } = await decodeState(location.hash);
  state = s;
  banner(error ? `Could not open the link: ${error}.` : "");
  $("text").value = state.text;
  $("model").value = state.model;
  $("reasoning").value = state.reasoning;
  $("tools").value = state.tools;
  $("chunk").value = String(state.chunk);
  $("speed").value = state.speed;
  for (const r of document.querySelectorAll('input[name="filter"]')) r.checked = r.value === state.filter;
  checkTools();
  checkReasoning();
  showDetected();
  if (state.family && byId.has(state.family)) openDetail(state.family, true);
  else if ($("detail").open) $("detail").close();
}

function banner(text) {
  $("banner").textContent = text;
  $("banner").hidden = !text;
}

// ---------------------------------------------------------------------------------------
// Inputs

function wire() {
  const edit = (key, after) => (e) => {
    state[key] = e.target.value;
    after?.();
    saveUrl();
  };
  $("text").addEventListener("input", edit("text", () => {
    if (chosenExample()?.text !== state.text) $("example").value = "";
    classify();
  }));
  $("model").addEventListener("input", edit("model", () => {
    showDetected();
    render();
  }));
  $("reasoning").addEventListener("input", edit("reasoning", () => {
    checkReasoning();
    classify();
  }));
  $("tools").addEventListener("input", edit("tools", () => {
    checkTools();
    classify();
  }));
  $("example").addEventListener("change", () => {
    const ex = chosenExample();
    if (ex) useExample(ex);
  });
  for (const r of document.querySelectorAll('input[name="filter"]')) {
    r.addEventListener("change", () => {
      state.filter = r.value;
      render();
      saveUrl();
    });
  }
  $("share").addEventListener("click", share);
  $("clear").addEventListener("click", () => {
    Object.assign(state, { text: "", model: "", reasoning: "", tools: "" });
    for (const id of ["text", "model", "reasoning", "tools"]) $(id).value = "";
    $("example").value = "";
    checkTools();
    checkReasoning();
    showDetected();
    classify(true);
    saveUrl();
    $("text").focus();
  });
  $("rows").addEventListener("click", (e) => {
    const tr = e.target.closest("tr[data-family]");
    if (tr && !window.getSelection()?.toString()) openDetail(tr.dataset.family, true);
  });
  $("rows").addEventListener("keydown", tableKeys);
  wireDetail();
  window.addEventListener("hashchange", async () => {
    await loadFromUrl();
    classify(true);
  });
}

function chosenExample() {
  const v = $("example").value;
  return v === "" ? null : examples[Number(v)];
}

function useExample(ex) {
  const info = byId.get(ex.family);
  state.text = ex.text;
  state.tools = ex.tools ? JSON.stringify(ex.tools, null, 2) : "";
  state.reasoning = ex.reasoning ?? "";
  // A model name that this family is detected from, to show detection at work.
  state.model = info?.models.find((m) => api.detectParser(m) === ex.family) ?? "";
  for (const id of ["text", "model", "reasoning", "tools"]) $(id).value = state[id];
  checkTools();
  checkReasoning();
  showDetected();
  classify(true);
  saveUrl();
}

/** Parses the tools field; shows a clear error and classifies without tools when it is bad. */
function checkTools() {
  const text = state.tools.trim();
  let error = "";
  tools = undefined;
  if (text) {
    try {
      let v = JSON.parse(text);
      if (v && !Array.isArray(v) && Array.isArray(v.tools)) v = v.tools; // a request body
      if (!Array.isArray(v)) v = [v];
      const bad = v.findIndex((t) => typeof t?.function?.name !== "string");
      if (bad >= 0) error = `tools[${bad}] has no function.name: expected {"type": "function", "function": {"name": …, "parameters": {…}}}.`;
      else tools = v;
    } catch (e) {
      error = `Not valid JSON: ${e.message}.`;
    }
  }
  $("tools-error").textContent = error ? `${error} Tools are ignored until this is fixed.` : "";
  $("tools").setAttribute("aria-invalid", String(!!error));
  $("tools-note").textContent = tools ? `${plural(tools.length, "tool")}: ${tools.map((t) => t.function.name).join(", ")}` : "";
}

function checkReasoning() {
  const r = state.reasoning.trim();
  const bad = r && reasoners.length && !reasoners.includes(r);
  $("reasoning-error").textContent = bad ? `Unknown reasoning parser "${r}": ignored. Pick one from the list.` : "";
  $("reasoning").setAttribute("aria-invalid", String(!!bad));
}

function options() {
  const o = {};
  if (tools) o.tools = tools;
  const r = state.reasoning.trim();
  if (r && (!reasoners.length || reasoners.includes(r))) o.reasoning = r;
  return o;
}

function detectedFamily() {
  const m = state.model.trim();
  return m ? api.detectParser(m) : null;
}

function showDetected() {
  const m = state.model.trim();
  const id = detectedFamily();
  $("detected").textContent = !m ? "" : id ? `Detected family: ${id}` : "No family is known for this model name.";
  $("detected").className = id ? "note ok" : "note";
}

// ---------------------------------------------------------------------------------------
// Classification (worker, main-thread fallback)

let worker = null;
let seq = 0;
let busy = false; // a job is in the worker
let queued = false; // another job waits for it
let timer = 0;
const sentAt = new Map();

function startWorker() {
  if (typeof Worker !== "function") return;
  try {
    worker = new Worker("./worker.js", { type: "module" });
  } catch {
    worker = null;
    return;
  }
  worker.onmessage = ({ data }) => {
    busy = false;
    if (data.fatal) return dropWorker();
    const job = sentAt.get(data.id);
    sentAt.delete(data.id);
    data.total = performance.now() - job.at;
    data.bytes = job.bytes;
    data.text = job.text;
    data.where = "a Web Worker";
    if (queued) {
      queued = false;
      send();
    }
    show(data);
  };
  worker.onerror = (e) => {
    e.preventDefault();
    dropWorker();
  };
}

function dropWorker() {
  worker?.terminate();
  worker = null;
  busy = false;
  send();
}

/** Schedules a classification (debounced while typing; `now` skips the wait). */
function classify(now = false) {
  clearTimeout(timer);
  $("results").dataset.state = "busy";
  if (now) return send();
  timer = setTimeout(send, state.text.length > 20000 ? 250 : 80);
}

function send() {
  const job = { id: ++seq, text: state.text, options: options() };
  job.bytes = new TextEncoder().encode(job.text).length;
  $("timing").textContent = "Classifying…";
  $("results").dataset.state = "busy"; // "done" once the latest job is shown (tests wait on it)
  if (worker) {
    if (busy) {
      queued = true;
      return;
    }
    busy = true;
    sentAt.set(job.id, { at: performance.now(), bytes: job.bytes, text: job.text });
    worker.postMessage(job);
    return;
  }
  const t0 = performance.now();
  let data;
  try {
    const { rows, native } = classifyAll(api, job.text, job.options);
    data = { id: job.id, rows: trimRows(rows), native, sniffed: sniff(api, job.text) };
  } catch (e) {
    data = { id: job.id, error: String(e.message ?? e) };
  }
  data.ms = data.total = performance.now() - t0;
  data.bytes = job.bytes;
  data.text = job.text;
  data.where = "the main thread";
  show(data);
}

function show(data) {
  data.sniffed = new Set(data.sniffed ?? []);
  if (data.id < (result?.id ?? 0)) return;
  result = data;
  if (data.id === seq) $("results").dataset.state = "done";
  const t = data.error
    ? ""
    : `${families.length} families · ${kb(data.bytes)} · classified in ${data.ms.toFixed(1)} ms in ${data.where}` +
      (data.total - data.ms > 1 ? ` (${data.total.toFixed(0)} ms round trip)` : "") +
      (data.native ? "" : " · per-family parse() fallback");
  $("timing").textContent = t;
  render();
}

// ---------------------------------------------------------------------------------------
// The table

/** No call, and a diagnostic says why. */
const FAILED = (r) => r.verdict !== "calls" && r.verdict !== "no_call";
/** Any diagnostic (a failure, or calls with problems). */
const PROBLEMS = (r) => FAILED(r) || r.diagnostics.length > 0;
const FILTERS = {
  all: () => true,
  calls: (r) => r.verdict === "calls",
  failed: PROBLEMS,
  none: (r) => r.verdict === "no_call",
};

function render() {
  const body = $("rows");
  if (!result) return;
  if (result.error) {
    $("summary").textContent = `Error: ${result.error}`;
    body.replaceChildren();
    return;
  }
  const det = detectedFamily();
  const rank = (r) => (r.parser === det ? 0 : r.verdict === "calls" ? 1 : FAILED(r) ? 2 : 3);
  const order = new Map(families.map((f, i) => [f.id, i]));
  const rows = [...result.rows].sort((a, b) => rank(a) - rank(b) || order.get(a.parser) - order.get(b.parser));
  const counts = Object.fromEntries(Object.entries(FILTERS).map(([k, f]) => [k, rows.filter(f).length]));
  for (const [k, n] of Object.entries(counts)) $(`count-${k}`).textContent = String(n);
  $("summary").replaceChildren(...summary(rows, det));
  const shown = rows.filter(FILTERS[state.filter] ?? FILTERS.all);
  // The reasoning column only when some family separates reasoning.
  $("table").classList.toggle("no-reasoning", !rows.some((r) => r.reasoning));
  const focused = document.activeElement?.closest?.("tr")?.dataset.family;
  body.replaceChildren(...shown.map((r) => row(r, det)));
  if (!shown.length) body.append(el("tr", {}, el("td", { colSpan: 5, class: "empty" }, "No family matches this filter.")));
  if (focused) body.querySelector(`tr[data-family="${CSS.escape(focused)}"] .fam`)?.focus();
}

function summary(rows, det) {
  if (!result.text) return ["Paste model output, or pick an example, to see how each family reads it."];
  const withCalls = rows.filter((r) => r.verdict === "calls");
  const out = [];
  const d = det && rows.find((r) => r.parser === det);
  if (d) {
    out.push("The model's family ", el("strong", {}, det), " ", verdictWords(d), ". ");
  }
  if (withCalls.length) {
    const names = withCalls.slice(0, 6).map((r) => r.parser).join(", ") + (withCalls.length > 6 ? ", …" : "");
    out.push(el("strong", {}, `${withCalls.length} of ${rows.length}`), ` families find calls (${names}). `);
  } else {
    out.push(el("strong", {}, "No family"), " finds a call in this text. ");
  }
  const problems = rows.filter(PROBLEMS).length;
  if (problems) out.push(`${problems} report problems. `);
  const sniffed = [...result.sniffed];
  if (sniffed.length) out.push(`Markers of ${sniffed.slice(0, 5).join(", ")}${sniffed.length > 5 ? ", …" : ""} appear in it.`);
  return out;
}

function verdictWords(r) {
  if (r.verdict === "calls") return `finds ${plural(r.count ?? r.toolCalls.length, "call")}` + (r.toolCalls.length ? ` (${r.toolCalls.map((c) => c.name).join(", ")})` : "");
  if (r.verdict === "no_call") return "finds no call";
  return `finds no call: ${r.verdict}`;
}

function verdictBadge(r) {
  if (r.verdict === "calls") return el("span", { class: "verdict v-calls" }, plural(r.count ?? r.toolCalls.length, "call"));
  if (r.verdict === "no_call") return el("span", { class: "verdict v-none" }, "no call");
  return el("span", { class: "verdict v-failed" }, r.verdict);
}

function row(r, det) {
  const sniffed = result.sniffed.has(r.parser);
  const cls = ["v-" + (r.verdict === "calls" ? "calls" : FAILED(r) ? "failed" : "none")];
  if (r.parser === det) cls.push("is-detected");
  const diags = [...r.diagnostics.slice(0, 4).map((d) => el("li", {}, el("code", {}, d.label), " ", d.message))];
  if (r.diagnostics.length > 4) diags.push(el("li", {}, `… ${r.diagnostics.length - 4} more`));
  if (r.error) diags.push(el("li", {}, r.error));
  return el("tr", { class: cls.join(" "), dataset: { family: r.parser, verdict: r.verdict } },
    el("th", { scope: "row" },
      el("button", { type: "button", class: "fam", "aria-haspopup": "dialog", title: byId.get(r.parser)?.description ?? "" }, r.parser),
      r.parser === det ? el("span", { class: "badge b-model", title: "detected from the model name" }, "model") : null,
      sniffed ? el("span", { class: "badge b-sniff", title: "this family's markers appear in the text" }, "markers") : null),
    el("td", { dataset: { label: "Verdict" } }, verdictBadge(r), diags.length ? el("ul", { class: "diags" }, diags) : null),
    el("td", { dataset: { label: "Calls" }, class: "calls" }, r.toolCalls.length ? r.toolCalls.slice(0, 5).map(callView) : el("span", { class: "dim" }, "—"),
      r.toolCalls.length > 5 ? el("p", { class: "dim" }, `… ${r.toolCalls.length - 5} more`) : null),
    el("td", { dataset: { label: "Content" } }, textCell(r.content, r.contentLength, true)),
    el("td", { dataset: { label: "Reasoning" } }, textCell(r.reasoning, r.reasoningLength, false)));
}

function callView(c) {
  return el("div", { class: "call" }, el("code", { class: "name" }, c.name), el("pre", { class: "args" }, pretty(c.arguments)));
}

/** Arguments JSON for reading: on one line when short, indented otherwise. Works on the text
 * (no JSON.parse), so key order and number digits stay exactly as the parser produced them. */
function pretty(args, max = 1200) {
  const line = layout(args, false, 49);
  const s = line.length <= 48 ? line : layout(args, true, max + 1);
  return s.length > max ? s.slice(0, max) + `… (+${s.length - max} chars)` : s;
}

/** `json` re-spaced (indented or on one line); stops once longer than `limit`. */
function layout(json, indent, limit) {
  let out = "";
  let depth = 0;
  const nl = () => (indent ? "\n" + "  ".repeat(depth) : "");
  for (let i = 0; i < json.length && out.length <= limit; i++) {
    const c = json[i];
    if (c === '"') {
      let j = i + 1;
      while (j < json.length && json[j] !== '"') j += json[j] === "\\" ? 2 : 1;
      out += json.slice(i, j + 1);
      i = j;
    } else if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      let k = i + 1;
      while (k < json.length && /\s/.test(json[k])) k++;
      if (json[k] === close) {
        out += c + close;
        i = k;
      } else {
        depth++;
        out += c + nl();
      }
    } else if (c === "}" || c === "]") {
      depth = Math.max(0, depth - 1);
      out += nl() + c;
    } else if (c === ",") {
      out += "," + (indent ? nl() : " ");
    } else if (c === ":") {
      out += ": ";
    } else if (!/\s/.test(c)) {
      out += c;
    }
  }
  return out;
}

function textCell(value, fullLength, isContent) {
  if (value === null || value === undefined || value === "") return el("span", { class: "dim" }, "—");
  const len = fullLength ?? value.length;
  if (isContent && len === result.text.length && result.text.startsWith(value)) {
    return el("span", { class: "dim", title: "the whole input came back as content" }, "the whole input");
  }
  const cut = value.length > TABLE_TEXT || len > value.length;
  return el("pre", { class: "text" }, value.slice(0, TABLE_TEXT), cut ? el("span", { class: "dim" }, `… (${len} chars)`) : null);
}

/** Arrow keys move between the rows' family buttons. */
function tableKeys(e) {
  if (!e.target.classList?.contains("fam")) return;
  const buttons = [...$("rows").querySelectorAll(".fam")];
  const i = buttons.indexOf(e.target);
  const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: buttons.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  buttons[Math.max(0, Math.min(buttons.length - 1, to))]?.focus();
}

// ---------------------------------------------------------------------------------------
// URL state and sharing

let saveTimer = 0;
let saves = 0; // pending writes; body[data-url] is "saved" when the URL is current (tests wait on it)
function saveUrl() {
  clearTimeout(saveTimer);
  saves++;
  document.body.dataset.url = "pending";
  saveTimer = setTimeout(writeUrl, 300);
}

async function writeUrl() {
  clearTimeout(saveTimer);
  const mine = saves;
  const hash = await encodeState(state);
  const url = location.pathname + location.search + hash;
  if (url !== location.pathname + location.search + location.hash) history.replaceState(null, "", url);
  if (mine === saves) document.body.dataset.url = "saved";
}

async function share() {
  await writeUrl();
  const link = location.href;
  $("share-link").value = link;
  $("share-link").hidden = false;
  try {
    await navigator.clipboard.writeText(link);
    $("share-status").textContent = `Link copied (${kb(link.length)}).`;
  } catch {
    $("share-link").select();
    $("share-status").textContent = "Copy the link below.";
  }
}

// ---------------------------------------------------------------------------------------
// Detail view and stream replay

let replay = null;
let playing = false;
let rushing = false; // "to end": as fast as possible regardless of speed
let raf = 0;
let lastT = 0;
let due = 0; // chunks owed to the speed setting
let items = new Map(); // replay item -> <li>
let selected = null; // the item whose range is highlighted (selected / hovered)
let pinned = null; // the selected item (hover falls back to it)
let opener = null; // the element to refocus on close

function wireDetail() {
  const d = $("detail");
  $("detail-close").addEventListener("click", () => d.close());
  d.addEventListener("close", () => {
    stop();
    replay?.free();
    replay = null;
    state.family = "";
    saveUrl();
    opener?.focus?.();
  });
  d.addEventListener("click", (e) => {
    if (e.target === d) d.close(); // backdrop
  });
  $("play").addEventListener("click", () => (playing ? pause() : play()));
  $("step").addEventListener("click", () => {
    pause();
    if (!replay || replay.done) restart(false);
    replay.step();
    flush();
  });
  $("restart").addEventListener("click", () => restart(true));
  $("to-end").addEventListener("click", () => {
    if (!replay || replay.done) restart(false);
    rushing = true;
    play();
  });
  $("chunk").addEventListener("change", () => {
    state.chunk = Math.max(1, Math.min(1e6, Math.round(Number($("chunk").value)) || 1));
    $("chunk").value = String(state.chunk);
    saveUrl();
    restart(playing);
  });
  $("speed").addEventListener("change", () => {
    state.speed = $("speed").value;
    saveUrl();
  });
  const tl = $("timeline");
  tl.addEventListener("click", (e) => pick(e.target.closest("li")));
  tl.addEventListener("focusin", (e) => pick(e.target.closest("li")));
  tl.addEventListener("mouseover", (e) => hover(e.target.closest("li")));
  tl.addEventListener("mouseleave", () => hover(null));
  tl.addEventListener("keydown", (e) => {
    const li = e.target.closest("li");
    if (!li) return;
    const all = [...tl.children];
    const i = all.indexOf(li);
    const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: all.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    all[Math.max(0, Math.min(all.length - 1, to))]?.focus();
  });
}

function openDetail(id, autoplay) {
  const info = byId.get(id);
  if (!info) return;
  opener = document.activeElement;
  state.family = id;
  saveUrl();
  $("detail-title").textContent = id;
  $("detail-desc").textContent = info.description;
  $("detail-models").textContent = [
    info.aliases.length ? `Aliases: ${info.aliases.join(", ")}.` : "",
    info.models.length ? `Models: ${info.models.join(", ")}.` : "",
  ].filter(Boolean).join(" ");
  showResult(id);
  const d = $("detail");
  if (!d.open) d.showModal();
  restart(autoplay);
  $("play").focus();
}

/** The family's whole parse() result (full content, not trimmed). */
function showResult(id) {
  const box = $("detail-result");
  let r;
  try {
    r = api.parse(state.text, { ...options(), parser: id });
  } catch (e) {
    box.replaceChildren(el("p", { class: "error" }, String(e.message ?? e)));
    return;
  }
  const n = r.toolCalls.length;
  const verdict = n ? "calls" : (r.diagnostics[0]?.label ?? "no_call");
  box.replaceChildren(...[
    el("p", {}, verdictBadge({ verdict, count: n, toolCalls: r.toolCalls }), " ",
      r.diagnostics.length ? `${plural(r.diagnostics.length, "diagnostic")}` : "no diagnostics"),
    r.diagnostics.length ? el("ul", { class: "diags" }, r.diagnostics.map((d) => el("li", {}, el("code", {}, d.label), " ", d.message, d.index !== undefined ? ` (call #${d.index})` : ""))) : null,
    n ? el("div", { class: "calls" }, r.toolCalls.slice(0, 25).map((c) => el("div", { class: "call" }, el("code", { class: "name" }, c.name), " ", el("small", { class: "dim" }, c.id), el("pre", { class: "args" }, pretty(c.arguments, 20000))))) : null,
    n > 25 ? el("p", { class: "dim" }, `… ${n - 25} more calls`) : null,
    el("h4", {}, "Content"), r.content ? el("pre", { class: "text long" }, r.content) : el("p", { class: "dim" }, "none"),
    r.reasoning ? el("h4", {}, "Reasoning") : null, r.reasoning ? el("pre", { class: "text long" }, r.reasoning) : null,
  ].filter(Boolean));
}

function restart(autoplay) {
  stop();
  replay?.free();
  replay = null;
  items = new Map();
  selected = pinned = null;
  $("timeline").replaceChildren();
  $("replay-error").textContent = "";
  try {
    replay = new Replay(api, state.text, { ...options(), parser: state.family }, state.chunk);
  } catch (e) {
    $("replay-error").textContent = String(e.message ?? e);
    return;
  }
  $("progress").max = replay.total + 1;
  announce(`Replay of ${state.family}: ${plural(replay.total, "chunk")} of ${plural(state.chunk, "character")}.`);
  flush();
  if (autoplay) play();
}

/** "playing" / "paused" / "done", for tests and styling. */
function replayState() {
  $("detail").dataset.replay = !replay ? "" : replay.done ? "done" : playing ? "playing" : "paused";
}

function play() {
  if (!replay) return;
  if (replay.done) restart(false);
  playing = true;
  $("play").textContent = "Pause";
  lastT = performance.now();
  due = 1; // the first chunk goes at once
  cancelAnimationFrame(raf);
  raf = requestAnimationFrame(tick);
}

function pause() {
  stop();
  if (replay && !replay.done) announce(`Paused at chunk ${replay.next} of ${replay.total}.`);
}

function stop() {
  playing = rushing = false;
  cancelAnimationFrame(raf);
  $("play").textContent = "Play";
  replayState();
}

function tick(t) {
  if (!playing || !replay) return;
  const deadline = performance.now() + 10; // leave the rest of the frame to the page
  const max = rushing || state.speed === "max";
  if (!max) {
    due += ((t - lastT) / 1000) * Number(state.speed);
    due = Math.min(due, Number(state.speed)); // never more than a second behind
  }
  lastT = t;
  while ((max || due >= 1) && performance.now() < deadline) {
    due -= 1;
    if (!replay.step()) break;
  }
  flush();
  if (replay.done) {
    stop();
    const calls = replay.items.filter((i) => i.type === "tool-call-end").length;
    const diags = replay.items.filter((i) => i.type === "diagnostic").length;
    announce(`Replay finished: ${plural(calls, "call")}, ${plural(diags, "diagnostic")}.`);
  } else {
    raf = requestAnimationFrame(tick);
  }
}

/** Renders what the replay produced since the last flush. */
function flush() {
  if (!replay) return;
  const tl = $("timeline");
  const stick = tl.scrollTop + tl.clientHeight >= tl.scrollHeight - 8;
  for (const item of replay.take()) {
    const li = items.get(item) ?? newItem(item);
    fillItem(li, item);
    if (item.type === "tool-call-start") announce(`Call ${item.event.name} started (chars ${item.from}–${item.to}).`);
    if (item.type === "diagnostic" && item.fragments === 1) announce(`Diagnostic ${item.event.label}.`);
  }
  if (stick) tl.scrollTop = tl.scrollHeight;
  const fed = replay.done ? replay.total + 1 : replay.next;
  $("progress").value = fed;
  $("progress-text").textContent = `chunk ${Math.min(replay.next, replay.total)}/${replay.total}${replay.done ? " + finish()" : ""} · ${replay.pos}/${replay.text.length} chars · ${plural(replay.items.length, "event")}`;
  if (!pinned) selected = replay.items.at(-1) ?? null;
  markSelection();
  drawRaw(playing);
  replayState();
}

function newItem(item) {
  const li = el("li", { tabIndex: items.size ? -1 : 0, class: `ev ev-${item.type}` });
  items.set(item, li);
  li.item = item;
  $("timeline").append(li);
  return li;
}

const KIND = {
  "text": "text",
  "reasoning": "reasoning",
  "tool-call-start": "call start",
  "tool-call-delta": "arguments",
  "tool-call-end": "call end",
  "diagnostic": "diagnostic",
};

function fillItem(li, item) {
  const e = item.event;
  const parts = [el("span", { class: "kind" }, KIND[item.type] ?? item.type)];
  const clip = (s, n = 160, tail = false) => (s.length <= n ? s : tail ? "…" + s.slice(-n) : s.slice(0, n) + "…");
  switch (item.type) {
    case "text":
    case "reasoning":
      parts.push(el("code", { class: "val" }, clip(JSON.stringify(item.value), 200)));
      break;
    case "tool-call-start":
      parts.push(el("span", { class: "val" }, `#${e.index} `, el("code", {}, e.name), " ", el("small", { class: "dim" }, e.id)));
      break;
    case "tool-call-delta":
      parts.push(el("span", { class: "val" }, `#${item.index} `, el("code", {}, clip(item.value, 200, true))));
      break;
    case "tool-call-end":
      parts.push(el("span", { class: "val" }, `#${e.index} `, el("code", {}, e.name), " ", el("code", {}, clip(e.arguments, 200)),
        e.repaired ? el("span", { class: "badge b-warn", title: "the parser closed these arguments itself" }, "repaired") : null));
      break;
    case "diagnostic":
      parts.push(el("span", { class: "val" }, el("code", {}, e.label), " ", e.message, e.index !== undefined ? ` (call #${e.index})` : ""));
      break;
  }
  const where = item.atFinish && item.from === item.to ? "at finish()" : `chars ${item.from}–${item.to}${item.atFinish ? ", finish()" : ""}`;
  parts.push(el("span", { class: "range" }, item.fragments > 1 ? `${item.fragments} fragments · ${where}` : where));
  li.replaceChildren(...parts);
  li.setAttribute("aria-label", `${KIND[item.type]}: ${li.textContent}`);
}

function pick(li) {
  if (!li?.item) return;
  pinned = selected = li.item;
  for (const other of $("timeline").children) other.tabIndex = other === li ? 0 : -1;
  markSelection();
  drawRaw(false, true);
}

function hover(li) {
  selected = li?.item ?? pinned ?? replay?.items.at(-1) ?? null;
  markSelection();
  drawRaw(false, true);
}

function markSelection() {
  for (const [item, li] of items) li.classList.toggle("selected", item === selected);
}

let drawn = "";
/** The raw input: decided part, the selected item's range highlighted, the part pushed but
 * not yet turned into events ("held"), and the part not pushed yet (dim). */
function drawRaw(follow, reveal = false) {
  if (!replay) return;
  const text = replay.text;
  const pos = replay.pos;
  const held = Math.min(replay.trigger, pos);
  const a = selected ? Math.min(selected.from, held) : held;
  const b = selected ? Math.min(selected.to, held) : held;
  const key = `${pos}:${held}:${a}:${b}:${text.length}`;
  const raw = $("raw");
  if (key !== drawn || raw.childNodes.length !== 5) {
    drawn = key;
    raw.replaceChildren(
      el("span", {}, text.slice(0, a)),
      el("mark", {}, text.slice(a, b)),
      el("span", {}, text.slice(b, held)),
      el("span", { class: "held", title: "pushed; no event yet (the parser is still deciding)" }, text.slice(held, pos)),
      el("span", { class: "pending" }, text.slice(pos)),
    );
  }
  const box = $("raw-box");
  const target = reveal ? raw.children[1] : follow ? raw.children[4] : null;
  const r = target?.getClientRects()[0];
  if (r) {
    const c = box.getBoundingClientRect();
    if (r.top < c.top || r.bottom > c.bottom) box.scrollTop += r.top - c.top - c.height / 3;
  }
}

function announce(text) {
  $("replay-status").textContent = text;
}

boot();
