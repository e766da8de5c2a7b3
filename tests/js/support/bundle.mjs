// esbuild for the runtime smoke tests: a test module bundled with its npm dependencies (the
// real `ai`) for a runtime's export conditions; the toolwire package stays external, so the
// runtime resolves it itself (workerd modules, the browser's import map).
import { build } from "esbuild";

export async function bundle(entry, conditions) {
  const r = await build({
    entryPoints: [entry.pathname],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    conditions,
    mainFields: ["module", "main"],
    external: ["toolwire", "toolwire/*"],
    logLevel: "error",
  });
  return r.outputFiles[0].text;
}
