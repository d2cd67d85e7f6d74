import { describe, expect, it } from "vitest";
import { BUSY_PULSE_MS, LoopGuard, LoopGuardError, type LoopGuardSite } from "./loopGuard";

/** A guard on a fake clock and a manual macrotask queue. */
function fakeGuard(
  sites: Record<number, LoopGuardSite>,
  options: { interrupt?: () => Error | undefined; onBusy?: () => void; budgetMs?: number } = {},
) {
  let now = 0;
  const macrotasks: (() => void)[] = [];
  const guard = new LoopGuard({
    budgetMs: options.budgetMs ?? 100,
    now: () => now,
    scheduleMacrotask: (callback) => macrotasks.push(callback),
    site: (id) => sites[id],
    interrupt: options.interrupt,
    onBusy: options.onBusy,
  });
  const tick = (site: number) => {
    if (--guard.countdown <= 0) guard.check(site);
  };
  return {
    guard,
    tick,
    advance: (ms: number) => (now += ms),
    runMacrotasks: () => macrotasks.splice(0).forEach((task) => task()),
    pending: () => macrotasks.length,
  };
}

const LOOP = { kind: "loop", line: 3 } as const;
const FUNCTION = { kind: "function", line: 7 } as const;

describe("LoopGuard", () => {
  it("throws after the budget without yielding, naming the line", () => {
    const { tick, advance } = fakeGuard({ 1: LOOP });
    tick(1);
    let thrown: unknown;
    try {
      for (let i = 0; i < 1_000_000; i += 1) {
        advance(0.01);
        tick(1);
      }
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LoopGuardError);
    expect((thrown as LoopGuardError).message).toBe("Loop at line 3 ran for more than 0.1 s without yielding");
    expect((thrown as LoopGuardError).site).toBe(1);
  });

  it("says it is busy about every BUSY_PULSE_MS of a long stretch, and never during short ones", () => {
    let pulses = 0;
    const { tick, advance, runMacrotasks } = fakeGuard({ 1: LOOP }, { onBusy: () => (pulses += 1), budgetMs: 1_000 });
    // Short stretches (the event loop turns in between): never busy.
    for (let round = 0; round < 10; round += 1) {
      for (let i = 0; i < BUSY_PULSE_MS / 2; i += 1) {
        advance(1);
        tick(1);
      }
      runMacrotasks();
    }
    expect(pulses).toBe(0);
    // One long stretch, still within the budget: busy, repeatedly.
    for (let i = 0; i < 4.5 * BUSY_PULSE_MS; i += 1) {
      advance(1);
      tick(1);
    }
    expect(pulses).toBeGreaterThanOrEqual(3);
    expect(pulses).toBeLessThanOrEqual(4);
  });

  it("starts a new stretch when its macrotask ran (the event loop turned)", () => {
    const { tick, advance, runMacrotasks, pending } = fakeGuard({ 1: LOOP });
    for (let round = 0; round < 10; round += 1) {
      for (let i = 0; i < 5000; i += 1) {
        advance(0.01);
        tick(1);
      }
      expect(pending()).toBe(1);
      runMacrotasks();
    }
  });

  it("keeps throwing until the stretch ends, so a catch inside the loop cannot go on", () => {
    const { tick, advance, runMacrotasks } = fakeGuard({ 1: LOOP });
    tick(1);
    advance(150);
    let throws = 0;
    for (let i = 0; i < 1000; i += 1) {
      try {
        tick(1);
      } catch {
        throws += 1;
      }
    }
    // Quiet until the next clock read, then every tick throws.
    expect(throws).toBeGreaterThan(900);
    runMacrotasks();
    expect(() => tick(1)).not.toThrow();
  });

  it("blames the next loop rather than a function entered from it", () => {
    const { tick, advance } = fakeGuard({ 1: LOOP, 2: FUNCTION });
    tick(1);
    advance(150);
    expect(() => {
      for (let i = 0; i < 1000; i += 1) tick(2);
    }).not.toThrow();
    expect(() => tick(1)).toThrow("Loop at line 3");
  });

  it("throws at a function when no loop tick comes (runaway recursion)", () => {
    const { tick, advance } = fakeGuard({ 2: FUNCTION });
    tick(2);
    advance(150);
    expect(() => {
      for (let i = 0; i < 100_000; i += 1) tick(2);
    }).toThrow("Function at line 7 kept running for more than 0.1 s without yielding (runaway recursion?)");
  });

  it("reads the clock rarely when ticks are fast", () => {
    let reads = 0;
    const guard = new LoopGuard({
      budgetMs: 1000,
      now: () => (reads += 1) * 0.0001,
      scheduleMacrotask: () => {},
      site: () => LOOP,
    });
    for (let i = 0; i < 100_000; i += 1) if (--guard.countdown <= 0) guard.check(1);
    expect(reads).toBeLessThan(200);
  });

  it("throws the interrupt (abort) at the next check", () => {
    let aborted = false;
    const { tick, guard } = fakeGuard({ 1: LOOP }, { interrupt: () => (aborted ? new Error("Stopped") : undefined) });
    tick(1);
    aborted = true;
    guard.countdown = 0;
    expect(() => tick(1)).toThrow("Stopped");
  });
});
