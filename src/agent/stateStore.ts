import { INITIAL_PHASE, nextPhase, type PhaseEvent, type PhaseState } from "./nextPhase";
import type { TurnTimeline } from "./turn";
import type { AgentState, BusyPhase, ChatMessage } from "./types";
import { isBusy } from "./types";

/**
 * The state the UI reads (`AgentState`), for as long as the agent lives: the
 * timeline's messages, the phase and the status line, and the listeners
 * that hear of each change (the UI, and src/session, which saves it). Every
 * change goes through here, one new state object per change, each listener
 * told once.
 *
 * The phase is a value only `nextPhase` changes, and `move` is its only
 * writer. "Waiting for input" follows the mounts whose code awaits the
 * person (`mountWaiting`), entered only while an interaction or Revive runs.
 */

export type StatePatch = Partial<Omit<AgentState, "phase">>;

export interface StateStoreOptions {
  maxTurns: number;
  now: () => number;
  newId: () => string;
  wrapFeedback: (body: string, source: "runtime" | "ui-event") => string;
  /** An interaction or Revive runs (the agent holds its abort controller). */
  busy: () => boolean;
  /** A busy phase was entered: the running interaction's lifecycle records it. */
  entered: (phase: BusyPhase) => void;
}

export class StateStore implements TurnTimeline {
  private current: AgentState;
  /** The phase and where a permission ask returns to: changed only by `move` (nextPhase). */
  private phase: PhaseState = INITIAL_PHASE;
  private readonly listeners = new Set<(state: AgentState) => void>();
  /** Mounts whose code awaits the person's input (`await comp.result`). */
  private readonly waitingMounts = new Set<string>();

  constructor(
    private readonly options: StateStoreOptions,
    initialMessages: ChatMessage[],
  ) {
    this.current = {
      messages: initialMessages,
      phase: this.phase.phase,
      turn: 0,
      maxTurns: options.maxTurns,
      // A reply saved mid-stream (tab closed, crash) comes back interrupted.
      canContinue:
        [...initialMessages].reverse().find((message) => message.role === "assistant")?.state === "interrupted",
    };
  }

  state(): AgentState {
    return this.current;
  }

  /** Older messages of the session, before the others (a long session opens on its newest ones). */
  prepend(messages: readonly ChatMessage[]): void {
    if (messages.length > 0) this.set({ messages: [...messages, ...this.current.messages] });
  }

  subscribe(listener: (state: AgentState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** No listener hears of anything any more (the agent is disposed). */
  clear(): void {
    this.listeners.clear();
  }

  /** The one writer of `phase`: the table decides, the lifecycle records each busy phase entered, listeners hear once. */
  move(event: PhaseEvent, patch: StatePatch = {}): void {
    const next = nextPhase(this.phase, event);
    if (next === this.phase) {
      if (Object.keys(patch).length > 0) this.set(patch);
      return;
    }
    this.phase = next;
    if (isBusy(next.phase)) this.options.entered(next.phase);
    this.publish({ ...this.current, ...patch, phase: next.phase });
  }

  set(patch: StatePatch): void {
    this.publish({ ...this.current, ...patch });
  }

  setDetail(detail: string | undefined): void {
    this.set({ detail });
  }

  setStalled(stalled: number | undefined): void {
    if (stalled !== this.current.stalled) this.set({ stalled });
  }

  push(message: ChatMessage): void {
    this.set({ messages: [...this.current.messages, message] });
  }

  update(id: string, update: (message: ChatMessage) => ChatMessage): void {
    this.set({ messages: this.current.messages.map((message) => (message.id === id ? update(message) : message)) });
  }

  notice(text: string, level: "info" | "warn" | "error"): void {
    this.push({ id: this.options.newId(), role: "notice", text, level, createdAt: this.options.now() });
  }

  /** Shows feedback in the timeline; returns the text the model (or an invited agent) is given. */
  pushFeedback(body: string, source: "runtime" | "ui-event", to?: "agent"): string {
    const text = this.options.wrapFeedback(body, source);
    this.push({
      id: this.options.newId(),
      role: "feedback",
      body,
      text,
      source,
      createdAt: this.options.now(),
      ...(to ? { to } : {}),
    });
    return text;
  }

  /** A mount's code began (or stopped) awaiting the person's input; a closed mount awaits nothing. */
  mountWaiting(mountId: string, waiting: boolean): void {
    if (waiting) this.waitingMounts.add(mountId);
    else this.waitingMounts.delete(mountId);
    this.checkWaiting();
  }

  /** Enter (or leave) "waiting-input" as the mounts say, while something runs. */
  checkWaiting(): void {
    if (this.options.busy()) this.move({ type: "mounts-waiting", waiting: this.waitingMounts.size > 0 });
  }

  private publish(state: AgentState): void {
    this.current = state;
    for (const listener of this.listeners) listener(this.current);
  }
}
