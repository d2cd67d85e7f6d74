import { describe, expect, it } from "vitest";
import { INITIAL_PHASE, nextPhase, type PhaseEvent, type PhaseState } from "./nextPhase";
import { BUSY_PHASES, RESTING_PHASES, isBusy, type Phase } from "./types";

const run = (events: PhaseEvent[], from: PhaseState = INITIAL_PHASE): Phase[] => {
  const phases: Phase[] = [];
  let state = from;
  for (const event of events) {
    state = nextPhase(state, event);
    phases.push(state.phase);
  }
  return phases;
};

const ALL_EVENTS: PhaseEvent[] = [
  { type: "interaction-start" },
  { type: "revive-start" },
  { type: "reply-start" },
  { type: "reply-streamed" },
  { type: "mounts-waiting", waiting: true },
  { type: "mounts-waiting", waiting: false },
  { type: "permission", waiting: true },
  { type: "permission", waiting: false },
  { type: "end", outcome: "done" },
  { type: "end", outcome: "error" },
  { type: "end", outcome: "stopped" },
];
const ALL_PHASES: Phase[] = [...BUSY_PHASES, ...RESTING_PHASES];

describe("nextPhase", () => {
  it("walks an interaction: streaming, running, waiting for input, running, done", () => {
    expect(
      run([
        { type: "interaction-start" },
        { type: "reply-start" },
        { type: "reply-streamed" },
        { type: "mounts-waiting", waiting: true },
        { type: "mounts-waiting", waiting: false },
        { type: "reply-start" },
        { type: "reply-streamed" },
        { type: "end", outcome: "done" },
      ]),
    ).toEqual(["streaming", "streaming", "running", "waiting-input", "running", "streaming", "running", "done"]);
  });

  it("returns from waiting for permission to the phase it left", () => {
    for (const left of ["streaming", "running", "waiting-input"] as const) {
      expect(
        run(
          [
            { type: "permission", waiting: true },
            { type: "permission", waiting: false },
          ],
          { phase: left },
        ),
      ).toEqual(["waiting-permission", left]);
    }
    // Answered asks without a remembered phase go back to running.
    expect(nextPhase({ phase: "waiting-permission" }, { type: "permission", waiting: false })).toEqual({
      phase: "running",
    });
  });

  it("a second ask while one waits keeps the phase to return to", () => {
    const asked = nextPhase({ phase: "streaming" }, { type: "permission", waiting: true });
    expect(nextPhase(asked, { type: "permission", waiting: true })).toBe(asked);
    expect(nextPhase(asked, { type: "mounts-waiting", waiting: true })).toBe(asked);
  });

  it("never waits for input or permission while resting", () => {
    for (const phase of RESTING_PHASES) {
      for (const event of ALL_EVENTS.filter((item) => item.type === "permission" || item.type === "mounts-waiting")) {
        const state = { phase };
        expect(nextPhase(state, event)).toBe(state);
      }
    }
  });

  it("the same object when nothing changed, a new one when a phase is entered", () => {
    for (const phase of ALL_PHASES) {
      for (const event of ALL_EVENTS) {
        const state: PhaseState = { phase };
        const next = nextPhase(state, event);
        if (next.phase !== phase) expect(next).not.toBe(state);
        // The four entering events always give a new value (the lifecycle records each entry).
        if (["interaction-start", "revive-start", "reply-start", "reply-streamed"].includes(event.type))
          expect(next).not.toBe(state);
      }
    }
  });

  it("starting, Revive and the end clear the phase to return to", () => {
    const asked: PhaseState = { phase: "waiting-permission", resume: "streaming" };
    expect(nextPhase(asked, { type: "end", outcome: "stopped" })).toEqual({ phase: "stopped" });
    expect(nextPhase({ phase: "done", resume: "running" }, { type: "interaction-start" })).toEqual({
      phase: "streaming",
    });
    expect(nextPhase({ phase: "done", resume: "running" }, { type: "revive-start" })).toEqual({ phase: "running" });
  });

  it("isBusy is true exactly for the phases between a start and its end", () => {
    for (const phase of ALL_PHASES) expect(isBusy(phase)).toBe((BUSY_PHASES as readonly Phase[]).includes(phase));
    expect(run([{ type: "interaction-start" }]).every(isBusy)).toBe(true);
    for (const outcome of ["done", "error", "stopped"] as const)
      expect(isBusy(nextPhase({ phase: "running" }, { type: "end", outcome }).phase)).toBe(false);
  });
});
