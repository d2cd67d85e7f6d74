/**
 * Write-behind scheduling, with no I/O of its own (STYLE.md §2): the writer
 * function and the clock are passed in.
 *
 * Invariants:
 * 1. Coalescing: `markDirty` only records the latest value per key; at most
 *    one `write` runs at a time, and two writes not asked for by `flush`
 *    start at least `intervalMs` apart. A change waits at most `intervalMs`
 *    (plus the write in flight) before its write starts.
 * 2. `flush()` starts a write of everything marked before the call at once
 *    (after the write in flight, if any) and resolves when it is on disk or
 *    has failed.
 * 3. Nothing is dropped: a failed batch goes back into the pending set (a
 *    newer value marked meanwhile wins, the batch's order is kept) and is
 *    retried with exponential backoff up to `maxRetryDelayMs` (or, for
 *    errors `shouldRetry` rejects, at the next `markDirty` or `flush`).
 *
 * 4. Urgency: `markDirty(item, withinMs)` starts its write within `withinMs`
 *    (plus the write in flight) instead of `intervalMs`; the cadence of
 *    invariant 1 yields to it.
 * 5. `retry()` ends a failing store's wait: the retry starts now, not after
 *    the backoff (space was freed, the person did something).
 * 6. Spacing by size: with `spacingMs`, the next write not asked for by
 *    `flush` (or an urgent `markDirty`) starts no sooner than
 *    `spacingMs(batch)` after a batch's start, when that is longer than
 *    `intervalMs`: a batch whose cost grows (a streaming reply re-saved
 *    whole) is written less often, so the writing per second stays bounded.
 *
 *   markDirty ─┬─ timer armed (intervalMs) ──► write(batch) ─ ok ──► idle / re-arm
 *              │                                    └─ fails ──► back to pending, re-arm (backoff)
 *   flush ─────┴─ cancel timer, wait in-flight ─► write(batch)
 */

export interface Timer {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimer: Timer = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface WriteBehindOptions<T> {
  key: (item: T) => string;
  write: (items: T[]) => Promise<void>;
  /** Minimum time between two scheduled writes. */
  intervalMs?: number;
  /** Minimum time from this batch's start to the next scheduled write, when longer than `intervalMs` (invariant 6). */
  spacingMs?: (items: T[]) => number;
  maxRetryDelayMs?: number;
  timer?: Timer;
  /**
   * Whether to retry a failed write on the timer (default: always). When
   * false the items still stay pending; the next `markDirty` or `flush`
   * tries again.
   */
  shouldRetry?: (error: unknown) => boolean;
  /** Every failed write, with how many failed in a row. */
  onError?: (error: unknown, failures: number) => void;
  /** The first write that succeeds after failures. */
  onRecovered?: () => void;
}

export type FlushResult = { ok: true } | { ok: false; error: unknown };

export interface WriteBehind<T> {
  /** Record `item` (its key's latest value); its write starts within `withinMs` when given, else `intervalMs`. */
  markDirty(item: T, withinMs?: number): void;
  flush(): Promise<FlushResult>;
  /**
   * After failures, write the waiting items now instead of after the backoff
   * (resolves with that write's result); does nothing (ok) when no write
   * failed, and joins the write in flight if there is one.
   */
  retry(): Promise<FlushResult>;
  /** Items waiting to be written (not counting a write in flight). */
  readonly pendingCount: number;
  /** A write is under way (its items are not known to be on disk yet). */
  readonly writing: boolean;
  /** The last write failed and its items wait for a retry. */
  readonly failing: boolean;
  /** Writes started so far (for tests and benchmarks). */
  readonly writeCount: number;
  /** Resolves when no write is in flight (does not start one). */
  whenIdle(): Promise<void>;
  /** Stop the timer. Pending items stay readable through `pendingItems`. */
  dispose(): void;
  pendingItems(): T[];
  /**
   * What is not known to be on disk: the batch being written (it may yet
   * fail) and the pending items, the newer one of each key.
   */
  unsettledItems(): T[];
}

export const DEFAULT_WRITE_INTERVAL_MS = 500;
const DEFAULT_MAX_RETRY_DELAY_MS = 30_000;

export function createWriteBehind<T>(options: WriteBehindOptions<T>): WriteBehind<T> {
  const interval = options.intervalMs ?? DEFAULT_WRITE_INTERVAL_MS;
  const maxRetryDelay = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  const timer = options.timer ?? systemTimer;

  let pending = new Map<string, T>();
  let handle: unknown;
  let armed = false;
  /** When the armed timer fires (clock time). */
  let armedAt = Infinity;
  /** The soonest start an urgent `markDirty` asked for (clock time), until a write starts. */
  let urgentBy = Infinity;
  let inFlight: Promise<FlushResult> | undefined;
  let writing: Map<string, T> | undefined;
  let lastStart = -Infinity;
  /** The gap the last batch asked for after its start (invariant 6). */
  let gap = interval;
  let failures = 0;
  let writeCount = 0;
  let disposed = false;
  let retryOnTimer = true;

  const retryDelay = () => Math.min(maxRetryDelay, interval * 2 ** failures);

  function cancel(): void {
    if (!armed) return;
    timer.clearTimeout(handle);
    armed = false;
    armedAt = Infinity;
    handle = undefined;
  }

  function arm(delay: number): void {
    if (inFlight || disposed || pending.size === 0) return;
    // An urgent change pulls the start forward (never a failing store's backoff).
    const wanted = failures > 0 ? delay : Math.min(delay, urgentBy - timer.now());
    const at = timer.now() + Math.max(0, wanted);
    if (armed) {
      if (at >= armedAt) return;
      cancel();
    }
    armed = true;
    armedAt = at;
    handle = timer.setTimeout(
      () => {
        armed = false;
        armedAt = Infinity;
        handle = undefined;
        void writeNow();
      },
      Math.max(0, wanted),
    );
  }

  async function writeNow(): Promise<FlushResult> {
    if (inFlight) return inFlight;
    if (pending.size === 0) return { ok: true };
    const batch = pending;
    pending = new Map();
    urgentBy = Infinity;
    writing = batch;
    lastStart = timer.now();
    gap = Math.max(interval, options.spacingMs?.([...batch.values()]) ?? 0);
    writeCount += 1;
    const attempt = (async (): Promise<FlushResult> => {
      try {
        await options.write([...batch.values()]);
      } catch (error) {
        const merged = new Map<string, T>();
        for (const [key, item] of batch) merged.set(key, pending.has(key) ? pending.get(key)! : item);
        for (const [key, item] of pending) if (!merged.has(key)) merged.set(key, item);
        pending = merged;
        failures += 1;
        try {
          retryOnTimer = options.shouldRetry?.(error) ?? true;
        } catch {
          retryOnTimer = true;
        }
        try {
          options.onError?.(error, failures);
        } catch {
          // A listener's bug must not lose the batch.
        }
        return { ok: false, error };
      }
      if (failures > 0) {
        failures = 0;
        try {
          options.onRecovered?.();
        } catch {
          // As above.
        }
      }
      return { ok: true };
    })();
    inFlight = attempt;
    const result = await attempt;
    inFlight = undefined;
    writing = undefined;
    // Changes that arrived during the write: keep the cadence from this write's start.
    if (failures === 0) arm(lastStart + gap - timer.now());
    else if (retryOnTimer) arm(retryDelay());
    return result;
  }

  return {
    markDirty(item, withinMs) {
      pending.set(options.key(item), item);
      if (withinMs !== undefined) urgentBy = Math.min(urgentBy, timer.now() + Math.max(0, withinMs));
      arm(failures > 0 ? retryDelay() : Math.max(interval, lastStart + gap - timer.now()));
    },
    async flush() {
      cancel();
      while (inFlight) {
        await inFlight;
        cancel();
      }
      if (pending.size === 0) return { ok: true };
      return writeNow();
    },
    retry() {
      if (inFlight) return inFlight;
      if (failures === 0 || disposed || pending.size === 0) return Promise.resolve({ ok: true });
      cancel();
      return writeNow();
    },
    async whenIdle() {
      while (inFlight) await inFlight;
    },
    get pendingCount() {
      return pending.size;
    },
    get writing() {
      return inFlight !== undefined;
    },
    get failing() {
      return failures > 0;
    },
    get writeCount() {
      return writeCount;
    },
    dispose() {
      cancel();
      disposed = true;
    },
    pendingItems() {
      return [...pending.values()];
    },
    unsettledItems() {
      const items = new Map(writing);
      for (const [key, item] of pending) items.set(key, item);
      return [...items.values()];
    },
  };
}
