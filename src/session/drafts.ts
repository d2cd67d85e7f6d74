/**
 * What the person has typed in a session's composer and not sent, kept per
 * session in localStorage so a reload, a closed tab or a crash does not lose
 * it. Text only: attached files stay with the page (they can be megabytes).
 * Storage that refuses (private browsing, full) keeps nothing and says
 * nothing: the composer works as before.
 */
const PREFIX = "livemark:draft:";

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage ?? undefined;
  } catch {
    return undefined;
  }
}

export function readDraft(sessionId: string): string | undefined {
  try {
    const text = storage()?.getItem(PREFIX + sessionId) ?? undefined;
    return text === undefined || text.trim() === "" ? undefined : text;
  } catch {
    return undefined;
  }
}

/** Two drafts in one composer: the non-blank ones, in order, a blank line between. */
export function joinDraftTexts(...parts: string[]): string {
  return parts.filter((part) => part.trim() !== "").join("\n\n");
}

/** Keep `text` as the session's draft; a blank one removes it (the message was sent or cleared). */
export function writeDraft(sessionId: string, text: string): void {
  try {
    if (text.trim() === "") storage()?.removeItem(PREFIX + sessionId);
    else storage()?.setItem(PREFIX + sessionId, text);
  } catch {
    // Full or refused: the draft lives in the composer only.
  }
}

/** Remove the drafts of every session not in `sessionIds` (deleted ones). */
export function pruneDrafts(sessionIds: ReadonlySet<string>): void {
  try {
    const store = storage();
    if (!store) return;
    const stale: string[] = [];
    for (let index = 0; index < store.length; index += 1) {
      const key = store.key(index);
      if (key?.startsWith(PREFIX) && !sessionIds.has(key.slice(PREFIX.length))) stale.push(key);
    }
    for (const key of stale) store.removeItem(key);
  } catch {
    // Refused: nothing was kept either.
  }
}
