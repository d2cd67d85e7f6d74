/**
 * Commits per mount per second, judged over one-second windows (pure: the
 * clock is passed in).
 *
 * - up to `throttleAbove` commits in the current window: "ok" (ops go out at
 *   most once per frame, as always);
 * - more: "throttle" (ops go out at most every `throttledFrameMs`: the page
 *   sees a few states per second, not every one);
 * - more than `suspendAbove` in one window, or over `throttleAbove` for
 *   `suspendAfterWindows` windows in a row: "suspend" (the runtime stops the
 *   mount; a render loop such as `useEffect(() => setN(n + 1))` never ends
 *   by itself).
 *
 * A legitimate animation (a timer updating state 30–60 times a second) stays
 * under the throttle; only loops and floods reach the suspension.
 */
export interface CommitLimits {
  throttleAbove: number;
  suspendAbove: number;
  suspendAfterWindows: number;
  throttledFrameMs: number;
}

export const DEFAULT_COMMIT_LIMITS: Readonly<CommitLimits> = Object.freeze({
  throttleAbove: 90,
  suspendAbove: 600,
  suspendAfterWindows: 2,
  throttledFrameMs: 250,
});

export type CommitVerdict = "ok" | "throttle" | "suspend";

export interface CommitLimiter {
  /** A commit happened at `time` (ms). */
  commit(time: number): CommitVerdict;
  /** The verdict now, without a commit. */
  state(time: number): CommitVerdict;
  /** Commits in the current window (for the warning). */
  readonly count: number;
}

export function createCommitLimiter(limits: CommitLimits = DEFAULT_COMMIT_LIMITS): CommitLimiter {
  let windowStart = -Infinity;
  let count = 0;
  let overWindows = 0;
  let suspended = false;

  const roll = (time: number) => {
    if (time - windowStart < 1000) return;
    // A window that ended over the throttle counts towards suspension; a
    // quiet gap (more than one window long) resets the streak.
    const contiguous = time - windowStart < 2000;
    overWindows = count > limits.throttleAbove && contiguous ? overWindows + 1 : 0;
    windowStart = time;
    count = 0;
  };

  const verdict = (): CommitVerdict => {
    if (suspended) return "suspend";
    if (count > limits.suspendAbove || overWindows >= limits.suspendAfterWindows) {
      suspended = true;
      return "suspend";
    }
    return count > limits.throttleAbove || overWindows > 0 ? "throttle" : "ok";
  };

  return {
    commit(time) {
      roll(time);
      count += 1;
      return verdict();
    },
    state(time) {
      roll(time);
      return verdict();
    },
    get count() {
      return count;
    },
  };
}
