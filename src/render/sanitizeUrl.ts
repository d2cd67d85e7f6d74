/**
 * URL rules for everything a mount may point at. Pure.
 *
 * Links navigate only after a person clicks, in a new browsing context
 * without an opener, so http(s) and mailto are fine. Resources (img src, CSS
 * url()) load without anyone clicking, so they are limited to data: and blob:
 * until the network capability brokers them (DESIGN.md §4).
 *
 * The WHATWG URL parser is the judge, and the string it returns is the one
 * rendered: `java\tscript:`, ` javascript:` and `JaVaScRiPt:` all parse to the
 * `javascript:` scheme, exactly as the browser would read them.
 */
const LINK_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);

/**
 * The fragment that opens a shared session in this app (`SHARE_PREFIX`,
 * src/store/share.ts, which looks for it anywhere in the page's URL). A link
 * the model writes must not carry one: clicking it would open a session the
 * model (or a page it read) composed, inside the person's own app.
 */
export const SHARE_FRAGMENT = "#share=";
/** The fragments that open the app view (src/ui/appView.tsx): an app link, a reply's app, a file. */
const APP_FRAGMENT = /#app(?:[=/]|$)/;
/** Any base: only the fragment is read, and a relative `#share=…` needs one to parse. */
const PARSE_BASE = "https://livemark.invalid/";

/**
 * Whether a link would open a shared session or an app: its URL, resolved as the
 * browser would (tabs and newlines removed, relative forms resolved),
 * holds `#share=` in any case. Any origin counts: the same app may be served
 * elsewhere, where the person's key may be too.
 */
export function isShareLink(value: unknown): boolean {
  if (typeof value !== "string") return false;
  let href = value;
  try {
    href = new URL(value, PARSE_BASE).href;
  } catch {
    // Unparseable: judged as written below.
  }
  const plain = (text: string) => text.replace(/[\u0000-\u001f]/g, "").toLowerCase();
  // An app link (`#app=…`, `#app/…`, src/ui/appView.tsx) runs its code at once: it too comes from a person.
  const opens = (text: string) => text.includes(SHARE_FRAGMENT) || APP_FRAGMENT.test(text);
  return opens(plain(href)) || opens(plain(value));
}
const RESOURCE_PROTOCOLS = new Set(["data:", "blob:"]);

/** Longest URL accepted; data: images beyond this belong behind a capability. */
export const MAX_URL_LENGTH = 512 * 1024;

export type UrlKind = "link" | "resource";

/** The normalised URL when it is allowed for `kind`, else null. */
export function sanitizeUrl(value: unknown, kind: UrlKind): string | null {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_URL_LENGTH) return null;
  let url: URL;
  try {
    // No base: relative URLs ("/x", "#y", "x.png") would resolve against the
    // app's own origin and are refused.
    url = new URL(value);
  } catch {
    return null;
  }
  const allowed = kind === "link" ? LINK_PROTOCOLS : RESOURCE_PROTOCOLS;
  if (!allowed.has(url.protocol)) return null;
  if (kind === "link" && url.protocol !== "mailto:" && (url.username !== "" || url.password !== "")) return null;
  if (kind === "link" && isShareLink(url.href)) return null;
  if (url.protocol === "blob:") {
    // blob:<origin>/<uuid> — only the app's own blob store is meaningful, and
    // the host checks that when it creates them; here the shape is enough.
    if (!/^blob:(https?:\/\/[^/\s]+|null)\/[0-9a-f-]{36}$/i.test(url.href)) return null;
  }
  return url.href;
}
