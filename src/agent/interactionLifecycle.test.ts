import { describe, expect, it } from "vitest";
import { InteractionLifecycle } from "./interactionLifecycle";

describe("InteractionLifecycle", () => {
  it("records the states with their times and sums what the interaction did", () => {
    let now = 1_000;
    const lifecycle = new InteractionLifecycle(now, () => now);
    lifecycle.turn();
    now = 1_100;
    lifecycle.enter("streaming");
    lifecycle.enter("streaming");
    lifecycle.exec({ type: "statement-end", block: 1, statement: 0, status: "ok", durationMs: 1 } as never);
    lifecycle.mount({ type: "mount", kind: "open", mountId: "m1" });
    lifecycle.mount({ type: "mount", kind: "ops", mountId: "m1" });
    lifecycle.mount({ type: "mount", kind: "ops", mountId: "m0" });
    now = 1_400;
    lifecycle.enter("waiting-permission");
    now = 2_000;
    lifecycle.enter("running");
    lifecycle.exec({ type: "statement-end", block: 1, statement: 1, status: "error", durationMs: 1 } as never);
    lifecycle.exec({ type: "error", error: { code: "runtime", name: "Error", message: "x" } } as never);
    lifecycle.usage({ inputTokens: 120, outputTokens: 30 });
    lifecycle.turn();
    lifecycle.usage({ inputTokens: 200, outputTokens: undefined });
    now = 2_500;
    const summary = lifecycle.finish("done");
    expect(summary.steps).toEqual([
      { state: "received", atMs: 0 },
      { state: "streaming", atMs: 100 },
      { state: "waiting-permission", atMs: 400 },
      { state: "running", atMs: 1_000 },
      { state: "done", atMs: 1_500 },
    ]);
    expect(summary).toMatchObject({
      startedAt: 1_000,
      durationMs: 1_500,
      outcome: "done",
      turns: 2,
      statements: 2,
      errors: 2,
      mountsCreated: 1,
      mountsUpdated: 1,
      tokensIn: 320,
      tokensOut: 30,
    });
  });

  it("records each statement that starts running as a timed step naming its block and statement", () => {
    let now = 0;
    const lifecycle = new InteractionLifecycle(now, () => now);
    lifecycle.enter("streaming");
    now = 50;
    lifecycle.exec({ type: "statement-start", block: 1, statement: 0, line: 3, endLine: 3, source: "a()" } as never);
    now = 80;
    lifecycle.exec({ type: "statement-start", block: 1, statement: 1, line: 4, endLine: 4, source: "b()" } as never);
    now = 90;
    expect(lifecycle.finish("done").steps).toEqual([
      { state: "received", atMs: 0 },
      { state: "streaming", atMs: 0 },
      { state: "running", atMs: 50, detail: "statement 1 of block 1, line 3" },
      { state: "running", atMs: 80, detail: "statement 2 of block 1, line 4" },
      { state: "done", atMs: 90 },
    ]);
  });

  it("leaves tokens out when the API reported none", () => {
    const lifecycle = new InteractionLifecycle(0, () => 0);
    lifecycle.usage(undefined);
    lifecycle.usage({});
    const summary = lifecycle.finish("stopped");
    expect(summary.tokensIn).toBeUndefined();
    expect(summary.tokensOut).toBeUndefined();
    expect(summary.steps.at(-1)).toEqual({ state: "stopped", atMs: 0 });
  });
});
