/**
 * How long an agent's run waits for the page to apply the mount messages it
 * sent before its answer reads the mounts. The inbox applies them in time
 * slices (src/render/mountInbox.ts) and its `idle()` resolves once none is
 * queued; a mount that keeps sending could keep it busy, and the agent's
 * answer must not wait on the page's drawing for long: past the limit it
 * reads the mounts as they are.
 */
export const MOUNTS_APPLIED_LIMIT_MS = 5_000;

/** Resolves when `idle` does, or after `limitMs`, whichever comes first (at once without an inbox). */
export function whenMountsApplied(
  idle: (() => Promise<void>) | undefined,
  limitMs = MOUNTS_APPLIED_LIMIT_MS,
): Promise<void> {
  if (!idle) return Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, limitMs);
  });
  return Promise.race([idle(), limit]).finally(() => clearTimeout(timer));
}
