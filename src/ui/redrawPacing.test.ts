import { afterEach, describe, expect, it, vi } from "vitest";
import type { Agent, AgentState } from "../agent/agent";
import { MAX_GAP_MS, PACE_FACTOR, PACE_FROM_CHARS_PER_S, RedrawPacing, withNextRedraw } from "./redrawPacing";
import { AgentFrames, type FrameClock } from "./useAgentState";

describe("RedrawPacing", () => {
  it("lets the first redraw start at once", () => {
    expect(new RedrawPacing().delay(0)).toBe(0);
  });

  it("waits PACE_FACTOR times the last redraw's cost from its start", () => {
    const pacing = new RedrawPacing();
    pacing.started(1000);
    pacing.measured(4);
    expect(pacing.delay(1000)).toBe(PACE_FACTOR * 4);
    expect(pacing.delay(1010)).toBe(PACE_FACTOR * 4 - 10);
    expect(pacing.delay(1000 + PACE_FACTOR * 4)).toBe(0);
  });

  it("never waits longer than MAX_GAP_MS", () => {
    const pacing = new RedrawPacing();
    pacing.started(0);
    pacing.measured(1000);
    expect(pacing.delay(0)).toBe(MAX_GAP_MS);
  });

  it("does not hold a cheap redraw past the next frame", () => {
    const pacing = new RedrawPacing();
    pacing.started(0);
    pacing.measured(16.7 / PACE_FACTOR);
    expect(pacing.delay(16.7)).toBe(0);
  });
});

/** An injected clock: frames, timers and measurements run when the test says. */
function fakeClock() {
  let time = 0;
  let frames: (() => void)[] = [];
  let timers: { at: number; run: () => void }[] = [];
  const measures: ((cost: number) => void)[] = [];
  const clock: FrameClock = {
    now: () => time,
    frame: (callback) => {
      frames.push(callback);
      return () => (frames = frames.filter((each) => each !== callback));
    },
    timer: (callback, ms) => {
      const timer = { at: time + ms, run: callback };
      timers.push(timer);
      return () => (timers = timers.filter((each) => each !== timer));
    },
    measure: (_start, done) => void measures.push(done),
  };
  return {
    clock,
    /** Moves the clock on, firing the timers that come due. */
    advance(ms: number) {
      time += ms;
      for (const timer of timers.filter((each) => each.at <= time)) {
        timers = timers.filter((each) => each !== timer);
        timer.run();
      }
    },
    /** Runs the animation frame, if one was asked for. */
    frame() {
      const due = frames;
      frames = [];
      for (const each of due) each();
      return due.length > 0;
    },
    /** Reports the cost of the measured redraws. */
    cost(ms: number) {
      for (const done of measures.splice(0)) done(ms);
    },
  };
}

function fakeAgent(initial: AgentState) {
  let state = initial;
  const listeners = new Set<(state: AgentState) => void>();
  const agent = {
    getState: () => state,
    subscribe: (listener: (state: AgentState) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  } as unknown as Agent;
  return {
    agent,
    set(next: Partial<AgentState>) {
      state = { ...state, ...next };
      for (const each of listeners) each(state);
    },
  };
}

const state = (phase: AgentState["phase"], count: number, length = 0): AgentState =>
  ({
    phase,
    messages: Array.from({ length: count }, (_, index) => ({
      id: `m${index}`,
      text: index === count - 1 ? "x".repeat(length) : "",
    })),
    turn: 1,
    maxTurns: 10,
    canContinue: false,
  }) as unknown as AgentState;

function setUp(onDraw?: () => void) {
  const time = fakeClock();
  const agent = fakeAgent(state("streaming", 2));
  const frames = new AgentFrames(agent.agent, time.clock);
  let draws = 0;
  const unsubscribe = frames.subscribe(() => {
    draws += 1;
    onDraw?.();
  });
  return { time, agent, draws: () => draws, unsubscribe };
}

/** Chars a chunk brings every 50 ms: 2,000 tok/s (~8,000 characters a second). */
const FAST = 400;

/** A fast stream drawn twice (the second redraw knows its rate, so the next is paced), that redraw costing `cost`. */
function pacedStream(cost: number, onDraw?: () => void) {
  const set = setUp(onDraw);
  set.agent.set(state("streaming", 2, FAST));
  set.time.frame();
  set.time.advance(50);
  set.agent.set(state("streaming", 2, 2 * FAST));
  expect(set.time.frame()).toBe(true);
  set.time.cost(cost);
  return set;
}

describe("AgentFrames pacing", () => {
  it("draws every chunk of a slower stream in the next frame, however costly the redraws", () => {
    const { time, agent, draws } = setUp();
    const chars = (PACE_FROM_CHARS_PER_S / 1000) * 50 - 1;
    for (let chunk = 1; chunk <= 6; chunk += 1) {
      agent.set(state("streaming", 2, chunk * chars));
      expect(time.frame()).toBe(true);
      expect(draws()).toBe(chunk);
      time.cost(20);
      time.advance(50);
    }
  });

  it("spaces the redraws of a fast stream by PACE_FACTOR times their cost, and draws what waited", () => {
    // A cost whose PACE_FACTOR times stays under the cap; the rate is known from the second redraw on.
    const cost = Math.floor((MAX_GAP_MS - 10) / PACE_FACTOR);
    const { time, agent, draws } = pacedStream(cost);
    expect(draws()).toBe(2);
    // Chunks every 50 ms: the next redraw waits until PACE_FACTOR × cost after the second started.
    const wait = PACE_FACTOR * cost;
    let chunk = 3;
    for (let at = 50; at < wait; at += 50, chunk += 1) {
      time.advance(50);
      agent.set(state("streaming", 2, chunk * FAST));
      expect(time.frame()).toBe(false);
    }
    expect(chunk).toBeGreaterThan(3);
    expect(draws()).toBe(2);
    time.advance(wait - 50 * (chunk - 3) - 1);
    expect(time.frame()).toBe(false);
    time.advance(1);
    expect(time.frame()).toBe(true);
    expect(draws()).toBe(3);
  });

  it("never holds a fast stream's text longer than MAX_GAP_MS", () => {
    const { time, agent } = pacedStream(1000);
    time.advance(50);
    agent.set(state("streaming", 2, 3 * FAST));
    time.advance(MAX_GAP_MS - 51);
    expect(time.frame()).toBe(false);
    time.advance(1);
    expect(time.frame()).toBe(true);
  });

  it("draws a change of phase or a new message at the next frame, without the wait", () => {
    const { time, agent, draws } = pacedStream(20);
    time.advance(50);
    agent.set(state("streaming", 2, 3 * FAST));
    expect(time.frame()).toBe(false);
    agent.set(state("done", 2, 3 * FAST));
    expect(time.frame()).toBe(true);
    expect(draws()).toBe(3);
    // The wait was dropped: nothing more is drawn when it would have ended.
    time.advance(200);
    expect(time.frame()).toBe(false);

    agent.set(state("streaming", 3, FAST));
    expect(time.frame()).toBe(true);
    time.cost(20);
    time.advance(20);
    agent.set(state("streaming", 4, FAST));
    expect(time.frame()).toBe(true);
    expect(draws()).toBe(5);
  });
});

describe("withNextRedraw", () => {
  it("runs an update at once when no stream is paced", () => {
    const { time, agent, unsubscribe } = setUp();
    agent.set(state("streaming", 2, 10));
    time.frame();
    const ran: string[] = [];
    withNextRedraw(() => ran.push("highlight"));
    expect(ran).toEqual(["highlight"]);
    unsubscribe();
  });

  it("keeps an update of a paced stream for its next redraw, run in that redraw before the listeners", () => {
    const order: string[] = [];
    const { time, agent, unsubscribe } = pacedStream(5, () => order.push("redraw"));
    order.length = 0;
    withNextRedraw(() => order.push("highlight"));
    expect(order).toEqual([]);
    time.advance(50);
    agent.set(state("streaming", 2, 3 * FAST));
    time.advance(PACE_FACTOR * 5);
    expect(time.frame()).toBe(true);
    expect(order).toEqual(["highlight", "redraw"]);
    unsubscribe();
  });

  it("runs what waited when the stream ends, and later updates at once", () => {
    const { time, agent, draws, unsubscribe } = pacedStream(5);
    const ran: number[] = [];
    withNextRedraw(() => ran.push(1));
    agent.set(state("done", 2, 2 * FAST));
    expect(time.frame()).toBe(true);
    expect(ran).toEqual([1]);
    expect(draws()).toBe(3);
    withNextRedraw(() => ran.push(2));
    expect(ran).toEqual([1, 2]);
    unsubscribe();
  });

  afterEach(() => void vi.useRealTimers());

  it("runs what waited after MAX_GAP_MS when no redraw comes (the stream stalled)", () => {
    vi.useFakeTimers();
    const { unsubscribe } = pacedStream(5);
    const ran: number[] = [];
    withNextRedraw(() => ran.push(1));
    withNextRedraw(() => ran.push(2));
    vi.advanceTimersByTime(MAX_GAP_MS - 1);
    expect(ran).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ran).toEqual([1, 2]);
    // Still paced: the next one waits again, as long at most.
    withNextRedraw(() => ran.push(3));
    expect(ran).toEqual([1, 2]);
    vi.advanceTimersByTime(MAX_GAP_MS);
    expect(ran).toEqual([1, 2, 3]);
    unsubscribe();
  });

  it("runs what waited when nothing redraws any more (the timeline went away mid-stream)", () => {
    const { unsubscribe } = pacedStream(5);
    const ran: number[] = [];
    withNextRedraw(() => ran.push(1));
    expect(ran).toEqual([]);
    unsubscribe();
    expect(ran).toEqual([1]);
    withNextRedraw(() => ran.push(2));
    expect(ran).toEqual([1, 2]);
  });
});
