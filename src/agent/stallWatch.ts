/**
 * Stall detection for one model request (issue 33 §5): while the request is
 * open, no response headers within `headersMs`, or no stream data for
 * `dataMs`, makes the request stalled, and `onChange` gets the whole seconds
 * of silence, once a second, until data arrives (or Keep waiting, or the
 * request ends), then `undefined`.
 *
 * `watchedModel` wraps a model so that its request's headers and each chunk
 * of its stream (as the provider sees them) reach the watch.
 *
 * Pure timing logic: the clock and the timer are injected (tests run it on
 * fake timers). Loaded with the first model request (turn.ts), like the AI
 * SDK.
 */

import { wrapLanguageModel, type LanguageModel } from "ai";
import { TEST_PROBE_FLAG } from "../testProbe";

export interface StallLimits {
  /** No response headers this long after the request opened. */
  headersMs: number;
  /** No stream data this long after the headers or the last data. */
  dataMs: number;
}

export const STALL_LIMITS: StallLimits = { headersMs: 20_000, dataMs: 60_000 };

/**
 * The flag only the browser tests use, with the probe's
 * (`?livemark-probe&livemark-stall-ms=300`): both limits set to that many
 * milliseconds, so a test does not wait 20 s. Nothing without the probe's flag.
 */
export const STALL_TEST_FLAG = "livemark-stall-ms";

export function stallLimitsForTest(search: string): StallLimits | undefined {
  const params = new URLSearchParams(search);
  const ms = Number(params.get(STALL_TEST_FLAG));
  return params.has(TEST_PROBE_FLAG) && ms > 0 ? { headersMs: ms, dataMs: ms } : undefined;
}

/** The limits of a page's requests: the test flag's, or `STALL_LIMITS`. */
const pageLimits = (): StallLimits => stallLimitsForTest(globalThis.location?.search ?? "") ?? STALL_LIMITS;

export interface StallClock {
  now(): number;
  /** Call `run` once, `ms` from now, unless the returned function is called first. */
  after(ms: number, run: () => void): () => void;
}

export const realClock: StallClock = {
  now: () => Date.now(),
  after: (ms, run) => {
    const id = setTimeout(run, ms);
    return () => clearTimeout(id);
  },
};

export class StallWatch {
  /** When the silence being counted began: the request's start, the last data, or Keep waiting. */
  private since: number;
  private headersSeen = false;
  private stalled: number | undefined;
  private cancel: (() => void) | undefined;

  constructor(
    private readonly onChange: (silentSeconds: number | undefined) => void,
    private readonly limits: StallLimits = pageLimits(),
    private readonly clock: StallClock = realClock,
  ) {
    this.since = clock.now();
    // One timer, at the moment the silence would reach its limit (and then at each whole second of it): data
    // arriving moves only `since`, and a timer that finds the silence broken sleeps until its new limit. (A check
    // every 100 ms was ten tasks a second on the page's thread for the whole of every reply.)
    this.cancel = clock.after(this.limit(), () => this.check());
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

  private limit(): number {
    return this.headersSeen ? this.limits.dataMs : this.limits.headersMs;
  }

  private check(): void {
    if (!this.cancel) return;
    const silent = this.clock.now() - this.since;
    const limit = this.limit();
    this.report(silent >= limit ? Math.floor(silent / 1000) : undefined);
    if (!this.cancel) return;
    // Next: the limit, or while stalled the next whole second of silence (the count the notice shows).
    const next = silent >= limit ? 1000 - (silent % 1000) : limit - silent;
    this.cancel = this.clock.after(next, () => this.check());
  }

  private report(seconds: number | undefined): void {
    if (seconds === this.stalled) return;
    this.stalled = seconds;
    this.onChange(seconds);
  }
}

/** `model` reporting its request's headers and each stream chunk to `watch` (an id string is left as it is). */
export function watchedModel(model: LanguageModel, watch: StallWatch): LanguageModel {
  if (typeof model !== "object" || model.specificationVersion !== "v3") return model;
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v3",
      wrapStream: async ({ doStream }) => {
        const result = await doStream();
        watch.headers();
        const stream = result.stream.pipeThrough(
          new TransformStream({
            transform(chunk, controller) {
              watch.data();
              controller.enqueue(chunk);
            },
          }),
        );
        return { ...result, stream };
      },
    },
  });
}
