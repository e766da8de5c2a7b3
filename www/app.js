// The playground: paste raw model output, see how every parser family reads it, replay one
// family's stream. This module boots the page and wires the inputs to the views:
//   store.js   the state (one object)        state.js   the state in the URL fragment
//   inputs.js  fields, checks, options       link.js    URL writes, "Copy link"
//   classifier.js  classification in a worker (classify.js), main-thread fallback
//   table.js   the family table              detail.js  one family: result and replay (replay.js)
import init, * as api from "toolwire";
import { $, el } from "./dom.js";
import { startClassifier, classify } from "./classifier.js";
import { closeDetail, openDetail, wireDetail } from "./detail.js";
import { banner, checkReasoning, checkTools, fillFields, showDetected } from "./inputs.js";
import { saveUrl, share } from "./link.js";
import { decodeState } from "./state.js";
import { store } from "./store.js";
import { render, tableKeys } from "./table.js";

async function boot() {
  try {
    await init();
  } catch (e) {
    banner(`Could not load the toolwire package (${e.message}). Build it with \`make build\`, then reload.`);
    return;
  }
  store.api = api;
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
  startClassifier(render);
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

/** Recognises the paste and sets what the family table reads. */
function updateInput() {
  store.input = { kind: "text", text: store.ui.text };
  showDetected();
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
      store.ui.filter = r.value;
      render();
      saveUrl();
    });
  }
  $("share").addEventListener("click", share);
  $("clear").addEventListener("click", () => {
    Object.assign(store.ui, { text: "", model: "", reasoning: "", tools: "" });
    fillFields();
    $("example").value = "";
    updateInput();
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
  return v === "" ? null : store.registry.examples[Number(v)];
}

function useExample(ex) {
  const info = store.registry.byId.get(ex.family);
  const ui = store.ui;
  ui.text = ex.text;
  ui.tools = ex.tools ? JSON.stringify(ex.tools, null, 2) : "";
  ui.reasoning = ex.reasoning ?? "";
  // A model name that this family is detected from, to show detection at work.
  ui.model = info?.models.find((m) => api.detectParser(m) === ex.family) ?? "";
  fillFields();
  updateInput();
  classify(true);
  saveUrl();
}

boot();
