/**
 * Defence in depth for whoever hosts the app (README "Hosting"): the page's
 * `<meta>` Content-Security-Policy governs the page once it is read, but
 * only an HTTP header can also say `frame-ancestors` (no framing of the app)
 * and be in force from the first byte. A static host that sends no header still runs the app;
 * this says so once in the console, for the person who deployed it.
 *
 * One HEAD request for the page's own address, once, after the page went
 * idle. A failure (offline, a host without HEAD) proves nothing and stays
 * silent: the check never stands in the way of the app.
 */
export const CSP_HEADER_WARNING =
  "Livemark: this page was served without a Content-Security-Policy HTTP header. The policy in the page's <meta> tag " +
  "still applies, but only the header can also refuse framing (frame-ancestors); " +
  'see the README\'s "Hosting" section for the header to add on Netlify, Vercel, nginx and others.';

/** A performance mark once the check has settled (warned or not): what a test waits for. */
export const CSP_HEADER_CHECKED_MARK = "livemark:csp-header-checked";

export interface CspHeaderCheckOptions {
  url?: string;
  fetch?: typeof fetch;
  warn?: (message: string) => void;
}

/** Resolves to true when it warned (the page's own response carries no such header). */
export async function warnWithoutCspHeader(options: CspHeaderCheckOptions = {}): Promise<boolean> {
  const address = new URL(options.url ?? location.href);
  if (address.protocol !== "https:" && address.protocol !== "http:") return false;
  address.hash = "";
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  let response: Response;
  try {
    response = await fetchImpl(address.href, {
      method: "HEAD",
      cache: "no-store",
      credentials: "same-origin",
      redirect: "manual",
    });
  } catch {
    return false;
  }
  if (!response.ok || response.headers.has("content-security-policy")) return false;
  (options.warn ?? ((message) => console.warn(message)))(CSP_HEADER_WARNING);
  return true;
}
