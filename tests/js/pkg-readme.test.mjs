// The package README's Node examples run as written (importing "toolwire/stream" by name) and
// prints what its comments say. Its worker example runs in workerd.test.mjs, its browser
// examples in browser.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";

const readme = readFileSync(new URL("../../pkg/README.md", import.meta.url), "utf8");
const blocks = [...readme.matchAll(/```js node\n([\s\S]*?)```/g)].map((m) => m[1]);

test("the package README has its Node examples (toolwire/stream, toolwire/ai-sdk)", () => assert.equal(blocks.length, 2));

blocks.forEach((code, i) => {
  test(`package README Node example ${i + 1} prints what its comments say`, () => {
    // Inside the repository, so "toolwire/stream" resolves through node_modules like a dependency.
    const dir = new URL("artifacts/", import.meta.url);
    mkdirSync(dir, { recursive: true });
    const file = new URL(`pkg-readme-${i + 1}.mjs`, dir);
    writeFileSync(file, `const __logged = []; console.log = (v) => __logged.push(v);\n${code}\nprocess.stdout.write(JSON.stringify(__logged));`);
    const printed = JSON.parse(execFileSync(process.execPath, [file.pathname], { encoding: "utf8" }));
    const expected = [...code.matchAll(/^\/\/ (\{.*\})$/gm)].map((m) => Function(`return (${m[1]})`)());
    assert.deepEqual(printed, expected);
  });
});
