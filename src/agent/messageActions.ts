import type { ChatMessage } from "./types";

/**
 * The timeline edits behind the message actions (Edit and resend,
 * Regenerate; Continue's note is cutFeedback.ts). Pure: messages in, messages (or a note) out; the
 * agent decides whether an action may run and starts the interaction.
 */

/**
 * Edit and resend: the person's message `messageId` replaced by `text`
 * (keeping its attachments, with a fresh id and time) and everything after
 * it dropped; undefined when there is no such message or nothing would be
 * sent. An edited imported message is the person's, unless it still carries
 * the file's attachments.
 */
export function editedTimeline(
  messages: readonly ChatMessage[],
  messageId: string,
  text: string,
  fresh: () => { id: string; createdAt: number },
): ChatMessage[] | undefined {
  const trimmed = text.trim();
  const index = messages.findIndex((message) => message.id === messageId);
  const original = messages[index];
  if (index < 0 || original.role !== "user" || (!trimmed && !original.attachments?.length)) return undefined;
  const { imported: _imported, ...edited } = original;
  const stillImported = original.imported === true && !!original.attachments?.length;
  const { id, createdAt } = fresh();
  return [
    ...messages.slice(0, index),
    { ...edited, ...(stillImported ? { imported: true } : {}), id, text: trimmed, createdAt },
  ];
}

/**
 * The index of the message that started the interaction `replyId` belongs
 * to (the person's message or UI event before it), or -1.
 */
export function interactionStart(messages: readonly ChatMessage[], replyId: string): number {
  const index = messages.findIndex((message) => message.id === replyId);
  if (index < 0 || messages[index].role !== "assistant") return -1;
  for (let at = index - 1; at >= 0; at -= 1) {
    const message = messages[at];
    if (message.role === "user" || (message.role === "feedback" && message.source === "ui-event")) return at;
  }
  return -1;
}
