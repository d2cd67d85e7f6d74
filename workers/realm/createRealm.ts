/**
 * The realm, composed once: the UI runtime (mount, Data, StreamedData, Slot,
 * z, the kit), the capabilities (`fetch`, files, `tools`) and the model's
 * habits as globals, the executor that runs code against them, and the
 * handlers for what the host sends. The worker entry (index.ts) serves it on
 * the port the host sent; Node tests attach it to a stand-in page in the same
 * process (test/runReply.ts). Both run this wiring, so a test sees the realm
 * the worker runs.
 *
 * The worker's alone, and not here: hardening the global scope, listening
 * for the worker's uncaught errors, preloading zod.
 *
 * Invariants:
 *   1. One executor per realm, made when the realm is served or attached
 *      (the executor's events need somewhere to go); before that, UI errors
 *      and uncaught errors are dropped, as nothing of the model's has run.
 *   2. Capabilities reach the host only through the requests of the line the
 *      realm was served or attached on; without one they are refused.
 *   3. Console output passes the console limiter before it leaves the realm.
 */
import type { ExecEvent } from "../../src/wire/events";
import type { MountRealmMessage, UiEventMessage } from "../../src/wire/mount";
import type { ToolDescriptor } from "../../src/wire/capabilities";
import { createExecutor, type Executor } from "./executor/executor";
import { createConsoleLimiter } from "./runtime/createConsoleLimiter";
import type { HostRequests } from "./runtime/createHostRequests";
import type { RequestHandler } from "../../src/wire/createRequests";
import { createRealmGlobals } from "./runtime/createRealmGlobals";
import { createRealmFile } from "./runtime/capabilities/files";
import { createRealmTools } from "./runtime/capabilities/tools";
import { serveRealm, type RealmChannel } from "./runtime/serveRealm";
import { createUiGlobals, type UiGlobals } from "./runtime/ui/createUiGlobals";

export interface RealmOptions {
  /** The loop guard's budget (ExecutorOptions.loopBudgetMs; default 2000). */
  loopBudgetMs?: number;
  /** Macrotask scheduler for the loop guard (the worker passes a MessageChannel one; default setTimeout 0). */
  scheduleMacrotask?: (callback: () => void) => void;
  /**
   * The clock the model's timers and `sleep` run on (default the platform's).
   * Tests pass a virtual one so a script's `await sleep(800)` costs no real time.
   */
  timers?: RealmTimers;
}

/** What the model's setTimeout, setInterval and sleep are built on (the executor wraps them to credit their output). */
export interface RealmTimers {
  setTimeout(callback: () => void, ms?: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(callback: () => void, ms?: number): unknown;
  clearInterval(handle: unknown): void;
}

/** What a host in the same process gives the realm instead of a port (Node tests). */
export interface AttachedHost {
  /** The executor's events, as serveRealm would post them. */
  onEvent(event: ExecEvent): void;
  /** Mount messages, as serveRealm would post them. */
  post(message: MountRealmMessage): void;
  /** Where capabilities ask the host; absent: they are refused. */
  requests?: HostRequests;
}

export interface Realm {
  /** The realm's globals; `fetch` is the one hardenGlobalScope installs everywhere. */
  readonly globals: Record<string, unknown>;
  readonly ui: UiGlobals;
  /** Made by serve() or attach(). */
  readonly executor: Executor | undefined;
  /** The worker: serve the host's messages on `port` and send READY. Returns the realm's line to the host. */
  serve(port: MessagePort, options?: { loadMs?: number; startedAt?: number; warmUp?: () => void }): RealmChannel;
  /** A host in the same process: the executor, reporting to `host`. */
  attach(host: AttachedHost): Executor;
  /** Runs when the executor is idle, before the host hears so: mount frames still batched go out. */
  settle(): void;
  /** The host's UI_EVENT: its handler runs under the event's id. False when the UI runtime dropped it. */
  handleUiEvent(message: UiEventMessage): boolean;
  /** The host's TOOLS: the `tools` global shows exactly these. */
  setTools(list: readonly ToolDescriptor[]): void;
  /** What the host may call on the capabilities (`storage.erased`), as serve() serves them. */
  readonly hostMethods: ReadonlyMap<string, RequestHandler>;
}

export function createRealm(options: RealmOptions = {}): Realm {
  let line: { post(message: MountRealmMessage): void; requests?: HostRequests } | undefined;
  let executor: Executor | undefined;
  const requests = () => line?.requests;

  // Mount messages go to the host; UI errors (a render or handler that
  // threw) reach the model like any uncaught error, located in its own source.
  const ui = createUiGlobals({
    post: (message) => line?.post(message),
    onError: (error) => {
      // Re-creating a data target in a later turn is normal; the new one takes over.
      if (!executor || error.code === "duplicate-target") return;
      const where = error.component ? ` in <${error.component}>` : error.handler ? ` in ${error.handler}` : "";
      const reported = new Error(`${error.message}${where}`);
      reported.name = error.name;
      const cause = error.cause as { stack?: unknown } | undefined;
      if (cause && typeof cause.stack === "string") reported.stack = cause.stack;
      executor.reportUncaught(reported);
    },
    locate: (error) => executor?.locate(error),
    bindCause: (callback) => executor?.bindCause(callback) ?? callback,
    currentCause: () => executor?.currentCause(),
    files: (chosen) => createRealmFile(chosen, requests),
  });
  // The person's MCP tools: the host pushes their list (TOOLS), calls go back as requests.
  const tools = createRealmTools(requests);
  const timers = options.timers;
  // What the host may call on the capabilities besides the realm's own methods (Erase app data).
  const hostMethods = new Map<string, RequestHandler>();
  const globals = timers
    ? createRealmGlobals(
        { ...ui.globals, ...timers },
        requests,
        tools,
        timers.setTimeout as typeof setTimeout,
        ui,
        hostMethods,
      )
    : createRealmGlobals(ui.globals, requests, tools, undefined, ui, hostMethods);

  const start = (onEvent: (event: ExecEvent) => void, onBusy?: () => void): Executor => {
    const base = createExecutor({
      onBusy,
      globals,
      // Console output is bounded per statement and per second before it
      // leaves the realm (a million-line loop sends 500 lines and a count).
      onEvent: createConsoleLimiter({ forward: onEvent }),
      loopBudgetMs: options.loopBudgetMs,
      scheduleMacrotask: options.scheduleMacrotask,
      openDataTarget: (id) => ui.openDataTarget(id),
    });
    // An edited block run again takes over its earlier mounts (block-start
    // `reuse`); any other reply or block mounts anew.
    const beginReply = base.beginReply.bind(base);
    const handleBlock = base.handleBlock.bind(base);
    const abort = base.abort.bind(base);
    base.abort = () => {
      abort();
      ui.stopWaiting();
    };
    base.beginReply = (id) => {
      ui.reuseMounts(undefined);
      beginReply(id);
    };
    base.handleBlock = (event) => {
      if (event.type === "block-start") ui.reuseMounts(event.kind === "code" ? event.reuse : undefined);
      handleBlock(event);
    };
    executor = base;
    return executor;
  };

  const settle = () => ui.frame();
  // What the handler causes carries the event's id back to the host.
  const handleUiEvent = (message: UiEventMessage): boolean => {
    const eventId = message.eventId;
    if (eventId === undefined || !executor) return ui.handleUiEvent(message);
    return executor.runCaused(eventId, () => ui.handleUiEvent(message));
  };
  const setTools = (list: readonly ToolDescriptor[]) => tools.set(list);

  return {
    globals,
    ui,
    hostMethods,
    get executor() {
      return executor;
    },
    serve(port, serveOptions = {}) {
      const served = serveRealm({
        port,
        warmUp: serveOptions.warmUp,
        loadMs: serveOptions.loadMs,
        startedAt: serveOptions.startedAt,
        // Mount frames still batched go out before the flush is answered: the host hears of
        // what a turn's code drew (and what it cannot draw) within the turn.
        settle,
        onUiEvent: (message) => void handleUiEvent(message),
        onTools: setTools,
        methods: hostMethods,
        createExecutor: start,
      });
      line = served;
      return served;
    },
    attach(host) {
      line = { post: (message) => host.post(message), requests: host.requests };
      return start((event) => host.onEvent(event));
    },
    settle,
    handleUiEvent,
    setTools,
  };
}
