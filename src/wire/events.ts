/**
 * Events the realm's executor reports, and the error shape they carry.
 * Shared by the realm (workers/realm) and the host (src/): the only code both
 * sides import. Errors are data with stable codes; structured clone drops
 * error classes, so nothing here relies on `instanceof`. Declared as schemas
 * (schema.ts): the host's gate checks events with them, the types are
 * inferred from them.
 */
import { duration, int, object, oneOf, optional, text, variants, type Infer } from "./schema";

export type ExecErrorCode =
  /** The code cannot be parsed; certain as soon as reported. */
  | "syntax"
  /** An uncaught throw while a statement ran. */
  | "runtime"
  /** A loop or recursion ran synchronously past the time budget. */
  | "loop-guard"
  /** A top-level declaration would shadow a platform or realm global. */
  | "shadow-global"
  /** `import`/`export` and other forms the realm refuses. */
  | "unsupported"
  /** Stopped by the person or the agent. */
  | "aborted"
  /** A data fence names a target nobody created. */
  | "unknown-target"
  /** Malformed JSON in a data fence (the last valid value is kept). */
  | "data-invalid";

/** Every code, as a value: the host's gate and the export schema check against it (`satisfies` keeps it complete). */
export const EXEC_ERROR_CODES = {
  syntax: true,
  runtime: true,
  "loop-guard": true,
  "shadow-global": true,
  unsupported: true,
  aborted: true,
  "unknown-target": true,
  "data-invalid": true,
} as const satisfies Record<ExecErrorCode, true>;

export const EXEC_ERROR_CODE_LIST = Object.keys(EXEC_ERROR_CODES) as [ExecErrorCode, ...ExecErrorCode[]];

const count = int();

/** The JS error an event carries. */
export const execErrorSchema = object({
  code: oneOf(EXEC_ERROR_CODES),
  /** The JS error name, e.g. `TypeError`, `SyntaxError`, `LoopGuardError`. */
  name: text(),
  message: text(),
  /** Block index in the reply. */
  block: count,
  /** 1-based line and column in the reply (the model's own source). */
  line: optional(count),
  column: optional(count),
  /** The source text of the offending line. */
  lineText: optional(text()),
});
export type ExecError = Infer<typeof execErrorSchema>;

export type ConsoleLevel = "debug" | "log" | "info" | "warn" | "error";
const CONSOLE_LEVELS = { debug: true, log: true, info: true, warn: true, error: true } as const satisfies Record<
  ConsoleLevel,
  true
>;

/**
 * What the executor reports, one variant per `type`.
 *
 * `block` counts from 0 in reply order (as the protocol parser does);
 * `statement` counts from 0 within its block; `line`/`endLine`/`fromLine` are
 * 1-based reply lines.
 *
 * `reply` (on `console` and `error`) is the number of the reply whose
 * statement the output is credited to (the executor counts `beginReply()`
 * calls from 1). Output can arrive long after its statement ran (a timer, a
 * promise, a UI callback), possibly during a later reply: compare `reply`
 * before crediting (block, statement) to the current one.
 *
 * `cause` (on `console` and `error`) is the id of the UI event (UI_EVENT
 * `eventId`) whose handler caused the output — synchronously, after an
 * `await` in it, or in a timer it started. Absent for output of a reply's
 * own code and of timers that code started: the host decides which turn
 * output belongs to by this id, never by when it arrived.
 */
export const execEventSchema = variants("type", {
  "statement-start": { block: count, statement: count, line: count, endLine: count, source: text() },
  "statement-end": {
    block: count,
    statement: count,
    status: oneOf({ done: true, error: true }),
    error: optional(execErrorSchema),
    durationMs: duration(),
  },
  /**
   * One console line. With `omitted` (and empty `text`), a count instead:
   * that many further lines of the statement were printed but not sent (the
   * realm bounds console output per statement and per second).
   */
  console: {
    block: count,
    statement: count,
    level: oneOf(CONSOLE_LEVELS),
    text: text(),
    reply: optional(count),
    cause: optional(count),
    omitted: optional(count),
  },
  /**
   * Code the realm will not run because an earlier statement failed or the run
   * was aborted. Sent when the block ends (so `count` is final); `count` is 0
   * for a data block. A syntax error's unparseable rest counts as 1.
   */
  skipped: {
    block: count,
    fromStatement: count,
    count,
    fromLine: count,
    reason: oneOf({ error: true, aborted: true }),
  },
  /**
   * An error that belongs to no running statement: a syntax error (sent as soon
   * as it is certain; `statement` is the index the broken statement would
   * have), an uncaught async throw (`statement` is the one credited), an
   * unknown data target, invalid data.
   */
  error: { error: execErrorSchema, statement: optional(count), reply: optional(count), cause: optional(count) },
  /** A block has been fully consumed (all its statements ran or were skipped). */
  "block-done": { block: count },
});
export type ExecEvent = Infer<typeof execEventSchema>;

/**
 * How the realm's note starts when it mounted a default export its block did
 * not mount (a console "info" line). Such a note alone never starts a paid
 * turn: the host carries it to the next turn that happens anyway.
 */
export const DEFAULT_EXPORT_NOTE = "Note: `export default ";

/** Format an error the way the model reads it (DESIGN.md §1). */
export function formatExecError(error: ExecError): string {
  const where =
    error.line !== undefined
      ? ` (block ${error.block}, line ${error.line}${error.column !== undefined ? `, column ${error.column}` : ""})`
      : ` (block ${error.block})`;
  const text = error.lineText !== undefined ? `\n  > ${error.lineText.trim()}` : "";
  return `${error.name}: ${error.message}${where}${text}`;
}
