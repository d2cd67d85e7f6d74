import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StallWatch, stallLimitsForTest } from "./stallWatch";

describe("StallWatch", () => {
  let seen: (number | undefined)[];
  let last: () => number | undefined;
  beforeEach(() => {
    vi.useFakeTimers();
    seen = [];
    last = () => seen.at(-1);
  });
  afterEach(() => vi.useRealTimers());

  const watch = () => new StallWatch((seconds) => seen.push(seconds));

  it("says nothing for 20 s without headers, then counts the silence each second", () => {
    const w = watch();
    vi.advanceTimersByTime(19_900);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(last()).toBe(20);
    vi.advanceTimersByTime(2_000);
    expect(seen).toEqual([20, 21, 22]);
    w.end();
  });

  it("once headers came, waits 60 s of silence", () => {
    const w = watch();
    vi.advanceTimersByTime(15_000);
    w.headers();
    vi.advanceTimersByTime(59_900);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(last()).toBe(60);
    vi.advanceTimersByTime(2_000);
    expect(last()).toBe(62);
    w.end();
  });

  it("data resets the count and clears a notice", () => {
    const w = watch();
    w.headers();
    vi.advanceTimersByTime(50_000);
    w.data();
    vi.advanceTimersByTime(50_000);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(10_000);
    expect(last()).toBe(60);
    w.data();
    expect(last()).toBeUndefined();
    vi.advanceTimersByTime(59_000);
    expect(seen).toEqual([60, undefined]);
    w.end();
  });

  it("data without separate headers counts as the response having begun", () => {
    const w = watch();
    vi.advanceTimersByTime(5_000);
    w.data();
    vi.advanceTimersByTime(30_000);
    expect(seen).toEqual([]);
    w.end();
  });

  it("Keep waiting dismisses the notice and restarts the silence count", () => {
    const w = watch();
    w.headers();
    vi.advanceTimersByTime(61_000);
    expect(last()).toBe(61);
    w.keepWaiting();
    expect(last()).toBeUndefined();
    vi.advanceTimersByTime(59_000);
    expect(last()).toBeUndefined();
    vi.advanceTimersByTime(1_000);
    expect(last()).toBe(60);
    w.end();
  });

  it("is cleared when the request ends, and says nothing after", () => {
    const w = watch();
    vi.advanceTimersByTime(25_000);
    expect(last()).toBe(25);
    w.end();
    expect(last()).toBeUndefined();
    const count = seen.length;
    vi.advanceTimersByTime(120_000);
    w.data();
    w.keepWaiting();
    expect(seen.length).toBe(count);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("does not poll: a reply streaming for a minute wakes its watch no more than twice", () => {
    let woken = 0;
    const clock = {
      now: () => Date.now(),
      after: (ms: number, run: () => void) => {
        const id = setTimeout(() => {
          woken += 1;
          run();
        }, ms);
        return () => clearTimeout(id);
      },
    };
    const w = new StallWatch((seconds) => seen.push(seconds), { headersMs: 20_000, dataMs: 30_000 }, clock);
    w.headers();
    for (let at = 0; at < 60_000; at += 50) {
      vi.advanceTimersByTime(50);
      w.data();
    }
    expect(woken).toBeLessThanOrEqual(2);
    expect(seen).toEqual([]);
    // And the silence after the last data is still counted from it.
    vi.advanceTimersByTime(29_900);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(last()).toBe(30);
    w.end();
  });

  it("an end before any stall reports nothing and leaves no timer", () => {
    const w = watch();
    vi.advanceTimersByTime(1_000);
    w.end();
    expect(seen).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("stallLimitsForTest", () => {
  it("reads the flag only with the test probe's flag", () => {
    expect(stallLimitsForTest("?livemark-probe&livemark-stall-ms=300")).toEqual({ headersMs: 300, dataMs: 300 });
    expect(stallLimitsForTest("?livemark-stall-ms=300")).toBeUndefined();
    expect(stallLimitsForTest("?livemark-probe")).toBeUndefined();
    expect(stallLimitsForTest("?livemark-probe&livemark-stall-ms=x")).toBeUndefined();
  });
});
