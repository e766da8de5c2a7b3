// The family table: every family's reading of the text, with verdicts, calls, content and
// reasoning; the summary above it; filters. The families that find something (calls, problems,
// the model's family) lead; the ones that read everything as plain content are one click away.
import { $, arrowKeys, el, plural, pretty } from "./dom.js";
import { detectedFamily } from "./inputs.js";
import { store } from "./store.js";

const TABLE_TEXT = 280; // characters of content/reasoning shown in a table cell

/** No call, and a diagnostic says why. */
export const FAILED = (r) => r.verdict !== "calls" && r.verdict !== "no_call";
/** Any diagnostic (a failure, or calls with problems). */
const PROBLEMS = (r) => FAILED(r) || r.diagnostics.length > 0;
const FILTERS = {
  all: () => true,
  calls: (r) => r.verdict === "calls",
  failed: PROBLEMS,
  none: (r) => r.verdict === "no_call",
};

export function render() {
  const result = store.result;
  const body = $("rows");
  if (!result) return;
  if (result.error) {
    $("summary").textContent = `Error: ${result.error}`;
    body.replaceChildren();
    return;
  }
  const det = detectedFamily();
  const rank = (r) => (r.parser === det ? 0 : r.verdict === "calls" ? 1 : FAILED(r) ? 2 : 3);
  const order = new Map(store.registry.families.map((f, i) => [f.id, i]));
  const rows = [...result.rows].sort((a, b) => rank(a) - rank(b) || order.get(a.parser) - order.get(b.parser));
  const counts = Object.fromEntries(Object.entries(FILTERS).map(([k, f]) => [k, rows.filter(f).length]));
  for (const [k, n] of Object.entries(counts)) $(`count-${k}`).textContent = String(n);
  $("summary").replaceChildren(...summary(rows, det));
  let shown = rows.filter(FILTERS[store.ui.filter] ?? FILTERS.all);
  let rest = [];
  if (store.ui.filter === "all" && !store.showAll) {
    const leads = (r) => r.parser === det || r.verdict === "calls" || PROBLEMS(r);
    rest = shown.filter((r) => !leads(r));
    shown = shown.filter(leads);
  }
  const focused = document.activeElement?.closest?.("tr")?.dataset.family;
  body.replaceChildren(...shown.map((r) => row(r, det)));
  if (rest.length) {
    const n = `${rest.length} ${rest.length === 1 ? "family" : "families"}`;
    const label = shown.length ? `Show the other ${n} (no call)` : `No family finds a call: show all ${n}`;
    body.append(el("tr", { class: "more" }, el("td", { colSpan: 4 }, el("button", { type: "button", id: "show-all", class: "quiet" }, label))));
  }
  if (!shown.length && !rest.length) body.append(el("tr", {}, el("td", { colSpan: 4, class: "empty" }, "No family matches this filter.")));
  if (focused) body.querySelector(`tr[data-family="${CSS.escape(focused)}"] .fam`)?.focus();
}

function summary(rows, det) {
  if (!store.result.text) return ["Paste model output, or pick an example, to see how each family reads it."];
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
  const sniffed = [...store.result.sniffed];
  if (sniffed.length) out.push(`Markers of ${sniffed.slice(0, 5).join(", ")}${sniffed.length > 5 ? ", …" : ""} appear in it.`);
  return out;
}

function verdictWords(r) {
  if (r.verdict === "calls") return `finds ${plural(r.count ?? r.toolCalls.length, "call")}` + (r.toolCalls.length ? ` (${r.toolCalls.map((c) => c.name).join(", ")})` : "");
  if (r.verdict === "no_call") return "finds no call";
  return `finds no call: ${r.verdict}`;
}

export function verdictBadge(r) {
  if (r.verdict === "calls") return el("span", { class: "verdict v-calls" }, plural(r.count ?? r.toolCalls.length, "call"));
  if (r.verdict === "no_call") return el("span", { class: "verdict v-none" }, "no call");
  return el("span", { class: "verdict v-failed" }, r.verdict);
}

function row(r, det) {
  const sniffed = store.result.sniffed.has(r.parser);
  const cls = ["v-" + (r.verdict === "calls" ? "calls" : FAILED(r) ? "failed" : "none")];
  if (r.parser === det) cls.push("is-detected");
  const diags = [...r.diagnostics.slice(0, 4).map((d) => el("li", {}, el("code", {}, d.label), " ", d.message))];
  if (r.diagnostics.length > 4) diags.push(el("li", {}, `… ${r.diagnostics.length - 4} more`));
  if (r.error) diags.push(el("li", {}, r.error));
  return el("tr", { class: cls.join(" "), dataset: { family: r.parser, verdict: r.verdict } },
    el("th", { scope: "row" },
      el("button", { type: "button", class: "fam", "aria-haspopup": "dialog", title: store.registry.byId.get(r.parser)?.description ?? "" }, r.parser),
      r.parser === det ? el("span", { class: "badge b-model", title: "detected from the model name" }, "model") : null,
      sniffed ? el("span", { class: "badge b-sniff", title: "this family's markers appear in the text" }, "markers") : null),
    el("td", { dataset: { label: "Verdict" } }, verdictBadge(r), diags.length ? el("ul", { class: "diags" }, diags) : null),
    el("td", { dataset: { label: "Calls" }, class: "calls" }, r.toolCalls.length ? r.toolCalls.slice(0, 5).map(callView) : el("span", { class: "dim" }, "—"),
      r.toolCalls.length > 5 ? el("p", { class: "dim" }, `… ${r.toolCalls.length - 5} more`) : null),
    el("td", { dataset: { label: "Text" }, class: "texts" },
      r.reasoning ? el("div", { class: "reasoning" }, el("span", { class: "tag t-reasoning" }, "reasoning"), textCell(r.reasoning, r.reasoningLength, false)) : null,
      el("div", { class: "content" }, r.reasoning ? el("span", { class: "tag" }, "content") : null, textCell(r.content, r.contentLength, true))));
}

function callView(c) {
  return el("div", { class: "call" }, el("code", { class: "name" }, c.name), el("pre", { class: "args" }, pretty(c.arguments)));
}

function textCell(value, fullLength, isContent) {
  if (value === null || value === undefined || value === "") return el("span", { class: "dim" }, "—");
  const len = fullLength ?? value.length;
  const text = store.result.text;
  if (isContent && len === text.length && text.startsWith(value)) {
    return el("span", { class: "dim", title: "the whole input came back as content" }, "the whole input");
  }
  const cut = value.length > TABLE_TEXT || len > value.length;
  return el("pre", { class: "text" }, value.slice(0, TABLE_TEXT), cut ? el("span", { class: "dim" }, `… (${len} chars)`) : null);
}

/** Arrow keys move between the rows' family buttons. */
export function tableKeys(e) {
  if (!e.target.classList?.contains("fam")) return;
  arrowKeys(e, () => [...$("rows").querySelectorAll(".fam")]);
}
