/**
 * Who may talk to the bridge at all, decided before any MCP or page code
 * sees a request. Pure: headers in, a verdict out.
 *
 * - The bridge binds `BIND_ADDRESS` (loopback) only.
 * - Every HTTP request (MCP and the WebSocket upgrade) must carry a loopback
 *   `Host`: a page on evil.example that resolves to 127.0.0.1 (DNS
 *   rebinding) still sends `Host: evil.example` and gets 403.
 * - An HTTP request with an `Origin` not on the list gets 403.
 * - The page's WebSocket needs an `Origin` on the list: a WebSocket is not
 *   covered by CORS, so any website could otherwise open a channel.
 */

/** The only address the bridge listens on. */
export const BIND_ADDRESS = "127.0.0.1";

/** The app's own local origins: `npm run dev` (5173), `npm run preview` (4173), `npm start` (5173). */
export const DEFAULT_PAGE_ORIGINS: readonly string[] = ["5173", "4173"].flatMap((port) => [
  `http://127.0.0.1:${port}`,
  `http://localhost:${port}`,
]);

const LOOPBACK_HOSTNAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** The hostname of a Host header, without its port; undefined when absent or malformed. */
export function hostnameOf(host: string | undefined): string | undefined {
  if (!host) return undefined;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(host.trim());
  return match ? match[1].toLowerCase() : undefined;
}

export const isLoopbackHost = (host: string | undefined): boolean => LOOPBACK_HOSTNAMES.has(hostnameOf(host) ?? "");

/** The origins whose pages may connect: the defaults and `extra`, without trailing slashes. */
export function allowedOrigins(extra: readonly string[] = []): ReadonlySet<string> {
  return new Set([...DEFAULT_PAGE_ORIGINS, ...extra].map((origin) => origin.replace(/\/+$/, "")));
}

export interface RequestHeaders {
  host?: string;
  origin?: string;
}

/** An HTTP request: undefined when it may pass, else the 403's message. */
export function refuseRequest(headers: RequestHeaders, origins: ReadonlySet<string>): string | undefined {
  if (!isLoopbackHost(headers.host)) return "Forbidden: the Host header is not a loopback address.";
  if (headers.origin !== undefined && !origins.has(headers.origin))
    return "Forbidden: this origin may not use the bridge.";
  return undefined;
}

/** The page's WebSocket upgrade at `path` (the same checks for `/page` and `/acp`): undefined when it may pass, else the status line and whether to log it. */
export function refuseUpgrade(
  path: string,
  headers: RequestHeaders,
  origins: ReadonlySet<string>,
  /** The socket paths served: `/page`, and `/acp` in ACP mode. */
  paths: readonly string[] = ["/page"],
): { status: "404 Not Found" | "403 Forbidden"; log?: string } | undefined {
  if (!paths.includes(path)) return { status: "404 Not Found" };
  if (!isLoopbackHost(headers.host)) return { status: "403 Forbidden" };
  // Only pages of the listed origins: any website could otherwise open a channel.
  if (!headers.origin || !origins.has(headers.origin))
    return { status: "403 Forbidden", log: `refused a page connection from origin ${headers.origin ?? "(none)"}` };
  return undefined;
}
