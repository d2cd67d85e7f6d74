/**
 * What the page needs to know of app data writes without loading the
 * capability's code: how many were received from realms and not yet
 * committed (or failed), counted by createAppData.ts for the test probe
 * (src/testProbe.ts); and who hears of each committed write (the invited
 * agent's record of what really happened, src/ui/useInviteAgent.ts).
 */
let uncommitted = 0;
export const uncommittedAppDataWrites = (): number => uncommitted;
/** One more write received (1), or one committed or failed (-1). */
export const countUncommitted = (change: 1 | -1): void => {
  uncommitted += change;
};

const writeListeners = new Set<(sessionId: string, key: string) => void>();
/** Hear of every app data write once it is on disk: the session and the key (set or deleted). */
export function onAppDataWritten(listener: (sessionId: string, key: string) => void): () => void {
  writeListeners.add(listener);
  return () => writeListeners.delete(listener);
}
/** A write of `key` in `sessionId` is on disk (createAppData.ts). */
export function appDataWritten(sessionId: string, key: string): void {
  for (const listener of [...writeListeners]) listener(sessionId, key);
}
