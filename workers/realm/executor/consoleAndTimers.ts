/**
 * Console and timers of the realm. The console formats what code prints and
 * hands it on (the executor credits it to the running statement); the timers
 * capture the running statement's context when scheduled and restore it when
 * their callback runs, and are cleared when their reply is aborted.
 */
import type { ConsoleLevel } from "../../../src/wire/events";
import type { ExecutorRuntime } from "./executorRuntime";
import { formatConsoleArguments, formatValue, inspectValue } from "./formatConsole";
import { LoopGuardError, type LoopGuard } from "./loopGuard";
import type { StatementContext } from "./statementContext";

const hasOwn = Object.prototype.hasOwnProperty;

/** Pending timers by handle, for clearing the ones of an aborted reply. */
export type TimerTable = Map<unknown, { context: StatementContext | null; clear(): void }>;

export interface TimerOptions {
  /** Realm globals: a `setTimeout` etc. given there replaces the platform's. */
  globals: Record<string, unknown>;
  runtime: ExecutorRuntime;
  guard: LoopGuard;
  timers: TimerTable;
  /** A callback threw. */
  reportAsync(error: unknown, context: StatementContext | null): void;
}

export function createConsole(
  emit: (level: ConsoleLevel, text: string) => void,
  now: () => number,
): Record<string, (...args: unknown[]) => void> {
  let indent = "";
  const counts = new Map<string, number>();
  const timers = new Map<string, number>();
  const print = (level: ConsoleLevel, args: unknown[]) => {
    const text = formatConsoleArguments(args);
    emit(level, indent ? indent + text.replace(/\n/g, `\n${indent}`) : text);
  };
  const console = {
    debug: (...args: unknown[]) => print("debug", args),
    log: (...args: unknown[]) => print("log", args),
    info: (...args: unknown[]) => print("info", args),
    warn: (...args: unknown[]) => print("warn", args),
    error: (...args: unknown[]) => print("error", args),
    trace: (...args: unknown[]) => print("log", ["Trace:", ...args]),
    dir: (value: unknown) => print("log", [inspectValue(value)]),
    dirxml: (...args: unknown[]) => print("log", args),
    table: (data: unknown) => print("log", [formatTable(data)]),
    assert: (condition: unknown, ...args: unknown[]) => {
      if (!condition) print("error", args.length > 0 ? ["Assertion failed:", ...args] : ["Assertion failed"]);
    },
    count: (label: unknown = "default") => {
      const key = String(label);
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      print("log", [`${key}: ${count}`]);
    },
    countReset: (label: unknown = "default") => void counts.delete(String(label)),
    group: (...args: unknown[]) => {
      if (args.length > 0) print("log", args);
      indent += "  ";
    },
    groupCollapsed: (...args: unknown[]) => console.group(...args),
    groupEnd: () => {
      indent = indent.slice(2);
    },
    time: (label: unknown = "default") => void timers.set(String(label), now()),
    timeLog: (label: unknown = "default", ...args: unknown[]) => {
      const startedAt = timers.get(String(label));
      if (startedAt !== undefined) print("log", [`${String(label)}: ${formatMs(now() - startedAt)}`, ...args]);
    },
    timeEnd: (label: unknown = "default") => {
      const startedAt = timers.get(String(label));
      if (startedAt === undefined) return;
      timers.delete(String(label));
      print("log", [`${String(label)}: ${formatMs(now() - startedAt)}`]);
    },
  };
  return Object.freeze(console);
}

export function createTimers(options: TimerOptions): Record<string, unknown> {
  const platform = globalThis as unknown as Record<string, unknown>;
  const pick = <F>(name: string): F | undefined => {
    const candidate = (hasOwn.call(options.globals, name) ? options.globals[name] : platform[name]) as F | undefined;
    return typeof candidate === "function"
      ? (candidate as unknown as { bind(t: unknown): F }).bind(globalThis)
      : undefined;
  };
  const setTimer = pick<(callback: () => void, ms?: number) => unknown>("setTimeout")!;
  const clearTimer = pick<(handle: unknown) => void>("clearTimeout")!;
  const setRepeat = pick<(callback: () => void, ms?: number) => unknown>("setInterval")!;
  const clearRepeat = pick<(handle: unknown) => void>("clearInterval")!;
  const queueTask = pick<(callback: () => void) => void>("queueMicrotask");
  const requestFrame = pick<(callback: (time: number) => void) => unknown>("requestAnimationFrame");
  const cancelFrame = pick<(handle: unknown) => void>("cancelAnimationFrame");
  const { runtime, timers, guard } = options;

  const invoke = (
    context: StatementContext | null,
    callback: (...args: unknown[]) => unknown,
    args: unknown[],
  ): unknown => {
    const previous = runtime.current;
    runtime.current = context;
    try {
      callback(...args);
      return undefined;
    } catch (error) {
      options.reportAsync(error, context);
      return error;
    } finally {
      runtime.current = previous;
    }
  };
  const live = (context: StatementContext | null) => !(context && !context.detached && context.reply.aborted);
  const requireFunction = (name: string, callback: unknown): ((...args: unknown[]) => unknown) => {
    if (typeof callback !== "function") throw new TypeError(`${name} needs a function (strings are not evaluated)`);
    return callback as (...args: unknown[]) => unknown;
  };

  const setTimeout = (callback: unknown, ms?: number, ...args: unknown[]) => {
    const run = requireFunction("setTimeout", callback);
    const context = runtime.current;
    const handle = setTimer(() => {
      timers.delete(handle);
      if (!live(context)) return;
      guard.yielded();
      invoke(context, run, args);
    }, ms);
    timers.set(handle, { context, clear: () => clearTimer(handle) });
    return handle;
  };
  const setInterval = (callback: unknown, ms?: number, ...args: unknown[]) => {
    const run = requireFunction("setInterval", callback);
    const context = runtime.current;
    const handle = setRepeat(() => {
      if (!live(context)) {
        clearRepeat(handle);
        timers.delete(handle);
        return;
      }
      guard.yielded();
      // A callback that trips the loop guard would block the realm on every tick: stop it.
      if (invoke(context, run, args) instanceof LoopGuardError) {
        clearRepeat(handle);
        timers.delete(handle);
      }
    }, ms);
    timers.set(handle, { context, clear: () => clearRepeat(handle) });
    return handle;
  };
  const clearTimeout = (handle: unknown) => {
    timers.delete(handle);
    clearTimer(handle);
  };
  const clearInterval = (handle: unknown) => {
    timers.delete(handle);
    clearRepeat(handle);
  };
  const own: Record<string, unknown> = { setTimeout, setInterval, clearTimeout, clearInterval };
  if (queueTask) {
    own.queueMicrotask = (callback: unknown) => {
      const run = requireFunction("queueMicrotask", callback);
      const context = runtime.current;
      queueTask(() => {
        if (live(context)) invoke(context, run, []);
      });
    };
  }
  if (requestFrame && cancelFrame) {
    own.requestAnimationFrame = (callback: unknown) => {
      const run = requireFunction("requestAnimationFrame", callback);
      const context = runtime.current;
      const handle = requestFrame((time) => {
        timers.delete(handle);
        if (live(context)) invoke(context, run, [time]);
      });
      timers.set(handle, { context, clear: () => cancelFrame(handle) });
      return handle;
    };
    own.cancelAnimationFrame = (handle: unknown) => {
      timers.delete(handle);
      cancelFrame(handle);
    };
  }
  return own;
}

function formatMs(ms: number): string {
  return `${Math.round(ms * 1000) / 1000}ms`;
}

/** `console.table` as aligned text (rows × columns), falling back to inspect. */
function formatTable(data: unknown): string {
  if (data === null || typeof data !== "object") return formatValue(data);
  const rows = Object.entries(data as Record<string, unknown>);
  const columns: string[] = [];
  for (const [, row] of rows) {
    if (row !== null && typeof row === "object")
      for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  }
  const hasValues = rows.some(([, row]) => row === null || typeof row !== "object");
  const header = ["(index)", ...columns, ...(hasValues ? ["Values"] : [])];
  const cell = (value: unknown) => (value === undefined ? "" : typeof value === "string" ? value : inspectValue(value));
  const body = rows.map(([key, row]) => [
    key,
    ...columns.map((column) =>
      row !== null && typeof row === "object" ? cell((row as Record<string, unknown>)[column]) : "",
    ),
    ...(hasValues ? [row !== null && typeof row === "object" ? "" : cell(row)] : []),
  ]);
  const widths = header.map((title, index) => Math.max(title.length, ...body.map((row) => row[index].length)));
  const format = (row: string[]) =>
    row
      .map((value, index) => value.padEnd(widths[index]))
      .join(" | ")
      .trimEnd();
  return [format(header), widths.map((width) => "-".repeat(width)).join("-|-"), ...body.map(format)].join("\n");
}
