import type { ChatMessage } from "../agent/types";
import { createSession, guard, shownBefore, writeSessionChanges } from "./sessions";
import type { Store } from "./store";
import type { MessageRecord, Session } from "./types";

/**
 * What Edit and resend, Regenerate, the versions' switch and Branch change
 * in a session's rows. Its own module: the app loads it with the first of
 * them (the initial JavaScript budget, bench/).
 */

/**
 * Delete the rows of messages no longer shown (edit and resend, regenerate
 * and the ‹ › switch file what followed as a version of the message shown
 * instead), with their search rows and the snapshots of their mounts, except
 * those of messages in `kept` (still held by a version). A message shown
 * again later is written as a new row after the others.
 */
export async function removeMessages(
  store: Store,
  sessionId: string,
  messageIds: readonly string[],
  kept: ReadonlySet<string> = new Set(),
): Promise<void> {
  if (messageIds.length === 0) return;
  const { db } = store;
  const ids = new Set(messageIds.filter((id) => !kept.has(id)));
  const orders = store.orders.get(sessionId);
  for (const id of messageIds) orders?.byId.delete(id);
  await guard(() =>
    db.transaction("rw", [db.messages, db.mounts, db.searchText], async () => {
      await db.messages.bulkDelete(messageIds.map((id) => [sessionId, id] as [string, string]));
      await db.searchText.bulkDelete(messageIds.map((id) => [sessionId, id] as [string, string]));
      await db.mounts
        .where("sessionId")
        .equals(sessionId)
        .filter((mount) => ids.has(mount.messageId))
        .delete();
    }),
  );
}

/**
 * Branch: a new session holding `messages` (copies, the source's messages
 * up to the chosen one) with the source's model settings and the snapshots
 * of those messages' mounts. Rights do not travel: capability settings
 * start at the defaults.
 */
export async function branchSession(
  store: Store,
  source: Session,
  messages: readonly ChatMessage[],
  mounts: readonly { mountId: string; messageId: string; snapshot: unknown }[],
): Promise<Session> {
  const session = await createSession(store, {
    title: `Branch of ${source.title}`,
    ...(source.chat ? { chat: source.chat } : {}),
    ...(source.suggestedChat ? { suggestedChat: source.suggestedChat } : {}),
  });
  const kept = new Set(messages.map((message) => message.id));
  // Mount ids stay unique across sessions (as on import): the copies get new ones.
  const renamed = new Map<string, string>();
  for (const mount of mounts) if (kept.has(mount.messageId)) renamed.set(mount.mountId, store.newId());
  // The branch holds the messages shown, not their other versions.
  const shown = messages.map(({ versions: _versions, ...message }) => message as ChatMessage);
  const copies = shown.map((message): ChatMessage =>
    message.role === "assistant" && message.reply.mounts?.length
      ? {
          ...message,
          reply: {
            ...message.reply,
            mounts: message.reply.mounts.map((mount) => ({
              ...mount,
              mountId: renamed.get(mount.mountId) ?? mount.mountId,
            })),
          },
        }
      : { ...message },
  );
  await writeSessionChanges(store, session.id, {
    messages: copies,
    mounts: mounts
      .filter((mount) => renamed.has(mount.mountId))
      .map((mount) => ({ mountId: renamed.get(mount.mountId)!, messageId: mount.messageId, snapshot: mount.snapshot })),
  });
  return session;
}

/**
 * The rows that are shown, in order: a row whose message a later row keeps
 * as a version is left out. Rows no longer shown are deleted right after the
 * message that keeps them is written (`removeMessages`); a page closed in
 * between leaves them, and this reads past them (the newest row wins).
 */
export function shownRecords(records: readonly MessageRecord[]): MessageRecord[] {
  return shownBefore(records, new Set());
}

/** The ids of the messages and of those their versions keep. */
export function everyMessageId(messages: readonly ChatMessage[], into = new Set<string>()): Set<string> {
  for (const message of messages) {
    into.add(message.id);
    for (const tail of message.versions?.others ?? []) everyMessageId(tail, into);
  }
  return into;
}
