// A `toolwire probe` capability profile, pasted or dropped in, as a readable report: the verdict,
// what the worker should be told, each probe's pass rate with its 95% interval, and the
// evidence of every sample (failing probes open first).
import { $, el, plural } from "./dom.js";

const PROBE_WORDS = {
  basic: "does a call come back, structured or as text, and which family reads it",
  schema: "enum, required, integer and nested-object arguments",
  loop: "the tool's result goes back and the answer uses it",
  parallel: "two independent calls in one turn",
  repair: "after a tool error, the model fixes the argument and retries",
  replay: "the next turn without the prior reasoning",
  streaming: "the streamed call, merged by the SSE rewrite, equals the non-streamed one",
};

const yesNo = (v, yes = "yes", no = "no") => (v === null || v === undefined ? "not measured" : v ? yes : no);

/** "2/3 pass, 0.67 [0.21, 0.94]". */
export function rateText(r) {
  if (!r?.n) return "not measured";
  const f = (x) => Number(x).toFixed(2);
  return `${r.pass}/${r.n} pass, ${f(r.rate)} [${f(r.ci95[0])}, ${f(r.ci95[1])}]`;
}

/** Shows the report for `profile`, or hides it (null). `onOpen(text, model)` loads a raw output into the table. */
export function renderProfile(profile, onOpen) {
  const section = $("profile");
  if (!profile) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  const p = profile;
  const probes = Object.entries(p.probes ?? {});
  const fields = [
    ["Tool-call format", p.toolCallFormat === "native" ? "native: the server parses calls itself (structured tool_calls)" : p.toolCallFormat === "text" ? "text: the model writes calls as text; a parser is needed" : p.toolCallFormat ?? "not measured", "basic"],
    ["Parser", p.detectedParser ?? "none", "basic"],
    ["Other families that read it", (p.parserCandidates ?? []).filter((id) => id !== p.detectedParser).join(", ") || "none", null],
    ["Schema adherence", p.schemaLevel ?? "not measured", "schema"],
    ["Parallel calls", yesNo(p.supportsParallelToolUse), "parallel"],
    ["Error repair", yesNo(p.errorRepair), "repair"],
    ["Needs reasoning replay", yesNo(p.requiresReasoningReplay), "replay"],
    ["Streaming tool calls", yesNo(p.supportsStreamingToolUse), "streaming"],
  ];
  section.replaceChildren(
    el("h2", { id: "profile-h" }, "Capability profile: ", el("code", {}, String(p.model ?? "?"))),
    el("p", { class: "note" }, `${p.endpoint ?? "?"} · ${p.timestamp ?? "?"} · probe version ${p.probeVersion} · ${plural(p.samples ?? 0, "sample")} per probe`),
    el("p", { class: `verdict-line ${p.usable ? "ok" : "bad"}`, id: "profile-verdict" },
      p.usable ? ["Usable with parser ", el("code", {}, p.detectedParser), p.toolCallFormat === "native" ? " (the server already parses calls)." : "."] : `Not usable: ${p.error ?? "no basic sample gave a call that a parser reads"}.`),
    el("dl", { class: "facts", id: "profile-facts" }, fields.flatMap(([k, v, probe]) => [
      el("dt", {}, k),
      el("dd", { dataset: { fact: k } }, v, probe && p.probes?.[probe] ? el("span", { class: "dim" }, ` · ${rateText(p.probes[probe].rate)}`) : null),
    ])),
    p.usable ? el("p", { class: "note" }, "For the worker: ", el("code", {}, "PROFILE=\"$(cat profile.json)\""), " sets this parser and its switches (see the README), or ", el("code", {}, `TOOL_CALL_PARSER=${p.detectedParser}`), ".") : null,
    p.notes?.length ? el("ul", { class: "notes" }, p.notes.map((n) => el("li", {}, n))) : null,
    el("table", { class: "probes", id: "profile-probes" },
      el("caption", { class: "sr-only" }, "Each probe's pass rate with its 95% Wilson interval and the labels of its samples."),
      el("thead", {}, el("tr", {}, ["Probe", "Pass rate (95% interval)", "", "Labels"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, probes.map(([name, entry]) => el("tr", { dataset: { probe: name } },
        el("th", { scope: "row" }, el("code", {}, name), el("div", { class: "dim" }, PROBE_WORDS[name] ?? entry.title ?? "")),
        el("td", { class: "rate" }, rateText(entry.rate)),
        el("td", {}, ciBar(entry.rate)),
        el("td", {}, labelChips(entry.labels)))))),
    el("h3", {}, "Evidence"),
    ...probes.map(([name, entry]) => evidence(name, entry, p, onOpen)),
  );
}

/** The interval as a bar: the range shaded, the rate marked. */
function ciBar(r) {
  if (!r?.n) return el("span", { class: "dim" }, "—");
  const [lo, hi] = r.ci95;
  return el("div", { class: `ci${r.rate < 0.5 ? " ci-low" : ""}`, role: "img", "aria-label": `between ${Math.round(lo * 100)} and ${Math.round(hi * 100)} percent` },
    el("span", { class: "ci-range", style: `left: ${lo * 100}%; width: ${(hi - lo) * 100}%` }),
    el("span", { class: "ci-point", style: `left: ${r.rate * 100}%` }));
}

function labelChips(labels = {}) {
  return Object.entries(labels).map(([label, n]) => el("span", { class: `chip ${label === "pass" ? "c-pass" : "c-diag"}` }, `${label} ${n}`));
}

function evidence(name, entry, profile, onOpen) {
  const failing = (entry.samples ?? []).some((s) => s && s.label !== "pass");
  return el("details", { class: "evidence", open: failing, dataset: { probe: name } },
    el("summary", {}, el("code", {}, name), ` ${entry.title ?? ""}: ${rateText(entry.rate)}`),
    (entry.samples ?? []).filter(Boolean).map((s) => el("div", { class: "sample" },
      el("p", {}, el("span", { class: `chip ${s.label === "pass" ? "c-pass" : "c-diag"}` }, s.label), ` sample ${s.index + 1}: ${s.reason}`),
      el("ol", { class: "steps" }, (s.steps ?? []).map((st) => step(st, profile, onOpen))))));
}

function step(st, profile, onOpen) {
  const raw = st.raw ?? {};
  const text = typeof raw.content === "string" ? raw.content : typeof raw.sse === "string" ? raw.sse : null;
  const calls = st.parse?.calls ?? [];
  return el("li", {},
    el("p", {}, `turn ${st.request?.turn ?? "?"}${st.request?.stream ? ", streamed" : ""}${st.request?.note ? `, ${st.request.note}` : ""}: `,
      st.status ? `HTTP ${st.status}` : "no answer", st.error ? el("span", { class: "error-inline" }, ` ${st.error}`) : null,
      st.parse ? ` · ${st.parse.format}${st.parse.parser ? ` (${st.parse.parser})` : ""}` : ""),
    raw.reasoning ? el("pre", { class: "text" }, el("span", { class: "tag t-reasoning" }, "reasoning"), " ", String(raw.reasoning)) : null,
    text ? el("pre", { class: "text raw-output" }, text) : null,
    raw.tool_calls ? el("pre", { class: "args" }, JSON.stringify(raw.tool_calls, null, 1)) : null,
    calls.length ? el("ul", { class: "wire-calls" }, calls.map((c) => el("li", {}, el("code", { class: "name" }, c.name), " ", el("code", {}, c.arguments)))) : null,
    (st.parse?.diagnostics ?? []).length ? el("ul", { class: "diags" }, st.parse.diagnostics.map((d) => el("li", {}, el("code", {}, d.label), " ", d.message))) : null,
    text && onOpen ? el("button", { type: "button", class: "quiet open-raw", onclick: () => onOpen(text, profile.model ?? "") }, "Open this output in the table") : null);
}
