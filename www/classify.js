// Every family's reading of one text. Uses the package's classify() when it has one, else
// parse() per family (same verdict rule: "calls" with a count, else the first diagnostic label,
// else "no_call"). Shared by the worker and the main-thread fallback.

/** Rows `[{parser, verdict, count?, content, reasoning, toolCalls, diagnostics, error?}]`. */
export function classifyAll(api, text, options) {
  if (typeof api.classify === "function") return { rows: api.classify(text, options), native: true };
  const rows = api.parsers().map(({ id }) => {
    try {
      const r = api.parse(text, { ...options, parser: id });
      const n = r.toolCalls.length;
      return { parser: id, verdict: n ? "calls" : (r.diagnostics[0]?.label ?? "no_call"), ...(n ? { count: n } : {}), ...r };
    } catch (e) {
      return { parser: id, verdict: "error", error: String(e.message ?? e), content: null, reasoning: null, toolCalls: [], diagnostics: [] };
    }
  });
  return { rows, native: false };
}

/** Cuts content and reasoning to `max` characters for the table (the detail view re-parses). */
export function trimRows(rows, max = 2000) {
  for (const r of rows) {
    for (const key of ["content", "reasoning"]) {
      const s = r[key];
      if (typeof s === "string" && s.length > max) {
        r[key + "Length"] = s.length;
        r[key] = s.slice(0, max);
      }
    }
  }
  return rows;
}

/** Families whose markers appear in the text (the package's sniffParser), or [] without it. */
export function sniff(api, text) {
  try {
    return typeof api.sniffParser === "function" ? api.sniffParser(text) : [];
  } catch {
    return [];
  }
}
