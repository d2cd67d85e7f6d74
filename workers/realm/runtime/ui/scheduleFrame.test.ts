import { afterEach, describe, expect, test, vi } from "vitest";
import { createFrameScheduler } from "./scheduleFrame";

afterEach(() => vi.useRealTimers());

describe("createFrameScheduler", () => {
  test("leading edge at the end of the task, then at most one frame per 16 ms", async () => {
    vi.useFakeTimers();
    let now = 1000;
    const schedule = createFrameScheduler(() => now);
    const ran: number[] = [];
    schedule(() => ran.push(now));
    expect(ran).toEqual([]); // not synchronously: the rest of the task's mutations join this frame
    await Promise.resolve();
    expect(ran).toEqual([1000]);
    now = 1005;
    schedule(() => ran.push(now));
    await Promise.resolve();
    expect(ran).toEqual([1000]); // too soon: waits for the rest of the frame
    now = 1016;
    vi.advanceTimersByTime(11);
    expect(ran).toEqual([1000, 1016]);
    now = 1100;
    schedule(() => ran.push(now));
    await Promise.resolve();
    expect(ran).toEqual([1000, 1016, 1100]);
  });
});

describe("createFrameScheduler: callbacks sharing a frame", () => {
  test("every callback asked for before a frame runs in that one frame, in order", async () => {
    vi.useFakeTimers();
    let now = 1000;
    const setTimer = vi.fn((callback: () => void, ms: number) => setTimeout(callback, ms));
    const schedule = createFrameScheduler(() => now, setTimer);
    const ran: string[] = [];
    schedule(() => ran.push("a@" + now));
    schedule(() => ran.push("b@" + now));
    await Promise.resolve();
    expect(ran).toEqual(["a@1000", "b@1000"]);
    now = 1004;
    schedule(() => ran.push("c@" + now));
    now = 1010;
    schedule(() => ran.push("d@" + now));
    expect(setTimer).toHaveBeenCalledTimes(1); // one timer for the frame, not one per callback
    now = 1016;
    vi.advanceTimersByTime(12);
    expect(ran).toEqual(["a@1000", "b@1000", "c@1016", "d@1016"]);
  });

  test("a callback that throws does not keep the others of its frame from running", async () => {
    const schedule = createFrameScheduler(() => 0);
    const ran: string[] = [];
    const thrown: unknown[] = [];
    const original = globalThis.queueMicrotask;
    const spy = vi.spyOn(globalThis, "queueMicrotask").mockImplementation((callback) =>
      original(() => {
        try {
          callback();
        } catch (error) {
          thrown.push(error);
        }
      }),
    );
    try {
      schedule(() => {
        throw new Error("boom");
      });
      schedule(() => ran.push("after"));
      await Promise.resolve();
      await Promise.resolve();
      expect(ran).toEqual(["after"]);
      expect(thrown).toEqual([new Error("boom")]);
    } finally {
      spy.mockRestore();
    }
  });
});
