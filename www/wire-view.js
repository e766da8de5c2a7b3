// The stream debugger: a pasted SSE capture or completion body shown as what the SSE rewrite
// (the worker's) makes of it, the rewritten events beside the upstream's, per choice.
import { analyseBody, analyseStream } from "./capture.js";
import { $, el, plural } from "./dom.js";
import { detectedFamily, modelName, options } from "./inputs.js";
import { store } from "./store.js";

const CLIP = 120;

/** The parser the rewrite uses: `{id, why}` (chosen, the model's family, the family that finds calls, or the worker's default). */
export function wireParser() {
  const chosen = store.ui.wire;
  if (chosen && store.registry.byId.has(chosen)) return { id: chosen, why: "chosen", auto: false };
  const det = detectedFamily();
  if (det) return { id: det, why: `the family of ${modelName()}`, auto: true };
  const r = store.result;
  if (r && !r.error && r.text === store.input.text) {
    const sniffed = [...r.sniffed];
    const calls = r.rows.filter((row) => row.verdict === "calls").map((row) => row.parser);
    const best = sniffed.find((id) => calls.includes(id)) ?? calls.find((id) => id !== "generic") ?? calls[0];
    if (best) return { id: best, why: "the most specific family that finds calls in the upstream's text", auto: true };
  }
  return { id: "generic", why: "no family known for the model: the worker's default (FALLBACK_PARSER)", auto: true };
}

/** Shows (or hides) the wire view for store.input. */
export function renderWire() {
  const input = store.input;
  const section = $("wire");
  if (input.kind !== "sse" && input.kind !== "completion") {
    section.hidden = true;
    section.dataset.parser = "";
    return;
  }
  section.hidden = false;
  const parser = wireParser();
  section.dataset.parser = parser.id;
  const opts = { ...options(), parser: parser.id };
  const model = modelName();
  if (model) opts.model = model;
  const rec = input.recognized;
  const a = input.kind === "sse" ? analyseStream(store.stream, rec.blocks, opts) : analyseBody(store.stream, rec.body, opts);
  const count = Math.max(a.choices.length, input.choices.length);
  $("wire-what").replaceChildren(
    input.kind === "sse"
      ? `An SSE capture: ${plural(rec.blocks.length, "event")}, ${plural(count, "choice")}`
      : `A ${rec.body.object ?? "completion"} body: ${plural(count, "choice")}`,
    model ? `, model ${model}` : "",
    rec.ignored ? ` (${plural(rec.ignored, "line")} that are not SSE left out)` : "",
    ". Below: what the upstream sent and what toolwire's rewrite (the worker's) makes of it.",
  );
  fillParsers(parser);
  $("wire-why").textContent = parser.auto ? `auto: ${parser.id}, ${parser.why}` : "";
  const body = $("wire-body");
  if (a.error) {
    body.replaceChildren(el("p", { class: "error" }, a.error));
    return;
  }
  body.replaceChildren(...a.choices.map((c) => choiceView(c, input.kind === "sse", count > 1)), shared(a.shared ?? []));
}

function fillParsers(parser) {
  const select = $("wire-parser");
  if (select.options.length !== store.registry.families.length + 1) {
    select.replaceChildren(el("option", { value: "" }, "auto"), ...store.registry.families.map((f) => el("option", { value: f.id }, f.id)));
  }
  select.value = parser.auto ? "" : parser.id;
  select.options[0].textContent = parser.auto ? `auto (${parser.id})` : "auto";
}

/** One choice: the joined result on both sides, then (for a stream) event by event. */
function choiceView(c, isStream, several) {
  const selected = c.index === store.ui.choice;
  return el("section", { class: "choice", dataset: { choice: String(c.index) } },
    el("h3", {}, `Choice ${c.index}`,
      several ? el("button", { type: "button", class: "quiet pick-choice", dataset: { choice: String(c.index) }, disabled: selected, "aria-pressed": String(selected) }, selected ? "the table reads this one" : "read this one in the table") : null),
    el("div", { class: "sides" },
      side("Upstream sent", c.upstream, "upstream"),
      side("Rewritten by toolwire", c.rewritten, "rewritten")),
    isStream ? events(c) : null);
}

function side(title, m, kind) {
  return el("div", { class: `side side-${kind}` },
    el("h4", {}, title),
    m.reasoning ? el("p", {}, el("span", { class: "tag t-reasoning" }, "reasoning"), " ", el("code", {}, clip(m.reasoning, 400))) : null,
    el("p", {}, el("span", { class: "tag" }, "content"), " ", m.content ? el("code", { class: "content" }, clip(m.content, 600)) : el("span", { class: "dim" }, "none")),
    m.calls.length
      ? el("ul", { class: "wire-calls" }, m.calls.map((call) => el("li", {}, el("span", { class: "tag t-call" }, `call #${call.index}`), " ", el("code", { class: "name" }, call.name), " ", el("code", {}, clip(call.arguments, 300)))))
      : el("p", {}, el("span", { class: "tag t-call" }, "tool_calls"), " ", el("span", { class: "dim" }, "none")),
    el("p", {}, el("span", { class: "tag" }, "finish_reason"), " ", el("code", { class: "finish" }, String(m.finish))));
}

/** The events table: upstream delta | what the rewrite emitted after it. */
function events(c) {
  return el("details", { class: "events", open: true },
    el("summary", {}, `Event by event (${plural(c.rows.length, "row")})`),
    el("div", { class: "events-box" },
      el("table", { class: "wire-events" },
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "#"), el("th", { scope: "col" }, "Upstream"), el("th", { scope: "col" }, "Rewritten"))),
        el("tbody", {}, c.rows.map((r) => el("tr", { dataset: { n: String(r.n) } },
          el("th", { scope: "row" }, r.n === "end" ? "end" : String(r.n)),
          el("td", { class: "w-up" }, r.upstream.map(chip)),
          el("td", { class: "w-out" }, r.rewritten.map(chip), r.diagnostics.map((d) => el("span", { class: "chip c-diag", title: d.message }, d.label)), !r.rewritten.length && !r.diagnostics.length ? el("span", { class: "dim", title: "held: the parser is still deciding" }, "…") : null)))))));
}

function chip(p) {
  switch (p.kind) {
    case "content":
      return el("span", { class: "chip c-content" }, el("code", {}, clip(JSON.stringify(p.text), CLIP)));
    case "reasoning":
      return el("span", { class: "chip c-reasoning" }, "reasoning ", el("code", {}, clip(JSON.stringify(p.text), CLIP)));
    case "call":
      return el("span", { class: "chip c-call" }, `call #${p.index} `, el("code", {}, p.text));
    case "args":
      return el("span", { class: "chip c-args" }, `#${p.index} `, el("code", {}, clip(p.text, CLIP)));
    case "finish":
      return el("span", { class: "chip c-finish" }, `finish ${p.text}`);
    default:
      return el("span", { class: "chip c-role" }, `${p.kind} ${p.text}`);
  }
}

function shared(list) {
  if (!list.length) return null;
  const words = { done: "[DONE]", usage: "a usage chunk", comment: "a comment", bad: "an event that is not JSON (passed through)", empty: "a chunk without choices" };
  return el("p", { class: "note" }, `Also in the stream, passed through as they are: ${list.map((s) => `${words[s.kind] ?? s.kind} (event ${s.n})`).join(", ")}.`);
}

function clip(s, n) {
  return s.length <= n ? s : `${s.slice(0, n)}… (${s.length} chars)`;
}
