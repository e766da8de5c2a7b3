// The detail dialog: one family's whole parse() result and a live replay of its stream, each
// event tied to the input range that produced it.
import { $, arrowKeys, el, plural, pretty } from "./dom.js";
import { options } from "./inputs.js";
import { saveUrl } from "./link.js";
import { Replay } from "./replay.js";
import { store } from "./store.js";
import { verdictBadge } from "./table.js";

const R = store.replay;

export function wireDetail() {
  const d = $("detail");
  $("detail-close").addEventListener("click", () => d.close());
  d.addEventListener("close", () => {
    stop();
    R.run?.free();
    R.run = null;
    store.ui.family = "";
    saveUrl();
    R.opener?.focus?.();
  });
  d.addEventListener("click", (e) => {
    if (e.target === d) d.close(); // backdrop
  });
  $("play").addEventListener("click", () => (R.playing ? pause() : play()));
  $("step").addEventListener("click", () => {
    pause();
    if (!R.run || R.run.done) restart(false);
    R.run.step();
    flush();
  });
  $("restart").addEventListener("click", () => restart(true));
  $("to-end").addEventListener("click", () => {
    if (!R.run || R.run.done) restart(false);
    R.rushing = true;
    play();
  });
  $("chunk").addEventListener("change", () => {
    store.ui.chunk = Math.max(1, Math.min(1e6, Math.round(Number($("chunk").value)) || 1));
    $("chunk").value = String(store.ui.chunk);
    saveUrl();
    restart(R.playing);
  });
  $("speed").addEventListener("change", () => {
    store.ui.speed = $("speed").value;
    saveUrl();
  });
  const tl = $("timeline");
  tl.addEventListener("click", (e) => pick(e.target.closest("li")));
  tl.addEventListener("focusin", (e) => pick(e.target.closest("li")));
  tl.addEventListener("mouseover", (e) => hover(e.target.closest("li")));
  tl.addEventListener("mouseleave", () => hover(null));
  tl.addEventListener("keydown", (e) => arrowKeys(e, () => [...tl.children]));
}

export function openDetail(id, autoplay) {
  const info = store.registry.byId.get(id);
  if (!info) return;
  R.opener = document.activeElement;
  store.ui.family = id;
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

export function closeDetail() {
  if ($("detail").open) $("detail").close();
}

/** The family's whole parse() result (full content, not trimmed). */
function showResult(id) {
  const box = $("detail-result");
  let r;
  try {
    r = store.api.parse(store.input.text, { ...options(), parser: id });
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
  R.run?.free();
  R.run = null;
  R.items = new Map();
  R.selected = R.pinned = null;
  $("timeline").replaceChildren();
  $("replay-error").textContent = "";
  try {
    R.run = new Replay(store.api, store.input.text, { ...options(), parser: store.ui.family }, store.ui.chunk);
  } catch (e) {
    $("replay-error").textContent = String(e.message ?? e);
    return;
  }
  $("progress").max = R.run.total + 1;
  announce(`Replay of ${store.ui.family}: ${plural(R.run.total, "chunk")} of ${plural(store.ui.chunk, "character")}.`);
  flush();
  if (autoplay) play();
}

/** "playing" / "paused" / "done", for tests and styling. */
function replayState() {
  $("detail").dataset.replay = !R.run ? "" : R.run.done ? "done" : R.playing ? "playing" : "paused";
}

function play() {
  if (!R.run) return;
  if (R.run.done) restart(false);
  R.playing = true;
  $("play").textContent = "Pause";
  R.lastT = performance.now();
  R.due = 1; // the first chunk goes at once
  cancelAnimationFrame(R.raf);
  R.raf = requestAnimationFrame(tick);
}

function pause() {
  stop();
  if (R.run && !R.run.done) announce(`Paused at chunk ${R.run.next} of ${R.run.total}.`);
}

function stop() {
  R.playing = R.rushing = false;
  cancelAnimationFrame(R.raf);
  $("play").textContent = "Play";
  replayState();
}

function tick(t) {
  if (!R.playing || !R.run) return;
  const deadline = performance.now() + 10; // leave the rest of the frame to the page
  const speed = store.ui.speed;
  const max = R.rushing || speed === "max";
  if (!max) {
    R.due += ((t - R.lastT) / 1000) * Number(speed);
    R.due = Math.min(R.due, Number(speed)); // never more than a second behind
  }
  R.lastT = t;
  while ((max || R.due >= 1) && performance.now() < deadline) {
    R.due -= 1;
    if (!R.run.step()) break;
  }
  flush();
  if (R.run.done) {
    stop();
    const calls = R.run.items.filter((i) => i.type === "tool-call-end").length;
    const diags = R.run.items.filter((i) => i.type === "diagnostic").length;
    announce(`Replay finished: ${plural(calls, "call")}, ${plural(diags, "diagnostic")}.`);
  } else {
    R.raf = requestAnimationFrame(tick);
  }
}

/** Renders what the replay produced since the last flush. */
function flush() {
  const run = R.run;
  if (!run) return;
  const tl = $("timeline");
  const stick = tl.scrollTop + tl.clientHeight >= tl.scrollHeight - 8;
  for (const item of run.take()) {
    const li = R.items.get(item) ?? newItem(item);
    fillItem(li, item);
    if (item.type === "tool-call-start") announce(`Call ${item.event.name} started (chars ${item.from}–${item.to}).`);
    if (item.type === "diagnostic" && item.fragments === 1) announce(`Diagnostic ${item.event.label}.`);
  }
  if (stick) tl.scrollTop = tl.scrollHeight;
  $("progress").value = run.done ? run.total + 1 : run.next;
  $("progress-text").textContent = `chunk ${Math.min(run.next, run.total)}/${run.total}${run.done ? " + finish()" : ""} · ${run.pos}/${run.text.length} chars · ${plural(run.items.length, "event")}`;
  if (!R.pinned) R.selected = run.items.at(-1) ?? null;
  markSelection();
  drawRaw(R.playing);
  replayState();
}

function newItem(item) {
  const li = el("li", { tabIndex: R.items.size ? -1 : 0, class: `ev ev-${item.type}` });
  R.items.set(item, li);
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
        e.repaired ? el("span", { class: "badge b-warn", title: "the parser closed these arguments itself" }, "repaired") : null,
        e.kept ? null : el("span", { class: "badge b-warn", title: "parse() leaves this call out (the recovery policy); its markup is content" }, "left out")));
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
  R.pinned = R.selected = li.item;
  for (const other of $("timeline").children) other.tabIndex = other === li ? 0 : -1;
  markSelection();
  drawRaw(false, true);
}

function hover(li) {
  R.selected = li?.item ?? R.pinned ?? R.run?.items.at(-1) ?? null;
  markSelection();
  drawRaw(false, true);
}

function markSelection() {
  for (const [item, li] of R.items) li.classList.toggle("selected", item === R.selected);
}

/** The raw input: decided part, the selected item's range highlighted, the part pushed but
 * not yet turned into events ("held"), and the part not pushed yet (dim). */
function drawRaw(follow, reveal = false) {
  const run = R.run;
  if (!run) return;
  const text = run.text;
  const pos = run.pos;
  const held = Math.min(run.trigger, pos);
  const sel = R.selected;
  const a = sel ? Math.min(sel.from, held) : held;
  const b = sel ? Math.min(sel.to, held) : held;
  const key = `${pos}:${held}:${a}:${b}:${text.length}`;
  const raw = $("raw");
  if (key !== R.drawn || raw.childNodes.length !== 5) {
    R.drawn = key;
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
