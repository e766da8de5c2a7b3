// Classifies off the main thread: {id, text, options} -> {id, rows, native, ms} or {id, error}.
// (Module workers do not see the page's import map: the package is imported by path.)
import init, * as api from "./pkg/index.browser.js";
import { classifyAll, sniff, trimRows } from "./classify.js";

const ready = init();

self.onmessage = async ({ data }) => {
  try {
    await ready;
  } catch (e) {
    self.postMessage({ id: data.id, fatal: `cannot load the package: ${e.message}` });
    return;
  }
  const t0 = performance.now();
  try {
    const { rows, native } = classifyAll(api, data.text, data.options);
    const ms = performance.now() - t0;
    self.postMessage({ id: data.id, rows: trimRows(rows), native, ms, sniffed: sniff(api, data.text) });
  } catch (e) {
    self.postMessage({ id: data.id, error: String(e.message ?? e), ms: performance.now() - t0 });
  }
};
