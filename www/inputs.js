// The input fields: the raw paste, model name, reasoning parser and tools; their checks and the
// parser options they give.
import { $, plural } from "./dom.js";
import { store } from "./store.js";

export function banner(text) {
  $("banner").textContent = text;
  $("banner").hidden = !text;
}

/** The fields from `store.ui` (after a link was opened or the state was reset). */
export function fillFields() {
  const ui = store.ui;
  for (const id of ["text", "model", "reasoning", "tools"]) $(id).value = ui[id];
  $("chunk").value = String(ui.chunk);
  $("speed").value = ui.speed;
  for (const r of document.querySelectorAll('input[name="filter"]')) r.checked = r.value === ui.filter;
  checkTools();
  checkReasoning();
}

/** Parses the tools field; shows a clear error and classifies without tools when it is bad. */
export function checkTools() {
  const text = store.ui.tools.trim();
  let error = "";
  store.tools = undefined;
  if (text) {
    try {
      let v = JSON.parse(text);
      if (v && !Array.isArray(v) && Array.isArray(v.tools)) v = v.tools; // a request body
      if (!Array.isArray(v)) v = [v];
      const bad = v.findIndex((t) => typeof t?.function?.name !== "string");
      if (bad >= 0) error = `tools[${bad}] has no function.name: expected {"type": "function", "function": {"name": …, "parameters": {…}}}.`;
      else store.tools = v;
    } catch (e) {
      error = `Not valid JSON: ${e.message}.`;
    }
  }
  $("tools-error").textContent = error ? `${error} Tools are ignored until this is fixed.` : "";
  $("tools").setAttribute("aria-invalid", String(!!error));
  const tools = store.tools;
  $("tools-note").textContent = tools ? `${plural(tools.length, "tool")}: ${tools.map((t) => t.function.name).join(", ")}` : "";
}

export function checkReasoning() {
  const r = store.ui.reasoning.trim();
  const known = store.registry.reasoners;
  const bad = r && known.length && !known.includes(r);
  $("reasoning-error").textContent = bad ? `Unknown reasoning parser "${r}": ignored. Pick one from the list.` : "";
  $("reasoning").setAttribute("aria-invalid", String(!!bad));
}

/** The parser options the fields give (tools and reasoning; valid ones only). */
export function options() {
  const o = {};
  if (store.tools) o.tools = store.tools;
  const r = store.ui.reasoning.trim();
  const known = store.registry.reasoners;
  if (r && (!known.length || known.includes(r))) o.reasoning = r;
  return o;
}

/** The model name in use: the field, else the one a pasted capture or body names. */
export function modelName() {
  return store.ui.model.trim() || (store.input.model ?? "").trim();
}

/** The family detected from the model name, or null. */
export function detectedFamily() {
  const m = modelName();
  return m ? store.api.detectParser(m) : null;
}

export function showDetected() {
  const m = modelName();
  const id = detectedFamily();
  const from = store.ui.model.trim() ? "" : ` (from the model the paste names, ${m})`;
  $("detected").textContent = !m ? "" : id ? `Detected family: ${id}${from}` : `No family is known for ${from ? `the model ${m}` : "this model name"}.`;
  $("detected").className = id ? "note ok" : "note";
}
