/**
 * When the page's work that the first screen does not need may begin: once
 * the realm is ready (or has failed), or after `capMs` at the latest.
 * Before READY the app's main thread and the realm's worker share the
 * machine's cores; opening the store (Dexie), prefetching later chunks and
 * warming the time formatter there slowed the realm's start (issue 34 §3).
 * The cap keeps a slow or stuck realm from holding the person's sessions.
 */
import type { RealmHost } from "../sandbox/types";

/** (The cap's timer is left to fire: it then does nothing.) */
export function afterRealmStart(realm: Pick<RealmHost, "ready">, capMs: number): Promise<void> {
  return Promise.race([realm.ready().catch(() => {}), new Promise<void>((resolve) => setTimeout(resolve, capMs))]);
}
