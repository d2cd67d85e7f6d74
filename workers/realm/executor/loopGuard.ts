/**
 * Stops synchronous code that has not yielded to the event loop for longer
 * than a budget, by throwing a catchable `LoopGuardError` from a tick that the
 * transform puts at the top of every loop body and function.
 *
 * A "stretch" starts at the first check after the event loop last ran a task
 * of ours: that check schedules a macrotask which, when it runs, proves the
 * stretch ended. Microtasks do not end a stretch (`while (true) await null`
 * blocks the page as well as a plain loop does).
 *
 * Ticks must be cheap: the hot path is a decrement and a compare
 * (`--countdown <= 0`); the clock is read every `stride` ticks, and the stride
 * adapts so that the clock is read roughly every millisecond whether a loop
 * body takes nanoseconds or milliseconds.
 *
 * Once tripped, every tick checks and throws again until the stretch ends, so
 * `while (true) { try { ... } catch {} }` cannot swallow the error and go on.
 * When the check that trips is a function entry, the error is deferred to the
 * next loop tick (up to `FUNCTION_TICKS_BEFORE_BLAME`) so that
 * `while (true) helper()` blames the loop, not the helper; pure runaway
 * recursion still throws at a function.
 */
import type { SiteKind } from "./transform";

export class LoopGuardError extends Error {
  readonly code = "loop-guard";
  constructor(
    message: string,
    /** The tick site that tripped. */
    readonly site: number,
  ) {
    super(message);
    this.name = "LoopGuardError";
  }
}

export interface LoopGuardSite {
  kind: SiteKind;
  /** Line in the model's source, for the message. */
  line: number;
}

export interface LoopGuardOptions {
  /** Default 2000 ms. */
  budgetMs?: number;
  now?: () => number;
  /** Runs `callback` as a macrotask (setTimeout 0 by default; MessageChannel is faster in browsers). */
  scheduleMacrotask?: (callback: () => void) => void;
  site(id: number): LoopGuardSite | undefined;
  /** Checked with the clock: an error to throw instead of continuing (abort). */
  interrupt?(): Error | undefined;
  /**
   * Called about every BUSY_PULSE_MS while a stretch of guarded code runs
   * longer than that: the realm tells the host it is busy, not stuck.
   */
  onBusy?(): void;
}

/** How often a long stretch reports itself busy (onBusy). */
export const BUSY_PULSE_MS = 100;

const MAX_STRIDE = 1 << 14;
const FUNCTION_TICKS_BEFORE_BLAME = 10_000;

export class LoopGuard {
  /** Ticks left before the next check; the transform's hot path decrements it. */
  countdown = 0;
  readonly budgetMs: number;
  private stride = 64;
  private stretchStart = -1;
  private lastCheck = 0;
  private lastPulse = 0;
  private tripped = false;
  private functionTicksSinceTrip = 0;
  private readonly now: () => number;
  private readonly scheduleMacrotask: (callback: () => void) => void;

  constructor(private readonly options: LoopGuardOptions) {
    this.budgetMs = options.budgetMs ?? 2000;
    this.now = options.now ?? defaultNow();
    this.scheduleMacrotask = options.scheduleMacrotask ?? defaultScheduler();
  }

  /** The slow path of a tick: read the clock, maybe throw. */
  check(site: number): void {
    const interrupt = this.options.interrupt?.();
    if (interrupt) {
      this.countdown = 0;
      throw interrupt;
    }
    const now = this.now();
    if (this.stretchStart < 0) {
      this.stretchStart = now;
      this.lastCheck = now;
      this.countdown = this.stride;
      this.scheduleMacrotask(this.endStretch);
      return;
    }
    const sinceLast = now - this.lastCheck;
    this.lastCheck = now;
    if (sinceLast > 2) this.stride = Math.max(1, this.stride >> 2);
    else if (sinceLast < 0.5 && this.stride < MAX_STRIDE) this.stride <<= 1;
    this.countdown = this.stride;
    if (now - Math.max(this.stretchStart, this.lastPulse) >= BUSY_PULSE_MS) {
      this.lastPulse = now;
      this.options.onBusy?.();
    }
    if (!this.tripped && now - this.stretchStart <= this.budgetMs) return;

    this.tripped = true;
    this.countdown = 0;
    const info = this.options.site(site);
    if (info?.kind === "function" && this.functionTicksSinceTrip < FUNCTION_TICKS_BEFORE_BLAME) {
      this.functionTicksSinceTrip += 1;
      return;
    }
    throw new LoopGuardError(this.message(info), site);
  }

  /** Tripped in the current stretch (the error may have been caught): only a turn of the event loop clears it. */
  get isTripped(): boolean {
    return this.tripped;
  }

  /** The event loop ran a task of ours (a timer, a new reply): a new stretch starts at the next tick. */
  yielded(): void {
    this.endStretch();
  }

  private readonly endStretch = (): void => {
    this.stretchStart = -1;
    this.tripped = false;
    this.functionTicksSinceTrip = 0;
    this.countdown = 0;
  };

  private message(site: LoopGuardSite | undefined): string {
    const seconds = `${Math.round(this.budgetMs / 100) / 10} s`;
    if (!site) return `Code ran for more than ${seconds} without yielding`;
    return site.kind === "loop"
      ? `Loop at line ${site.line} ran for more than ${seconds} without yielding`
      : `Function at line ${site.line} kept running for more than ${seconds} without yielding (runaway recursion?)`;
  }
}

function defaultNow(): () => number {
  const performance = (globalThis as { performance?: { now(): number } }).performance;
  return performance ? () => performance.now() : () => Date.now();
}

function defaultScheduler(): (callback: () => void) => void {
  // Captured now: user code cannot replace it later.
  const setTimer = globalThis.setTimeout.bind(globalThis);
  return (callback) => {
    setTimer(callback, 0);
  };
}
