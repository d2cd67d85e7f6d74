/**
 * Bounds what the realm's console sends the host (DESIGN.md §1 "The feedback
 * loop"): `for (let i = 0; i < 1e6; i++) console.log(i)` is a likely bug, and
 * it must cost the page nothing it can feel.
 *
 * Sits between the executor and the port, on `console` events only:
 * - each statement (reply, block, statement) sends at most
 *   MAX_CONSOLE_LINES_PER_STATEMENT lines; the rest are counted;
 * - the whole realm sends at most MAX_CONSOLE_LINES_PER_SECOND lines a
 *   second; the rest are counted against their statement;
 * - counted lines leave as one `console` event per statement with
 *   `omitted: n` (and empty text), after the burst: when the next non-console
 *   event passes (a statement ended) or on a timer once the loop yields.
 *
 * Cost per dropped line: one map lookup and an increment. Pure apart from
 * the injected timer and clock.
 */
import type { ExecEvent } from "../../../src/wire/events";

export const MAX_CONSOLE_LINES_PER_STATEMENT = 500;
export const MAX_CONSOLE_LINES_PER_SECOND = 2_000;

export interface ConsoleLimiterOptions {
  forward(event: ExecEvent): void;
  now?(): number;
  /** Run `flush` later (default: a 50 ms timer). */
  schedule?(flush: () => void): void;
  maxPerStatement?: number;
  maxPerSecond?: number;
}

type ConsoleEvent = Extract<ExecEvent, { type: "console" }>;

interface Counter {
  sent: number;
  omitted: number;
  /** Where the summary goes (the first dropped line's attribution). */
  template: ConsoleEvent;
}

export function createConsoleLimiter(options: ConsoleLimiterOptions): (event: ExecEvent) => void {
  const maxPerStatement = options.maxPerStatement ?? MAX_CONSOLE_LINES_PER_STATEMENT;
  const maxPerSecond = options.maxPerSecond ?? MAX_CONSOLE_LINES_PER_SECOND;
  const now = options.now ?? (() => performance.now());
  const setTimer = setTimeout.bind(globalThis);
  const schedule = options.schedule ?? ((flush: () => void) => void setTimer(flush, 50));
  const counters = new Map<string, Counter>();
  /** Keys with lines still to report. */
  const dirty = new Set<string>();
  let scheduled = false;
  let windowStart = -Infinity;
  let windowLines = 0;

  const flush = () => {
    scheduled = false;
    for (const key of dirty) {
      const counter = counters.get(key)!;
      if (counter.omitted === 0) continue;
      const { block, statement, reply } = counter.template;
      const summary: ConsoleEvent = {
        type: "console",
        block,
        statement,
        level: "info",
        text: "",
        omitted: counter.omitted,
      };
      if (reply !== undefined) summary.reply = reply;
      counter.omitted = 0;
      options.forward(summary);
    }
    dirty.clear();
  };

  return (event) => {
    if (event.type !== "console") {
      // A statement ended or an error came: its output summary goes first, in order.
      if (dirty.size > 0) flush();
      if (event.type === "statement-start" && counters.size > 10_000) counters.clear();
      options.forward(event);
      return;
    }
    const key = `${event.reply ?? 0}:${event.block}:${event.statement}`;
    let counter = counters.get(key);
    if (!counter) {
      counter = { sent: 0, omitted: 0, template: event };
      counters.set(key, counter);
    }
    const time = now();
    if (time - windowStart >= 1000) {
      windowStart = time;
      windowLines = 0;
    }
    if (counter.sent < maxPerStatement && windowLines < maxPerSecond) {
      counter.sent += 1;
      windowLines += 1;
      options.forward(event);
      return;
    }
    counter.omitted += 1;
    dirty.add(key);
    if (!scheduled) {
      scheduled = true;
      schedule(flush);
    }
  };
}
