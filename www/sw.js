// Offline support: the page, its modules, the package (JS + wasm) and the examples are cached
// at install. Requests go to the network first (so a rebuilt package shows on reload) and
// fall back to the cache when offline.
// The page registers `sw.js?v=<package version>`: each release is a new worker with its own
// cache, and activating it deletes the caches of older releases.
const VERSION = new URL(self.location.href).searchParams.get("v") || "dev";
const CACHE = `toolwire-playground-${VERSION}`;
const FILES = [
  "./", "./index.html", "./style.css", "./app.js", "./dom.js", "./store.js", "./state.js", "./inputs.js", "./link.js",
  "./classifier.js", "./classify.js", "./table.js", "./detail.js", "./replay.js", "./worker.js",
  "./recognize.js", "./capture.js", "./wire-view.js", "./profile-view.js",
  "./examples.json", "./pkg/package.json", "./pkg/index.browser.js", "./pkg/api.js", "./pkg/events.js", "./pkg/memory.js", "./pkg/meta.js",
  "./pkg/stream.browser.js", "./pkg/stream.js",
  "./pkg/formats.js", "./pkg/dist/toolwire.js", "./pkg/dist/toolwire_bg.wasm",
];

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith("toolwire-playground-") && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (e) => {
  const url = new URL(e.request.url);
  if (e.request.method !== "GET" || url.origin !== location.origin) return;
  e.respondWith(
    fetch(e.request)
      .then((res) => {
        if (res.ok) {
          const copy = res.clone();
          caches.open(CACHE).then((c) => c.put(e.request, copy));
        }
        return res;
      })
      .catch(() => caches.match(e.request, { ignoreSearch: true }).then((hit) => hit ?? Response.error())),
  );
});
