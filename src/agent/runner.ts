import { turnContext, type ResolvedOptions } from "./agentOptions";
import type { BlockRef } from "./editBlock";
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
  output: () => Pick<RealmOutput, "takeIdle" | "reviveStarted" | "reviveEnded" | "defer">;
  /** While the session's older messages are being read: settles once they are in (what runs reads the whole timeline). */
  older?: () => Promise<void> | undefined;
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

  /** Waits for the session's older messages while they are read; no wait (not even a microtask) otherwise. */
  private async olderMessages(): Promise<void> {
    const older = this.host.older?.();
    if (older) await older;
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
        defer: (notes) => this.host.output().defer(notes),
      },
      options.now,
    );
    this.running = interaction;
    this.controller = interaction.controller;
    store.move({ type: "interaction-start" }, { turn: 0, detail: undefined, canContinue: false });
    // Output from timers while idle joins the first turn's feedback, it never starts one.
    const carried = this.host.output().takeIdle();
    try {
      await this.olderMessages();
      await interaction.run(carried, external);
    } finally {
      this.controller = undefined;
      this.running = undefined;
      interaction.finish();
      store.move({ type: "end", outcome: interaction.outcome }, { detail: undefined });
    }
  }

  /**
   * Edit code and re-run (editRun.ts, loaded on first use): run these code
   * blocks, in order, in the current realm as new runs of those blocks,
   * never calling the model. Resolves with whether every block ran without
   * an error.
   */
  async runBlocks(runs: readonly { ref: BlockRef; code: string }[] | "stale"): Promise<boolean> {
    const { store, options } = this.host;
    const output = this.host.output();
    const controller = new AbortController();
    this.controller = controller;
    store.move({ type: "revive-start" }, { detail: "running edited code", turn: 0, canContinue: false });
    let allRan = false;
    try {
      await this.olderMessages();
      const { runEditedBlocks } = await import("./editRun");
      allRan = await runEditedBlocks({ store, realm: options.realm, output, signal: controller.signal }, runs);
    } finally {
      this.controller = undefined;
      const stopped = controller.signal.aborted;
      store.move({ type: "end", outcome: stopped ? "stopped" : allRan ? "done" : "error" }, { detail: undefined });
    }
    return allRan && !controller.signal.aborted;
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
      await this.olderMessages();
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
