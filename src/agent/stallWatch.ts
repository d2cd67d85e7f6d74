/**
 * Stall detection for one model request (issue 33 §5): while the request is
 * open, no response headers within `headersMs`, or no stream data for
 * `dataMs`, makes the request stalled, and `onChange` gets the whole seconds
 * of silence, once a second, until data arrives (or Keep waiting, or the
 * request ends), then `undefined`.
 *
 * Pure timing logic: the clock and the timer are injected (tests run it on
 * fake timers).
 */

export interface StallLimits {
  /** No response headers this long after the request opened. */
  headersMs: number;
  /** No stream data this long after the headers or the last data. */
  dataMs: number;
}

export const STALL_LIMITS: StallLimits = { headersMs: 20_000, dataMs: 60_000 };

export interface StallClock {
  now(): number;
  /** Call `run` every `ms` until the returned function is called. */
  every(ms: number, run: () => void): () => void;
}

export const realClock: StallClock = {
  now: () => Date.now(),
  every: (ms, run) => {
    const id = setInterval(run, ms);
    return () => clearInterval(id);
  },
};

/**
 * The URL flag only the browser tests use, with the probe's flag
 * (`?livemark-probe&livemark-stall-ms=300`): both limits set to that many
 * milliseconds, so a test does not wait 20 s. Nothing without the probe.
 */
export const STALL_TEST_FLAG = "livemark-stall-ms";

export function stallLimitsForTest(search: string): StallLimits | undefined {
  const params = new URLSearchParams(search);
  if (!params.has("livemark-probe")) return undefined;
  const ms = Number(params.get(STALL_TEST_FLAG));
  return Number.isFinite(ms) && ms > 0 ? { headersMs: ms, dataMs: ms } : undefined;
}

export class StallWatch {
  /** When the silence being counted began: the request's start, the last data, or Keep waiting. */
  private since: number;
  private headersSeen = false;
  private stalled: number | undefined;
  private cancel: (() => void) | undefined;

  constructor(
    private readonly onChange: (silentSeconds: number | undefined) => void,
    private readonly limits: StallLimits = STALL_LIMITS,
    private readonly clock: StallClock = realClock,
  ) {
    this.since = clock.now();
    // Checked every 100 ms, so a notice shows at most 0.1 s late and counts each whole second.
    this.cancel = clock.every(100, () => this.check());
  }

  /** The response's headers arrived. */
  headers(): void {
    if (!this.cancel) return;
    this.headersSeen = true;
    this.restart();
  }

  /** Stream data arrived: the silence ends. */
  data(): void {
    if (!this.cancel) return;
    this.headersSeen = true;
    this.restart();
  }

  /** The person pressed Keep waiting: the notice goes and the silence is counted again from now. */
  keepWaiting(): void {
    if (!this.cancel) return;
    this.restart();
  }

  /** The request ended (finished, failed or stopped): no more notices. */
  end(): void {
    this.cancel?.();
    this.cancel = undefined;
    this.report(undefined);
  }

  private restart(): void {
    this.since = this.clock.now();
    this.report(undefined);
  }

  private check(): void {
    const silent = this.clock.now() - this.since;
    const limit = this.headersSeen ? this.limits.dataMs : this.limits.headersMs;
    this.report(silent >= limit ? Math.floor(silent / 1000) : undefined);
  }

  private report(seconds: number | undefined): void {
    if (seconds === this.stalled) return;
    this.stalled = seconds;
    this.onChange(seconds);
  }
}
