/**
 * Sign-in for MCP servers that use OAuth (the MCP authorization spec): the
 * SDK runs the flow — discovery, dynamic client registration, PKCE, the
 * code exchange, refresh — and this is the browser side it asks for. The
 * page sends the person to the server's sign-in page and is redirected
 * back to itself with `?code=…&state=…`; `resumeMcpSignIn` (main.tsx, only
 * when those parameters are present) finishes the exchange and connects.
 *
 * Everything is kept in this tab's `sessionStorage`, under the app's own
 * origin: the registered client, the PKCE verifier, the tokens. Nothing of
 * it reaches the realm (another origin, and never sent), the model or an
 * export. Closing the tab forgets it; signing in again is one click.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

const PREFIX = "livemark.mcp.oauth:";
const PENDING = `${PREFIX}pending`;

export interface PendingSignIn {
  serverUrl: string;
  state: string;
}

type Store = Pick<Storage, "getItem" | "setItem" | "removeItem">;

function read<T>(storage: Store, key: string): T | undefined {
  try {
    const text = storage.getItem(key);
    return text ? (JSON.parse(text) as T) : undefined;
  } catch {
    return undefined;
  }
}

/** The page's own address without query or fragment: where the sign-in comes back to. */
export function redirectUrlOf(location: Pick<Location, "origin" | "pathname">): string {
  return `${location.origin}${location.pathname}`;
}

export interface BrowserOAuthOptions {
  serverUrl: string;
  redirectUrl: string;
  storage?: Store;
  /** Leave the page for the server's sign-in (default: `location.assign`). */
  navigate?: (url: URL) => void;
  randomState?: () => string;
}

export function createBrowserOAuthProvider(options: BrowserOAuthOptions): OAuthClientProvider {
  const storage = options.storage ?? sessionStorage;
  const key = (what: string) => `${PREFIX}${options.serverUrl}:${what}`;
  const navigate = options.navigate ?? ((url: URL) => location.assign(url.href));
  let state: string | undefined;
  return {
    get redirectUrl() {
      return options.redirectUrl;
    },
    get clientMetadata(): OAuthClientMetadata {
      return {
        client_name: "Livemark",
        redirect_uris: [options.redirectUrl],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    state() {
      state ??= options.randomState?.() ?? crypto.randomUUID();
      return state;
    },
    clientInformation: () => read<OAuthClientInformationMixed>(storage, key("client")),
    saveClientInformation: (information) => storage.setItem(key("client"), JSON.stringify(information)),
    tokens: () => read<OAuthTokens>(storage, key("tokens")),
    saveTokens: (tokens) => storage.setItem(key("tokens"), JSON.stringify(tokens)),
    saveCodeVerifier: (verifier) => storage.setItem(key("verifier"), verifier),
    codeVerifier() {
      const verifier = storage.getItem(key("verifier"));
      if (!verifier) throw new Error("the sign-in was started in another tab or too long ago: add the server again");
      return verifier;
    },
    discoveryState: () => read(storage, key("discovery")),
    saveDiscoveryState: (discovery) => storage.setItem(key("discovery"), JSON.stringify(discovery)),
    redirectToAuthorization(url) {
      const pending: PendingSignIn = {
        serverUrl: options.serverUrl,
        state: url.searchParams.get("state") ?? state ?? "",
      };
      storage.setItem(PENDING, JSON.stringify(pending));
      navigate(url);
    },
    invalidateCredentials(scope) {
      const parts =
        scope === "all" ? ["client", "tokens", "verifier", "discovery"] : [scope === "verifier" ? "verifier" : scope];
      for (const part of parts) storage.removeItem(key(part));
    },
  };
}

/**
 * The page was opened by a server's sign-in redirect: the pending sign-in
 * whose state matches, and the code. Anything else (no pending sign-in, a
 * state that does not match: a forged or stale link) is not a sign-in.
 */
export function takePendingSignIn(
  search: string,
  storage: Store = sessionStorage,
): { pending: PendingSignIn; code: string } | { error: string } | undefined {
  const params = new URLSearchParams(search);
  const code = params.get("code");
  const error = params.get("error");
  const returned = params.get("state");
  const pending = read<PendingSignIn>(storage, PENDING);
  if (!pending || (!code && !error)) return undefined;
  if (returned !== pending.state) return undefined;
  storage.removeItem(PENDING);
  if (!code)
    return {
      error: `${pending.serverUrl} did not sign you in (${(params.get("error_description") ?? error ?? "").slice(0, 200)})`,
    };
  return { pending, code };
}
