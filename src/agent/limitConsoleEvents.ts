/**
 * The host's own bound on console output from the realm, on top of the
 * realm's (workers/realm/runtime/createConsoleLimiter.ts): the realm runs
 * model-written code, so the host never relies on it. Past `maxPerSecond`
 * console lines in a second, lines are counted per statement instead of
 * delivered, and the count goes on as one `console` event with `omitted`
 * before the next other event (or after `flushMs`). Every other event passes
 * untouched and in order. Pure apart from the injected clock and timer.
 */
import type { ExecEvent } from "../wire/events";

export const HOST_MAX_CONSOLE_PER_SECOND = 5_000;

type ConsoleEvent = Extract<ExecEvent, { type: "console" }>;

export interface ConsoleEventLimiterOptions<E extends { type: string }> {
  /** E includes ExecEvent's console events (the summary is one). */
  forward(event: E): void;
  maxPerSecond?: number;
  now?(): number;
  schedule?(flush: () => void): void;
}

export function limitConsoleEvents<E extends { type: string }>(
  options: ConsoleEventLimiterOptions<E>,
): (event: E) => void {
  const maxPerSecond = options.maxPerSecond ?? HOST_MAX_CONSOLE_PER_SECOND;
  const now = options.now ?? (() => performance.now());
  const schedule = options.schedule ?? ((flush: () => void) => void setTimeout(flush, 100));
  const omitted = new Map<string, { template: ConsoleEvent; count: number }>();
  let windowStart = -Infinity;
  let windowLines = 0;
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    for (const { template, count } of omitted.values()) {
      const summary: ConsoleEvent = {
        type: "console",
        block: template.block,
        statement: template.statement,
        level: "info",
        text: "",
        omitted: count,
      };
      if (template.reply !== undefined) summary.reply = template.reply;
      options.forward(summary as unknown as E);
    }
    omitted.clear();
  };

  return (event) => {
    if (event.type !== "console") {
      if (omitted.size > 0) flush();
      options.forward(event);
      return;
    }
    const line = event as unknown as ConsoleEvent;
    const time = now();
    if (time - windowStart >= 1000) {
      windowStart = time;
      windowLines = 0;
    }
    windowLines += 1;
    if (windowLines <= maxPerSecond) {
      options.forward(event);
      return;
    }
    const key = `${line.reply ?? 0}:${line.block}:${line.statement}`;
    const entry = omitted.get(key) ?? { template: line, count: 0 };
    entry.count += line.omitted ?? 1;
    omitted.set(key, entry);
    if (!scheduled) {
      scheduled = true;
      schedule(flush);
    }
  };
}
