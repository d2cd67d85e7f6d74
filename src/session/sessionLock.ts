/**
 * Which tab owns a session, and telling the other tabs what changed. A
 * session is writable in one tab at a time (a Web Lock per session); the
 * others show it read-only and reload it when the owner says it saved.
 */

const CHANNEL = "livemark-sessions";

/**
 * `saved`: the owner wrote the session; `list`: titles or the list changed;
 * `deleted`: the session went to Recently deleted (a tab that has it open
 * stops writing); `restored`: it came back; `purged`: deleted forever (space
 * was freed: a tab whose saving failed retries).
 */
export const SESSIONS_BROADCASTS = ["saved", "list", "deleted", "restored", "purged"] as const;
export type SessionsBroadcast = { type: (typeof SESSIONS_BROADCASTS)[number]; sessionId?: string };

/**
 * Hold the session's Web Lock until `release` is called. Resolves to
 * `{ owned: false }` when another tab holds it (then this tab is read-only
 * for that session). Without Web Locks every tab owns its sessions.
 */
export function acquireSessionLock(sessionId: string): Promise<{ owned: boolean; release(): void }> {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  if (!locks) return Promise.resolve({ owned: true, release: () => undefined });
  return new Promise((resolve) => {
    void locks.request(`livemark:session:${sessionId}`, { ifAvailable: true }, (lock) => {
      if (!lock) {
        resolve({ owned: false, release: () => undefined });
        return undefined;
      }
      return new Promise<void>((release) => resolve({ owned: true, release }));
    });
  });
}

/**
 * Wait for the session's Web Lock (its owner tab closed or left the
 * session): resolves holding it, with how to release it; never resolves
 * after `signal` aborts (this tab moved on). Without Web Locks, never.
 */
export function waitForSessionLock(sessionId: string, signal: AbortSignal): Promise<{ release(): void }> {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  return new Promise((resolve) => {
    if (!locks) return;
    locks
      .request(`livemark:session:${sessionId}`, { signal }, () => {
        if (signal.aborted) return undefined;
        return new Promise<void>((release) => resolve({ release }));
      })
      .catch(() => undefined);
  });
}

/** The sessions channel between this origin's tabs; a no-op where BroadcastChannel is missing. */
export function createSessionsChannel(onMessage: (message: SessionsBroadcast) => void): {
  post(message: SessionsBroadcast): void;
} {
  const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(CHANNEL) : undefined;
  channel?.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as Partial<SessionsBroadcast> | null;
    if (data?.type && SESSIONS_BROADCASTS.includes(data.type))
      onMessage({ type: data.type, sessionId: typeof data.sessionId === "string" ? data.sessionId : undefined });
  });
  return { post: (message) => channel?.postMessage(message) };
}
