/**
 * Finds compiled statements in an error's stack. Each statement is compiled
 * with `//# sourceURL=lm-statement-<id>.js`, which V8 (`at f (url:line:col)`)
 * and SpiderMonkey/JavaScriptCore (`f@url:line:col`) both print.
 *
 * `new Function(params, body)` puts a header before `body`, so a stack line is
 * not a body line; the header size is measured once with a probe instead of
 * assumed (V8: 2 lines).
 */
export const SOURCE_URL_PREFIX = "lm-statement-";

export interface StatementFrame {
  /** Compiled statement id. */
  id: number;
  /** 1-based line in the function body. */
  bodyLine: number;
  /** 1-based column. */
  column: number;
}

const FRAME = /lm-statement-(\d+)\.js:(\d+):(\d+)/g;

export function sourceUrlComment(id: number): string {
  return `\n//# sourceURL=${SOURCE_URL_PREFIX}${id}.js`;
}

/** Innermost first. */
export function parseStatementFrames(stack: string | undefined): StatementFrame[] {
  if (!stack) return [];
  const header = functionHeaderLines();
  const frames: StatementFrame[] = [];
  for (const match of stack.matchAll(FRAME)) {
    frames.push({ id: Number(match[1]), bodyLine: Number(match[2]) - header, column: Number(match[3]) });
  }
  return frames;
}

/** Reads `error.stack` without letting a hostile getter throw. */
export function stackOf(error: unknown): string | undefined {
  try {
    const stack = (error as { stack?: unknown } | null)?.stack;
    return typeof stack === "string" ? stack : undefined;
  } catch {
    return undefined;
  }
}

let headerLines: number | undefined;

function functionHeaderLines(): number {
  if (headerLines !== undefined) return headerLines;
  headerLines = 2;
  try {
    new Function("a", `"use strict";\nthrow new Error("probe")${sourceUrlComment(0)}`)();
  } catch (error) {
    const match = /lm-statement-0\.js:(\d+):\d+/.exec(stackOf(error) ?? "");
    if (match) headerLines = Number(match[1]) - 2;
  }
  return headerLines;
}
