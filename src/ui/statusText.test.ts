import { describe, expect, it } from "vitest";
import type { AgentState } from "../agent/agent";
import { statusText } from "./App";

const state = (phase: AgentState["phase"], turn: number): AgentState =>
  ({ phase, turn, maxTurns: 10, detail: undefined }) as unknown as AgentState;

describe("the status line", () => {
  it("counts turns only from the second one on", () => {
    const ready = { state: "ready" } as const;
    expect(statusText(state("streaming", 1), ready)).not.toContain("turn");
    expect(statusText(state("streaming", 2), ready)).toMatch(/· turn 2 of at most 10$/);
    expect(statusText(state("running", 3), ready, true)).toMatch(/^Waiting for permission · turn 3 of at most 10$/);
  });
});

describe("the status line of a stalled request", () => {
  const ready = { state: "ready" } as const;
  it("says how long no data came instead of Streaming", () => {
    const stalled = { ...state("streaming", 1), stalled: 62 };
    expect(statusText(stalled, ready)).toBe("No data for 62 s");
    expect(statusText({ ...stalled, detail: "code block 1, line 3" }, ready)).toBe(
      "No data for 62 s (code block 1, line 3)",
    );
    expect(statusText({ ...stalled, turn: 2 }, ready)).toBe("No data for 62 s · turn 2 of at most 10");
  });
  it("says Streaming again once data comes", () => {
    expect(statusText({ ...state("streaming", 1), stalled: undefined }, ready)).toBe("Streaming");
  });
});
