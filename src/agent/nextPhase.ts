import type { Phase } from "./types";

/**
 * The agent's phase as a value: the one function that decides it. Pure;
 * `StateStore.move` (stateStore.ts) keeps the returned state, and nothing
 * writes `phase` otherwise.
 *
 * ```
 * idle/done/error/stopped ──interaction-start──▶ streaming ──reply-streamed──▶ running ──▶ … ──end──▶ done | error | stopped
 *                         ──revive-start──────▶ running
 * running ◀──mounts-waiting──▶ waiting-input            (a form's `await` began / ended)
 * any busy phase ──permission(true)──▶ waiting-permission ──permission(false)──▶ the phase it left
 * ```
 *
 * Invariants: the same object comes back when nothing changed, a new one
 * when a phase was entered (the store then tells the listeners and the
 * interaction's lifecycle); waiting for input or permission is entered only
 * from a busy phase; `resume` is set on entering `waiting-permission`, and
 * answering the asks, starting an interaction or Revive, and `end` clear it.
 */
export interface PhaseState {
  phase: Phase;
  /** The phase to return to when the person has answered every capability ask. */
  resume?: Phase;
}

export type PhaseEvent =
  /** send, edit, Regenerate, Continue, a UI-event turn, an external run. */
  | { type: "interaction-start" }
  /** Revive re-runs the session's blocks. */
  | { type: "revive-start" }
  /** A turn begins streaming its reply. */
  | { type: "reply-start" }
  /** The reply's stream ended; its code may still run. */
  | { type: "reply-streamed" }
  /** Some mount's code awaits the person's input (or none does any more). */
  | { type: "mounts-waiting"; waiting: boolean }
  /** A capability ask waits for the person (or none does any more). */
  | { type: "permission"; waiting: boolean }
  | { type: "end"; outcome: "done" | "error" | "stopped" };

const RESTING = new Set<Phase>(["idle", "done", "error", "stopped"]);

export const INITIAL_PHASE: PhaseState = { phase: "idle" };

export function nextPhase(current: PhaseState, event: PhaseEvent): PhaseState {
  const { phase } = current;
  switch (event.type) {
    // These four always enter their phase (a new value, even when the phase
    // stays): the interaction's lifecycle records each entry.
    case "interaction-start":
      return { phase: "streaming" };
    case "revive-start":
      return { phase: "running" };
    case "reply-start":
      return { ...current, phase: "streaming" };
    case "reply-streamed":
      return { ...current, phase: "running" };
    case "mounts-waiting":
      if (event.waiting && phase === "running") return { ...current, phase: "waiting-input" };
      if (!event.waiting && phase === "waiting-input") return { ...current, phase: "running" };
      return current;
    case "permission":
      if (event.waiting && !RESTING.has(phase) && phase !== "waiting-permission")
        return { phase: "waiting-permission", resume: phase };
      if (!event.waiting && phase === "waiting-permission") return { phase: current.resume ?? "running" };
      return current;
    case "end":
      return { phase: event.outcome };
    default: {
      const never: never = event;
      return never;
    }
  }
}
