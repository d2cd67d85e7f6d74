/**
 * When the page's work that the first screen does not need may begin: once
 * the realm is ready (or has failed), or after `capMs` at the latest.
 * Before READY the app's main thread and the realm's worker share the
 * machine's cores; opening the store (Dexie), prefetching later chunks and
 * warming the time formatter there slowed the realm's start (issue 34 §3).
 * The cap keeps a slow or stuck realm from holding the person's sessions.
 */
import type { RealmHost } from "../sandbox/types";

export interface StartTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export function afterRealmStart(
  realm: Pick<RealmHost, "ready">,
  capMs: number,
  timers: StartTimers = {
    setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
    clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
  },
): Promise<void> {
  return new Promise<void>((resolve) => {
    const cap = timers.setTimeout(resolve, capMs);
    const done = () => {
      timers.clearTimeout(cap);
      resolve();
    };
    realm.ready().then(done, done);
  });
}
