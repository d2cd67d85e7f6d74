import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";
import { VitePWA } from "vite-plugin-pwa";

/**
 * The app's Content-Security-Policy, added to index.html as a meta tag, in
 * the build and on the dev server alike (DEV_CSP: the same policy plus what
 * the dev server itself needs). The app holds the API key: only its own scripts run, and it
 * frames only its own sandbox.html (which carries its own, stricter policy).
 * connect-src stays open to any http(s) endpoint because the person picks
 * the OpenAI-compatible base URL (a cloud API, or Ollama on the LAN), plus
 * WebSockets to loopback only: the local agent bridge (bridge/, `npm run
 * bridge`), which refuses pages of origins it does not know. No
 * inline styles either: the app's CSS is a file and mounts style themselves
 * through constructed style sheets and the CSSOM, which CSP does not block.
 */
export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' https: http: ws://127.0.0.1:* ws://localhost:*",
  "frame-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join("; ");

/**
 * Nonce for the style elements the dev server injects (CSS imported from
 * modules arrives as <style> there; Vite stamps them with `html.cspNonce`).
 * Fresh per dev server start; the build needs none.
 */
const DEV_STYLE_NONCE = randomBytes(18).toString("base64");

/**
 * The dev server's policy: APP_CSP, plus its HMR WebSocket and its own
 * nonce-stamped style elements. Scripts stay 'self' only, so the sanitizer
 * is never the only wall during development either.
 */
export const DEV_CSP = APP_CSP.replace("style-src 'self'", `style-src 'self' 'nonce-${DEV_STYLE_NONCE}'`).replace(
  "connect-src 'self' https: http: ws://127.0.0.1:* ws://localhost:*",
  "connect-src 'self' https: http: ws: wss:",
);

/**
 * Additions to the app's index.html: the CSP, before anything it governs,
 * in the build and on the dev server alike (public/sandbox.html is served as
 * is and keeps its own, stricter policy).
 *
 * No `<link rel="preload">` of the realm bundle: with it, Chromium sometimes
 * (2 of 40 fresh loads here, 2–7 of 30 in an earlier check) resolved the
 * realm host's fetch() with 200 and then rejected `response.blob()` with
 * "Failed to fetch", and the realm never started; without it, 0 of 40. The
 * realm host starts its fetch as soon as the app's script runs instead.
 */
function indexHtmlHead(): Plugin {
  let serving = false;
  return {
    name: "livemark-index-head",
    configResolved(config) {
      serving = config.command === "serve";
    },
    transformIndexHtml: {
      order: "post",
      handler(html, context) {
        // Only the app's own page: extra inputs (test pages) bring their own.
        if (context.path !== "/index.html") return html;
        const csp = `<meta http-equiv="Content-Security-Policy" content="${serving ? DEV_CSP : APP_CSP}" />`;
        const charset = /<meta charset=[^>]*>/i;
        // The dev server injects its client script at the top of <head>: the policy goes before it.
        const withCsp =
          !serving && charset.test(html)
            ? html.replace(charset, (meta) => `${meta}\n    ${csp}`)
            : html.replace(/<head>/i, `<head>\n    ${csp}`);
        return context.bundle ? withAppPreloads(withCsp, context.bundle) : withCsp;
      },
    },
  };
}

/**
 * The app's own chunk (src/main.tsx) and its static imports, as module
 * preloads right after the entry script, and its stylesheet. The entry
 * (src/boot.ts) imports the app only after it started the realm; without
 * these the browser would request the app's code and styles only once the
 * entry had run, instead of fetching (and compiling) them alongside (the
 * entry stays first in the document). The stylesheet is a preload, not a
 * `rel="stylesheet"` link: one in the head would hold back the entry (a
 * module script runs only once the style sheets before it have loaded), and
 * with it the realm's start. The app's dynamic import adds the stylesheet
 * (same URL and CORS mode: it takes the preloaded response) and waits for it
 * as before.
 */
function withAppPreloads(html: string, bundle: Record<string, { type: string; fileName: string }>): string {
  const chunks = Object.values(bundle).filter(
    (
      item,
    ): item is {
      type: "chunk";
      fileName: string;
      moduleIds: string[];
      imports: string[];
      viteMetadata?: { importedCss: Set<string> };
    } => item.type === "chunk",
  );
  const app = chunks.find((chunk) => chunk.moduleIds.some((id) => id.replace(/\\/g, "/").endsWith("/src/main.tsx")));
  if (!app) throw new Error("vite.config.ts: the app's chunk (src/main.tsx) is not in the build");
  const files = [app.fileName, ...app.imports];
  const present = new Set([...html.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((match) => match[1]));
  const links = files
    .filter((file) => !present.has(file))
    .map((file) => `<link rel="modulepreload" crossorigin href="./${file}">`);
  const styles = [...(app.viteMetadata?.importedCss ?? [])]
    .filter((file) => !present.has(file))
    .map((file) => `<link rel="preload" as="style" crossorigin href="./${file}">`);
  return html.replace(/(<script type="module"[^>]*><\/script>)/, (entry) =>
    [entry, ...links, ...styles].join("\n    "),
  );
}

/**
 * The app's code in one chunk: src/main.tsx and everything it imports
 * statically (React, the runtime helpers, the small modules the lazy parts
 * share with it) are one file, not the app's chunk plus a handful of tiny
 * shared chunks. Each of those was a request of its own on the way to the
 * first render (HTTP/1.1 opens at most six connections to the site, and the
 * sandbox page, the realm bundle and the stylesheet need some too), and the
 * app can run only once the last of them has arrived. What the entry
 * (src/boot.ts) has already loaded stays in its own chunk; the lazy parts
 * import what they share with the app from the app's chunk. (Rolldown's
 * runtime helpers, under 1 KB, stay a chunk of their own: groups never see
 * that module.)
 */
function oneAppChunk(): {
  plugin: Plugin;
  group: { name: string; test: (id: string) => boolean; priority: number; includeDependenciesRecursively: boolean };
} {
  let app = new Set<string>();
  const plugin: Plugin = {
    name: "livemark-one-app-chunk",
    apply: "build",
    buildEnd() {
      const reach = (entry: string | undefined) => {
        const seen = new Set<string>();
        const visit = (id: string) => {
          if (seen.has(id)) return;
          seen.add(id);
          for (const next of this.getModuleInfo(id)?.importedIds ?? []) visit(next);
        };
        if (entry) visit(entry);
        return seen;
      };
      const ids = [...this.getModuleIds()];
      const find = (suffix: string) => ids.find((id) => id.replace(/\\/g, "/").endsWith(suffix));
      const main = find("/src/main.tsx");
      const boot = reach(find("/src/boot.ts"));
      app = new Set([...reach(main)].filter((id) => !boot.has(id)));
    },
  };
  // Not the dependencies of what it holds: those the entry has loaded already stay in the entry's chunk.
  return {
    plugin,
    group: { name: "main", test: (id) => app.has(id), priority: 10, includeDependenciesRecursively: false },
  };
}

const appChunk = oneAppChunk();

// The app is a static site: relative base so `dist/` works from any host and
// any sub-path. The realm bundle is built separately (vite.realm.config.ts)
// into public/generated/ because it runs inside the sandbox worker, never in
// the app's own module graph.
export default defineConfig(({ command }) => ({
  base: "./",
  build: {
    target: "es2022",
    sourcemap: process.env.LIVEMARK_SOURCEMAP === "1",
    rolldownOptions: { output: { codeSplitting: { groups: [appChunk.group] } } },
  },
  server: { host: "127.0.0.1" },
  // The highlighting worker (src/ui/highlight.worker.ts) is a module worker: its grammars stay lazy chunks.
  worker: { format: "es" },
  resolve: {
    alias: {
      // rehype-katex parses KaTeX's HTML; the package's browser build does it with the DOM, which applies
      // (and, under the app's style-src, reports) every inline style attribute. The parse5 build parses
      // without the DOM; the styles then reach the page as React style objects (the CSSOM).
      "hast-util-from-html-isomorphic": fileURLToPath(
        new URL("./node_modules/hast-util-from-html-isomorphic/lib/index.js", import.meta.url),
      ),
    },
  },
  // Only the dev server injects <style> elements; the build links CSS files.
  ...(command === "serve" ? { html: { cspNonce: DEV_STYLE_NONCE } } : {}),
  plugins: [indexHtmlHead(), appChunk.plugin, installable()],
}));

/**
 * Installable and offline (vite-plugin-pwa): a web app manifest and a
 * service worker (src/sw/sw.ts, built with the precache list of this build)
 * that precaches the built app, the realm bundle and the sandbox document,
 * so the app, every local session, the demo model's replies and the code
 * in them all work offline. Relative URLs throughout: the worker's scope is
 * the folder it is served from, whatever the sub-path.
 *
 * The realm offline: Chromium never routes a sandboxed (opaque-origin)
 * iframe's navigation through a service worker, so a page the worker
 * controls frames `sandbox.html?sw` without the sandbox attribute and the
 * worker serves it with `Content-Security-Policy: sandbox allow-scripts;
 * <sandbox.html's policy>` (a header: the directive does nothing in a meta
 * tag), which gives the document the same opaque origin and flags. Without
 * the header it refuses to start and the page falls back to the attribute
 * (src/sandbox/sandboxDocument.ts, createSandboxFrame.ts).
 *
 * `registerType: "prompt"`: a new version waits until the person presses
 * Reload (src/ui/appUpdate.ts, UpdateBanner.tsx; never while a reply runs). The app
 * registers the worker itself, lazily, so no script is injected into
 * index.html and the initial JavaScript does not grow.
 */
function installable() {
  return VitePWA({
    registerType: "prompt",
    injectRegister: false,
    strategies: "injectManifest",
    srcDir: "src/sw",
    filename: "sw.ts",
    includeAssets: ["icons/icon.svg", "icons/apple-touch-icon.png"],
    manifest: {
      name: "Livemark",
      short_name: "Livemark",
      description: "Chat with an LLM whose Markdown replies run, in a browser sandbox.",
      start_url: "./",
      scope: "./",
      display: "standalone",
      theme_color: "#3451e8",
      background_color: "#f7f7f5",
      icons: [
        { src: "icons/icon-192.png", sizes: "192x192", type: "image/png" },
        { src: "icons/icon-512.png", sizes: "512x512", type: "image/png" },
        { src: "icons/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
        { src: "icons/icon.svg", sizes: "any", type: "image/svg+xml" },
      ],
    },
    injectManifest: {
      // Everything the app can load, the realm bundle (generated/realm.js) and sandbox.html included, KaTeX's
      // woff2 faces too (its .woff/.ttf fallbacks are for old browsers).
      globPatterns: ["**/*.{js,css,html,svg,png,woff2,webmanifest}"],
      // The realm bundle and the icon set are large; they must be there offline.
      maximumFileSizeToCacheInBytes: 8 * 1024 * 1024,
    },
  });
}
