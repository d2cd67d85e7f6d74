/**
 * The network capability's rules (DESIGN.md §4), as a pure core: state and
 * an action in, a decision and an audit entry out. No I/O, no clock, no ids
 * of its own: the broker (createNetworkBroker.ts) passes them in.
 *
 * Invariants:
 * 1. Mode `off` denies every call; strict mode asks for every call, even on an
 *    allowed host or with the network `allowed`.
 * 2. A host is `URL.host` (name and port): `localhost:8080`, `127.0.0.1:8080`
 *    and `localhost:9090` are three hosts.
 * 3. A one-time grant is bound to the fingerprint of one action (capability,
 *    method, URL, body hash) and is spent by exactly one call: a second call,
 *    or a call with another URL, method or body, is refused.
 * 4. Only http(s) URLs are ever allowed; credentials in a URL are refused.
 * 5. Nothing here reads the realm's payload beyond the action: a grant id or an
 *    "allow" flag the realm might send is never an input.
 */

export type NetworkMode = "off" | "ask" | "allowed";

/** What the realm's code asks to do. `bodyHash`: SHA-256 hex of the request body ("" when none). */
export interface NetworkAction {
  method: string;
  url: string;
  bodyHash: string;
  bodySize: number;
}

export interface OneTimeGrant {
  id: string;
  fingerprint: string;
  spent: boolean;
}

export interface NetworkPolicyState {
  mode: NetworkMode;
  /** Hosts allowed for this session (`URL.host`). */
  hosts: readonly string[];
  /** Ask for every call, even on allowed hosts. */
  strict: boolean;
  /** One-time grants issued by "Allow once", spent or not. */
  grants: readonly OneTimeGrant[];
}

export const DEFAULT_NETWORK_POLICY: NetworkPolicyState = Object.freeze({
  mode: "ask",
  hosts: Object.freeze([]) as readonly string[],
  strict: false,
  grants: Object.freeze([]) as readonly OneTimeGrant[],
});

/** How a call was allowed or why it was not: the audit's `decision`. */
export type NetworkAuditDecision = "allowed-once" | "allowed-host" | "allowed-session" | "denied";

export type NetworkDecision =
  | { kind: "allow"; basis: "host"; host: string }
  | { kind: "allow"; basis: "session" }
  /** Allowed once: the call must still spend the grant (`spendGrant`). */
  | { kind: "allow"; basis: "once"; grantId: string }
  | { kind: "ask"; host: string }
  | { kind: "deny"; reason: "off" | "invalid-url" | "person"; message: string };

export interface NetworkAuditEntry {
  capability: "network";
  method: string;
  url: string;
  decision: NetworkAuditDecision;
  /** Request body bytes. */
  bytes: number;
  /** Why it was refused, when it was. */
  reason?: string;
}

/** The action's host, or undefined for anything but an absolute http(s) URL without credentials. */
export function hostOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
  if (parsed.username || parsed.password) return undefined;
  return parsed.host;
}

/** The URL as it will be requested (normalised by URL, fragment dropped: it never reaches the server). */
export function normaliseUrl(url: string): string {
  const parsed = new URL(url);
  parsed.hash = "";
  return parsed.href;
}

export function fingerprint(action: NetworkAction): string {
  return JSON.stringify(["network", action.method.toUpperCase(), normaliseUrl(action.url), action.bodyHash]);
}

function audit(action: NetworkAction, decision: NetworkAuditDecision, reason?: string): NetworkAuditEntry {
  return {
    capability: "network",
    method: action.method.toUpperCase(),
    url: action.url,
    decision,
    bytes: action.bodySize,
    ...(reason ? { reason } : {}),
  };
}

const describe = (action: NetworkAction) => `${action.method.toUpperCase()} ${action.url}`;

/**
 * What happens to a call before anyone is asked. `audit` is set when the
 * decision is final (allowed or denied); an `ask` is audited when answered.
 */
export function decideNetwork(
  state: NetworkPolicyState,
  action: NetworkAction,
): { decision: NetworkDecision; audit?: NetworkAuditEntry } {
  const host = hostOf(action.url);
  if (host === undefined) {
    const message = `fetch needs an absolute http:// or https:// URL without credentials, not "${action.url.slice(0, 200)}"`;
    return {
      decision: { kind: "deny", reason: "invalid-url", message },
      audit: audit(action, "denied", "invalid URL"),
    };
  }
  if (state.mode === "off") {
    const message = `The network is off for this session (Session settings): ${describe(action)} was not sent.`;
    return { decision: { kind: "deny", reason: "off", message }, audit: audit(action, "denied", "network off") };
  }
  if (state.strict) return { decision: { kind: "ask", host } };
  if (state.mode === "allowed")
    return { decision: { kind: "allow", basis: "session" }, audit: audit(action, "allowed-session") };
  if (state.hosts.includes(host))
    return { decision: { kind: "allow", basis: "host", host }, audit: audit(action, "allowed-host") };
  return { decision: { kind: "ask", host } };
}

export type PersonAnswer = "once" | "host" | "deny";

/**
 * The person answered an ask for `action`. "once" issues a grant bound to the
 * action (spend it with `spendGrant`); "host" adds the host for the session;
 * "deny" refuses this call.
 */
export function answerAsk(
  state: NetworkPolicyState,
  action: NetworkAction,
  answer: PersonAnswer,
  grantId: string,
): { state: NetworkPolicyState; decision: NetworkDecision; grant?: OneTimeGrant; audit?: NetworkAuditEntry } {
  const host = hostOf(action.url);
  if (host === undefined) return { state, ...decideNetwork(state, action) };
  switch (answer) {
    case "once": {
      const grant: OneTimeGrant = { id: grantId, fingerprint: fingerprint(action), spent: false };
      return {
        state: { ...state, grants: [...state.grants, grant] },
        decision: { kind: "allow", basis: "once", grantId },
        grant,
      };
    }
    case "host": {
      const hosts = state.hosts.includes(host) ? state.hosts : [...state.hosts, host];
      return {
        state: { ...state, hosts },
        decision: { kind: "allow", basis: "host", host },
        audit: audit(action, "allowed-host"),
      };
    }
    case "deny": {
      const message = `The person denied this request: ${describe(action)}. Do not retry it; say what you wanted it for, or ask the person.`;
      return {
        state,
        decision: { kind: "deny", reason: "person", message },
        audit: audit(action, "denied", "the person denied it"),
      };
    }
    default: {
      const never: never = answer;
      return never;
    }
  }
}

export type SpendResult =
  | { ok: true; state: NetworkPolicyState; audit: NetworkAuditEntry }
  | { ok: false; state: NetworkPolicyState; reason: "unknown" | "spent" | "mismatch"; audit: NetworkAuditEntry };

/**
 * A call presents a one-time grant. It passes only if the grant exists, is
 * unspent and was issued for exactly this action; it is spent either way
 * when it matched, so it authorises one call at most.
 */
export function spendGrant(state: NetworkPolicyState, grantId: string, action: NetworkAction): SpendResult {
  const grant = state.grants.find((item) => item.id === grantId);
  if (!grant) return { ok: false, state, reason: "unknown", audit: audit(action, "denied", "unknown grant") };
  if (grant.spent) return { ok: false, state, reason: "spent", audit: audit(action, "denied", "grant already used") };
  if (hostOf(action.url) === undefined || grant.fingerprint !== fingerprint(action)) {
    return { ok: false, state, reason: "mismatch", audit: audit(action, "denied", "grant is for another request") };
  }
  const grants = state.grants.map((item) => (item.id === grantId ? { ...item, spent: true } : item));
  return { ok: true, state: { ...state, grants }, audit: audit(action, "allowed-once") };
}

export function revokeHost(state: NetworkPolicyState, host: string): NetworkPolicyState {
  return { ...state, hosts: state.hosts.filter((item) => item !== host) };
}

export function allowHost(state: NetworkPolicyState, host: string): NetworkPolicyState {
  return state.hosts.includes(host) ? state : { ...state, hosts: [...state.hosts, host] };
}

/** Does the capability cover this URL without asking (remote images, DESIGN.md §3)? */
export function covers(state: NetworkPolicyState, url: string): boolean {
  const host = hostOf(url);
  if (host === undefined || state.mode === "off" || state.strict) return false;
  return state.mode === "allowed" || state.hosts.includes(host);
}
