/**
 * Realm worker entry: evaluated by the loader of a classic worker that
 * public/sandbox.html starts from a blob URL at an opaque origin, as soon as
 * the bundle is sent to it. Composes the realm (createRealm.ts), hardens
 * the global scope, waits for the port the host sent through the sandbox
 * document, then serves the wire protocol on it. Exports nothing: this
 * bundle is an IIFE and its exports would become a global that model code
 * can reach.
 */
import { REALM_CONNECT, WIRE_VERSION } from "../../src/wire/constants";
import type { RealmConnectMessage } from "../../src/wire/types";
import { createRealm } from "./createRealm";
import { createMacrotaskScheduler } from "./runtime/createMacrotaskScheduler";
import { hardenGlobalScope } from "./runtime/hardenGlobalScope";
import { warmUp } from "./runtime/warmUp";
import { preloadZod } from "./runtime/zod";

// How long reading, compiling and evaluating the bundle (mostly Babel) took. The worker starts with the sandbox
// document (public/sandbox.html), before the bundle is there: its loader notes when the bundle came and evaluated it.
// The note is taken off the global scope before any model code can see it.
const scope = self as unknown as { livemarkBundleAt?: number };
const startedAt = performance.now();
const loadMs = startedAt - (scope.livemarkBundleAt ?? 0);
delete scope.livemarkBundleAt;

const realm = createRealm({ scheduleMacrotask: createMacrotaskScheduler() });
hardenGlobalScope(realm.globals.fetch as typeof fetch);

// Errors nobody caught outside a statement (a rejected promise nobody
// awaited, a throw in a platform callback) are the model's to hear about;
// preventDefault keeps them from surfacing as a worker `error` in the
// sandbox document, which the host reads as a sign of a crash.
self.addEventListener("unhandledrejection", (event) => {
  if (!realm.executor) return;
  event.preventDefault();
  realm.executor.reportUncaught(event.reason);
});
self.addEventListener("error", (event) => {
  if (!realm.executor) return;
  event.preventDefault();
  realm.executor.reportUncaught(event.error ?? event.message);
});

function onConnect(event: MessageEvent<RealmConnectMessage>): void {
  const data = event.data as Partial<RealmConnectMessage> | null;
  if (data?.type !== REALM_CONNECT || data.version !== WIRE_VERSION || event.ports.length !== 1) return;
  // One port per realm, for its whole life: later messages on the worker
  // itself are ignored.
  self.removeEventListener("message", onConnect);
  realm.serve(event.ports[0], { warmUp, loadMs, startedAt });
  // READY is out and Babel warm: zod (the `z` global) is evaluated next, in an idle moment, not in the start-up.
  preloadZod();
}

self.addEventListener("message", onConnect);
