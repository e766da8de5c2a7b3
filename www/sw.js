// Offline support: the page, its modules, the package (JS + wasm) and the examples are cached
// at install. Requests go to the network first (so a rebuilt package shows on reload) and
// fall back to the cache when offline.
const CACHE = "toolwire-playground-v2";
const FILES = [
  "./", "./index.html", "./style.css", "./app.js", "./classify.js", "./replay.js", "./state.js", "./worker.js",
  "./examples.json", "./pkg/index.browser.js", "./pkg/api.js", "./pkg/events.js", "./pkg/meta.js", "./pkg/dist/toolwire.js", "./pkg/dist/toolwire_bg.wasm",
];

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
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
