// Runs the classification (every family's reading of the text) in a Web Worker, with a
// main-thread fallback; the latest result lands in store.result and `onResult` is called.
import { $, kb } from "./dom.js";
import { classifyAll, sniff, trimRows } from "./classify.js";
import { options } from "./inputs.js";
import { store } from "./store.js";

let onResult = () => {};

/** Starts the worker (when the browser has module workers); `callback` renders a result. */
export function startClassifier(callback) {
  onResult = callback;
  const job = store.job;
  if (typeof Worker !== "function") return;
  try {
    job.worker = new Worker("./worker.js", { type: "module" });
  } catch {
    job.worker = null;
    return;
  }
  job.worker.onmessage = ({ data }) => {
    job.busy = false;
    if (data.fatal) return dropWorker();
    const sent = job.sentAt.get(data.id);
    job.sentAt.delete(data.id);
    data.total = performance.now() - sent.at;
    data.bytes = sent.bytes;
    data.text = sent.text;
    data.where = "a Web Worker";
    if (job.queued) {
      job.queued = false;
      send();
    }
    show(data);
  };
  job.worker.onerror = (e) => {
    e.preventDefault();
    dropWorker();
  };
}

function dropWorker() {
  const job = store.job;
  job.worker?.terminate();
  job.worker = null;
  job.busy = false;
  send();
}

/** Schedules a classification of store.input.text (debounced while typing; `now` skips the wait). */
export function classify(now = false) {
  clearTimeout(store.job.timer);
  $("results").dataset.state = "busy";
  if (now) return send();
  store.job.timer = setTimeout(send, store.input.text.length > 20000 ? 250 : 80);
}

function send() {
  const job = store.job;
  const next = { id: ++job.seq, text: store.input.text, options: options() };
  const bytes = new TextEncoder().encode(next.text).length;
  $("timing").textContent = "Classifying…";
  $("results").dataset.state = "busy"; // "done" once the latest job is shown (tests wait on it)
  if (job.worker) {
    if (job.busy) {
      job.queued = true;
      return;
    }
    job.busy = true;
    job.sentAt.set(next.id, { at: performance.now(), bytes, text: next.text });
    job.worker.postMessage(next);
    return;
  }
  const t0 = performance.now();
  let data;
  try {
    const { rows, native } = classifyAll(store.api, next.text, next.options);
    data = { id: next.id, rows: trimRows(rows), native, sniffed: sniff(store.api, next.text) };
  } catch (e) {
    data = { id: next.id, error: String(e.message ?? e) };
  }
  data.ms = data.total = performance.now() - t0;
  data.bytes = bytes;
  data.text = next.text;
  data.where = "the main thread";
  show(data);
}

function show(data) {
  data.sniffed = new Set(data.sniffed ?? []);
  if (data.id < (store.result?.id ?? 0)) return;
  store.result = data;
  if (data.id === store.job.seq) $("results").dataset.state = "done";
  const families = store.registry.families.length;
  $("timing").textContent = data.error
    ? ""
    : `${families} families · ${kb(data.bytes)} · classified in ${data.ms.toFixed(1)} ms in ${data.where}` +
      (data.total - data.ms > 1 ? ` (${data.total.toFixed(0)} ms round trip)` : "") +
      (data.native ? "" : " · per-family parse() fallback");
  onResult();
}
