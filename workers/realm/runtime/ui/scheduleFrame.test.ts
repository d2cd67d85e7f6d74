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
