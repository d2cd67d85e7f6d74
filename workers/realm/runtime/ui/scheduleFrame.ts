/**
 * The default frame scheduler: leading edge, then at most one frame per
 * MOUNT_FRAME_MS. A change after a quiet period renders at the end of the
 * current task (a microtask: a click's result reaches the page at once, and
 * a statement's synchronous burst of mutations still makes one frame);
 * changes during a busy period wait for the rest of the frame on a timer.
 *
 * Not requestAnimationFrame: the realm's worker lives in a hidden iframe,
 * where animation frames may be throttled or never come.
 *
 * The same pacing hands data-fence deltas to the JSON parser
 * (createUiGlobals): nobody sees a StreamedData value more often than once
 * per frame, so parsing each 4-character delta on its own would only pay
 * the parser's per-hand-over cost thousands of times per fence.
 * `now` and `setTimer` are the clock (the JSON bench drives a virtual one).
 */
import { MOUNT_FRAME_MS } from "../../../../src/wire/mount";

export function createFrameScheduler(
  now: () => number = () => performance.now(),
  setTimer: (callback: () => void, ms: number) => unknown = setTimeout,
): (callback: () => void) => void {
  let last = -Infinity;
  // Callbacks asked for before the next frame share it: one microtask or
  // timer per frame, no closure per call (this runs once per frame for
  // every mount and every data fence).
  let due: (() => void)[] = [];
  let microtaskArmed = false;
  let timerArmed = false;
  const runDue = (): void => {
    if (due.length === 0) return;
    last = now();
    const callbacks = due;
    due = [];
    for (const callback of callbacks) {
      try {
        callback();
      } catch (error) {
        // As uncaught as when each callback had its own task; the others still run.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  };
  const onMicrotask = (): void => {
    microtaskArmed = false;
    runDue();
  };
  const onTimer = (): void => {
    timerArmed = false;
    runDue();
  };
  return (callback) => {
    due.push(callback);
    const wait = last + MOUNT_FRAME_MS - now();
    if (wait <= 0) {
      if (!microtaskArmed) {
        microtaskArmed = true;
        queueMicrotask(onMicrotask);
      }
    } else if (!timerArmed && !microtaskArmed) {
      timerArmed = true;
      setTimer(onTimer, wait);
    }
  };
}
