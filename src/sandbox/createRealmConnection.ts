/**
 * The host's end of one realm's MessagePort: sends commands, runs requests
 * both ways (src/wire/createRequests.ts: its calls FLUSH and ABORT, the
 * realm's calls of host services), validates every incoming message and keeps
 * the heartbeat. One connection per realm lifetime; a reset makes a new one.
 *
 * Heartbeat: the host sends PING and the realm answers HEARTBEAT from its
 * message handler. A realm stuck in synchronous code cannot answer. The probe
 * is driven from the host on purpose: a realm-side setInterval could be
 * cleared by model code (`for (let i = 0; i < 1e4; i++) clearInterval(i)` is a
 * common idiom) and would then look dead while healthy.
 *
 * Busy pulses: code stopped by the loop guard's budget is still progressing,
 * so while it runs the realm repeats its last answered HEARTBEAT (same seq)
 * every ~100 ms from inside the guard's checks. A repeat of the last answered
 * seq counts as "alive, busy"; any other seq counts for nothing. Code the
 * guard cannot reach (`(0, eval)("for (;;) {}")`, a catastrophic regex)
 * sends nothing, so while a statement runs the host can judge silence much
 * sooner (`busy`) than when the realm might be legitimately busy with its
 * own work between statements (`timeoutMs`).
 */
import type { HostMethod } from "../wire/constants";
import { createRequests } from "../wire/createRequests";
import type { ExecEvent } from "../wire/events";
import type { JsonValue, MountRealmMessage } from "../wire/mount";
import {
  dispatch,
  type HostMessage,
  type RealmMessageHandlers,
  type RequestId,
  type ServiceError,
} from "../wire/types";
import type { RealmHostErrorCode } from "./RealmHostError";
import { toServiceError } from "./HostServiceError";
import { RealmHostError } from "./RealmHostError";
import type { HostService } from "./types";
import { validateRealmMessage } from "./validateRealmMessage";

export interface RealmConnectionHandlers {
  onReady(version: number, timings: { loadMs: number; setupMs: number }): void;
  onEvent(event: ExecEvent): void;
  /** A validated mount-tree message for the renderer. */
  onMount(message: MountRealmMessage): void;
  /** A message failed validation or answered a request nobody made. It was dropped. */
  onInvalid(reason: string): void;
  /** The heartbeat went unanswered for `timeoutMs`. Called once. */
  onUnresponsive(): void;
  /** The other end of the port went away (worker terminated or crashed). Called once. */
  onClosed(): void;
}

export interface RequestOptions {
  /** What the method is called with (TOOLS: `{tools}`); default `null`. */
  payload?: JsonValue;
  /** `Infinity` or `null`: wait until cancelled. */
  timeoutMs?: number | null;
  signal?: AbortSignal;
}

export interface HeartbeatOptions {
  /** Probing cadence while `busy.isBusy()` (and always, without `idleIntervalMs`). */
  intervalMs: number;
  /**
   * Probing cadence while no statement runs (default `intervalMs`). An idle
   * realm is judged by `timeoutMs` alone, so it need not be asked ten times
   * a second: each probe is a timer and two port messages on this thread
   * (a streaming reply's page paid ~20 tasks a second for them). `busyNow()`
   * returns to `intervalMs` the moment a statement starts.
   */
  idleIntervalMs?: number;
  /** Silence (no answer, no busy pulse) after which the realm is unresponsive. */
  timeoutMs: number;
  /**
   * The shorter limit while `isBusy()` (a statement runs): code that
   * progresses pulses, so silence this long means stuck. Judged only on
   * rounds where this thread itself was on time (a late timer may mean the
   * answer is waiting in our own queue).
   */
  busy?: { timeoutMs: number; isBusy(): boolean };
}

export interface RealmConnection {
  send(message: HostMessage): void;
  /** Call a method of the realm (FLUSH, ABORT, TOOLS); resolves when it answers. */
  request(method: HostMethod, options?: RequestOptions): Promise<void>;
  /** Start probing; until then a silent realm is not judged (it may be warming up). */
  startHeartbeat(options: HeartbeatOptions): void;
  /**
   * A statement started: probe at the busy cadence from now on (ping now if
   * no probe is in flight), so its silence is judged from its start and not
   * from an idle round up to `idleIntervalMs` away.
   */
  busyNow(): void;
  /** Ask for a heartbeat now and report unresponsive if none comes within `timeoutMs`. */
  probe(timeoutMs: number): void;
  /** Milliseconds since the realm last answered a probe (0 when never probed). */
  silenceMs(): number;
  /**
   * End every realm → host request in flight: its service's signal aborts and
   * the realm is answered with `error` (e.g. `aborted` on Stop).
   */
  endServiceRequests(error: ServiceError): void;
  /** Realm → host requests whose answer is still owed. */
  serviceRequestsInFlight(): number;
  /** Calls of the host's (FLUSH, ABORT, TOOLS) still waiting for the realm's answer. */
  requestsInFlight(): number;
  /** Stop everything, reject pending requests with `reason`, abort services in flight. Idempotent. */
  close(reason: RealmHostError): void;
}

export interface RealmConnectionOptions {
  port: MessagePort;
  /** What the realm sent on `port` before this connection (an early realm's READY): handled first, in order. */
  held?: readonly unknown[];
  handlers: RealmConnectionHandlers;
  /** Shared across a host's connections so ids never repeat after a reset. */
  nextId: () => RequestId;
  /** The host service answering the realm's CALLs of that name (none: `unknown-service`). */
  service?: (name: string) => HostService | undefined;
  now?: () => number;
}

export function createRealmConnection(options: RealmConnectionOptions): RealmConnection {
  const { port, handlers, nextId } = options;
  const now = options.now ?? (() => performance.now());
  let closed = false;
  let heartbeatTimer: ReturnType<typeof setTimeout> | undefined;
  let heartbeat: HeartbeatOptions | undefined;
  /** The delay the pending heartbeat round was scheduled with (what "on time" means for it). */
  let roundMs = 0;
  let probeTimer: ReturnType<typeof setTimeout> | undefined;
  let seq = 0;
  /** The probe in flight: the realm owes a HEARTBEAT with this seq. */
  let outstanding: { seq: number; sentAt: number } | undefined;
  /** The last seq the realm answered, and when it last repeated it (a busy pulse). */
  let lastAnswered = 0;
  let lastPulse = -Infinity;
  let lastTick = now();
  let reportedUnresponsive = false;
  const send = (message: HostMessage) => {
    if (!closed) port.postMessage(message);
  };

  const requests = createRequests<RealmHostError>({
    post: send,
    nextId,
    error: (code, message, extra) => new RealmHostError(code as RealmHostErrorCode, message, extra),
    who: "the host",
    handler(method) {
      const service = options.service?.(method);
      return service && ((payload, { signal }) => service(payload, { signal, service: method }));
    },
    toServiceError,
    answerTimeouts: true,
    onStray: (reason) => handlers.onInvalid(reason),
  });

  const unresponsive = () => {
    if (closed || reportedUnresponsive) return;
    reportedUnresponsive = true;
    handlers.onUnresponsive();
  };

  const ping = () => {
    seq += 1;
    outstanding = { seq, sentAt: now() };
    send({ type: "ping", seq });
  };

  const tick = ({ timeoutMs, busy }: HeartbeatOptions, expectedMs: number) => {
    const time = now();
    const gap = time - lastTick;
    lastTick = time;
    // A late tick means this thread was busy or throttled (background tab):
    // the answer may be sitting in our own queue, so do not judge this round.
    if (gap > 2 * expectedMs + 1_000) return;
    if (!outstanding) return ping();
    const silentMs = time - Math.max(outstanding.sentAt, lastPulse);
    if (silentMs > timeoutMs) return unresponsive();
    if (busy && gap <= 2 * expectedMs + 50 && silentMs > busy.timeoutMs && busy.isBusy()) return unresponsive();
  };

  /** The probing cadence of the moment: `intervalMs` while a statement runs, `idleIntervalMs` otherwise. */
  const cadence = ({ intervalMs, idleIntervalMs = intervalMs, busy }: HeartbeatOptions) =>
    busy && !busy.isBusy() ? idleIntervalMs : intervalMs;

  /** The next heartbeat round in `delayMs` (replacing a pending one), then at the cadence of the moment. */
  const scheduleRound = (delayMs: number) => {
    if (heartbeatTimer !== undefined) clearTimeout(heartbeatTimer);
    roundMs = delayMs;
    heartbeatTimer = setTimeout(() => {
      heartbeatTimer = undefined;
      if (closed || !heartbeat) return;
      tick(heartbeat, roundMs);
      if (closed || reportedUnresponsive) return;
      scheduleRound(cadence(heartbeat));
    }, delayMs);
  };

  /** One handler per tag of the realm → host table (src/wire/types.ts): the compiler asks for a new entry's. */
  const receive: RealmMessageHandlers = {
    ready: (message) => handlers.onReady(message.version, { loadMs: message.loadMs, setupMs: message.setupMs }),
    heartbeat(message) {
      if (outstanding && message.seq === outstanding.seq) {
        lastAnswered = outstanding.seq;
        outstanding = undefined;
      } else if (lastAnswered > 0 && message.seq === lastAnswered) {
        lastPulse = now();
      }
    },
    "exec-event": (message) => handlers.onEvent(message.event),
    // The realm's calls of host services, its answers to our methods, its withdrawals.
    call: (message) => requests.receive(message),
    result: (message) => requests.receive(message),
    cancel: (message) => requests.receive(message),
    mount: (message) => handlers.onMount(message),
  };

  const onData = (data: unknown) => {
    if (closed) return;
    const result = validateRealmMessage(data);
    if (!result.ok) return handlers.onInvalid(result.reason);
    dispatch(receive, result.message);
  };

  const onClose = () => {
    if (!closed) handlers.onClosed();
  };

  const onMessage = (event: MessageEvent) => onData(event.data);
  port.addEventListener("message", onMessage);
  // MessagePort `close` fires when the entangled port is gone: the worker
  // was terminated or crashed (Chromium 122+). Older engines fall back on
  // the heartbeat.
  port.addEventListener("close", onClose);
  port.start();
  // After the caller has the connection (its handlers may look it up), before anything the port delivers next.
  const held = options.held ?? [];
  if (held.length > 0) queueMicrotask(() => held.forEach(onData));

  return {
    send,

    async request(method, requestOptions = {}) {
      await requests.call(method, requestOptions.payload ?? null, {
        timeoutMs: requestOptions.timeoutMs ?? null,
        signal: requestOptions.signal,
      });
    },

    startHeartbeat(options) {
      if (closed || heartbeat) return;
      heartbeat = options;
      lastTick = now();
      scheduleRound(cadence(options));
      ping();
    },

    busyNow() {
      if (closed || !heartbeat || reportedUnresponsive || roundMs <= heartbeat.intervalMs) return;
      lastTick = now();
      scheduleRound(heartbeat.intervalMs);
      if (!outstanding) ping();
    },

    probe(timeoutMs) {
      if (closed) return;
      if (!outstanding) ping();
      const expected = outstanding!.seq;
      if (probeTimer !== undefined) clearTimeout(probeTimer);
      probeTimer = setTimeout(() => {
        probeTimer = undefined;
        if (outstanding && outstanding.seq <= expected) unresponsive();
      }, timeoutMs);
    },

    silenceMs() {
      return outstanding ? now() - Math.min(outstanding.sentAt, now()) : 0;
    },

    endServiceRequests: (error) => requests.endServed(error),

    serviceRequestsInFlight: () => requests.servedInFlight(),
    requestsInFlight: () => requests.callsInFlight(),

    close(reason) {
      if (closed) return;
      closed = true;
      requests.close(reason);
      if (heartbeatTimer !== undefined) clearTimeout(heartbeatTimer);
      if (probeTimer !== undefined) clearTimeout(probeTimer);
      port.removeEventListener("message", onMessage);
      port.removeEventListener("close", onClose);
      port.close();
    },
  };
}
