// The README's JavaScript examples run, and print what the README says they print.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { tmpdir } from "node:os";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

test("the README has JavaScript examples", () => assert.ok(blocks.length >= 1));

blocks.forEach((code, i) => {
  test(`README example ${i + 1} runs and prints what its comments say`, () => {
    const dir = mkdtempSync(join(tmpdir(), "toolwire-readme-"));
    const file = join(dir, "example.mjs");
    // Resolve "toolwire" from this repository's node_modules.
    const source = code
      .replaceAll('from "toolwire/stream"', `from ${JSON.stringify(new URL("../../node_modules/toolwire/stream.node.js", import.meta.url).href)}`)
      .replaceAll('from "toolwire/probe"', `from ${JSON.stringify(new URL("../../node_modules/toolwire/probe.node.js", import.meta.url).href)}`)
      .replaceAll('from "toolwire"', `from ${JSON.stringify(new URL("../../node_modules/toolwire/index.node.js", import.meta.url).href)}`);
    // Capture what the example logs, as values.
    writeFileSync(file, `const __logged = []; console.log = (...v) => __logged.push(...v);\n${source}\nprocess.stdout.write(JSON.stringify(__logged));`);
    const printed = JSON.parse(execFileSync(process.execPath, [file], { encoding: "utf8" }));
    // `//=> value` lines, in JS notation, are the logged values, in order.
    const expected = [...code.matchAll(/^\/\/=> (.*)$/gm)].map((m) => Function(`return (${m[1]})`)());
    assert.deepEqual(printed, expected);
  });
});

test("the README's parser table lists every parser id and alias", async () => {
  const { parsers } = await import("toolwire");
  for (const p of parsers()) {
    for (const name of [p.id, ...p.aliases]) assert.ok(readme.includes("`" + name + "`"), `${name} is missing from the README`);
  }
});
