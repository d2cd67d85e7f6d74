import { useEffect, useRef, useState } from "react";
import type { Agent, AgentState } from "../agent/agent";
import { PACE_FROM_CHARS_PER_S, RedrawPacing, measureRedraw, redrawing } from "./redrawPacing";

/** What AgentFrames needs from the page (injected in its tests). */
export interface FrameClock {
  now: () => number;
  /** Runs `callback` at the next animation frame; returns a cancel. */
  frame: (callback: () => void) => () => void;
  /** Runs `callback` after `ms`; returns a cancel. */
  timer: (callback: () => void, ms: number) => () => void;
  /** Measures the redraw that started at `start` (redrawPacing.ts). */
  measure: (start: number, done: (cost: number) => void) => void;
}

const lastLength = (messages: AgentState["messages"]) => messages.at(-1)?.text.length ?? 0;

const pageClock: FrameClock = {
  now: () => performance.now(),
  frame: (callback) => {
    const id = requestAnimationFrame(callback);
    return () => cancelAnimationFrame(id);
  },
  timer: (callback, ms) => {
    const id = setTimeout(callback, ms);
    return () => clearTimeout(id);
  },
  measure: (start, done) => measureRedraw(start, done),
};

/**
 * Tells of the agent's changes at most once per animation frame, however
 * many chunks arrive in between (DESIGN.md §5: no long tasks while
 * streaming). One per agent, shared by every component that reads it, so
 * they all hear of a frame in the same callback (one render).
 *
 * While a reply streams fast (it grew by PACE_FROM_CHARS_PER_S or faster
 * between the last two redraws, with the same phase and number of messages),
 * its growth is paced (redrawPacing.ts): drawn once PACE_FACTOR times the
 * last redraw's cost has passed since that redraw started, at most
 * MAX_GAP_MS later. Any other change (a slower stream, the phase, a new
 * message) is drawn at the next frame, with what waited.
 */
export class AgentFrames {
  private cancelFrame: (() => void) | undefined;
  private cancelTimer: (() => void) | undefined;
  private measuring = false;
  private drawn: { phase: string; count: number; length: number; at: number } | undefined;
  /** The streaming reply grew by PACE_FROM_CHARS_PER_S or faster between the last two redraws. */
  private fast = false;
  private readonly listeners = new Set<() => void>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly agent: Agent,
    private readonly clock: FrameClock = pageClock,
    private readonly pacing = new RedrawPacing(),
  ) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    if (!this.unsubscribe) this.unsubscribe = this.agent.subscribe(() => this.changed());
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0) return;
      this.unsubscribe?.();
      this.unsubscribe = undefined;
      this.cancelFrame?.();
      this.cancelFrame = undefined;
      this.cancelTimer?.();
      this.cancelTimer = undefined;
      // Nothing redraws this agent any more: what waited for its next redraw runs now.
      redrawing(false);
    };
  }

  private changed(): void {
    if (this.cancelFrame) return;
    const { phase, messages } = this.agent.getState();
    const paced =
      phase === "streaming" && this.drawn?.phase === phase && this.drawn.count === messages.length && this.fast;
    const wait = paced ? this.pacing.delay(this.clock.now()) : 0;
    if (wait > 0) {
      this.cancelTimer ??= this.clock.timer(() => {
        this.cancelTimer = undefined;
        this.requestFrame();
      }, wait);
      return;
    }
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.requestFrame();
  }

  private requestFrame(): void {
    this.cancelFrame ??= this.clock.frame(() => this.draw());
  }

  private draw(): void {
    this.cancelFrame = undefined;
    const start = this.clock.now();
    const { phase, messages } = this.agent.getState();
    const length = lastLength(messages);
    const before = this.drawn;
    this.fast =
      phase === "streaming" &&
      before?.phase === phase &&
      before.count === messages.length &&
      start > before.at &&
      ((length - before.length) / (start - before.at)) * 1000 >= PACE_FROM_CHARS_PER_S;
    this.drawn = { phase, count: messages.length, length, at: start };
    this.pacing.started(start);
    // What waited for this redraw (withNextRedraw) is set in the same callback: one render with the listeners'.
    redrawing(this.fast);
    for (const each of this.listeners) each();
    if (this.measuring) return;
    this.measuring = true;
    this.clock.measure(start, (cost) => {
      this.measuring = false;
      this.pacing.measured(cost);
    });
  }
}

const framesOf = new WeakMap<Agent, AgentFrames>();

function agentFrames(agent: Agent): AgentFrames {
  let frames = framesOf.get(agent);
  if (!frames) framesOf.set(agent, (frames = new AgentFrames(agent)));
  return frames;
}

/**
 * What `select` takes from the agent's state, read once per animation frame:
 * the component re-renders only when that value changes (`equal`, `Object.is`
 * by default). So a streamed chunk re-renders what reads the streaming
 * message and the status line, not the composer or the page around them
 * (e2e/rerender.test.ts). `select` returns a primitive or a part of the
 * state, never a new object each call (unless `equal` compares its contents).
 */
export function useAgentSelector<T>(
  agent: Agent,
  select: (state: AgentState) => T,
  equal: (before: T, after: T) => boolean = Object.is,
): T {
  const [value, setValue] = useState(() => select(agent.getState()));
  const latest = useRef({ select, equal, value });
  latest.current.select = select;
  latest.current.equal = equal;
  latest.current.value = value;
  useEffect(() => {
    const update = () => {
      const next = latest.current.select(agent.getState());
      if (latest.current.equal(latest.current.value, next)) return;
      latest.current.value = next;
      setValue(() => next);
    };
    const unsubscribe = agentFrames(agent).subscribe(update);
    // The state may have moved between the render and this effect (or this is another agent).
    update();
    return unsubscribe;
  }, [agent]);
  return value;
}

const whole = (state: AgentState) => state;

/** The agent's whole state, at most once per animation frame: re-renders on every change. */
export function useAgentState(agent: Agent): AgentState {
  return useAgentSelector(agent, whole);
}
