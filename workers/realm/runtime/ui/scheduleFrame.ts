/**
 * The default frame scheduler: leading edge, then at most one frame per
 * MOUNT_FRAME_MS. A change after a quiet period renders at the end of the
 * current task (a microtask: a click's result reaches the page at once, and
 * a statement's synchronous burst of mutations still makes one frame);
 * changes during a busy period wait for the rest of the frame on a timer.
 *
 * Not requestAnimationFrame: the realm's worker lives in a hidden iframe,
 * where animation frames may be throttled or never come.
 */
import { MOUNT_FRAME_MS } from "../../../../src/wire/mount";

export function createFrameScheduler(now: () => number = () => performance.now()): (callback: () => void) => void {
  let last = -Infinity;
  return (callback) => {
    const run = (): void => {
      last = now();
      callback();
    };
    const wait = last + MOUNT_FRAME_MS - now();
    if (wait <= 0) queueMicrotask(run);
    else setTimeout(run, wait);
  };
}
