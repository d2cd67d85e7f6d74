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
