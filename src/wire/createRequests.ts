/**
 * The one request mechanism of the port, used by both ends (the host's
 * `createRealmConnection`, the realm's `serveRealm`): a side sends
 * `call {id, method, payload, timeoutMs}`, the other answers
 * `result {id, ok, value | error}` or is told `cancel {id}`.
 *
 * As the caller: each call gets an id unique per sender (`nextId`), a timeout
 * after which it stops waiting (and says `cancel`), a way to withdraw it (its
 * AbortSignal, which says `cancel` too), and it settles exactly once —
 * answered, timed out, withdrawn, or ended from here (`endCalls`, `close`).
 * A result for an id not in flight (forged, repeated, after a cancel or a
 * timeout) settles nothing; `onStray` hears of it.
 *
 * As the callee: a call of an unknown method is answered `unknown-service`;
 * a known one runs its handler with an AbortSignal that aborts when the
 * caller cancels, when its `timeoutMs` passes, or when `endServed`/`close`
 * ends it, and is answered at most once (a late handler answers nothing).
 * A call reusing an id in flight is refused (`onStray`), never served twice.
 *
 * Timers are captured when this module loads, so model code in the realm
 * replacing `setTimeout` later cannot keep a request alive or end it early.
 */
import { CALL, CANCEL, RESULT } from "./constants";
import type { JsonValue } from "./mount";
import type { RequestId, RequestMessage, ServiceError, ServiceErrorCode } from "./types";

const setTimer = setTimeout.bind(globalThis);
const clearTimer = clearTimeout.bind(globalThis);

/** Serves one method of a call from the other side; its value (JSON) is the answer. */
export type RequestHandler = (
  payload: JsonValue,
  context: { signal: AbortSignal; method: string },
) => JsonValue | Promise<JsonValue>;

export interface CallOptions {
  /** `null` (or `Infinity`): wait until answered or cancelled. */
  timeoutMs: number | null;
  signal?: AbortSignal;
}

export interface RequestsOptions<E extends Error> {
  /** Send one message to the other side (throws when the value cannot be cloned). */
  post(message: RequestMessage): void;
  nextId(): RequestId;
  /** The error a call of ours rejects with. */
  error(code: ServiceErrorCode, message: string, extra?: { cause?: unknown; details?: Record<string, unknown> }): E;
  /** The handler of a method the other side may call (none: `unknown-service`). */
  handler?(method: string): RequestHandler | undefined;
  /** Who answers, for the `unknown-service` message ("the host"). */
  who: string;
  /** What a handler's throw is answered with. */
  toServiceError?(error: unknown): ServiceError;
  /**
   * Answer a call whose `timeoutMs` passed with `timeout` (the host, whose
   * callee is model code's caller) or only forget it (the realm: the host
   * stops waiting by itself, and an answer after its cancel would be stray).
   */
  answerTimeouts: boolean;
  /** A message that answers nothing in flight, or a call reusing an id in flight. It was dropped. */
  onStray?(reason: string): void;
}

export interface Requests<E extends Error> {
  /** Call a method of the other side; settles exactly once. */
  call(method: string, payload: JsonValue, options: CallOptions): Promise<JsonValue>;
  /** A CALL, RESULT or CANCEL from the other side. */
  receive(message: RequestMessage): void;
  /** Reject every call of ours still in flight with `error` (the other side is not told). */
  endCalls(error: E): void;
  /** Answer every call being served with `error`; their handlers' signals abort. */
  endServed(error: ServiceError): void;
  /** Calls of ours waiting for an answer. */
  callsInFlight(): number;
  /** Calls of the other side whose answer is still owed. */
  servedInFlight(): number;
  /** Stop: reject our calls with `reason`, abort what is served without answering; later calls reject `realm-reset`. Idempotent. */
  close(reason: E): void;
}

function defaultToServiceError(error: unknown): ServiceError {
  return { code: "failed", message: error instanceof Error ? error.message : String(error) };
}

export function createRequests<E extends Error>(options: RequestsOptions<E>): Requests<E> {
  const { post } = options;
  const toServiceError = options.toServiceError ?? defaultToServiceError;
  const calls = new Map<RequestId, { resolve(value: JsonValue): void; reject(error: E): void }>();
  const served = new Map<RequestId, { controller: AbortController; timer?: ReturnType<typeof setTimeout> }>();
  let closed = false;

  const send = (message: RequestMessage) => {
    if (!closed) post(message);
  };

  function call(method: string, payload: JsonValue, { signal, timeoutMs }: CallOptions): Promise<JsonValue> {
    if (closed) return Promise.reject(options.error("realm-reset", `${method}: the other side is gone`));
    if (signal?.aborted)
      return Promise.reject(options.error("cancelled", `${method} was cancelled`, { cause: signal.reason }));
    const id = options.nextId();
    return new Promise<JsonValue>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = () => {
        calls.delete(id);
        if (timer !== undefined) clearTimer(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const withdraw = (error: E) => {
        if (!calls.has(id)) return;
        settle();
        send({ type: CANCEL, id });
        reject(error);
      };
      const onAbort = () => withdraw(options.error("cancelled", `${method} was cancelled`, { cause: signal?.reason }));
      calls.set(id, {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      const finite = timeoutMs !== null && Number.isFinite(timeoutMs);
      const limit = finite ? Math.max(0, timeoutMs) : null;
      if (limit !== null) {
        timer = setTimer(
          () =>
            withdraw(
              options.error("timeout", `${method} got no answer within ${limit} ms`, { details: { timeoutMs: limit } }),
            ),
          limit,
        );
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      send({ type: CALL, id, method, payload, timeoutMs: limit });
    });
  }

  /** Answer a served call once; later answers (a late handler, a second end) are dropped. */
  const answer = (id: RequestId, result: { ok: true; value: JsonValue } | { ok: false; error: ServiceError }) => {
    const entry = served.get(id);
    if (!entry) return;
    served.delete(id);
    if (entry.timer !== undefined) clearTimer(entry.timer);
    if (!result.ok) entry.controller.abort(options.error("cancelled", result.error.message));
    try {
      send(
        result.ok
          ? { type: RESULT, id, ok: true, value: result.value ?? null }
          : { type: RESULT, id, ok: false, error: result.error },
      );
    } catch (error) {
      // A handler answered something structured clone cannot carry: its bug, not the caller's.
      send({
        type: RESULT,
        id,
        ok: false,
        error: { code: "failed", message: `the answer could not be sent: ${String(error)}` },
      });
    }
  };

  const serve = (id: RequestId, method: string, payload: JsonValue, timeoutMs: number | null) => {
    if (served.has(id)) return options.onStray?.(`${CALL} reuses the id ${id} of a request in flight`);
    const entry: { controller: AbortController; timer?: ReturnType<typeof setTimeout> } = {
      controller: new AbortController(),
    };
    served.set(id, entry);
    const handler = options.handler?.(method);
    if (!handler)
      return answer(id, {
        ok: false,
        error: { code: "unknown-service", message: `${options.who} offers no service "${method}"` },
      });
    if (timeoutMs !== null) {
      entry.timer = setTimer(() => {
        if (options.answerTimeouts) {
          return answer(id, {
            ok: false,
            error: { code: "timeout", message: `${method} got no answer within ${timeoutMs} ms` },
          });
        }
        served.delete(id);
        entry.controller.abort(options.error("timeout", `${method} got no answer within ${timeoutMs} ms`));
      }, timeoutMs);
    }
    let result: JsonValue | Promise<JsonValue>;
    try {
      result = handler(payload, { signal: entry.controller.signal, method });
    } catch (error) {
      return answer(id, { ok: false, error: toServiceError(error) });
    }
    Promise.resolve(result).then(
      (value) => {
        if (served.get(id) === entry) answer(id, { ok: true, value });
      },
      (error: unknown) => {
        if (served.get(id) === entry) answer(id, { ok: false, error: toServiceError(error) });
      },
    );
  };

  return {
    call,

    receive(message) {
      if (closed) return;
      switch (message.type) {
        case CALL:
          return serve(message.id, message.method, message.payload, message.timeoutMs);
        case RESULT: {
          const entry = calls.get(message.id);
          // Never asked, answered already, withdrawn or timed out: it settles nothing.
          if (!entry) return options.onStray?.(`${RESULT} for unknown request ${message.id}`);
          if (message.ok) return entry.resolve(message.value);
          return entry.reject(options.error(message.error.code, message.error.message));
        }
        case CANCEL: {
          // The caller gave up: stop the work, owe no answer.
          const entry = served.get(message.id);
          if (!entry) return;
          served.delete(message.id);
          if (entry.timer !== undefined) clearTimer(entry.timer);
          entry.controller.abort(options.error("cancelled", "the caller withdrew the request"));
          return;
        }
        default:
          return message satisfies never;
      }
    },

    endCalls(error) {
      for (const entry of [...calls.values()]) entry.reject(error);
    },

    endServed(error) {
      for (const id of [...served.keys()]) answer(id, { ok: false, error });
    },

    callsInFlight: () => calls.size,
    servedInFlight: () => served.size,

    close(reason) {
      if (closed) return;
      closed = true;
      for (const entry of served.values()) {
        if (entry.timer !== undefined) clearTimer(entry.timer);
        entry.controller.abort(reason);
      }
      served.clear();
      for (const entry of [...calls.values()]) entry.reject(reason);
      calls.clear();
    },
  };
}
