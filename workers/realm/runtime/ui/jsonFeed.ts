/**
 * Incremental JSON for one data fence, on jsonriver: each delta is parsed
 * once (never a re-parse of the prefix), numbers/true/false/null appear only
 * when complete, strings grow, arrays and objects gain members.
 *
 * jsonriver consumes an async iterable and mutates the value it yields in
 * place, so progress lands a few microtasks after `push` (in the worker each
 * delta arrives in its own task, so the value is current by the next one).
 * `snapshot()` turns the live value into a value safe to hand out: complete
 * parts (jsonriver's completeCallback) are shared as they are, the
 * incomplete spine (the root, its last array item or newest property, …) is
 * copied, so a new identity marks exactly what changed since the last
 * snapshot. Cost per snapshot: the width of the spine, not the document.
 */
import { parse } from "jsonriver";

export interface JsonFeedCallbacks {
  /** The value grew (called after a batch of deltas was parsed). */
  onProgress(): void;
  /** Malformed JSON: parsing stopped; the last value stays. */
  onError(error: unknown): void;
  /**
   * When to hand queued deltas to the parser (default: a 0 ms timer; the
   * realm's StreamedData passes its frame scheduler). Every
   * hand-over costs jsonriver a chain of promise hops (~2.5 µs here), so
   * 4-character deltas are batched: nobody sees the value more often than
   * once per frame anyway.
   */
  scheduleWake?(wake: () => void): void;
}

export interface JsonFeed {
  push(delta: string): void;
  /** Every delta pushed so far, joined (StreamedData checks the whole fence with JSON.parse at its end). */
  text(): string;
  /** No more input: jsonriver checks the end (a truncated document errors). */
  close(): void;
  /** Stop: later progress and errors are dropped. */
  cancel(): void;
  /** Whether any value has been produced yet. */
  hasValue(): boolean;
  /** The current value as an immutable-looking snapshot (see above). */
  snapshot(): unknown;
  /** Resolves once every delta pushed so far has been parsed (or parsing ended). */
  idle(): Promise<void>;
  /** Resolves once the parser has parsed what it was handed (deltas still queued for the next wake stay queued). */
  drained(): Promise<void>;
}

export function createJsonFeed(callbacks: JsonFeedCallbacks): JsonFeed {
  const queue: string[] = [];
  /**
   * What went to the parser, one string per hand-over: the whole text is
   * joined from these (~1 per frame) rather than from the 4-character deltas
   * (joining 17,000 deltas costs as much as parsing 68 KB).
   */
  const handed: string[] = [];
  let wake: ((result: IteratorResult<string>) => void) | null = null;
  let wakeScheduled = false;
  const scheduleWake = callbacks.scheduleWake ?? ((callback: () => void) => void setTimeout(callback, 0));
  let closed = false;
  let stopped = false;
  let live: unknown = undefined;
  let produced = false;
  let idleWaiters: (() => void)[] = [];
  const complete = new WeakSet<object>();

  function settleIdle(): void {
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  const source: AsyncIterable<string> = {
    [Symbol.asyncIterator]: () => ({
      next(): Promise<IteratorResult<string>> {
        if (queue.length > 0) return Promise.resolve({ value: take(), done: false });
        if (closed) return Promise.resolve({ value: undefined, done: true });
        // jsonriver has parsed everything it was given.
        settleIdle();
        return new Promise((resolve) => (wake = resolve));
      },
    }),
  };

  (async () => {
    try {
      const values = parse(source, {
        completeCallback(value) {
          if (typeof value === "object" && value !== null) complete.add(value);
        },
      });
      for await (const value of values) {
        if (stopped) return;
        live = value;
        produced = true;
        callbacks.onProgress();
      }
    } catch (error) {
      if (!stopped) callbacks.onError(error);
    } finally {
      stopped = true;
      settleIdle();
    }
  })();

  /** The queued deltas as one string, for the parser. */
  function take(): string {
    const text = queue.length === 1 ? queue[0] : queue.join("");
    queue.length = 0;
    handed.push(text);
    return text;
  }

  function resume(result: IteratorResult<string>): void {
    const resolve = wake;
    wake = null;
    resolve?.(result);
  }

  /** The scheduled wake-up. At most one is pending: a flush from idle()/close() does not cancel it (a timer per delta would cost more than the parse). */
  function woken(): void {
    wakeScheduled = false;
    flush();
  }

  /** Hands everything queued to a waiting parser. */
  function flush(): void {
    if (!wake || stopped) return;
    if (queue.length > 0) {
      resume({ value: take(), done: false });
    } else if (closed) {
      resume({ value: undefined, done: true });
    }
  }

  return {
    push(delta) {
      if (stopped || closed || delta.length === 0) return;
      queue.push(delta);
      if (wake && !wakeScheduled) {
        wakeScheduled = true;
        scheduleWake(woken);
      }
    },
    text: () => handed.join("") + queue.join(""),
    close() {
      if (closed) return;
      closed = true;
      flush();
    },
    cancel() {
      stopped = true;
      closed = true;
      queue.length = 0;
      resume({ value: undefined, done: true });
      settleIdle();
    },
    hasValue: () => produced,
    snapshot: () => snapshotOf(live, complete),
    /** Also hands queued deltas over at once (tests, benchmarks). */
    idle() {
      flush();
      if (stopped || (wake !== null && queue.length === 0)) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    drained() {
      if (stopped || wake !== null) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}

function snapshotOf(value: unknown, complete: WeakSet<object>): unknown {
  if (typeof value !== "object" || value === null || complete.has(value)) return value;
  if (Array.isArray(value)) {
    const copy = value.slice();
    // jsonriver invariant 4: only the last item can still change.
    if (copy.length > 0) copy[copy.length - 1] = snapshotOf(copy[copy.length - 1], complete);
    return copy;
  }
  // Invariant 5 says only the newest property changes, but integer-like keys
  // do not enumerate in insertion order: check every member (cheap: a
  // WeakSet lookup each).
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    const snapshot = typeof member === "object" && member !== null ? snapshotOf(member, complete) : member;
    if (key === "__proto__")
      Object.defineProperty(copy, key, { value: snapshot, enumerable: true, writable: true, configurable: true });
    else copy[key] = snapshot;
  }
  return copy;
}
