import { createBlockRouter, replayBlock } from "./routeBlocks";
import { settleRealm } from "./settleRealm";
import type { ChatMessage, RealmPort } from "./types";

/**
 * Revive: re-run every code and data block of the session, in order, in the
 * realm, without calling the model, so restored state (and mounts) are live
 * again. Saved blocks are replayed as the events that streamed them, through
 * the same router a turn uses. What fails is reported to the person (a
 * notice), not to the model.
 */

/** The reply Revive re-runs now: mounts that open belong to it, after the block running. */
export interface ReviveTarget {
  replyId: string;
  block: number | undefined;
  /** Whether the reply's restored (inert) mounts were replaced yet: the first mount that opens replaces them. */
  replaced: boolean;
  /**
   * An edited block runs again (Runner.runBlocks): its earlier mounts the
   * realm could not take over (restored, inert ones): a mount that opens
   * with one's title takes its place instead of adding a panel.
   */
  replaces?: { mountId: string; title?: string }[];
}

export interface ReviveResult {
  blocks: number;
  failures: string[];
}

export interface ReviveHost {
  realm: RealmPort;
  /** The session's messages when Revive starts. */
  messages: readonly ChatMessage[];
  signal: AbortSignal;
  /** Which reply runs now (undefined: Revive is over). */
  target(target: ReviveTarget | undefined): void;
}

export async function reviveSession(
  host: ReviveHost,
  result: ReviveResult = { blocks: 0, failures: [] },
): Promise<ReviveResult> {
  const { realm, signal } = host;
  let target: ReviveTarget | undefined;
  const listen = realm.subscribe((event) => {
    if (event.type === "statement-start" && target) target.block = event.block;
    if (event.type === "statement-end" && event.status === "error" && event.error)
      result.failures.push(event.error.message);
    if (event.type === "error") result.failures.push(event.error.message);
  });
  try {
    for (const message of host.messages) {
      if (signal.aborted) break;
      if (message.role !== "assistant") continue;
      realm.beginReply();
      target = { replyId: message.id, block: undefined, replaced: false };
      host.target(target);
      const route = createBlockRouter((event) => realm.sendBlock(event));
      let any = false;
      for (const block of message.reply.blocks) {
        route(replayBlock(block));
        if (block.kind === "text") continue;
        any = true;
        result.blocks += 1;
      }
      if (any) await settleRealm(realm, undefined, signal).catch(() => undefined);
    }
  } finally {
    listen();
    host.target(undefined);
  }
  return result;
}

/** The notice that ends Revive. */
export function reviveNotice(
  { blocks, failures }: ReviveResult,
  stopped: boolean,
): { text: string; level: "info" | "warn" } {
  return {
    text: stopped
      ? "Revive stopped."
      : failures.length === 0
        ? `Revived: re-ran ${blocks} block${blocks === 1 ? "" : "s"} in a fresh realm.`
        : `Revived ${blocks} block${blocks === 1 ? "" : "s"}; ${failures.length} failed: ${failures.slice(0, 3).join("; ")}`,
    level: failures.length > 0 ? "warn" : "info",
  };
}
