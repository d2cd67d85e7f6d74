import type { ChatMessage } from "./types";

/**
 * The timeline edits behind the message actions (Edit and resend,
 * Regenerate, the versions' ‹ › switch; Continue's note is cutFeedback.ts).
 * Pure: messages in, messages (or a note) out; the agent decides whether an
 * action may run and starts the interaction.
 *
 * Versions: Edit and resend and Regenerate never drop what they replace. The
 * first message of the new tail carries `versions` (types.ts): every other
 * tail from that place on, each whole. Switching shows another tail and files
 * the shown one among the others, so each version keeps everything after its
 * branch point, its own nested versions included.
 */

/** Every version of the tail that starts at `index`, in order (the shown one at its place). */
export function versionsAt(messages: readonly ChatMessage[], index: number): ChatMessage[][] {
  const first = messages[index];
  if (!first) return [];
  const { versions, ...plain } = first;
  const shown = [plain as ChatMessage, ...messages.slice(index + 1)];
  if (!versions) return [shown];
  return [...versions.others.slice(0, versions.at), shown, ...versions.others.slice(versions.at)];
}

/** Tail `at` of `all`, its first message carrying the others (nothing when it is the only one). */
function showVersion(all: readonly ChatMessage[][], at: number): ChatMessage[] {
  const shown = all[at];
  const others = all.filter((_, index) => index !== at);
  if (others.length === 0) return [...shown];
  return [{ ...shown[0], versions: { at, others } }, ...shown.slice(1)];
}

/** Which version a message shows and how many there are, when it starts versions. */
export function versionOf(message: ChatMessage): { at: number; total: number } | undefined {
  const versions = message.versions;
  return versions ? { at: versions.at, total: versions.others.length + 1 } : undefined;
}

/**
 * Edit and resend: the person's message `messageId` replaced by `text`
 * (keeping its attachments, with a fresh id and time) as the newest version
 * of the timeline from there; what it replaced stays a version (undefined
 * when there is no such message or nothing would be sent). An edited
 * imported message is the person's, unless it still carries the file's
 * attachments.
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
  const { imported: _imported, versions: _versions, ...edited } = original;
  const stillImported = original.imported === true && !!original.attachments?.length;
  const { id, createdAt } = fresh();
  const all = [
    ...versionsAt(messages, index),
    [{ ...edited, ...(stillImported ? { imported: true } : {}), id, text: trimmed, createdAt }],
  ];
  return [...messages.slice(0, index), ...showVersion(all, all.length - 1)];
}

/** The notice a regenerated version begins with: in which realm the new run happens. */
export function regenerationNotice(freshRealm: boolean): string {
  return freshRealm
    ? "Regenerating in a fresh realm: the session’s code up to here runs again first."
    : "Regenerating in the current realm: variables, data and mounts the earlier run made are still there. Use “Regenerate in a fresh realm” to start from the session’s state up to this message instead.";
}

/**
 * Regenerate: the interaction that began at `start` asked again. Its earlier
 * replies (everything after `start`) stay a version; the new tail begins with
 * `first` (the notice that says in which realm the new run happens).
 */
export function regeneratedTimeline(
  messages: readonly ChatMessage[],
  start: number,
  first: ChatMessage,
): ChatMessage[] {
  const all = start + 1 < messages.length ? versionsAt(messages, start + 1) : [];
  all.push([first]);
  return [...messages.slice(0, start + 1), ...showVersion(all, all.length - 1)];
}

/**
 * The ‹ › switch: show version `at` of the tail starting at `messageId`
 * (everything after the branch point belongs to that version), and whether
 * it ends in a cut reply (Continue). Undefined when there is no such message
 * or version. The shown messages are copies, so the store writes them back
 * as rows.
 */
export function switchedTimeline(
  messages: readonly ChatMessage[],
  messageId: string,
  at: number,
): { messages: ChatMessage[]; canContinue: boolean } | undefined {
  const index = messages.findIndex((message) => message.id === messageId);
  const current = index < 0 ? undefined : versionOf(messages[index]);
  if (!current || !Number.isInteger(at) || at < 0 || at >= current.total || at === current.at) return undefined;
  const tail = showVersion(versionsAt(messages, index), at).map((message) => ({ ...message }));
  const shown = [...messages.slice(0, index), ...tail];
  // A version whose last reply was cut offers Continue, as it did when it was shown.
  const last = shown.findLast((message) => message.role === "assistant");
  return { messages: shown, canContinue: last?.role === "assistant" && last.state === "interrupted" };
}

/** Every message id in the timeline, shown or kept in a version. */
export function allMessageIds(messages: readonly ChatMessage[], into = new Set<string>()): Set<string> {
  for (const message of messages) {
    into.add(message.id);
    for (const tail of message.versions?.others ?? []) allMessageIds(tail, into);
  }
  return into;
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
