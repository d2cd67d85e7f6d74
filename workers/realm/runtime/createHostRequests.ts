/**
 * The realm's end of the port's requests (src/wire/createRequests.ts, the
 * same mechanism the host runs): each call of a host service gets an id, a
 * timeout and a way to cancel, and settles exactly once —
 * answered, timed out, withdrawn by its caller, ended by the host (Stop), or
 * ended because the port closed. Nothing stays pending.
 *
 * ```ts
 * const echo = requests.service<{ text: string }, { text: string }>("echo");
 * const { text } = await echo({ text: "hi" }, { timeoutMs: 5_000, signal });
 * ```
 *
 * Timers are captured at load (createRequests.ts), so model code replacing
 * `setTimeout` cannot keep a request alive or end it early.
 */
import { DEFAULT_SERVICE_TIMEOUT_MS } from "../../../src/wire/constants";
import { createRequests, type RequestHandler } from "../../../src/wire/createRequests";
import type { JsonValue } from "../../../src/wire/mount";
import type { RequestMessage, ServiceErrorCode } from "../../../src/wire/types";

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
export type HostServiceFunction<P extends JsonValue = JsonValue, R extends JsonValue = JsonValue> = (
  payload: P,
  options?: HostRequestOptions,
) => Promise<R>;

export interface HostRequests {
  request(service: string, payload: JsonValue, options?: HostRequestOptions): Promise<JsonValue>;
  /** `request` bound to one service name. */
  service<P extends JsonValue = JsonValue, R extends JsonValue = JsonValue>(name: string): HostServiceFunction<P, R>;
  /**
   * A CALL, RESULT or CANCEL from the host: a RESULT answers one of our
   * requests; a CALL runs one of `methods` (serveRealm: FLUSH, ABORT).
   */
  receive(message: RequestMessage): void;
  /** End every request in flight with `code` (the port closed, the reply stopped). */
  endAll(code: ServiceErrorCode, message: string): void;
  /** Requests still waiting for an answer. */
  inFlight(): number;
}

/**
 * `post` sends to the host; `methods` are what the host may call on the
 * realm (none in tests that only make requests).
 */
export function createHostRequests(
  post: (message: RequestMessage) => void,
  methods: Record<string, RequestHandler> = {},
): HostRequests {
  let nextId = 0;
  const handlers = new Map(Object.entries(methods));
  const requests = createRequests<HostRequestError>({
    post,
    nextId: () => ++nextId,
    error: (code, message) => new HostRequestError(code, message),
    handler: (method) => handlers.get(method),
    who: "the realm",
    answerTimeouts: false,
  });

  function request(service: string, payload: JsonValue, options: HostRequestOptions = {}): Promise<JsonValue> {
    return requests.call(service, payload, {
      timeoutMs: options.timeoutMs ?? DEFAULT_SERVICE_TIMEOUT_MS,
      signal: options.signal,
    });
  }

  return {
    request,
    service: <P extends JsonValue, R extends JsonValue>(name: string) =>
      ((payload: P, options?: HostRequestOptions) => request(name, payload, options)) as HostServiceFunction<P, R>,
    receive: (message) => requests.receive(message),
    endAll: (code, message) => requests.endCalls(new HostRequestError(code, message)),
    inFlight: () => requests.callsInFlight(),
  };
}
