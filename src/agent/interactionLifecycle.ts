/**
 * One interaction's lifecycle (DESIGN.md §4): the states it went through with
 * their times — received → streaming → running → waiting for input /
 * waiting for permission → done, error or stopped — and, at its end, what it
 * did: turns, statements run, errors, mounts created or updated, tokens in
 * and out as the API reported them. Pure: events and a clock in, a summary out.
 */
import type { ExecEvent } from "../wire/events";
import type { Phase } from "./types";

/** The agent's phases (types.ts), with "received" where the agent is idle: one list of states, declared once. */
export type LifecycleState = "received" | Exclude<Phase, "idle">;

export interface LifecycleStep {
  state: LifecycleState;
  /** Milliseconds since the interaction was received. */
  atMs: number;
  /** e.g. "turn 2", "statement 3 of block 1". */
  detail?: string;
}

export interface InteractionSummary {
  startedAt: number;
  durationMs: number;
  outcome: "done" | "error" | "stopped";
  steps: LifecycleStep[];
  turns: number;
  statements: number;
  errors: number;
  mountsCreated: number;
  mountsUpdated: number;
  /** Summed over the turns that reported usage; absent when the API reported none. */
  tokensIn?: number;
  tokensOut?: number;
}

/** Past this many steps only the last state of each run of repeats is kept (a long session of short statements). */
const MAX_STEPS = 200;

export class InteractionLifecycle {
  private readonly steps: LifecycleStep[] = [];
  private turns = 0;
  private statements = 0;
  private errors = 0;
  private readonly created = new Set<string>();
  private readonly updated = new Set<string>();
  private tokensIn: number | undefined;
  private tokensOut: number | undefined;

  constructor(
    private readonly startedAt: number,
    private readonly now: () => number,
  ) {
    this.steps.push({ state: "received", atMs: 0 });
  }

  /** Enter a state; repeating the current state only updates nothing. */
  enter(state: LifecycleState, detail?: string): void {
    const last = this.steps[this.steps.length - 1];
    if (last.state === state && last.detail === detail) return;
    if (this.steps.length >= MAX_STEPS && last.state === state) this.steps.pop();
    this.steps.push({ state, atMs: Math.max(0, this.now() - this.startedAt), ...(detail ? { detail } : {}) });
  }

  turn(): void {
    this.turns += 1;
  }

  /** `describe` words a running statement for the person (blockPlaces.ts `runningDetail`, from the reply's blocks). */
  exec(
    event: ExecEvent | { type: string },
    describe: (running: { block: number; statement: number; line: number }) => string = (running) =>
      `statement ${running.statement + 1} of block ${running.block}, line ${running.line}`,
  ): void {
    const typed = event as ExecEvent;
    if (typed.type === "statement-start") {
      // Code runs while the reply still streams: each statement is a timed step of its own (as the status line words it).
      this.enter("running", describe(typed));
    } else if (typed.type === "statement-end") {
      this.statements += 1;
      if (typed.status === "error") this.errors += 1;
    } else if (typed.type === "error") {
      this.errors += 1;
    }
  }

  mount(message: { type: string; kind: string; mountId: string }): void {
    if (message.kind === "open") this.created.add(message.mountId);
    else if (message.kind === "ops" && !this.created.has(message.mountId)) this.updated.add(message.mountId);
  }

  usage(usage: { inputTokens?: number; outputTokens?: number } | undefined): void {
    if (!usage) return;
    if (typeof usage.inputTokens === "number") this.tokensIn = (this.tokensIn ?? 0) + usage.inputTokens;
    if (typeof usage.outputTokens === "number") this.tokensOut = (this.tokensOut ?? 0) + usage.outputTokens;
  }

  finish(outcome: "done" | "error" | "stopped"): InteractionSummary {
    this.enter(outcome);
    return {
      startedAt: this.startedAt,
      durationMs: Math.max(0, this.now() - this.startedAt),
      outcome,
      steps: [...this.steps],
      turns: this.turns,
      statements: this.statements,
      errors: this.errors,
      mountsCreated: this.created.size,
      mountsUpdated: this.updated.size,
      ...(this.tokensIn !== undefined ? { tokensIn: this.tokensIn } : {}),
      ...(this.tokensOut !== undefined ? { tokensOut: this.tokensOut } : {}),
    };
  }
}
