/**
 * The session this tab has open, kept in sessionStorage (one per tab; it
 * survives a reload, not a new tab): a reload reopens the session the
 * person was looking at, not the one with the latest saved activity. Those
 * differ when a reply's last save was cut off by the reload (its session's
 * activity time is written with it) or when another tab wrote since.
 */
const KEY = "livemark:open-session";

export function rememberOpenSession(sessionId: string): void {
  try {
    globalThis.sessionStorage?.setItem(KEY, sessionId);
  } catch {
    // Refused: a reload opens the most recent session, as a new tab does.
  }
}

export function openSessionOfThisTab(): string | undefined {
  try {
    return globalThis.sessionStorage?.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}
