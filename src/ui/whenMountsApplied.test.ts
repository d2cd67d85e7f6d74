import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MOUNTS_APPLIED_LIMIT_MS, whenMountsApplied } from "./whenMountsApplied";

describe("whenMountsApplied", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const settled = (promise: Promise<void>) => {
    let done = false;
    void promise.then(() => (done = true));
    return () => done;
  };

  it("resolves as soon as the inbox is idle, with no time passing", async () => {
    let idle!: () => void;
    const isDone = settled(whenMountsApplied(() => new Promise<void>((resolve) => (idle = resolve))));
    await vi.advanceTimersByTimeAsync(0);
    expect(isDone()).toBe(false);
    idle();
    await vi.advanceTimersByTimeAsync(0);
    expect(isDone()).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("stops waiting at the limit when the inbox never empties", async () => {
    const isDone = settled(whenMountsApplied(() => new Promise<void>(() => undefined)));
    await vi.advanceTimersByTimeAsync(MOUNTS_APPLIED_LIMIT_MS - 1);
    expect(isDone()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(isDone()).toBe(true);
  });

  it("resolves at once without an inbox", async () => {
    const isDone = settled(whenMountsApplied(undefined));
    await vi.advanceTimersByTimeAsync(0);
    expect(isDone()).toBe(true);
  });
});
