/**
 * The sandbox document as the app's service worker serves it (src/sw/sw.ts),
 * so the realm also starts offline. Pure: shared by the page
 * (createSandboxFrame.ts) and the service worker, tested in Node.
 *
 * Why: Chromium never routes a sandboxed (opaque-origin) iframe's navigation
 * through a service worker, so `<iframe sandbox="allow-scripts"
 * src="sandbox.html">` cannot load offline. A page the service worker
 * controls therefore frames sandbox.html WITHOUT the sandbox attribute, at
 * `sandbox.html?sw`, and the worker answers that navigation from its
 * precache with the header `Content-Security-Policy: sandbox allow-scripts;
 * <sandbox.html's own policy>`. The CSP `sandbox` directive (it works only
 * as a header) gives the document the same flags as the attribute: an
 * opaque origin ("null"), scripts only (no same-origin, popups, top
 * navigation, forms or modals); the policy keeps connect-src 'none' and
 * eval for the realm's compiler only there. A copy that arrives without the
 * header (no or an outdated worker) runs at the app's origin, where
 * sandbox.html refuses to start and the app, which only listens to origin
 * "null", never sends it the bundle or the port.
 */

/** The sandbox document, relative to the app's folder (and the worker's scope). */
export const SANDBOX_DOCUMENT = "sandbox.html";

/** Query that marks the frame the page asks its service worker for. */
export const SERVICE_WORKER_SANDBOX_QUERY = "sw";

/** The sandbox flags, as the CSP header directive: those of `<iframe sandbox="allow-scripts">`. */
export const SANDBOX_DIRECTIVE = "sandbox allow-scripts";

/** `sandbox.html?sw` next to the given sandbox.html URL. */
export function serviceWorkerSandboxUrl(sandboxUrl: string): string {
  const url = new URL(sandboxUrl);
  url.search = `?${SERVICE_WORKER_SANDBOX_QUERY}`;
  url.hash = "";
  return url.href;
}

/** Whether a request URL is the sandbox document of the worker at `scope` (any query). */
export function isSandboxDocument(url: string | URL, scope: string): boolean {
  const target = new URL(url);
  target.search = "";
  target.hash = "";
  return target.href === new URL(SANDBOX_DOCUMENT, scope).href;
}

/**
 * The realm's policy: the content of sandbox.html's CSP meta tag (the one
 * source of it). Throws when there is none, or it does not close the
 * network or pin scripts: the worker then serves no sandbox document at all.
 */
export function sandboxPolicy(html: string): string {
  const meta = /<meta\s+http-equiv=["']Content-Security-Policy["']\s+content="([^"]+)"\s*\/?>/i.exec(html);
  const policy = meta?.[1]?.trim();
  if (!policy) throw new Error("sandbox.html has no Content-Security-Policy meta tag");
  const directives = policy.split(";").map((each) => each.trim());
  if (
    !directives.includes("default-src 'none'") ||
    !directives.includes("connect-src 'none'") ||
    !directives.some((each) => each.startsWith("script-src 'sha256-"))
  ) {
    throw new Error(`sandbox.html's policy is not the realm's wall: ${policy}`);
  }
  return policy;
}

/** The headers of the sandbox document the worker serves: sandboxed by CSP, with the realm's policy. */
export function sandboxDocumentHeaders(html: string): Record<string, string> {
  return {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": `${SANDBOX_DIRECTIVE}; ${sandboxPolicy(html)}`,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
  };
}
