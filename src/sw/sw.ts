/**
 * The app's service worker (built by vite-plugin-pwa, injectManifest: this
 * file plus the precache list of the build). It precaches the built app,
 * the realm bundle and the sandbox document, so the app opens offline and
 * its code runs there too:
 *
 * - navigations to sandbox.html (the page asks for `sandbox.html?sw` when
 *   this worker controls it) get the precached document with the header
 *   `Content-Security-Policy: sandbox allow-scripts; <its own policy>`:
 *   an opaque origin like the iframe sandbox attribute gives, which
 *   Chromium never routes through a service worker
 *   (src/sandbox/sandboxDocument.ts explains why this is the same wall);
 * - every other navigation in scope gets the cached app (index.html);
 * - nothing takes over on its own: a new version waits until the page asks
 *   (SKIP_WAITING from src/ui/appUpdate.ts, never mid-reply).
 */
import { cleanupOutdatedCaches, createHandlerBoundToURL, matchPrecache, precacheAndRoute } from "workbox-precaching";
import { NavigationRoute, registerRoute } from "workbox-routing";
import {
  isSandboxDocument,
  SANDBOX_DIRECTIVE,
  SANDBOX_DOCUMENT,
  sandboxDocumentHeaders,
} from "../sandbox/sandboxDocument";

declare const self: ServiceWorkerGlobalScope & {
  __WB_MANIFEST: Array<string | { url: string; revision: string | null }>;
};

/** Served when the sandbox document cannot be: sandboxed, runs nothing, so the page falls back or reports. */
function unavailable(reason: string): Response {
  return new Response(`The sandbox document is unavailable: ${reason}`, {
    status: 503,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Security-Policy": `${SANDBOX_DIRECTIVE}; default-src 'none'`,
      "Cache-Control": "no-store",
    },
  });
}

// First: workbox answers with the first route that matches, and the
// precache route below would serve sandbox.html without its header.
registerRoute(
  ({ request, url }) => request.mode === "navigate" && isSandboxDocument(url, self.registration.scope),
  async () => {
    const cached = await matchPrecache(SANDBOX_DOCUMENT);
    if (!cached) return unavailable("not in the cache");
    const html = await cached.text();
    try {
      return new Response(html, { status: 200, headers: sandboxDocumentHeaders(html) });
    } catch (error) {
      return unavailable(error instanceof Error ? error.message : String(error));
    }
  },
);

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
// Navigations to the app (any query, e.g. a share link) get the cached page.
registerRoute(new NavigationRoute(createHandlerBoundToURL("index.html")));

self.addEventListener("message", (event) => {
  if ((event.data as { type?: unknown } | null)?.type === "SKIP_WAITING") void self.skipWaiting();
});
