import type { LanguageModel } from "ai";
import type { ExternalRun } from "./externalAgentTypes";
import { InteractionLifecycle } from "./interactionLifecycle";
import type { StateStore } from "./stateStore";
import { Turn, type TurnContext } from "./turn";

/**
 * One interaction (DESIGN.md §1 "The feedback loop"): from the message or
 * action that starts it to its end, turn after turn while the realm's
 * feedback is non-empty, until the turn cap, a failed or cut reply, or
 * Stop. It owns the interaction's abort controller, its lifecycle (states
 * and counts) and the turn that runs; RealmOutput asks it which turn listens.
 * When it ends, its summary goes on its last reply (`finish`).
 *
 * An external run (an invited agent's reply, `Agent.runExternal`) is one
 * turn whose feedback goes back to its source instead of to the model.
 */

export interface InteractionHost {
  /** Everything a turn needs but the lifecycle, which is the interaction's. */
  turnContext: Omit<TurnContext, "lifecycle">;
  maxTurns: () => number;
  /** The agent's state (stateStore.ts): the turn number, feedback, notices, the summary. */
  store: Pick<StateStore, "set" | "update" | "pushFeedback" | "notice">;
  /** A reply was cut mid-stream: its runtime output goes with Continue. */
  interrupted: (feedback: string) => void;
  /** Notes that wait for the next turn that happens anyway (RealmOutput.defer). */
  defer: (notes: string) => void;
}

export interface ExternalSource {
  model: LanguageModel;
  run: ExternalRun & { kind: "ran" };
  by?: string;
}

export class Interaction {
  readonly controller = new AbortController();
  readonly lifecycle: InteractionLifecycle;
  /** The current (or last) turn. */
  turn: Turn | undefined;
  /** The last reply this interaction made (it carries the interaction's summary). */
  lastReplyId: string | undefined;
  outcome: "done" | "error" | "stopped" = "done";

  constructor(
    private readonly host: InteractionHost,
    now: () => number,
  ) {
    this.lifecycle = new InteractionLifecycle(now(), now);
  }

  /** `carried`: realm output from while no interaction ran; it joins the first turn's feedback. */
  async run(carried: string, external?: ExternalSource): Promise<void> {
    const { host, lifecycle } = this;
    const context: TurnContext = { ...host.turnContext, lifecycle };
    for (let number = 1; ; number += 1) {
      host.store.set({ turn: number });
      lifecycle.turn();
      const turn = new Turn(context, external ? { model: external.model, by: external.by } : undefined);
      this.turn = turn;
      this.lastReplyId = turn.replyId;
      const result = await turn.run(this.controller.signal, external ? "" : carried);
      if (external) {
        // Output from idle timers goes with this run's feedback; the source decides what comes next.
        const feedback = [carried, result.kind === "ok" || result.kind === "interrupted" ? result.feedback : ""]
          .filter(Boolean)
          .join("\n");
        external.run.replyId = this.lastReplyId;
        external.run.state = result.kind === "ok" ? "done" : result.kind;
        external.run.feedback = feedback ? host.store.pushFeedback(feedback, "runtime", "agent") : "";
        if (result.kind === "stopped") this.outcome = "stopped";
        else if (result.kind !== "ok") this.outcome = "error";
        return;
      }
      carried = "";
      if (result.kind === "stopped" || result.kind === "error") {
        this.outcome = result.kind;
        return;
      }
      if (result.kind === "interrupted") {
        this.outcome = "error";
        host.interrupted(result.feedback);
        return;
      }
      if (!result.feedback) {
        if (result.deferred) host.defer(result.deferred);
        return;
      }
      host.store.pushFeedback(result.feedback, "runtime");
      if (number >= host.maxTurns()) {
        host.store.notice(`Stopped after ${host.maxTurns()} automatic turns. Send a message to go on.`, "warn");
        return;
      }
    }
  }

  /** The interaction is over: what it went through and did goes on its last reply. */
  finish(): void {
    const summary = this.lifecycle.finish(this.outcome);
    if (this.lastReplyId)
      this.host.store.update(this.lastReplyId, (message) =>
        message.role === "assistant" ? { ...message, summary } : message,
      );
  }
}
