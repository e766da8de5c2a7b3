// The playground: paste raw model output, see how every parser family reads it, replay one
// family's stream; paste a captured SSE stream or completion body to see what the worker's
// rewrite makes of it, or a probe profile to read it. This module boots the page and wires the
// inputs to the views:
//   store.js   the state (one object)        state.js   the state in the URL fragment
//   inputs.js  fields, checks, options       link.js    URL writes, "Copy link"
//   recognize.js  what a paste is            capture.js / wire-view.js  the SSE rewrite, side by side
//   profile-view.js  a probe profile as a report
//   classifier.js  classification in a worker (classify.js), main-thread fallback
//   table.js   the family table              detail.js  one family: result and replay (replay.js)
import init, * as api from "toolwire";
import * as stream from "toolwire/stream";
import { upstreamChoices } from "./capture.js";
import { $, el, plural } from "./dom.js";
import { startClassifier, classify } from "./classifier.js";
import { closeDetail, openDetail, wireDetail } from "./detail.js";
import { banner, checkReasoning, checkTools, fillFields, showDetected } from "./inputs.js";
import { saveUrl, share } from "./link.js";
import { renderProfile } from "./profile-view.js";
import { recognize } from "./recognize.js";
import { decodeState } from "./state.js";
import { store } from "./store.js";
import { render, tableKeys } from "./table.js";
import { renderWire } from "./wire-view.js";

async function boot() {
  try {
    await init();
  } catch (e) {
    banner(`Could not load the toolwire package (${e.message}). Build it with \`make build\`, then reload.`);
    return;
  }
  store.api = api;
  store.stream = stream;
  const reg = store.registry;
  reg.families = api.parsers();
  reg.byId = new Map(reg.families.map((f) => [f.id, f]));
  reg.reasoners = api.reasoningParsers ? api.reasoningParsers().flatMap((r) => [r.id, ...r.aliases]) : [];
  $("models").replaceChildren(...[...new Set(reg.families.flatMap((f) => f.models))].sort().map((m) => el("option", { value: m })));
  $("reasoners").replaceChildren(...reg.reasoners.map((r) => el("option", { value: r })));
  $("family-count").textContent = String(reg.families.length);

  fetch("./examples.json")
    .then((r) => (r.ok ? r.json() : []))
    .then((list) => {
      reg.examples = list.filter((e) => reg.byId.has(e.family));
      $("example").append(...reg.examples.map((e, i) => el("option", { value: String(i) }, `${e.family} — ${e.title}`)));
    })
    .catch(() => {});

  await loadFromUrl();
  wire();
  startClassifier(() => {
    render();
    renderWire(); // its automatic parser may follow the classification
  });
  classify(true);
  document.body.dataset.ready = "true";
  registerServiceWorker();
}

/**
 * Offline support (sw.js). The worker's URL carries the package version, and its cache is
 * named after it: a new release is a new worker, which replaces the old cache.
 */
async function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return;
  try {
    const meta = await fetch("./pkg/package.json").then((r) => r.json());
    store.registry.version = String(meta.version ?? "");
    await navigator.serviceWorker.register(`./sw.js?v=${encodeURIComponent(store.registry.version)}`);
  } catch {
    // no offline support (a file:// page, a blocked worker): the page works as it is
  }
}

async function loadFromUrl() {
  const { state, error } = await decodeState(location.hash);
  store.ui = state;
  banner(error ? `Could not open the link: ${error}.` : "");
  fillFields();
  updateInput();
  if (state.family && store.registry.byId.has(state.family)) openDetail(state.family, true);
  else closeDetail();
}

/**
 * Recognises the paste and sets what the family table reads: the raw text, or for a capture or
 * a body the text the upstream sent in the chosen choice; nothing for a profile (its report
 * shows instead).
 */
function updateInput() {
  const rec = recognize(store.ui.text);
  const input = { kind: rec.kind, recognized: rec, text: store.ui.text, model: "", choices: [] };
  if (rec.kind === "sse" || rec.kind === "completion") {
    input.model = rec.model ?? "";
    input.choices = upstreamChoices(rec);
    const chosen = input.choices.find((c) => c.index === store.ui.choice) ?? input.choices[0];
    input.text = chosen?.content ?? "";
    input.choice = chosen?.index ?? 0;
  } else if (rec.kind === "profile") {
    input.text = "";
  }
  store.input = input;
  store.showAll = false;
  $("input-kind").textContent = kindWords(input);
  $("results").hidden = rec.kind === "profile";
  showDetected();
  renderWire();
  renderProfile(rec.kind === "profile" ? rec.profile : null, openRaw);
}

function kindWords(input) {
  const rec = input.recognized;
  const choice = input.choices.length > 1 ? ` (choice ${input.choice})` : "";
  if (rec.kind === "sse") return `Recognised an SSE capture: ${plural(rec.blocks.length, "event")}, ${plural(input.choices.length, "choice")}. The family table reads the text the upstream sent${choice}; "On the wire" shows the rewrite.`;
  if (rec.kind === "completion") return `Recognised a ${rec.body.object ?? "completion"} body: ${plural(input.choices.length, "choice")}. The family table reads its content${choice}; "On the wire" shows the rewrite.`;
  if (rec.kind === "profile") return `Recognised a toolwire probe profile (${rec.profile.model ?? "no model"}): shown as a report.`;
  return "";
}

/** A raw output from a profile's evidence, into the table. */
function openRaw(text, model) {
  Object.assign(store.ui, { text, model });
  fillFields();
  $("example").value = "";
  updateInput();
  classify(true);
  saveUrl();
  $("results").scrollIntoView({ block: "start" });
}

function wire() {
  const edit = (key, after) => (e) => {
    store.ui[key] = e.target.value;
    after?.();
    saveUrl();
  };
  $("text").addEventListener("input", edit("text", () => {
    if (chosenExample()?.text !== store.ui.text) $("example").value = "";
    updateInput();
    classify();
  }));
  $("model").addEventListener("input", edit("model", () => {
    showDetected();
    render();
    renderWire();
  }));
  $("reasoning").addEventListener("input", edit("reasoning", () => {
    checkReasoning();
    classify();
    renderWire();
  }));
  $("tools").addEventListener("input", edit("tools", () => {
    checkTools();
    classify();
    renderWire();
  }));
  // A file dropped on the text: its contents (a capture, a body, a profile, raw output).
  $("text").addEventListener("dragover", (e) => {
    if (e.dataTransfer?.types.includes("Files")) e.preventDefault();
  });
  $("text").addEventListener("drop", async (e) => {
    const file = e.dataTransfer?.files[0];
    if (!file) return;
    e.preventDefault();
    $("text").value = await file.text();
    $("text").dispatchEvent(new Event("input", { bubbles: true }));
  });
  $("wire-parser").addEventListener("change", (e) => {
    store.ui.wire = e.target.value;
    renderWire();
    saveUrl();
  });
  $("wire-body").addEventListener("click", (e) => {
    const b = e.target.closest(".pick-choice");
    if (!b) return;
    store.ui.choice = Number(b.dataset.choice);
    updateInput();
    classify(true);
    saveUrl();
  });
  $("example").addEventListener("change", () => {
    const ex = chosenExample();
    if (ex) useExample(ex);
  });
  for (const r of document.querySelectorAll('input[name="filter"]')) {
    r.addEventListener("change", () => {
      store.ui.filter = r.value;
      render();
      saveUrl();
    });
  }
  $("share").addEventListener("click", share);
  $("clear").addEventListener("click", () => {
    Object.assign(store.ui, { text: "", model: "", reasoning: "", tools: "", wire: "", choice: 0 });
    fillFields();
    $("example").value = "";
    updateInput();
    classify(true);
    saveUrl();
    $("text").focus();
  });
  $("rows").addEventListener("click", (e) => {
    if (e.target.closest("#show-all")) {
      // Focus moves to the first family that was hidden.
      const before = $("rows").querySelectorAll("tr[data-family]").length;
      store.showAll = true;
      render();
      $("rows").querySelectorAll("tr[data-family] .fam")[before]?.focus();
      return;
    }
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
  return v === "" ? null : store.registry.examples[Number(v)];
}

function useExample(ex) {
  const info = store.registry.byId.get(ex.family);
  const ui = store.ui;
  ui.text = ex.text;
  ui.tools = ex.tools ? JSON.stringify(ex.tools, null, 2) : "";
  ui.reasoning = ex.reasoning ?? "";
  ui.wire = "";
  ui.choice = 0;
  // A model name that this family is detected from, to show detection at work.
  ui.model = info?.models.find((m) => api.detectParser(m) === ex.family) ?? "";
  fillFields();
  updateInput();
  classify(true);
  saveUrl();
}

boot();
