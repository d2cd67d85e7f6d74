import type { Agent, ChatMessage } from "./agent";
import type { PageResult } from "../wire/bridge";
import { createExternalReply } from "./externalReply";

/**
 * What an external agent's session tools do in the page, written once for
 * every way an agent reaches the session: the invited agent's channel
 * (agentChannel.ts, through the bridge) and an in-browser agent (webMcp.ts,
 * through WebMCP). `livemark_run` runs Markdown through the very turn a
 * model's reply takes; `livemark_read_session` reads the messages and the
 * mounts' snapshots. Rights, confirmation and audit stay with each caller.
 */

const MAX_SNAPSHOT_CHARS = 50_000;
const MAX_MESSAGE_CHARS = 50_000;

/** What livemark_run answers: the reply's state, its runtime feedback as a model's next turn sees it, its mounts. */
export type RunResult = PageResult<"run"> & { replyId: string | undefined };

/** What livemark_read_session answers (the same shape through the bridge and WebMCP). */
export type ReadSessionResult = PageResult<"read-session">;

/** The session is busy: what livemark_run answers then. */
export const SESSION_BUSY =
  "The session is busy: a reply is running. Run again when it has finished (the person can press Stop).";

export function mountsOf(messages: readonly ChatMessage[]): { mountId: string; title?: string; messageId: string }[] {
  return messages.flatMap((message) =>
    message.role === "assistant"
      ? (message.reply.mounts ?? []).map((mount) => ({
          mountId: mount.mountId,
          messageId: message.id,
          ...(mount.title ? { title: mount.title.slice(0, 2_000) } : {}),
        }))
      : [],
  );
}

export function snapshotText(snapshot: unknown): string {
  if (snapshot === undefined) return "";
  const text = JSON.stringify(snapshot) ?? "";
  return text.length > MAX_SNAPSHOT_CHARS
    ? `${text.slice(0, MAX_SNAPSHOT_CHARS)}… [cut at ${MAX_SNAPSHOT_CHARS} characters]`
    : text;
}

/** The session's messages `from` (inclusive) `to` (exclusive), at most 500, with their mounts' snapshots. */
export function readSession(
  agent: Agent,
  range: { from?: number; to?: number },
  mountSnapshot?: (mountId: string) => unknown,
): ReadSessionResult {
  const messages = agent.getState().messages;
  const from = Math.min(range.from ?? 0, messages.length);
  const to = Math.max(from, Math.min(range.to ?? messages.length, messages.length, from + 500));
  const slice = messages.slice(from, to);
  return {
    total: messages.length,
    messages: slice.map((message, offset) => ({
      index: from + offset,
      id: message.id,
      role: message.role === "agent" ? `agent ${message.kind}` : message.role,
      text: (message.role === "feedback" ? message.body : message.text).slice(0, MAX_MESSAGE_CHARS),
    })),
    mounts: mountsOf(slice).map((mount) => ({ ...mount, snapshot: snapshotText(mountSnapshot?.(mount.mountId)) })),
  };
}

/**
 * Runs an agent's Markdown in the session (`Agent.runExternal`): shown in
 * the timeline as a reply, its code in the realm, no automatic next turn.
 * Throws `SESSION_BUSY` while a reply runs.
 */
export async function runMarkdown(
  agent: Agent,
  markdown: string,
  agentLabel: string,
  mountsApplied?: () => Promise<void>,
): Promise<RunResult> {
  const run = await agent.runExternal(createExternalReply(markdown, agentLabel), agentLabel);
  if (run.kind === "busy") throw new Error(SESSION_BUSY);
  await mountsApplied?.();
  const reply = agent.getState().messages.filter((message) => message.id === run.replyId);
  return { state: run.state, feedback: run.feedback, mounts: mountsOf(reply), replyId: run.replyId };
}
