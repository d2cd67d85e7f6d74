/**
 * What the executor's parts share: a reply, a running statement's context,
 * the queued blocks, compiled statements and loop-guard sites.
 */
import type { SplitError, SplitStatement, StatementSplitter } from "./statementSplitter";
import type { Mapping, SiteKind } from "./transform";
import type { ExecError } from "../../../src/wire/events";

export interface DataSink {
  push(delta: string): void;
  /** The fence closed (`unterminated`: the stream ended first); an error to report, if any. */
  end(unterminated: boolean): ExecError | void;
}

export interface ErrorLocation {
  /** The reply (as numbered by beginReply) whose code it is. */
  reply: number;
  block: number;
  statement: number;
  line: number;
  column?: number;
  lineText?: string;
}

/** What `abort()` throws into code that resumes afterwards. */
export class ExecutionAborted extends Error {
  readonly code = "aborted";
  constructor(message = "Stopped") {
    super(message);
    this.name = "AbortError";
  }
}

export interface ReplyState {
  id: number;
  /** Why the rest of the reply does not run. */
  stopped: "error" | "aborted" | undefined;
  /** Code of this reply that resumes after the abort throws; its timers are cleared. */
  aborted: boolean;
}

export interface StatementContext {
  reply: ReplyState;
  block: number;
  statement: number;
  /** Reply line where the statement starts. */
  line: number;
  /** Entered from outside (a UI handler): not cancelled with its reply. */
  detached: boolean;
  /** The UI event whose handler entered this code (runCaused); carried across await and timers. */
  cause?: number;
  item: CodeItem;
  split: SplitStatement;
  detachedCopy?: StatementContext;
}

export interface CodeItem {
  kind: "code";
  block: number;
  line: number;
  reply: ReplyState;
  /** Dropped when the block ends, with its buffers. */
  splitter: StatementSplitter | undefined;
  body: string;
  statements: SplitStatement[];
  /** Index of the next statement to run. */
  next: number;
  ended: boolean;
  syntaxError: { error: SplitError; index: number } | undefined;
  /** Set when the reply stopped before or inside this block. */
  stopAt: { statement: number; reason: "error" | "aborted" } | undefined;
  /** The block's last `export default` (convertModules.ts), shown at its end if nothing was mounted. */
  defaultExport?: { value: unknown; name: string | undefined; context: StatementContext };
  /** The realm's mount count when the block's first statement ran. */
  mountsAtStart?: number;
}

export interface DataItem {
  kind: "data";
  block: number;
  id: string;
  line: number;
  reply: ReplyState;
  deltas: string[];
  ended: boolean;
  unterminated: boolean;
  state: "waiting" | "streaming" | "dead" | "done";
  sink: DataSink | undefined;
}

export type Item = CodeItem | DataItem;

export interface CompiledStatement {
  id: number;
  context: StatementContext;
  run: (...parameters: unknown[]) => unknown;
  async: boolean;
  sites: number[];
  mappings: Mapping[] | undefined | null;
  /** Realm globals this statement declares as the model's own (one warning each per realm). */
  takesOver: string[];
}

export interface Site {
  kind: SiteKind;
  /** Reply line, for the loop guard's message. */
  line: number;
  /** Line and column in the block body. */
  bodyLine: number;
  column: number;
  context: StatementContext;
  /** A function site: the function's offsets in the statement source. */
  range?: { start: number; end: number };
}
