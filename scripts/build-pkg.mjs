// Assembles pkg/ (the npm package) from wasm-bindgen's output and pkg-template/.
//   node scripts/build-pkg.mjs <wasm-bindgen out dir>
// Steps: wasm-opt (-Oz and friends), copy the template, stamp the version from Cargo.toml, generate meta.js
// (the registry's documentation), check the size budget (contract §7: at most 320 KiB raw and
// 128 KiB gzip), fail when over.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = process.argv[2];
if (!src) throw new Error("usage: build-pkg.mjs <wasm-bindgen out dir>");
const pkg = join(root, "pkg");
const dist = join(pkg, "dist");
const BUDGET_RAW = 320 * 1024;
const BUDGET_GZIP = 128 * 1024;

rmSync(pkg, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

// 1. wasm-opt -Oz (binaryen from npm: no native download).
execFileSync(join(root, "node_modules/.bin/wasm-opt"), [
  // The module's own memory starts zeroed and its first KiB is never used (Rust's stack sits
  // below the data, far above it): about 0.7 KiB of gzip less. `--flatten --rereloop` first
  // rebuilds the control flow that two -Oz rounds then shrink: about 1 KiB of gzip less, no
  // measurable change in `make bench` (2026-11-25). The target-features section is for
  // linkers only.
  "--flatten", "--rereloop", "-Oz", "-Oz", "--converge", "--low-memory-unused", "--zero-filled-memory",
  "--strip-producers", "--strip-target-features",
  join(src, "toolwire_bg.wasm"), "-o", join(dist, "toolwire_bg.wasm"),
], { stdio: "inherit" });
// wasm-bindgen imports pkg-template/formats.js (src/wasm.rs, `format` checks) from a copy under
// snippets/; the package has that file at its root (step 2), so the import points there.
const glue = readFileSync(join(src, "toolwire.js"), "utf8");
const snippet = /(["'])\.\/snippets\/[^"']+\/pkg-template\/formats\.js\1/g;
if ((glue.match(snippet) ?? []).length !== 1) throw new Error("build-pkg: expected one import of pkg-template/formats.js in wasm-bindgen's toolwire.js");
writeFileSync(join(dist, "toolwire.js"), glue.replace(snippet, '"../formats.js"'));

// 2. The template, with the version stamped from Cargo.toml (one source of truth).
const cargo = readFileSync(join(root, "Cargo.toml"), "utf8");
const version = /^version\s*=\s*"([^"]+)"/m.exec(cargo)[1];
for (const name of readdirSync(join(root, "pkg-template"))) {
  const from = join(root, "pkg-template", name);
  if (statSync(from).isDirectory()) continue;
  if (name === "package.json") {
    const meta = JSON.parse(readFileSync(from, "utf8"));
    meta.version = version;
    writeFileSync(join(pkg, name), JSON.stringify(meta, null, 2) + "\n");
  } else {
    copyFileSync(from, join(pkg, name));
  }
}

// 3. The registry's documentation (family and reasoning descriptions, model names), generated
// from the Rust registry by a native run: the wasm leaves these texts out.
const meta = JSON.parse(execFileSync("cargo", ["run", "--quiet", "--example", "meta"], { cwd: root, encoding: "utf8" }));
writeFileSync(join(pkg, "meta.js"), [
  "// Generated from the Rust registry by scripts/build-pkg.mjs (cargo run --example meta). Do not edit.",
  `export const parsers = ${JSON.stringify(meta.parsers)};`,
  `export const reasoningParsers = ${JSON.stringify(meta.reasoningParsers)};`,
  "",
].join("\n"));

// 4. The size budget.
const wasm = readFileSync(join(dist, "toolwire_bg.wasm"));
const gz = gzipSync(wasm, { level: 9 }).length;
const kib = (n) => (n / 1024).toFixed(1) + " KiB";
console.log(`pkg/ toolwire@${version}: toolwire_bg.wasm ${kib(wasm.length)} raw, ${kib(gz)} gzip (budget ${kib(BUDGET_RAW)} / ${kib(BUDGET_GZIP)})`);
if (wasm.length > BUDGET_RAW || gz > BUDGET_GZIP) {
  console.error("error: the wasm is over the size budget (contract §7)");
  process.exit(1);
}
