/**
 * The realm's end of the host ↔ realm protocol (src/wire): turns
 * HostMessages into executor calls and the executor's events into
 * RealmMessages.
 *
 * The port is held only in this closure, never in a global, and sending goes
 * through a function bound at start: model code that later patches
 * `MessagePort.prototype.postMessage` (to capture `this`) never sees the port.
 * The host validates everything anyway; this keeps the channel the realm's
 * own.
 */
import { ABORT, FLUSH, TOOLS, WIRE_VERSION } from "../../../src/wire/constants";
import type { ExecEvent } from "../../../src/wire/events";
import type { MountRealmMessage, UiEventMessage } from "../../../src/wire/mount";
import { dispatch, type HostMessage, type HostMessageHandlers, type RealmMessage } from "../../../src/wire/types";
import type { ToolDescriptor } from "../../../src/wire/capabilities";
import type { Executor } from "../executor/executor";
import { createHostRequests, type HostRequests } from "./createHostRequests";
import type { RequestHandler } from "../../../src/wire/createRequests";
import { jsonCopy, messageData } from "./captureIntrinsics";

/** What serveRealm needs of the executor: its reply verbs (declared on Executor, workers/realm/executor). */
export type RealmExecutor = Pick<Executor, "beginReply" | "handleBlock" | "idle" | "abort">;

export interface ServeRealmOptions {
  port: MessagePort;
  /**
   * Build the executor; `onEvent` forwards to the host. `onBusy` tells the
   * host the realm is running code that still progresses (a repeat of the
   * last answered HEARTBEAT; createRealmConnection.ts): call it from inside
   * long-running guarded code.
   */
  createExecutor(onEvent: (event: ExecEvent) => void, onBusy: () => void): RealmExecutor;
  /**
   * Runs right after READY, in the same task (exercise Babel once): the host
   * learns the realm is up while it runs, and what the host sends meanwhile
   * waits in the port until it is done, as it waited for READY before.
   */
  warmUp?: () => void;
  /** How long the bundle took to evaluate before the entry ran (reported in READY). */
  loadMs?: number;
  /** When the entry started (`now()`'s clock): READY reports the set-up since as `setupMs`. */
  startedAt?: number;
  /**
   * Runs when the executor is idle, just before FLUSH or ABORT is answered:
   * send what is still batched (mount frames), so that everything the
   * flushed code caused reaches the host before the answer does.
   */
  settle?: () => void;
  /** The person acted on a mounted UI (the realm's UI runtime validates it). */
  onUiEvent?(message: UiEventMessage): void;
  /** The host's list of connected tools (its TOOLS method; the `tools` global shows exactly these). */
  onTools?(tools: ToolDescriptor[]): void;
  /** Further methods the host may call, the capabilities' (`storage.erased`); the realm's own win on a clash. */
  methods?: ReadonlyMap<string, RequestHandler>;
  now?: () => number;
}

/** What the rest of the realm may send the host besides executor events. */
export interface RealmChannel {
  /** A mount-tree message for the host's renderer. */
  post(message: MountRealmMessage): void;
  /**
   * Ask the host and await the answer (createHostRequests.ts): realm-side
   * capabilities (`fetch`, files, tools) are built on `requests.service(name)`.
   */
  requests: HostRequests;
}

export function serveRealm(options: ServeRealmOptions): RealmChannel {
  const { port } = options;
  const now = options.now ?? (() => performance.now());
  const post = MessagePort.prototype.postMessage.bind(port) as (message: RealmMessage) => void;

  const send = (message: RealmMessage) => {
    try {
      post(message);
    } catch {
      // A DataCloneError would mean an event carried something unclonable
      // (a bug in the executor): send the JSON-safe part instead.
      post(jsonCopy(message));
    }
  };

  /** The last PING answered; repeated as a busy pulse. */
  let answeredSeq = 0;
  /**
   * Answer once the executor is idle, after `settle` (mount frames still
   * batched go out first); not at all once the host cancelled or the call's
   * timeout passed (its signal aborted).
   */
  const whenIdle = async (signal: AbortSignal) => {
    await executor.idle();
    if (signal.aborted) return null;
    try {
      options.settle?.();
    } catch (error) {
      // A bug of ours: it surfaces as an unhandled rejection; the host still gets its answer.
      void Promise.reject(error);
    }
    return null;
  };

  const requests = createHostRequests(send, {
    ...Object.fromEntries(options.methods ?? []),
    [FLUSH]: (_payload, { signal }) => whenIdle(signal),
    [ABORT]: (_payload, { signal }) => {
      executor.abort();
      // Stop ends what the realm waits for from the host (the host says so too; the first answer wins).
      requests.endAll("aborted", "stopped by the person");
      return whenIdle(signal);
    },
    [TOOLS]: (payload) => {
      // The host is trusted; the list is taken as it comes (a `tools` that is not a list means none).
      const tools = typeof payload === "object" && payload !== null && !Array.isArray(payload) ? payload.tools : null;
      options.onTools?.(Array.isArray(tools) ? (tools as ToolDescriptor[]) : []);
      return null;
    },
  });
  // Created after the requests (the executor's code may ask the host); FLUSH and ABORT use it only when called.
  const executor = options.createExecutor(
    (event) => send({ type: "exec-event", event }),
    () => {
      if (answeredSeq > 0) send({ type: "heartbeat", seq: answeredSeq });
    },
  );

  /** One handler per tag of the host → realm table (src/wire/types.ts): the compiler asks for a new entry's. */
  const handlers: HostMessageHandlers = {
    ping(message) {
      answeredSeq = message.seq;
      send({ type: "heartbeat", seq: message.seq });
    },
    block({ event }) {
      if (event.type === "begin-reply") executor.beginReply();
      else executor.handleBlock(event);
    },
    // The host's methods (FLUSH, ABORT, TOOLS), its answers to our requests, its withdrawals.
    call: (message) => requests.receive(message),
    result: (message) => requests.receive(message),
    cancel: (message) => requests.receive(message),
    "ui-event": (message) => options.onUiEvent?.(message),
  };

  const handle = (message: HostMessage) => {
    try {
      dispatch(handlers, message);
    } catch (error) {
      // The executor reports model errors as events; a throw here is a bug
      // of ours. Say so instead of dying silently.
      const block = message.type === "block" && message.event.type !== "begin-reply" ? message.event.index : 0;
      send({
        type: "exec-event",
        event: { type: "error", error: { code: "runtime", name: "RealmInternalError", message: String(error), block } },
      });
    }
  };

  // Messages the host sent while we were starting wait in the port until now.
  // Through the getter captured at start: a model-defined
  // MessageEvent.prototype.data would otherwise receive this event, and with
  // it the port (event.target).
  port.onmessage = (event: MessageEvent<HostMessage>) => handle(messageData(event) as HostMessage);
  // The host closed the port (a reset in tests; in the browser the worker dies with it).
  port.addEventListener("close", () => requests.endAll("realm-reset", "the realm was reset"));
  const setupMs = options.startedAt === undefined ? 0 : Math.max(0, now() - options.startedAt);
  send({ type: "ready", version: WIRE_VERSION, loadMs: options.loadMs ?? 0, setupMs });
  // After READY: the host starts what waited for the realm (its store, the reopened panels) while Babel warms up here.
  options.warmUp?.();
  return { post: send, requests };
}
