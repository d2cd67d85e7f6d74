import type { RealmPort } from "./types";

/**
 * Wait for the realm to finish what was sent so far. Code may wait for the
 * person (a form) for as long as they like, so there is no timeout unless
 * one is given; with a signal, Stop ends the wait (the promise rejects with
 * the signal's reason). A failed flush counts as settled.
 */
export async function settleRealm(realm: RealmPort, timeoutMs?: number, signal?: AbortSignal): Promise<void> {
  const flushed = realm.flush(timeoutMs ?? Infinity, signal ? { signal } : undefined);
  if (!signal) {
    await flushed.catch(() => undefined);
    return;
  }
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    flushed.then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
    );
  });
}
