// The worker as Miniflare modules: worker/src/*.js plus the built package (pkg/) resolved by its
// `workerd` condition, the way Wrangler bundles it. Miniflare does not resolve npm specifiers,
// so `toolwire` and `toolwire/stream` are one-line modules re-exporting the files that condition
// names. Used by `make worker` (dev.mjs) and the worker tests.
import { readFileSync, readdirSync } from "node:fs";

const ROOT = "/worker";
const PKG = new URL("../pkg/", import.meta.url);
const SRC = new URL("./src/", import.meta.url);

export function workerModules() {
  const modules = [];
  for (const name of readdirSync(SRC).filter((n) => n.endsWith(".js"))) {
    modules.push({ type: "ESModule", path: `${ROOT}/src/${name}`, contents: readFileSync(new URL(name, SRC), "utf8") });
  }
  for (const dir of ["", "dist/"]) {
    for (const name of readdirSync(new URL(dir, PKG))) {
      const path = `${ROOT}/src/toolwire/${dir}${name}`;
      if (name.endsWith(".js")) modules.push({ type: "ESModule", path, contents: readFileSync(new URL(dir + name, PKG), "utf8") });
      if (name.endsWith(".wasm")) modules.push({ type: "CompiledWasm", path, contents: readFileSync(new URL(dir + name, PKG)) });
    }
  }
  const meta = JSON.parse(readFileSync(new URL("package.json", PKG), "utf8"));
  for (const [subpath, target] of Object.entries(meta.exports)) {
    if (typeof target !== "object" || !target.workerd) continue;
    const name = subpath === "." ? "toolwire" : `toolwire/${subpath.slice(2)}`;
    const file = (subpath === "." ? "./toolwire/" : "./") + target.workerd.replace(/^\.\//, "");
    modules.push({ type: "ESModule", path: `${ROOT}/src/${name}`, contents: `export * from "${file}";\nexport { default } from "${file}";\n` });
  }
  // The entry module must come first.
  modules.sort((a, b) => (b.path === `${ROOT}/src/index.js`) - (a.path === `${ROOT}/src/index.js`));
  return modules;
}

export const MODULES_ROOT = ROOT;
export const COMPATIBILITY_DATE = "2025-06-01";
