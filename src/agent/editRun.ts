import type { ExecEvent } from "../wire/events";
import {
  blockMounts,
  blockToRun,
  codeBlocksAfter,
  editContext,
  findCodeBlock,
  updateCodeBlock,
  type BlockRef,
} from "./editBlock";
import { FeedbackCollector } from "./feedback";
import type { RealmOutput } from "./realmOutput";
import { applyExecEvent } from "./reply";
import { settleRealm } from "./settleRealm";
import type { StateStore } from "./stateStore";
import type { ChatMessage, RealmPort } from "./types";

/**
 * Edit code and re-run (issue 29 §2), loaded on first use (`Runner.runBlocks`
 * imports it): the code blocks run, in order, in the current realm as new
 * runs of those blocks, never calling the model.
 *
 * - Each block's view shows the new run (its code, statements, output and
 *   errors), the model's code kept in `original` (editBlock.ts).
 * - The block-start carries the block's earlier mounts (`reuse`): a
 *   `mount()` with the title (or at the position) of one of them updates
 *   that panel in place in the realm; one the realm could not take over (a
 *   restored panel) is replaced by the new mount with its title (placeMount).
 *   Output is Revive's meanwhile (never a turn's).
 * - Then the blocks after the first that read a name the run blocks declare
 *   are marked stale (blockNames.ts), and the model's next turn is told, as
 *   runtime output, what the person ran and what it printed or threw.
 */
export interface EditRunHost {
  store: StateStore;
  realm: RealmPort;
  output: Pick<RealmOutput, "reviveStarted" | "reviveEnded">;
  signal: AbortSignal;
}

/** `"stale"`: every stale block of the session, in order, with the code it holds (Run all stale). */
export async function runEditedBlocks(
  host: EditRunHost,
  which: readonly { ref: BlockRef; code: string }[] | "stale",
): Promise<boolean> {
  const { store, realm, signal } = host;
  const runs = which === "stale" ? staleRuns(store.state().messages) : which;
  const setTarget = host.output.reviveStarted();
  const reports: string[] = [];
  let allRan = true;
  try {
    for (const run of runs) {
      if (signal.aborted) break;
      const block = findCodeBlock(store.state().messages, run.ref);
      const reply = store.state().messages.find((message) => message.id === run.ref.replyId);
      if (!block || reply?.role !== "assistant") continue;
      const original = block.original ?? block.source;
      const reuse = blockMounts(reply.reply, run.ref.index);
      setTarget({ replyId: run.ref.replyId, block: run.ref.index, replaced: true, replaces: [...reuse] });
      store.set({ messages: updateCodeBlock(store.state().messages, run.ref, (item) => blockToRun(item, run.code)) });
      const collector = new FeedbackCollector();
      let failed = false;
      const listen = realm.subscribe((event) => {
        if (blockOf(event) !== run.ref.index) return;
        const exec = event as ExecEvent;
        if ((exec.type === "statement-end" && exec.status === "error") || exec.type === "error") failed = true;
        collector.add(exec);
        store.set({
          messages: store.state().messages.map((message) => {
            if (message.id !== run.ref.replyId || message.role !== "assistant") return message;
            const next = applyExecEvent(message.reply, exec);
            return next === message.reply ? message : { ...message, reply: next };
          }),
        });
      });
      try {
        realm.beginReply();
        realm.sendBlock({ type: "block-start", index: run.ref.index, kind: "code", line: block.line, reuse });
        if (run.code) realm.sendBlock({ type: "block-delta", index: run.ref.index, text: run.code });
        realm.sendBlock({ type: "block-end", index: run.ref.index, unterminated: false });
        await settleRealm(realm, undefined, signal).catch(() => undefined);
      } finally {
        listen();
      }
      if (failed) {
        allRan = false;
        store.notice(
          `Code block ${run.ref.index} failed: the statements before the error ran and what they did stays in the sandbox; the rest did not run.`,
          "warn",
        );
      }
      reports.push(
        editContext({
          block: run.ref.index,
          original,
          code: run.code,
          output: collector.empty ? "" : collector.text(),
          failed,
        }),
      );
    }
    if (runs.length > 0 && !signal.aborted) await markStale(store, runs);
  } finally {
    host.output.reviveEnded();
    if (reports.length > 0) store.pushFeedback(reports.join("\n\n"), "runtime");
  }
  return allRan;
}

/** The blocks after those just run that read a name they declare: marked stale (the Babel parse loads on first use). */
async function markStale(store: StateStore, runs: readonly { ref: BlockRef; code: string }[]): Promise<void> {
  const { blockNames, dependentBlocks } = await import("./blockNames");
  const ran = new Set(runs.map((run) => `${run.ref.replyId}:${run.ref.index}`));
  const declared = runs.flatMap((run) => blockNames(run.code).declared);
  const later = codeBlocksAfter(store.state().messages, runs[0].ref)
    .filter((item) => !ran.has(`${item.ref.replyId}:${item.ref.index}`))
    .map((item) => ({ key: item.ref, code: item.code }));
  const stale = dependentBlocks(declared, later);
  let messages = store.state().messages;
  for (const ref of stale) messages = updateCodeBlock(messages, ref, (block) => ({ ...block, stale: true }));
  if (stale.length > 0) store.set({ messages });
}

/** The block an exec event belongs to (undefined for the realm's own events). */
function blockOf(event: { type: string }): number | undefined {
  const exec = event as ExecEvent;
  switch (exec.type) {
    case "statement-start":
    case "statement-end":
    case "console":
    case "skipped":
    case "block-done":
      return exec.block;
    case "error":
      return exec.error.block;
    default:
      return undefined;
  }
}

/** Every stale code block of the session, in order, with the code it runs now (Run all stale). */
export function staleRuns(messages: readonly ChatMessage[]): { ref: BlockRef; code: string }[] {
  const runs: { ref: BlockRef; code: string }[] = [];
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const block of message.reply.blocks)
      if (block.kind === "code" && block.stale)
        runs.push({ ref: { replyId: message.id, index: block.index }, code: block.source });
  }
  return runs;
}
