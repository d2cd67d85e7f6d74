/**
 * The realm's side of realm → host requests (src/wire/types.ts): each call
 * gets an id, a timeout and a way to cancel, and settles exactly once —
 * answered, timed out, withdrawn by its caller, ended by the host (Stop), or
 * ended because the port closed. Nothing stays pending.
 *
 * ```ts
 * const echo = requests.service<{ text: string }, { text: string }>("echo");
 * const { text } = await echo({ text: "hi" }, { timeoutMs: 5_000, signal });
 * ```
 *
 * Timers are captured at load, so model code replacing `setTimeout` cannot
 * keep a request alive or end it early.
 */
import { DEFAULT_SERVICE_TIMEOUT_MS, SERVICE_CANCEL, SERVICE_REQUEST } from "../../../src/wire/constants";
import type { JsonValue } from "../../../src/wire/mount";
import type { RealmMessage, RequestId, ServiceErrorCode, ServiceResponse } from "../../../src/wire/types";

/** What a realm → host request rejects with. Branch on `code` (structured clone keeps no classes). */
export class HostRequestError extends Error {
  override readonly name = "HostRequestError";
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface HostRequestOptions {
  /** Default DEFAULT_SERVICE_TIMEOUT_MS; `Infinity` waits until answered or cancelled. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A host service as the realm sees it: an async function. */
export type HostServiceFunction<P extends JsonValue = JsonValue, R extends JsonValue = JsonValue> =
  (payload: P, options?: HostRequestOptions) => Promise<R>;

export interface HostRequests {
  request(service: string, payload: JsonValue, options?: HostRequestOptions): Promise<JsonValue>;
  /** `request` bound to one service name. */
  service<P extends JsonValue = JsonValue, R extends JsonValue = JsonValue>(name: string): HostServiceFunction<P, R>;
  /** A SERVICE_RESPONSE from the host. */
  receive(response: ServiceResponse): void;
  /** End every request in flight with `code` (the port closed, the reply stopped). */
  endAll(code: ServiceErrorCode, message: string): void;
  /** Requests still waiting for an answer. */
  inFlight(): number;
}

const setTimer = setTimeout.bind(globalThis);
const clearTimer = clearTimeout.bind(globalThis);

export function createHostRequests(post: (message: RealmMessage) => void): HostRequests {
  let nextId = 0;
  const pending = new Map<RequestId, { resolve(value: JsonValue): void; reject(error: HostRequestError): void }>();

  function request(service: string, payload: JsonValue, options: HostRequestOptions = {}): Promise<JsonValue> {
    const { signal } = options;
    const timeoutMs = options.timeoutMs ?? DEFAULT_SERVICE_TIMEOUT_MS;
    if (signal?.aborted) return Promise.reject(new HostRequestError("cancelled", `${service} was cancelled`));
    const id = ++nextId;
    return new Promise<JsonValue>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = () => {
        pending.delete(id);
        if (timer !== undefined) clearTimer(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const withdraw = (code: ServiceErrorCode, message: string) => {
        if (!pending.has(id)) return;
        settle();
        post({ type: SERVICE_CANCEL, id });
        reject(new HostRequestError(code, message));
      };
      const onAbort = () => withdraw("cancelled", `${service} was cancelled`);
      pending.set(id, {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      const finite = Number.isFinite(timeoutMs);
      if (finite) timer = setTimer(() => withdraw("timeout", `${service} got no answer within ${timeoutMs} ms`), Math.max(0, timeoutMs));
      signal?.addEventListener("abort", onAbort, { once: true });
      post({ type: SERVICE_REQUEST, id, service, payload, timeoutMs: finite ? Math.max(0, timeoutMs) : null });
    });
  }

  return {
    request,
    service: <P extends JsonValue, R extends JsonValue>(name: string) =>
      ((payload: P, options?: HostRequestOptions) => request(name, payload, options)) as HostServiceFunction<P, R>,
    receive(response) {
      const entry = pending.get(response.id);
      // Withdrawn or timed out here first: the late answer has nobody to go to.
      if (!entry) return;
      if (response.ok) entry.resolve(response.value);
      else entry.reject(new HostRequestError(response.error.code, response.error.message));
    },
    endAll(code, message) {
      for (const entry of [...pending.values()]) entry.reject(new HostRequestError(code, message));
    },
    inFlight: () => pending.size,
  };
}
