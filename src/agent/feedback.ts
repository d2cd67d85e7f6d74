import type { ExecEvent } from "../wire/events";
import { DEFAULT_EXPORT_NOTE, formatExecError } from "../wire/events";

/**
 * Collects what one reply's code printed and what went wrong, in the order it
 * happened, as lines for the model (DESIGN.md §1 "The feedback loop"). Pure:
 * events in, text out. Empty feedback means the interaction ends.
 */

export type RealmResetEvent = {
  type: "realm-reset";
  reason: "unresponsive" | "crashed" | "requested";
  detail?: string;
  running?: { block: number; statement: number; source: string };
};

export type FeedbackInput =
  | ExecEvent
  | RealmResetEvent
  | { type: "protocol-error"; line: number; info: string; message: string }
  /** `wait`: a note that alone calls for no turn of its own (`onlyNotes`). */
  | { type: "note"; message: string; wait?: boolean }
  | { type: "realm-error"; code: string; message: string };

/**
 * Lines one collector keeps: the first FEEDBACK_HEAD_LINES and the last
 * FEEDBACK_TAIL_LINES (the start shows what ran, the end usually holds the
 * error); those in between are counted and replaced by one marked line.
 */
export const FEEDBACK_HEAD_LINES = 300;
export const FEEDBACK_TAIL_LINES = 100;

export class FeedbackCollector {
  private readonly lines: string[] = [];
  /**
   * The block the reply was cut in (token limit, content filter, dropped
   * connection): the syntax error of its incomplete last statement, and the
   * skip it causes, are the cut, which the model is told about in plain
   * words instead.
   */
  private cutBlock = -1;
  /** The last lines once the head is full (a ring of FEEDBACK_TAIL_LINES). */
  private tail: string[] = [];
  private tailStart = 0;
  /** Lines dropped between head and tail. */
  private dropped = 0;
  /** Lines that are more than a note that can wait (`onlyNotes`). */
  private substantive = 0;

  markCut(block: number): void {
    this.cutBlock = block;
  }
  /** (block, statement) → reply line where that statement starts. */
  private readonly statementLines = new Map<string, number>();

  add(event: FeedbackInput): void {
    switch (event.type) {
      case "statement-start":
        this.statementLines.set(`${event.block}:${event.statement}`, event.line);
        return;
      case "console": {
        const line = this.statementLines.get(`${event.block}:${event.statement}`);
        const where = line !== undefined ? `[block ${event.block} line ${line}]` : `[block ${event.block}]`;
        if (event.omitted !== undefined) {
          if (event.omitted > 0) this.push(`${where} … ${event.omitted} more lines not shown`);
          return;
        }
        const level = event.level === "log" ? "" : ` ${event.level}:`;
        const note = event.level === "info" && event.text.startsWith(DEFAULT_EXPORT_NOTE);
        this.push(`${where}${level} ${event.text}`, note);
        return;
      }
      case "statement-end":
        if (event.status === "error" && event.error) this.push(formatExecError(event.error));
        return;
      case "error":
        if (event.error.block === this.cutBlock && event.error.code === "syntax") return;
        this.push(formatExecError(event.error));
        return;
      case "skipped":
        if (event.block === this.cutBlock && event.reason === "error") return;
        this.push(
          event.reason === "aborted"
            ? `Stopped: block ${event.block} from line ${event.fromLine} did not run (${event.count} statement${event.count === 1 ? "" : "s"}).`
            : `Skipped: block ${event.block} from line ${event.fromLine} did not run because of the error above.`,
        );
        return;
      case "block-done":
        return;
      case "realm-reset": {
        const running = event.running
          ? ` It was running block ${event.running.block}: ${event.running.source.split("\n")[0].slice(0, 120)}`
          : "";
        // The host cannot tell a loop from a heap that is filling up (collection then takes all the time): name both.
        const why =
          event.reason === "unresponsive"
            ? "stopped responding (code that never yields, or memory running out)"
            : event.reason === "crashed"
              ? "crashed (most likely out of memory)"
              : "was reset";
        this.push(`Realm reset: the sandbox ${why} and was restarted; every variable and mount is gone.${running}`);
        return;
      }
      case "protocol-error":
        this.push(
          `Protocol: the fence at line ${event.line} ("${event.info}") is not a valid agent fence (${event.message}); it was shown as plain code and did not run.`,
        );
        return;
      case "note":
        this.push(event.message, event.wait === true);
        return;
      case "realm-error":
        return;
      default: {
        const never: never = event;
        return never;
      }
    }
  }

  private push(line: string, note = false): void {
    if (!note) this.substantive += 1;
    if (this.lines.length < FEEDBACK_HEAD_LINES) {
      this.lines.push(line);
      return;
    }
    if (this.tail.length < FEEDBACK_TAIL_LINES) {
      this.tail.push(line);
      return;
    }
    this.tail[this.tailStart] = line;
    this.tailStart = (this.tailStart + 1) % FEEDBACK_TAIL_LINES;
    this.dropped += 1;
  }

  get empty(): boolean {
    return this.lines.length === 0;
  }

  /**
   * Everything collected is a note that can wait for the next turn (the
   * realm mounted a default export for the model): worth telling, not worth
   * a paid turn of its own.
   */
  get onlyNotes(): boolean {
    return !this.empty && this.substantive === 0;
  }

  text(): string {
    const tail = [...this.tail.slice(this.tailStart), ...this.tail.slice(0, this.tailStart)];
    const marker = this.dropped > 0 ? [`[… ${this.dropped} more lines not shown …]`] : [];
    return [...this.lines, ...marker, ...tail].join("\n");
  }
}
