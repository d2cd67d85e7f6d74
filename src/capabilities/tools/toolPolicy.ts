/**
 * The rules for the person's MCP tools (DESIGN.md §4), as a pure core beside
 * networkPolicy.ts: state and an action in, a decision and an audit entry
 * out. The broker (createToolBroker.ts) passes ids and hashes in.
 *
 * Invariants:
 * 1. Every tool is **ask** by default. "Always allow this tool" allows that
 *    tool of that server for the session; a server's read-only switch allows
 *    its tools annotated read-only; nothing else allows a call without asking.
 * 2. Strict mode asks for every call, even of an allowed tool.
 * 3. A one-time grant is bound to the fingerprint of one call (server, tool,
 *    SHA-256 of the arguments' canonical JSON) and is spent by exactly one call.
 * 4. A tool is known here by its server's address (the URL's origin and
 *    path, `serverAddress`) and its MCP name: `toolKey` →
 *    `https://example.com/mcp#delete_note`. Never by the name a server gives
 *    itself (`serverInfo.name`): any server can call itself `notes`. Two
 *    servers' tools of one name are two tools, and a grant for one never
 *    covers the other; a key of any other shape (the name-keyed grants of
 *    older versions) is not a key (`parseToolKey`) and allows nothing.
 */
import { toolKey } from "./toolKey";
import type { OneTimeGrant } from "../network/networkPolicy";

export interface ToolAction {
  /** The server's address (`serverAddress` of its URL), never its self-declared name. */
  server: string;
  /** The tool's MCP name. */
  tool: string;
  /** How the person knows it (`notes/delete_note`): words for messages, never a key. */
  label: string;
  readOnly: boolean;
  /** SHA-256 hex of the arguments' canonical JSON. */
  argumentsHash: string;
  /** Bytes of the arguments' JSON. */
  argumentsSize: number;
}

export interface ToolPolicyState {
  /** Tools allowed for this session without asking (`toolKey(address, tool)`). */
  allowed: readonly string[];
  /** Servers (by address) whose read-only-annotated tools are allowed without asking. */
  readOnlyServers: readonly string[];
  /** Ask for every call (the session's strict mode, shared with the network). */
  strict: boolean;
  grants: readonly OneTimeGrant[];
}

export const DEFAULT_TOOL_POLICY: ToolPolicyState = Object.freeze({
  allowed: Object.freeze([]) as readonly string[],
  readOnlyServers: Object.freeze([]) as readonly string[],
  strict: false,
  grants: Object.freeze([]) as readonly OneTimeGrant[],
});

export type ToolAuditDecision = "allowed-once" | "allowed-tool" | "allowed-read-only" | "denied";

export type ToolDecision =
  | { kind: "allow"; basis: "tool" | "read-only" }
  | { kind: "allow"; basis: "once"; grantId: string }
  | { kind: "ask" }
  | { kind: "deny"; reason: "person"; message: string };

export interface ToolAuditEntry {
  capability: "tool";
  method: "CALL";
  /** The tool as the person knows it (`ToolAction.label`, `notes/delete_note`). */
  url: string;
  decision: ToolAuditDecision;
  bytes: number;
  reason?: string;
}

/** The answer to an ask: once, always this tool, or no. */
export type ToolAnswer = "once" | "tool" | "deny";

/**
 * Who a server is, for its grants: the origin and path of its URL (no query,
 * no fragment, no credentials; the host lower-cased and a default port
 * dropped, as `URL` does). A URL that is not http(s) (`builtin:demo`) is its
 * own address.
 */
export function serverAddress(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return url.trim();
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return `${parsed.protocol}${parsed.pathname}`;
  return `${parsed.origin}${parsed.pathname}`;
}

export { toolKey };

const ADDRESS = /^(?:https?:\/\/[^\s#/?]+\/[^\s#?]*|[a-z][a-z0-9+.-]*:[^\s#/?][^\s#?]*)$/;

/** Whether `text` is a server address (`serverAddress`), as the read-only switch and keys hold. */
export const isServerAddress = (text: string): boolean => ADDRESS.test(text);

/** A key's address and tool; undefined for anything else (such as an older `name/tool` grant). */
export function parseToolKey(key: string): { address: string; tool: string } | undefined {
  const hash = key.indexOf("#");
  if (hash < 0) return undefined;
  const address = key.slice(0, hash);
  const tool = key.slice(hash + 1);
  return tool !== "" && isServerAddress(address) ? { address, tool } : undefined;
}

export function toolFingerprint(action: ToolAction): string {
  return JSON.stringify(["tool", action.server, action.tool, action.argumentsHash]);
}

/** Arguments as one canonical JSON text (keys sorted at every depth), for the fingerprint. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

function audit(action: ToolAction, decision: ToolAuditDecision, reason?: string): ToolAuditEntry {
  return {
    capability: "tool",
    method: "CALL",
    url: action.label,
    decision,
    bytes: action.argumentsSize,
    ...(reason ? { reason } : {}),
  };
}

/** What happens to a call before anyone is asked; `audit` is set when the decision is final. */
export function decideTool(
  state: ToolPolicyState,
  action: ToolAction,
): { decision: ToolDecision; audit?: ToolAuditEntry } {
  if (state.strict) return { decision: { kind: "ask" } };
  if (state.allowed.includes(toolKey(action.server, action.tool)))
    return { decision: { kind: "allow", basis: "tool" }, audit: audit(action, "allowed-tool") };
  if (action.readOnly && state.readOnlyServers.includes(action.server)) {
    return { decision: { kind: "allow", basis: "read-only" }, audit: audit(action, "allowed-read-only") };
  }
  return { decision: { kind: "ask" } };
}

export function answerToolAsk(
  state: ToolPolicyState,
  action: ToolAction,
  answer: ToolAnswer,
  grantId: string,
): { state: ToolPolicyState; decision: ToolDecision; audit?: ToolAuditEntry } {
  switch (answer) {
    case "once": {
      const grant: OneTimeGrant = { id: grantId, fingerprint: toolFingerprint(action), spent: false };
      return {
        state: { ...state, grants: [...state.grants, grant] },
        decision: { kind: "allow", basis: "once", grantId },
      };
    }
    case "tool":
      return {
        state: allowTool(state, toolKey(action.server, action.tool)),
        decision: { kind: "allow", basis: "tool" },
        audit: audit(action, "allowed-tool"),
      };
    case "deny": {
      const message = `The person denied this tool call: ${action.label}. Do not retry it; say what you wanted it for, or ask the person.`;
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

export type ToolSpendResult =
  | { ok: true; state: ToolPolicyState; audit: ToolAuditEntry }
  | { ok: false; state: ToolPolicyState; reason: "unknown" | "spent" | "mismatch"; audit: ToolAuditEntry };

/** A call presents a one-time grant: it passes only if the grant is unspent and was issued for exactly this call. */
export function spendToolGrant(state: ToolPolicyState, grantId: string, action: ToolAction): ToolSpendResult {
  const grant = state.grants.find((item) => item.id === grantId);
  if (!grant) return { ok: false, state, reason: "unknown", audit: audit(action, "denied", "unknown grant") };
  if (grant.spent) return { ok: false, state, reason: "spent", audit: audit(action, "denied", "grant already used") };
  if (grant.fingerprint !== toolFingerprint(action))
    return { ok: false, state, reason: "mismatch", audit: audit(action, "denied", "grant is for another call") };
  const grants = state.grants.map((item) => (item.id === grantId ? { ...item, spent: true } : item));
  return { ok: true, state: { ...state, grants }, audit: audit(action, "allowed-once") };
}

export function allowTool(state: ToolPolicyState, key: string): ToolPolicyState {
  return state.allowed.includes(key) ? state : { ...state, allowed: [...state.allowed, key] };
}

export function revokeTool(state: ToolPolicyState, key: string): ToolPolicyState {
  return state.allowed.includes(key) ? { ...state, allowed: state.allowed.filter((item) => item !== key) } : state;
}

/** Everything the rules hold for one server (its tools' grants, its read-only switch): it was removed. */
export function forgetServer(state: ToolPolicyState, address: string): ToolPolicyState {
  const allowed = state.allowed.filter((key) => parseToolKey(key)?.address !== address);
  const readOnlyServers = state.readOnlyServers.filter((item) => item !== address);
  if (allowed.length === state.allowed.length && readOnlyServers.length === state.readOnlyServers.length) return state;
  return { ...state, allowed, readOnlyServers };
}

export function setReadOnlyAllowed(state: ToolPolicyState, server: string, allowed: boolean): ToolPolicyState {
  const has = state.readOnlyServers.includes(server);
  if (has === allowed) return state;
  return {
    ...state,
    readOnlyServers: allowed
      ? [...state.readOnlyServers, server]
      : state.readOnlyServers.filter((item) => item !== server),
  };
}
