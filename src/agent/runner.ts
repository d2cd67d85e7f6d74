import type { ExecEvent } from "../wire/events";
import { turnContext, type ResolvedOptions } from "./agentOptions";
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
import { applyExecEvent } from "./reply";
import { settleRealm } from "./settleRealm";
import { Interaction, type ExternalSource } from "./interaction";
import type { RealmOutput } from "./realmOutput";
import { reviveNotice, reviveSession, type ReviveResult } from "./revive";
import type { StateStore } from "./stateStore";

/**
 * What runs now: at most one interaction (interaction.ts) or one Revive
 * (revive.ts) at a time, for as long as the agent lives. It holds the abort
 * controller of what runs (`busy`, `stop`), starts and ends each with its
 * phase moves, carries output kept while idle into an interaction's first
 * turn, and keeps what a reply cut mid-stream leaves for Continue. Whether a
 * run may start at all (busy, closing) is the agent's to decide.
 */

export interface RunnerHost {
  options: ResolvedOptions;
  store: StateStore;
  /** Where the realm's output goes (read when a run starts: the agent makes it after the runner). */
  output: () => Pick<RealmOutput, "takeIdle" | "reviveStarted" | "reviveEnded">;
}

export class Runner {
  /** Set while an interaction or Revive runs: Stop aborts it. */
  private controller: AbortController | undefined;
  private running: Interaction | undefined;
  /** Runtime output of the last reply cut mid-stream, sent with Continue ("" once used, or dropped by an edit). */
  interruptedFeedback = "";

  constructor(private readonly host: RunnerHost) {}

  get busy(): boolean {
    return this.controller !== undefined;
  }

  /** The running interaction: its turn owns the realm's output while it listens. */
  get interaction(): Interaction | undefined {
    return this.running;
  }

  /** Abort the model's stream (or Revive) and interrupt the realm's running code. */
  stop(): void {
    if (!this.controller) return;
    this.controller.abort(new DOMException("Stopped by the person", "AbortError"));
    this.host.options.realm.abort();
  }

  /** One interaction; its summary goes on its last reply. Resolves when it has ended. */
  async interact(external?: ExternalSource): Promise<void> {
    const { store, options } = this.host;
    const interaction = new Interaction(
      {
        turnContext: turnContext(options, store),
        maxTurns: () => options.maxTurns,
        store,
        interrupted: (feedback) => {
          this.interruptedFeedback = feedback;
          store.set({ canContinue: true });
        },
      },
      options.now,
    );
    this.running = interaction;
    this.controller = interaction.controller;
    store.move({ type: "interaction-start" }, { turn: 0, detail: undefined, canContinue: false });
    // Output from timers while idle joins the first turn's feedback, it never starts one.
    const carried = this.host.output().takeIdle();
    try {
      await interaction.run(carried, external);
    } finally {
      this.controller = undefined;
      this.running = undefined;
      interaction.finish();
      store.move({ type: "end", outcome: interaction.outcome }, { detail: undefined });
    }
  }

  /**
   * Edit code and re-run: run these code blocks, in order, in the current
   * realm as new runs of those blocks (never calling the model). Each
   * block's view shows the new run; a `mount()` with the title (or position)
   * of one of the block's earlier mounts updates that panel in place. Then
   * the blocks after the first that read a name it declares are marked
   * stale, and the model's next turn is told (runtime output) what the
   * person ran and what it printed or threw. Resolves with whether every
   * block ran without an error.
   */
  async runBlocks(runs: readonly { ref: BlockRef; code: string }[]): Promise<boolean> {
    const { store, options } = this.host;
    const { realm } = options;
    const output = this.host.output();
    const controller = new AbortController();
    this.controller = controller;
    const setTarget = output.reviveStarted();
    store.move({ type: "revive-start" }, { detail: "running edited code", turn: 0, canContinue: false });
    const reports: string[] = [];
    let allRan = true;
    try {
      for (const run of runs) {
        if (controller.signal.aborted) break;
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
          const index = blockOf(event);
          if (index !== run.ref.index) return;
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
          await settleRealm(realm, undefined, controller.signal).catch(() => undefined);
        } finally {
          listen();
        }
        if (failed) allRan = false;
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
      if (runs.length > 0 && !controller.signal.aborted) await this.markStale(runs);
    } finally {
      this.controller = undefined;
      output.reviveEnded();
      if (reports.length > 0) store.pushFeedback(reports.join("\n\n"), "runtime");
      const stopped = controller.signal.aborted;
      store.move({ type: "end", outcome: stopped ? "stopped" : allRan ? "done" : "error" }, { detail: undefined });
    }
    return allRan && !controller.signal.aborted;
  }

  /** The blocks after those just run that read a name they declare: marked stale (the Babel parse loads on first use). */
  private async markStale(runs: readonly { ref: BlockRef; code: string }[]): Promise<void> {
    const { store } = this.host;
    const { blockNames, dependentBlocks } = await import("./blockNames");
    const ran = new Set(runs.map((run) => `${run.ref.replyId}:${run.ref.index}`));
    const first = runs[0].ref;
    const declared = runs.flatMap((run) => blockNames(run.code).declared);
    const later = codeBlocksAfter(store.state().messages, first)
      .filter((item) => !ran.has(`${item.ref.replyId}:${item.ref.index}`))
      .map((item) => ({ key: item.ref, code: item.code }));
    const stale = dependentBlocks(declared, later);
    let messages = store.state().messages;
    for (const ref of stale) messages = updateCodeBlock(messages, ref, (block) => ({ ...block, stale: true }));
    if (stale.length > 0) store.set({ messages });
  }

  /** Revive: re-run the session's blocks in the realm without the model; a notice tells the person how it went. */
  async revive(): Promise<ReviveResult> {
    const { store, options } = this.host;
    const output = this.host.output();
    const controller = new AbortController();
    this.controller = controller;
    const target = output.reviveStarted();
    store.move({ type: "revive-start" }, { detail: "reviving", turn: 0, canContinue: false });
    const result: ReviveResult = { blocks: 0, failures: [] };
    try {
      const { messages } = store.state();
      await reviveSession({ realm: options.realm, messages, signal: controller.signal, target }, result);
    } finally {
      this.controller = undefined;
      output.reviveEnded();
      const stopped = controller.signal.aborted;
      const notice = reviveNotice(result, stopped);
      store.notice(notice.text, notice.level);
      store.move({ type: "end", outcome: stopped ? "stopped" : "done" }, { detail: undefined });
    }
    return result;
  }
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
