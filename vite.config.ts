import { defineConfig, type Plugin } from "vite";

/**
 * The app's Content-Security-Policy, added to the built index.html as a meta
 * tag (the dev server needs inline scripts and a WebSocket, so it goes
 * without). The app holds the API key: only its own scripts run, and it
 * frames only its own sandbox.html (which carries its own, stricter policy).
 * connect-src stays open to any http(s) endpoint because the person picks
 * the OpenAI-compatible base URL (a cloud API, or Ollama on the LAN). No
 * inline styles either: the app's CSS is a file and mounts style themselves
 * through constructed style sheets and the CSSOM, which CSP does not block.
 */
export const APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' https: http:",
  "frame-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join("; ");

/**
 * Build-time additions to the app's index.html: the CSP, right after the
 * charset (before anything it governs).
 *
 * No `<link rel="preload">` of the realm bundle: with it, Chromium sometimes
 * (2 of 40 fresh loads here, 2–7 of 30 in an earlier check) resolved the
 * realm host's fetch() with 200 and then rejected `response.blob()` with
 * "Failed to fetch", and the realm never started; without it, 0 of 40. The
 * realm host starts its fetch as soon as the app's script runs instead.
 */
function indexHtmlHead(): Plugin {
  const csp = `<meta http-equiv="Content-Security-Policy" content="${APP_CSP}" />`;
  return {
    name: "livemark-index-head",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(html, context) {
        // Only the app's own page: extra inputs (test pages) bring their own.
        if (context.path !== "/index.html") return html;
        const charset = /<meta charset=[^>]*>/i;
        return charset.test(html) ? html.replace(charset, (meta) => `${meta}\n    ${csp}`) : html.replace(/<head>/i, `<head>\n    ${csp}`);
      },
    },
  };
}

// The app is a static site: relative base so `dist/` works from any host and
// any sub-path. The realm bundle is built separately (vite.realm.config.ts)
// into public/generated/ because it runs inside the sandbox worker, never in
// the app's own module graph.
export default defineConfig({
  base: "./",
  build: {
    target: "es2022",
    sourcemap: false,
  },
  server: { host: "127.0.0.1" },
  plugins: [indexHtmlHead()],
});
