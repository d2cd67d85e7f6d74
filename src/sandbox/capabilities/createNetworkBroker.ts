/**
 * The network broker (DESIGN.md §4): the host service behind `fetch` in the
 * realm. It decides with the pure policy (networkPolicy.ts), asks the person
 * when the policy says so, and performs the request itself — with
 * `credentials: "omit"` and `referrerPolicy: "no-referrer"`, never the API
 * key or the app's cookies — within a size and a time limit. Everything it
 * decides or does becomes one audit entry.
 *
 * The realm's payload is read for the request only (URL, method, headers,
 * body): nothing in it can choose the decision. A grant id exists only here
 * and in the person's click; the call that asked spends it at once.
 */
import { HostServiceError } from "../HostServiceError";
import type { HostService } from "../types";
import type { FetchRequestPayload, FetchResponsePayload } from "../../wire/capabilities";
import { MAX_FETCH_REQUEST_BODY } from "../../wire/capabilities";
import type { JsonValue } from "../../wire/mount";
import { base64ToBytes, bytesToBase64 } from "./base64";
import {
  DEFAULT_NETWORK_POLICY, answerAsk, decideNetwork, hostOf, normaliseUrl, revokeHost as withoutHost, spendGrant,
  type NetworkAction, type NetworkAuditDecision, type NetworkMode, type NetworkPolicyState, type PersonAnswer,
} from "./networkPolicy";

export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;

/** What the person is asked (shown inline in the timeline). */
export interface PermissionAsk {
  id: string;
  capability: "network";
  method: string;
  url: string;
  host: string;
  bodySize: number;
}

/** One line of the audit list: a decision and, when the call went out, its result. */
export interface NetworkAuditRecord {
  at: number;
  capability: "network";
  method: string;
  url: string;
  decision: NetworkAuditDecision;
  /** Request body bytes. */
  bytesOut: number;
  /** Response body bytes received. */
  bytes?: number;
  /** HTTP status, when a response came. */
  status?: number;
  /** "ok", "http-error", or why it failed (denied, cors, too-large, timeout, revoked, aborted). */
  result: string;
  reason?: string;
}

export interface NetworkBrokerOptions {
  initial?: NetworkPolicyState;
  /** Ask the person; `signal` aborts when the call no longer waits (Stop, the code gave up). */
  ask(request: PermissionAsk, signal: AbortSignal): Promise<PersonAnswer>;
  audit(record: NetworkAuditRecord): void;
  /** The policy changed (a host allowed, a mode set): persist it. */
  onChange?(state: NetworkPolicyState): void;
  fetch?: typeof fetch;
  sha256?(bytes: Uint8Array): Promise<string>;
  newId?(): string;
  now?(): number;
  maxResponseBytes?: number;
  timeoutMs?: number;
}

export interface NetworkBroker {
  /** Provide it as `realm.provide(NET_FETCH, broker.service)`. */
  service: HostService;
  state(): NetworkPolicyState;
  /** Replace the whole policy (another session opened); every call in flight is aborted. */
  load(state: NetworkPolicyState): void;
  setMode(mode: NetworkMode): void;
  setStrict(strict: boolean): void;
  /** Revoke a host: later calls ask again, calls in flight on it are aborted at once. */
  revokeHost(host: string): void;
  /** Calls performing a request right now. */
  inFlight(): number;
  subscribe(listener: (state: NetworkPolicyState) => void): () => void;
}

const FORBIDDEN_HEADERS = new Set(["cookie", "cookie2", "host", "origin", "referer", "proxy-authorization"]);

async function defaultSha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

function readPayload(payload: JsonValue): { request: FetchRequestPayload; body: Uint8Array | null } {
  const input = payload as Partial<Record<keyof FetchRequestPayload, unknown>> | null;
  if (!input || typeof input !== "object" || Array.isArray(input)) throw new HostServiceError("invalid", "fetch payload is not an object");
  const { url, method, headers, body } = input;
  if (typeof url !== "string" || url.length > 8_192) throw new HostServiceError("invalid", "fetch needs a URL (at most 8,192 characters)");
  if (typeof method !== "string" || !/^[A-Za-z]{1,16}$/.test(method)) throw new HostServiceError("invalid", "fetch needs an HTTP method");
  const pairs: [string, string][] = [];
  if (Array.isArray(headers)) {
    for (const pair of headers.slice(0, 100)) {
      if (Array.isArray(pair) && typeof pair[0] === "string" && typeof pair[1] === "string") pairs.push([pair[0], pair[1]]);
    }
  }
  let bytes: Uint8Array | null = null;
  if (typeof body === "string") {
    try {
      bytes = base64ToBytes(body);
    } catch {
      throw new HostServiceError("invalid", "fetch body is not base64");
    }
    if (bytes.length > MAX_FETCH_REQUEST_BODY) {
      throw new HostServiceError("too-large", `request bodies are limited to ${MAX_FETCH_REQUEST_BODY / 1024} KB`);
    }
  }
  return { request: { url, method: method.toUpperCase(), headers: pairs, body: typeof body === "string" ? body : null }, body: bytes };
}

export function createNetworkBroker(options: NetworkBrokerOptions): NetworkBroker {
  let policy: NetworkPolicyState = options.initial ?? DEFAULT_NETWORK_POLICY;
  const listeners = new Set<(state: NetworkPolicyState) => void>();
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const sha256 = options.sha256 ?? defaultSha256;
  const newId = options.newId ?? (() => crypto.randomUUID());
  const now = options.now ?? (() => Date.now());
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  /** Requests on the wire, with what allowed them (a revoke aborts those on its host). */
  const flying = new Set<{ host: string; basis: "host" | "session" | "once"; abort(reason: HostServiceError): void }>();

  const change = (next: NetworkPolicyState, notify = true) => {
    if (next === policy) return;
    policy = next;
    if (notify) options.onChange?.(policy);
    for (const listener of listeners) listener(policy);
  };

  const abortAll = (predicate: (entry: { host: string; basis: string }) => boolean, error: HostServiceError) => {
    for (const entry of [...flying]) if (predicate(entry)) entry.abort(error);
  };

  const service: HostService = async (payload, { signal }) => {
    const { request, body } = readPayload(payload);
    const bodyHash = body ? await sha256(body) : "";
    const action: NetworkAction = { method: request.method, url: request.url, bodyHash, bodySize: body?.length ?? 0 };
    const record = (entry: Omit<NetworkAuditRecord, "at" | "capability" | "method" | "url" | "bytesOut">) =>
      options.audit({ at: now(), capability: "network", method: action.method, url: action.url, bytesOut: action.bodySize, ...entry });

    let { decision, audit } = decideNetwork(policy, action);
    if (decision.kind === "ask") {
      const host = decision.host;
      const answer = await options.ask({ id: newId(), capability: "network", method: action.method, url: action.url, host, bodySize: action.bodySize }, signal);
      if (signal.aborted) throw new HostServiceError("aborted", "the call ended while waiting for permission");
      const answered = answerAsk(policy, action, answer, newId());
      change(answered.state, answer === "host");
      decision = answered.decision;
      audit = answered.audit;
      if (decision.kind === "allow" && decision.basis === "once") {
        // Spent here, by the call that asked, before anything else can run.
        const spent = spendGrant(policy, decision.grantId, action);
        change(spent.state, false);
        audit = spent.audit;
        if (!spent.ok) {
          record({ decision: "denied", result: "denied", reason: spent.audit.reason });
          throw new HostServiceError("denied", `the grant for ${action.method} ${action.url} could not be used (${spent.reason})`);
        }
      }
    }
    if (decision.kind === "deny") {
      record({ decision: "denied", result: decision.reason === "person" ? "denied" : decision.reason, reason: audit?.reason });
      throw new HostServiceError(decision.reason === "person" ? "denied" : decision.reason === "off" ? "network-off" : "invalid-url", decision.message);
    }
    if (decision.kind !== "allow") throw new HostServiceError("failed", "no decision");
    const auditDecision: NetworkAuditDecision = audit?.decision ?? "denied";

    const controller = new AbortController();
    let ended: HostServiceError | undefined;
    const entry = {
      host: hostOf(action.url) ?? "",
      basis: decision.basis,
      abort(reason: HostServiceError) {
        ended ??= reason;
        controller.abort(reason);
      },
    };
    const onOuterAbort = () => entry.abort(new HostServiceError("aborted", "the request was cancelled"));
    signal.addEventListener("abort", onOuterAbort, { once: true });
    const timer = setTimeout(
      () => entry.abort(new HostServiceError("timeout", `${action.method} ${action.url} took longer than ${timeoutMs / 1000} s and was aborted`)),
      timeoutMs,
    );
    flying.add(entry);
    try {
      const headers = request.headers.filter(([name]) => !FORBIDDEN_HEADERS.has(name.toLowerCase()) && !name.toLowerCase().startsWith("sec-"));
      let response: Response;
      try {
        response = await fetchImpl(normaliseUrl(action.url), {
          method: action.method,
          headers,
          body: body as BodyInit | null,
          credentials: "omit",
          referrerPolicy: "no-referrer",
          mode: "cors",
          cache: "no-store",
          redirect: "follow",
          signal: controller.signal,
        });
      } catch (error) {
        if (ended) throw ended;
        record({ decision: auditDecision, result: "cors", reason: String((error as Error)?.message ?? error) });
        throw new HostServiceError(
          "cors",
          `${action.method} ${action.url} failed: the server does not allow browser requests from this page (no CORS headers) or could not be reached. ` +
            "There is no proxy; use an API that allows browser requests.",
        );
      }
      const declared = Number(response.headers.get("content-length"));
      if (Number.isFinite(declared) && declared > maxBytes) {
        controller.abort();
        record({ decision: auditDecision, status: response.status, result: "too-large" });
        throw new HostServiceError("too-large", `the response of ${action.url} is ${declared} bytes, over the ${maxBytes / 1024 / 1024} MB limit`);
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      try {
        const reader = response.body?.getReader();
        while (reader) {
          const { done, value } = await reader.read();
          if (done) break;
          size += value.length;
          if (size > maxBytes) {
            await reader.cancel().catch(() => undefined);
            record({ decision: auditDecision, status: response.status, bytes: size, result: "too-large" });
            throw new HostServiceError("too-large", `the response of ${action.url} is over the ${maxBytes / 1024 / 1024} MB limit`);
          }
          chunks.push(value);
        }
      } catch (error) {
        if (error instanceof HostServiceError && !ended) throw error;
        if (ended) throw ended;
        throw new HostServiceError("failed", `reading the response of ${action.url} failed: ${String((error as Error)?.message ?? error)}`);
      }
      const all = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        all.set(chunk, offset);
        offset += chunk.length;
      }
      record({ decision: auditDecision, status: response.status, bytes: size, result: response.ok ? "ok" : "http-error" });
      const answer: FetchResponsePayload = {
        url: response.url || normaliseUrl(action.url),
        status: response.status,
        statusText: response.statusText,
        redirected: response.redirected,
        headers: [...response.headers],
        body: bytesToBase64(all),
      };
      return answer as unknown as JsonValue;
    } catch (error) {
      if (ended && error === ended) record({ decision: auditDecision, result: ended.code });
      throw error;
    } finally {
      clearTimeout(timer);
      flying.delete(entry);
      signal.removeEventListener("abort", onOuterAbort);
    }
  };

  return {
    service,
    state: () => policy,
    load(state) {
      abortAll(() => true, new HostServiceError("aborted", "another session was opened"));
      change(state, false);
    },
    setMode(mode) {
      if (mode === "off") abortAll(() => true, new HostServiceError("network-off", "the person turned the network off; the request was aborted"));
      change({ ...policy, mode });
    },
    setStrict(strict) {
      change({ ...policy, strict });
    },
    revokeHost(host) {
      abortAll(
        (entry) => entry.host === host && entry.basis === "host",
        new HostServiceError("revoked", `the person revoked access to ${host}; the request was aborted`),
      );
      change(withoutHost(policy, host));
    },
    inFlight: () => flying.size,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
