/**
 * What MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865) say
 * about a tool and a view, read without the extension's code: pure, so the
 * servers' chunk and the tests need none of it.
 *
 * - A tool declares its view with `_meta.ui.resourceUri` (or the older flat
 *   `_meta["ui/resourceUri"]`), a `ui://` resource of MIME
 *   `text/html;profile=mcp-app`; `_meta.ui.visibility` says who may call it
 *   (`["model", "app"]` by default; `["app"]`: only its own view).
 * - A view's frame gets a Content-Security-Policy built from its resource's
 *   `_meta.ui.csp`: nothing external unless declared (the extension's
 *   secure default).
 * - The panel's height follows the view's `size-changed`, within bounds.
 */

/** The MIME type of an MCP App's HTML resource. */
export const MCP_APP_MIME = "text/html;profile=mcp-app";

export type ToolVisibility = "model" | "app";

/** A tool's view, as its `_meta` declares it. */
export interface ToolUi {
  /** The `ui://` resource holding the view's HTML. */
  readonly resourceUri: string;
  /** Who may call the tool: the model (the code), its view, or both. */
  readonly visibility: readonly ToolVisibility[];
}

const DEFAULT_VISIBILITY: readonly ToolVisibility[] = Object.freeze(["model", "app"]);

/** A tool's view, or undefined: no `ui://` resource declared (anything else is ignored). */
export function toolUiOf(meta: unknown): ToolUi | undefined {
  if (!meta || typeof meta !== "object") return undefined;
  const record = meta as Record<string, unknown>;
  const ui = record.ui && typeof record.ui === "object" ? (record.ui as Record<string, unknown>) : undefined;
  const uri = typeof ui?.resourceUri === "string" ? ui.resourceUri : record["ui/resourceUri"];
  if (typeof uri !== "string" || !uri.startsWith("ui://") || uri.length > 2_000) return undefined;
  const declared = Array.isArray(ui?.visibility)
    ? ui.visibility.filter((item): item is ToolVisibility => item === "model" || item === "app")
    : [];
  return { resourceUri: uri, visibility: declared.length > 0 ? [...new Set(declared)] : DEFAULT_VISIBILITY };
}

/** Only its own view may call it: hidden from the realm's `tools` and from the system prompt. */
export function isAppOnly(ui: ToolUi | undefined): boolean {
  return ui !== undefined && !ui.visibility.includes("model");
}

/** A resource's declared origins (`_meta.ui.csp`), as the extension names them. */
export interface ViewCsp {
  connectDomains?: readonly string[];
  resourceDomains?: readonly string[];
  frameDomains?: readonly string[];
  baseUriDomains?: readonly string[];
}

/**
 * One declared origin as a CSP source, or undefined when it is not one: an
 * http(s)/ws(s) origin, a leading `*.` wildcard allowed, nothing else (no
 * path, no quotes, no `;`, no keyword such as `'unsafe-eval'` or `*`).
 */
export function cspSource(origin: unknown): string | undefined {
  if (typeof origin !== "string" || origin.length > 300) return undefined;
  const match = /^(https?|wss?):\/\/(\*\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*)(:\d{1,5})?\/?$/i.exec(origin.trim());
  if (!match) return undefined;
  return `${match[1].toLowerCase()}://${match[2] ?? ""}${match[3].toLowerCase()}${match[4] ?? ""}`;
}

const sources = (list: unknown): string[] =>
  Array.isArray(list)
    ? [...new Set(list.slice(0, 50).map(cspSource))].filter((item): item is string => item !== undefined)
    : [];

/** The declared CSP of a resource's `_meta` (`_meta.ui.csp`), kept to what `buildViewCsp` reads. */
export function viewCspOf(meta: unknown): ViewCsp | undefined {
  const ui = (meta as { ui?: { csp?: unknown } } | undefined)?.ui;
  const csp = ui && typeof ui === "object" ? ui.csp : undefined;
  if (!csp || typeof csp !== "object") return undefined;
  const declared = csp as Record<string, unknown>;
  return {
    connectDomains: sources(declared.connectDomains),
    resourceDomains: sources(declared.resourceDomains),
    frameDomains: sources(declared.frameDomains),
    baseUriDomains: sources(declared.baseUriDomains),
  };
}

/**
 * The view's Content-Security-Policy (the extension's default, widened only
 * by the origins its resource declared): inline scripts and styles, images
 * and media from `data:`/`blob:`, no network, no frames, no forms, unless
 * declared. The sandbox proxy puts it first in the view's document.
 */
export function buildViewCsp(csp: ViewCsp | undefined): string {
  const list = (items: readonly string[] | undefined) => sources(items ?? []);
  const resources = list(csp?.resourceDomains);
  const connect = list(csp?.connectDomains);
  const frames = list(csp?.frameDomains);
  const bases = list(csp?.baseUriDomains);
  const with_ = (base: string, extra: readonly string[]) => [base, ...extra].join(" ");
  return [
    "default-src 'none'",
    with_("script-src 'unsafe-inline'", resources),
    with_("style-src 'unsafe-inline'", resources),
    with_("img-src data: blob:", resources),
    with_("font-src data:", resources),
    with_("media-src data: blob:", resources),
    connect.length > 0 ? `connect-src ${connect.join(" ")}` : "connect-src 'none'",
    frames.length > 0 ? `frame-src ${frames.join(" ")}` : "frame-src 'none'",
    bases.length > 0 ? `base-uri ${bases.join(" ")}` : "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join("; ");
}

/** The panel's height bounds (CSS pixels). */
export const MIN_VIEW_HEIGHT = 60;
export const MAX_VIEW_HEIGHT = 2_000;
/** Before the view says its size. */
export const DEFAULT_VIEW_HEIGHT = 320;

/** A height the view asked for, within the bounds (a bad number: the default). */
export function boundedHeight(height: unknown): number {
  if (typeof height !== "number" || !Number.isFinite(height)) return DEFAULT_VIEW_HEIGHT;
  return Math.min(MAX_VIEW_HEIGHT, Math.max(MIN_VIEW_HEIGHT, Math.ceil(height)));
}

/**
 * The view's HTML with its policy first: nothing in the resource runs or
 * loads before the policy applies (after a leading doctype, which must stay
 * first or the document falls into quirks mode). A policy the resource
 * brings itself can only narrow it: every policy of a document applies.
 */
export function withViewCsp(html: string, policy: string): string {
  const escaped = policy.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const meta = `<meta http-equiv="Content-Security-Policy" content="${escaped}">`;
  const doctype = /^\uFEFF?\s*<!doctype[^>]*>/i.exec(html);
  return doctype ? `${doctype[0]}${meta}${html.slice(doctype[0].length)}` : `${meta}${html}`;
}
