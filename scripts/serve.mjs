// A tiny static server for the playground: www/ at /, the built package (pkg/) at /pkg/.
//   node scripts/serve.mjs [--port 8080] [--host 127.0.0.1]   (PORT also works; 0 = any free port)
// Import `serve({port, host})` to start one from a test: it resolves to {url, close()}.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { dirname, extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const MOUNTS = [["/pkg/", join(root, "pkg")], ["/", join(root, "www")]];
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webmanifest": "application/manifest+json",
  ".d.ts": "text/plain; charset=utf-8",
};

/** The file a URL path maps to, or null when it is outside the served folders. */
function resolve(pathname, mounts) {
  let path;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (path.includes("\0")) return null;
  for (const [prefix, dir] of mounts) {
    if (!path.startsWith(prefix)) continue;
    const file = normalize(join(dir, path.slice(prefix.length)));
    return file === dir || file.startsWith(dir + sep) ? file : null;
  }
  return null;
}

async function handle(req, res, mounts) {
  const { pathname } = new URL(req.url, "http://x");
  if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "text/plain", "method not allowed");
  let file = resolve(pathname, mounts);
  if (!file) return send(res, 404, "text/plain", "not found");
  try {
    if ((await stat(file)).isDirectory()) file = join(file, "index.html");
    const body = await readFile(file);
    const type = TYPES[extname(file)] ?? "application/octet-stream";
    // no-cache: edits show on reload; the service worker keeps a copy for offline use.
    res.writeHead(200, { "content-type": type, "content-length": body.length, "cache-control": "no-cache" });
    res.end(req.method === "HEAD" ? undefined : body);
  } catch {
    const hint = pathname.startsWith("/pkg/") ? "not found (the package is not built: run make build)" : "not found";
    send(res, 404, "text/plain", hint);
  }
}

function send(res, status, type, text) {
  res.writeHead(status, { "content-type": `${type}; charset=utf-8` });
  res.end(text);
}

/** Starts the server; resolves to {url, close}. `pkg` serves another build of the package. */
export function serve({ port = 8080, host = "127.0.0.1", pkg } = {}) {
  const mounts = pkg ? [["/pkg/", normalize(pkg).replace(/[\\/]+$/, "")], MOUNTS[1]] : MOUNTS;
  const server = createServer((req, res) => {
    handle(req, res, mounts).catch(() => send(res, 500, "text/plain", "error"));
  });
  return new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => {
      const { port: p } = server.address();
      ok({ url: `http://${host}:${p}/`, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const port = Number(arg("--port") ?? process.env.PORT ?? 8080);
  const host = arg("--host") ?? "127.0.0.1";
  serve({ port, host }).then(
    ({ url }) => console.log(`toolwire playground: ${url}  (Ctrl-C to stop)`),
    (e) => {
      console.error(`playground: cannot listen on ${host}:${port}: ${e.message}`);
      process.exit(1);
    },
  );
}
