/**
 * Realm worker entry: a classic worker started by public/sandbox.html from a
 * blob URL at an opaque origin. Hardens the global scope, waits for the port
 * the host sent through the sandbox document, then serves the wire protocol
 * with the executor. Exports nothing: this bundle is an IIFE and its exports
 * would become a global that model code can reach.
 */
import { REALM_CONNECT, WIRE_VERSION } from "../../src/wire/constants";
import type { RealmConnectMessage } from "../../src/wire/types";
import { createExecutor, type Executor } from "./executor/executor";
import { createConsoleLimiter } from "./runtime/createConsoleLimiter";
import { createMacrotaskScheduler } from "./runtime/createMacrotaskScheduler";
import { createRealmGlobals } from "./runtime/createRealmGlobals";
import { createRealmFile } from "./runtime/capabilities/files";
import { createRealmTools } from "./runtime/capabilities/tools";
import { hardenGlobalScope } from "./runtime/hardenGlobalScope";
import { serveRealm, type RealmChannel } from "./runtime/serveRealm";
import { warmUp } from "./runtime/warmUp";
import { preloadZod } from "./runtime/zod";
import { createUiGlobals } from "./runtime/ui/createUiGlobals";

// The worker's clock starts when it does: this is how long fetching,
// compiling and evaluating the bundle (mostly Babel) took.
const loadMs = performance.now();

let channel: RealmChannel | undefined;
let executor: Executor | undefined;

// React and the UI globals (mount, Data, StreamedData, Slot, z, the kit).
// Mount messages ride the realm's port; UI errors (a render or handler that
// threw) reach the model like any uncaught error, located in its own source.
const ui = createUiGlobals({
  post: (message) => channel?.post(message),
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
  files: (chosen) => createRealmFile(chosen, () => channel?.requests),
});
// The person's MCP tools: the host pushes their list (TOOLS), calls go back as requests.
const tools = createRealmTools(() => channel?.requests);
const globals = createRealmGlobals(ui.globals, () => channel?.requests, tools);
hardenGlobalScope(globals.fetch as typeof fetch);

// Errors nobody caught outside a statement (a rejected promise nobody
// awaited, a throw in a platform callback) are the model's to hear about;
// preventDefault keeps them from surfacing as a worker `error` in the
// sandbox document, which the host reads as a sign of a crash.
self.addEventListener("unhandledrejection", (event) => {
  if (!executor) return;
  event.preventDefault();
  executor.reportUncaught(event.reason);
});
self.addEventListener("error", (event) => {
  if (!executor) return;
  event.preventDefault();
  executor.reportUncaught(event.error ?? event.message);
});

function onConnect(event: MessageEvent<RealmConnectMessage>): void {
  const data = event.data as Partial<RealmConnectMessage> | null;
  if (data?.type !== REALM_CONNECT || data.version !== WIRE_VERSION || event.ports.length !== 1) return;
  // One port per realm, for its whole life: later messages on the worker
  // itself are ignored.
  self.removeEventListener("message", onConnect);
  channel = serveRealm({
    port: event.ports[0],
    warmUp,
    loadMs,
    // Mount frames still batched go out before FLUSHED: the host hears of
    // what a turn's code drew (and what it cannot draw) within the turn.
    settle: () => ui.frame(),
    // What the handler causes carries the event's id back to the host.
    onUiEvent: (message) => {
      const eventId = message.eventId;
      if (eventId === undefined || !executor) ui.handleUiEvent(message);
      else executor.runCaused(eventId, () => ui.handleUiEvent(message));
    },
    onTools: (list) => tools.set(list),
    createExecutor: (onEvent, onBusy) => {
      executor = createExecutor({
        onBusy,
        globals,
        // Console output is bounded per statement and per second before it
        // reaches the port (a million-line loop sends 500 lines and a count).
        onEvent: createConsoleLimiter({ forward: onEvent }),
        scheduleMacrotask: createMacrotaskScheduler(),
        openDataTarget: (id) => ui.openDataTarget(id),
      });
      return executor;
    },
  });
  // READY is out: zod (the `z` global) is evaluated next, in an idle moment, not in the start-up.
  preloadZod();
}

self.addEventListener("message", onConnect);
