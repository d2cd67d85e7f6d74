import { unstable_IdlePriority, unstable_scheduleCallback } from "scheduler";

/**
 * How often a streaming reply is redrawn (issue 34 §2). A redraw of the
 * streaming reply (React's render and commit of the frame's text, the
 * deferred parse of the grown block, the browser's style, layout, paint and
 * compositing of that frame) has a cost. While the reply grows by
 * PACE_FROM_CHARS_PER_S or faster (measured between its last two redraws:
 * about 1,000 tokens a second, faster than anyone reads), the next redraw
 * waits until PACE_FACTOR times the last redraw's cost has passed since that
 * redraw started, MAX_GAP_MS at most: redrawing then takes about
 * 1 / PACE_FACTOR of the main thread. A slower stream (a model at tens or
 * hundreds of tokens a second) is drawn in the frame after each chunk, as
 * every other change is. (20 and 200 ms: a redraw of app.bench's reply costs
 * ~8 ms, so a 2,000 tok/s stream shows ~6 times a second, each time a few
 * hundred tokens; at 10 and 100 ms the redraws alone took more main-thread
 * time than host.cpuMsPer1kTokens allows: bench/README.md, issue 34 seventh
 * round.)
 */
export const PACE_FACTOR = 20;
/** The longest a streaming reply's new text waits to be drawn. */
export const MAX_GAP_MS = 200;
/** The growth rate of the streaming reply (characters a second) from which its redraws are paced. */
export const PACE_FROM_CHARS_PER_S = 4000;

export class RedrawPacing {
  private lastStart = -Infinity;
  private lastCost = 0;

  constructor(
    private readonly factor = PACE_FACTOR,
    private readonly maxGap = MAX_GAP_MS,
  ) {}

  /** How long from `now` until the next paced redraw may start (0: at the next frame). */
  delay(now: number): number {
    return Math.max(0, this.lastStart + Math.min(this.maxGap, this.factor * this.lastCost) - now);
  }

  /** A redraw starts at `at` (every redraw, paced or not). */
  started(at: number): void {
    this.lastStart = at;
  }

  /** What the last measured redraw cost, in ms. */
  measured(cost: number): void {
    this.lastCost = Math.max(0, cost);
  }
}

/**
 * Measures a redraw that started at `start` (`now()`'s clock): the time until
 * React's scheduled work is done (its render and commit, the deferred
 * renders: a task of idle priority in React's own scheduler runs after them),
 * plus the browser's rendering of the next frame (from that frame's start,
 * as its animation callbacks are told, to the first task after it: style,
 * layout, paint, the hit test of a scroll's mouse move). The wait between the
 * two is not counted. Wall time: on a loaded machine it is longer, and the
 * page redraws less often.
 */
export function measureRedraw(start: number, done: (cost: number) => void, now = () => performance.now()): void {
  unstable_scheduleCallback(unstable_IdlePriority, () => {
    const settled = now();
    requestAnimationFrame((frameStart) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        done(settled - start + (now() - Math.max(settled, frameStart)));
      };
      channel.port2.postMessage(null);
    });
  });
}

/**
 * Changes that can wait for a paced stream's next redraw. A code block's
 * highlighting answers from its worker a few milliseconds after the redraw
 * that showed (or closed) the block; drawn on its own it is a second render,
 * layout and paint of the frame around it. While a reply is paced (its
 * redraws are MAX_GAP_MS or less apart), `withNextRedraw(update)` keeps
 * `update` until that redraw runs it, in the same render, or until MAX_GAP_MS
 * have passed without one (a stream that stalled: nothing would redraw it);
 * otherwise `update` runs at once. The one redraw source is AgentFrames
 * (useAgentState.ts), which calls `redrawing(paced)` as each redraw starts
 * (and `redrawing(false)` when nothing draws any more): every kept update
 * runs then.
 */
let paced = false;
let waiting: (() => void)[] = [];
let deadline: ReturnType<typeof setTimeout> | undefined;

export function withNextRedraw(update: () => void): void {
  if (!paced) return update();
  waiting.push(update);
  deadline ??= setTimeout(() => {
    deadline = undefined;
    redrawing(paced);
  }, MAX_GAP_MS);
}

export function redrawing(stillPaced: boolean): void {
  paced = stillPaced;
  if (waiting.length === 0) return;
  clearTimeout(deadline);
  deadline = undefined;
  const due = waiting;
  waiting = [];
  for (const update of due) update();
}
