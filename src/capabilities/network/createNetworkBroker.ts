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
import { HostServiceError } from "../../sandbox/HostServiceError";
import type { HostService } from "../../sandbox/types";
import type { FetchRequestPayload, FetchResponsePayload } from "../../wire/capabilities";
import { MAX_FETCH_REQUEST_BODY } from "../../wire/capabilities";
import type { JsonValue } from "../../wire/mount";
import { base64ToBytes, bytesToBase64 } from "../base64";
import { createCapabilityCore, sha256Hex } from "../createCapabilityCore";
import {
  DEFAULT_NETWORK_POLICY,
  answerAsk,
  decideNetwork,
  hostOf,
  normaliseUrl,
  revokeHost as withoutHost,
  spendGrant,
  type NetworkAction,
  type NetworkAuditDecision,
  type NetworkMode,
  type NetworkPolicyState,
  type PersonAnswer,
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
  /** "ok", "http-error", or why it failed (denied, cors, redirected, too-large, timeout, revoked, aborted). */
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
  /**
   * Replace the whole policy (another session opened); every call in flight is aborted, unless
   * `keepCalls` (the same session's saved grants arriving: the policy only widens).
   */
  load(state: NetworkPolicyState, options?: { keepCalls?: boolean }): void;
  setMode(mode: NetworkMode): void;
  setStrict(strict: boolean): void;
  /** Revoke a host: later calls ask again, calls in flight on it are aborted at once. */
  revokeHost(host: string): void;
  /** Calls performing a request right now. */
  inFlight(): number;
  subscribe(listener: (state: NetworkPolicyState) => void): () => void;
}

const FORBIDDEN_HEADERS = new Set(["cookie", "cookie2", "host", "origin", "referer", "proxy-authorization"]);

function readPayload(payload: JsonValue): { request: FetchRequestPayload; body: Uint8Array | null } {
  const input = payload as Partial<Record<keyof FetchRequestPayload, unknown>> | null;
  if (!input || typeof input !== "object" || Array.isArray(input))
    throw new HostServiceError("invalid", "fetch payload is not an object");
  const { url, method, headers, body } = input;
  if (typeof url !== "string" || url.length > 8_192)
    throw new HostServiceError("invalid", "fetch needs a URL (at most 8,192 characters)");
  if (typeof method !== "string" || !/^[A-Za-z]{1,16}$/.test(method))
    throw new HostServiceError("invalid", "fetch needs an HTTP method");
  const pairs: [string, string][] = [];
  if (Array.isArray(headers)) {
    for (const pair of headers.slice(0, 100)) {
      if (Array.isArray(pair) && typeof pair[0] === "string" && typeof pair[1] === "string")
        pairs.push([pair[0], pair[1]]);
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
  return {
    request: { url, method: method.toUpperCase(), headers: pairs, body: typeof body === "string" ? body : null },
    body: bytes,
  };
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * A response to `redirect: "manual"` that sends the call elsewhere: in a browser an
 * "opaqueredirect" (status 0, no Location); on a server runtime the 3xx itself.
 */
export function isRedirect(response: Response): boolean {
  return response.type === "opaqueredirect" || REDIRECT_STATUSES.has(response.status);
}

/** The words for a redirect that was not followed (the code's error and the image placeholder). */
export function redirectedMessage(method: string, url: string): string {
  return (
    `${method} ${url} was not followed: the server redirected to another address; fetch the final URL directly ` +
    "(the person decides about each address, so a redirect is never followed)"
  );
}

export function createNetworkBroker(options: NetworkBrokerOptions): NetworkBroker {
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const sha256 = options.sha256 ?? sha256Hex;
  const newId = options.newId ?? (() => crypto.randomUUID());
  const now = options.now ?? (() => Date.now());
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const core = createCapabilityCore({
    initial: options.initial ?? DEFAULT_NETWORK_POLICY,
    rules: {
      decide: decideNetwork,
      answer: answerAsk,
      spend: spendGrant,
      remembers: "host" as PersonAnswer,
      refuses: "deny" as PersonAnswer,
    },
    onChange: options.onChange,
    newId,
  });

  const service: HostService = async (payload, { signal }) => {
    const { request, body } = readPayload(payload);
    const bodyHash = body ? await sha256(body) : "";
    const action: NetworkAction = { method: request.method, url: request.url, bodyHash, bodySize: body?.length ?? 0 };
    const record = (entry: Omit<NetworkAuditRecord, "at" | "capability" | "method" | "url" | "bytesOut">) =>
      options.audit({
        at: now(),
        capability: "network",
        method: action.method,
        url: action.url,
        bytesOut: action.bodySize,
        ...entry,
      });
    const description = `${action.method} ${action.url}`;

    const verdict = await core.decide(action, {
      ask: (id) =>
        options.ask(
          {
            id,
            capability: "network",
            method: action.method,
            url: action.url,
            host: hostOf(action.url) ?? "",
            bodySize: action.bodySize,
          },
          signal,
        ),
      scope: hostOf(action.url) ?? "",
      signal,
      description,
      record,
    });
    if (!verdict.allowed) {
      const { reason, message } = verdict.decision;
      record({ decision: "denied", result: reason === "person" ? "denied" : reason, reason: verdict.reason });
      throw new HostServiceError(
        reason === "person" ? "denied" : reason === "off" ? "network-off" : "invalid-url",
        message,
      );
    }
    const { decision, auditDecision } = verdict;

    const call = {
      scope: hostOf(action.url) ?? "",
      basis: decision.basis,
      description,
      signal,
      timeoutMs,
      cancelledMessage: "the request was cancelled",
      auditDecision,
      record,
    };
    return core.perform(call, async (callSignal, ended) => {
      const headers = request.headers.filter(
        ([name]) => !FORBIDDEN_HEADERS.has(name.toLowerCase()) && !name.toLowerCase().startsWith("sec-"),
      );
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
          // Never "follow": the person decided about this URL only, and a page cannot read a
          // cross-origin redirect's target to ask again. "manual" (not "error") tells a redirect
          // apart from a CORS failure, so the code hears what to do.
          redirect: "manual",
          signal: callSignal,
        });
      } catch (error) {
        if (ended()) throw ended();
        record({ decision: auditDecision, result: "cors", reason: String((error as Error)?.message ?? error) });
        throw new HostServiceError(
          "cors",
          `${action.method} ${action.url} failed: the server does not allow browser requests from this page (no CORS headers) or could not be reached. ` +
            "There is no proxy; use an API that allows browser requests.",
        );
      }
      if (isRedirect(response)) {
        response.body?.cancel().catch(() => undefined);
        // The browser hides an opaque redirect's status (0): audit it as the redirect it is.
        record({ decision: auditDecision, status: response.status || undefined, result: "redirected" });
        throw new HostServiceError("redirected", redirectedMessage(action.method, action.url));
      }
      const declared = Number(response.headers.get("content-length"));
      if (Number.isFinite(declared) && declared > maxBytes) {
        response.body?.cancel().catch(() => undefined);
        record({ decision: auditDecision, status: response.status, result: "too-large" });
        throw new HostServiceError(
          "too-large",
          `the response of ${action.url} is ${declared} bytes, over the ${maxBytes / 1024 / 1024} MB limit`,
        );
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
            throw new HostServiceError(
              "too-large",
              `the response of ${action.url} is over the ${maxBytes / 1024 / 1024} MB limit`,
            );
          }
          chunks.push(value);
        }
      } catch (error) {
        if (error instanceof HostServiceError && !ended()) throw error;
        if (ended()) throw ended();
        throw new HostServiceError(
          "failed",
          `reading the response of ${action.url} failed: ${String((error as Error)?.message ?? error)}`,
        );
      }
      const all = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        all.set(chunk, offset);
        offset += chunk.length;
      }
      record({
        decision: auditDecision,
        status: response.status,
        bytes: size,
        result: response.ok ? "ok" : "http-error",
      });
      const answer: FetchResponsePayload = {
        url: response.url || normaliseUrl(action.url),
        status: response.status,
        statusText: response.statusText,
        redirected: response.redirected,
        headers: [...response.headers],
        body: bytesToBase64(all),
      };
      return answer as unknown as JsonValue;
    });
  };

  return {
    service,
    state: core.state,
    load(state, options) {
      if (!options?.keepCalls)
        core.abortWhere(() => true, new HostServiceError("aborted", "another session was opened"));
      core.change(state, false);
    },
    setMode(mode) {
      if (mode === "off")
        core.abortWhere(
          () => true,
          new HostServiceError("network-off", "the person turned the network off; the request was aborted"),
        );
      core.change({ ...core.state(), mode });
    },
    setStrict(strict) {
      core.change({ ...core.state(), strict });
    },
    revokeHost(host) {
      core.abortWhere(
        (flight) => flight.scope === host && flight.basis === "host",
        new HostServiceError("revoked", `the person revoked access to ${host}; the request was aborted`),
      );
      core.change(withoutHost(core.state(), host));
    },
    inFlight: core.inFlight,
    subscribe: core.subscribe,
  };
}
