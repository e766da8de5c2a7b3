// Small DOM and formatting helpers shared by the playground's modules (no state here).

export const $ = (id) => document.getElementById(id);

/** A DOM element: el("td", {class: "x", dataset: {a: 1}}, child, "text", …). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "dataset") Object.assign(node.dataset, v);
    else if (k in node && k !== "list") node[k] = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

export const kb = (n) => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KB`);
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Arguments JSON for reading: on one line when short, indented otherwise. Works on the text
 * (no JSON.parse), so key order and number digits stay exactly as the parser produced them. */
export function pretty(args, max = 1200) {
  const line = layout(args, false, 49);
  const s = line.length <= 48 ? line : layout(args, true, max + 1);
  return s.length > max ? s.slice(0, max) + `… (+${s.length - max} chars)` : s;
}

/** `json` re-spaced (indented or on one line); stops once longer than `limit`. */
function layout(json, indent, limit) {
  let out = "";
  let depth = 0;
  const nl = () => (indent ? "\n" + "  ".repeat(depth) : "");
  for (let i = 0; i < json.length && out.length <= limit; i++) {
    const c = json[i];
    if (c === '"') {
      let j = i + 1;
      while (j < json.length && json[j] !== '"') j += json[j] === "\\" ? 2 : 1;
      out += json.slice(i, j + 1);
      i = j;
    } else if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      let k = i + 1;
      while (k < json.length && /\s/.test(json[k])) k++;
      if (json[k] === close) {
        out += c + close;
        i = k;
      } else {
        depth++;
        out += c + nl();
      }
    } else if (c === "}" || c === "]") {
      depth = Math.max(0, depth - 1);
      out += nl() + c;
    } else if (c === ",") {
      out += "," + (indent ? nl() : " ");
    } else if (c === ":") {
      out += ": ";
    } else if (!/\s/.test(c)) {
      out += c;
    }
  }
  return out;
}

/** Arrow keys (and Home/End) move focus among `items()` from the focused one. */
export function arrowKeys(e, items) {
  const list = items();
  const i = list.indexOf(e.target);
  if (i < 0) return;
  const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: list.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  list[Math.max(0, Math.min(list.length - 1, to))]?.focus();
}
