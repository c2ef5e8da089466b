// The field app's service worker (issue 22, ADR 0073), served by impounding/views/field.py so
// that its scope is /field/. Workbox's modules and the outbox's scripts are loaded from our own
// static files; nothing comes from another origin.
importScripts({% for url in workbox %}"{{ url }}"{% if not forloop.last %}, {% endif %}{% endfor %});
importScripts({% for url in store %}"{{ url }}"{% if not forloop.last %}, {% endif %}{% endfor %});

const { cacheableResponse, core, expiration, precaching, routing, strategies } = workbox;
const SHELL = {{ shell|safe }};
const REFERENCE = {{ reference|safe }};
const CATALOGUES = {{ catalogues|safe }};
const SCANNER = {{ scanner|safe }};
const DATA_CACHE = "field-data";
const SCANNER_CACHE = "field-scanner";
const SYNC_TAG = "field-outbox";

core.setCacheNameDetails({ prefix: "poundadmin-field" });
self.skipWaiting();
core.clientsClaim();

// Pages under /field/: the network first, so a change of language shows; offline, the page
// last seen, else the shell precached when the worker was installed.
routing.registerRoute(new routing.NavigationRoute(
  new strategies.NetworkFirst({ cacheName: "field-pages", networkTimeoutSeconds: 4 }),
  { allowlist: [new RegExp("^" + SHELL)] },
));
precaching.precacheAndRoute({{ precache|safe }});
precaching.cleanupOutdatedCaches();

// The pound's reference data, the animals in the pound and the catalogues (English and Hindi
// from the install, another language once used): the copy kept at once, refreshed from the
// network behind it (stale-while-revalidate).
function keptData({ url, request }) {
  if (request.method !== "GET") return false;
  if (url.pathname === REFERENCE || url.pathname.startsWith(SHELL + "jsi18n/")) return true;
  return url.pathname.endsWith("/entries/") && url.searchParams.has("pound");
}
routing.registerRoute(keptData, new strategies.StaleWhileRevalidate({
  cacheName: DATA_CACHE,
  plugins: [
    new cacheableResponse.CacheableResponsePlugin({ statuses: [200] }),
    new expiration.ExpirationPlugin({ maxEntries: 20, maxAgeSeconds: 30 * 24 * 60 * 60 }),
  ],
}));

// The ear-tag scanner for browsers without BarcodeDetector: its files are named by their
// content, so the copy kept is good until the app names others.
routing.registerRoute(({ url }) => SCANNER.includes(url.pathname) || SCANNER.includes(url.href), new strategies.CacheFirst({
  cacheName: SCANNER_CACHE,
  plugins: [new cacheableResponse.CacheableResponsePlugin({ statuses: [200] })],
}));

routing.setCatchHandler(async ({ request }) => {
  if (request.destination === "document") return precaching.matchPrecache(SHELL);
  return Response.error();
});

self.addEventListener("install", (event) => {
  const kept = [caches.open(DATA_CACHE).then((cache) => cache.addAll(CATALOGUES))];
  // Where the browser cannot read a barcode itself, the scanner is fetched now, with a signal.
  if (!("BarcodeDetector" in self)) {
    // Not a reason to refuse the install: a scan then tries again, and the tag can be typed.
    kept.push(caches.open(SCANNER_CACHE).then((cache) => cache.addAll(SCANNER)).catch(() => {}));
  }
  event.waitUntil(Promise.all(kept));
});

// Background Sync, where the browser has it: the same outbox as the page, sent when the browser
// sees the connection back (so all of it, as "Send now"). A pass that leaves records waiting
// fails, so the browser tries again later.
self.addEventListener("sync", (event) => {
  if (event.tag !== SYNC_TAG) return;
  event.waitUntil(self.FieldOutbox.run(true).then((result) => {
    if (result.waiting) throw new Error("records are still waiting");
  }));
});
