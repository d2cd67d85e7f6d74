/**
 * The runner: takes code and data blocks as they stream (in protocol order),
 * splits code into statements, compiles each (transform.ts) and runs it
 * against the session scope, one at a time, and reports everything as
 * ExecEvents (src/wire/events.ts).
 *
 * Invariants:
 *   1. Blocks and statements run in protocol order, one at a time. A statement
 *      starts as soon as the splitter yields it and the one before it has
 *      finished; one with top-level `await` holds the next until it settles.
 *      Un-awaited promises and timers run on.
 *   2. A data block waits until every item before it has finished, then
 *      streams into its target; its deltas are buffered meanwhile.
 *   3. An uncaught error (syntax, runtime, loop guard) or `abort()` stops the
 *      reply: every later statement and block of that reply is reported as
 *      `skipped` (once its count is known, at its end) until `beginReply()`.
 *   4. Every console call is credited to exactly one statement: the one whose
 *      code is running (synchronously, or resumed after an `await`, or in a
 *      callback it scheduled with setTimeout/setInterval/queueMicrotask/
 *      requestAnimationFrame/`.then`). Code entered from outside (a UI event
 *      handler) is credited to the statement that defined it.
 *   5. Each block ends with exactly one `block-done`.
 *
 * Attribution works without async context support in the platform: the
 * runtime keeps `current`, the running statement's context; the transform
 * restores it after every `await` (`$$r.re`), wraps `.then` callbacks
 * (`$$r.th`), and the executor's timers capture it at scheduling time. After
 * such a resumed segment, a microtask resets `current` to null, so that a
 * function entered later from the platform falls back to its defining
 * statement (`$$r.tick` adopts the site's context when `current` is null).
 */
import type { ConsoleLevel, ExecError, ExecErrorCode, ExecEvent } from "../../../src/wire/events";
import type { BlockEvent } from "../../../src/wire/types";
import { describeThrown, StatementCompiler } from "./compileStatement";
import { createConsole, createTimers, type TimerTable } from "./consoleAndTimers";
import { ExecutorRuntime } from "./executorRuntime";
import { LoopGuard } from "./loopGuard";
import { installModelSource } from "./modelSource";
import { realmHooksOf, type RealmHooks } from "./realmHooks";
import { createSessionScope } from "./sessionScope";
import {
  ExecutionAborted,
  type CodeItem,
  type DataItem,
  type DataSink,
  type ErrorLocation,
  type Item,
  type ReplyState,
  type CompiledStatement,
  type Site,
  type StatementContext,
} from "./statementContext";
import { createStatementSplitter, type SplitError, type SplitStatement } from "./statementSplitter";
import { TransformError } from "./transform";

export { ExecutionAborted, type DataSink, type ErrorLocation } from "./statementContext";

export interface ExecutorOptions {
  /** Realm globals visible to code (React, mount, sleep, fetch, ...); console and timers are the executor's. */
  globals: Record<string, unknown>;
  onEvent(event: ExecEvent): void;
  /** Default 2000. */
  loopBudgetMs?: number;
  now?: () => number;
  /** Data fences (`json agent.data => "id"`): a sink when a target with that id exists; undefined → unknown-target. */
  openDataTarget?(id: string): DataSink | undefined;
  /** Macrotask scheduler for the loop guard (default setTimeout 0; MessageChannel is faster in a browser). */
  scheduleMacrotask?: (callback: () => void) => void;
  /** Guarded code has been running a while and is still progressing (LoopGuardOptions.onBusy). */
  onBusy?(): void;
}

export interface Executor {
  /** A new reply: clears the stopped-after-error state. `id` numbers the reply in events (default: previous + 1, from 1). */
  beginReply(id?: number): void;
  /**
   * One protocol event of a code or data block, as the parser emits it
   * (src/wire/types.ts BlockEvent): the executor's only way in for code and
   * data. A block-end with `cut` drops the block's last, unconfirmed
   * statement. Tests and benches build events with blockEvents.ts.
   */
  handleBlock(event: BlockEvent): void;
  /** Resolves when everything queued so far has run (open blocks wait for more input). */
  idle(): Promise<void>;
  /** Cancels what is running (an awaited statement stops waiting) and skips the rest of the reply. */
  abort(): void;
  /** An error nobody caught outside a statement (e.g. `unhandledrejection`): reported as an `error` event. */
  reportUncaught(reason: unknown): void;
  /** Where in the model's code `error` was thrown (innermost compiled frame), for errors reported by others (UI runtime). */
  locate(error: unknown): ErrorLocation | undefined;
  /**
   * Run a UI event's handler: console output and errors of the code it
   * enters — also after its `await`s and in timers it starts — carry
   * `cause` (the host's UI event id).
   */
  runCaused<T>(cause: number, handler: () => T): T;
  /** `callback`, run later under the UI event being handled now (if any). */
  bindCause<A extends unknown[]>(callback: (...args: A) => void): (...args: A) => void;
  /** The UI event whose handler (or an await or timer it started) is running now, if any. */
  currentCause(): number | undefined;
}
export function createExecutor(options: ExecutorOptions): Executor {
  return new StatementExecutor(options);
}

// Captured at load: model code cannot replace it for the executor.
const platformSetTimeout = globalThis.setTimeout.bind(globalThis);

// ---------------------------------------------------------------- the executor

class StatementExecutor implements Executor {
  private readonly scope = createSessionScope();
  private readonly sites: Site[] = [];
  private readonly guard: LoopGuard;
  private readonly runtime: ExecutorRuntime;
  private readonly globals: Record<string, unknown>;
  private readonly now: () => number;
  private readonly compiler: StatementCompiler;
  private readonly hooks: RealmHooks | undefined;
  /** Realm globals the model declared as its own, warned about once. */
  private readonly takenOver = new Set<string>();
  private readonly queue: Item[] = [];
  /** Items of the current reply by block index, for push/end. */
  private readonly blocks = new Map<number, Item>();
  private reply: ReplyState = { id: 0, stopped: undefined, aborted: false };
  private inFlight: { context: StatementContext; abort(): void } | undefined;
  /** Waiting for a turn of the event loop before the next statement (see advanceCode). */
  private yielding = false;
  private draining = false;
  private idleWaiters: (() => void)[] = [];
  private lastContext: StatementContext | undefined;
  private readonly timers: TimerTable = new Map();

  constructor(private readonly options: ExecutorOptions) {
    this.now = options.now ?? defaultNow();
    this.guard = new LoopGuard({
      budgetMs: options.loopBudgetMs,
      now: this.now,
      scheduleMacrotask: options.scheduleMacrotask,
      site: (id) => this.sites[id],
      onBusy: options.onBusy,
      interrupt: () => {
        const context = this.runtime.current;
        return context && !context.detached && context.reply.aborted ? new ExecutionAborted() : undefined;
      },
    });
    this.hooks = realmHooksOf(options.globals);
    this.runtime = new ExecutorRuntime(this.guard, this.sites, this.hooks);
    this.compiler = new StatementCompiler(this.scope, this.sites, () => this.globals, this.hooks);
    installModelSource((id) => {
      const site = this.sites[id];
      return site?.kind === "function" && site.range
        ? site.context.split.source.slice(site.range.start, site.range.end)
        : undefined;
    });
    const own = {
      console: createConsole((level, text) => this.emitConsole(level, text), this.now),
      ...createTimers({
        globals: options.globals,
        runtime: this.runtime,
        guard: this.guard,
        timers: this.timers,
        reportAsync: (error, context) => this.reportAsync(error, context),
      }),
    };
    this.globals = Object.freeze(Object.assign(Object.create(null) as Record<string, unknown>, options.globals, own));
  }

  // ------------------------------------------------------------ protocol

  beginReply(id?: number): void {
    for (const item of this.blocks.values()) {
      // The host should have closed these; close them as the stream's end would.
      if (!item.ended) item.kind === "code" ? this.endCode(item.block, true) : this.endData(item.block, true);
    }
    this.blocks.clear();
    this.reply = { id: id ?? this.reply.id + 1, stopped: undefined, aborted: false };
    this.guard.yielded();
  }

  handleBlock(event: BlockEvent): void {
    switch (event.type) {
      case "block-start":
        return event.kind === "code"
          ? this.openCode(event.index, event.line)
          : this.openData(event.index, event.id, event.line);
      case "block-delta": {
        const item = this.blocks.get(event.index);
        if (item?.kind === "code") this.pushCode(event.index, event.text);
        else if (item?.kind === "data") this.pushData(event.index, event.text);
        return;
      }
      case "block-end": {
        const item = this.blocks.get(event.index);
        if (item?.kind === "code") this.endCode(event.index, event.unterminated, event.cut === true);
        else if (item?.kind === "data") this.endData(event.index, event.unterminated);
        return;
      }
      default:
        return event satisfies never;
    }
  }

  private openCode(block: number, line: number): void {
    const item: CodeItem = {
      kind: "code",
      block,
      line,
      reply: this.reply,
      splitter: createStatementSplitter(),
      body: "",
      statements: [],
      next: 0,
      ended: false,
      syntaxError: undefined,
      stopAt: undefined,
    };
    this.queue.push(item);
    this.blocks.set(block, item);
    this.drain();
  }

  private pushCode(block: number, delta: string): void {
    const item = this.blocks.get(block);
    if (item?.kind !== "code" || item.ended) return;
    item.body += delta;
    this.accept(item, item.splitter!.push(delta));
    this.drain();
  }

  private endCode(block: number, _unterminated: boolean, cut = false): void {
    const item = this.blocks.get(block);
    if (item?.kind !== "code" || item.ended) return;
    const rest = item.splitter!.end();
    // Cut: what the splitter had not seen end when the stream stopped never
    // runs, even text that parses: `console.log(total)` may have been cut
    // before `.toFixed(2)`. The host reports it as not run.
    if (!cut) this.accept(item, rest);
    item.splitter = undefined;
    item.ended = true;
    this.drain();
  }

  private openData(block: number, id: string, line: number): void {
    const item: DataItem = {
      kind: "data",
      block,
      id,
      line,
      reply: this.reply,
      deltas: [],
      ended: false,
      unterminated: false,
      state: "waiting",
      sink: undefined,
    };
    this.queue.push(item);
    this.blocks.set(block, item);
    this.drain();
  }

  private pushData(block: number, delta: string): void {
    const item = this.blocks.get(block);
    if (item?.kind !== "data" || item.ended) return;
    if (item.state === "streaming") this.pushToSink(item, delta);
    else if (item.state === "waiting") item.deltas.push(delta);
  }

  private endData(block: number, unterminated: boolean): void {
    const item = this.blocks.get(block);
    if (item?.kind !== "data" || item.ended) return;
    item.ended = true;
    item.unterminated = unterminated;
    this.drain();
  }

  idle(): Promise<void> {
    if (this.inFlight === undefined && !this.yielding && !this.draining) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  abort(): void {
    const reply = this.reply;
    reply.aborted = true;
    reply.stopped ??= "aborted";
    for (const [handle, timer] of this.timers) {
      if (timer.context && !timer.context.detached && timer.context.reply.aborted) {
        timer.clear();
        this.timers.delete(handle);
      }
    }
    const inFlight = this.inFlight;
    if (inFlight) {
      inFlight.context.reply.aborted = true;
      inFlight.context.reply.stopped ??= "aborted";
      inFlight.abort();
    }
    // Open blocks of the reply stay open: the host closes them (or the next
    // beginReply does), and their skipped counts are final then. They no
    // longer hold idle(): nothing in them will run.
    this.drain();
  }

  runCaused<T>(cause: number, handler: () => T): T {
    const runtime = this.runtime;
    const previous = runtime.cause;
    runtime.cause = cause;
    try {
      return handler();
    } finally {
      runtime.cause = previous;
    }
  }

  bindCause<A extends unknown[]>(callback: (...args: A) => void): (...args: A) => void {
    const cause = this.runtime.cause;
    if (cause === undefined) return callback;
    return (...args: A) => this.runCaused(cause, () => callback(...args));
  }

  currentCause(): number | undefined {
    return this.runtime.current?.cause ?? this.runtime.cause;
  }

  reportUncaught(reason: unknown): void {
    if (reason instanceof ExecutionAborted) return;
    const context = this.compiler.contextOf(reason) ?? this.runtime.current ?? this.lastContext;
    if (!context) return;
    if (context.reply.aborted && !context.detached) return;
    const cause = this.causeOf(this.runtime.current ?? context);
    this.emit({
      type: "error",
      error: this.compiler.mapError(reason, context),
      statement: context.statement,
      reply: context.reply.id,
      ...cause,
    });
  }

  /** `{ cause }` when `context` (or the handler running now) came from a UI event; else nothing. */
  private causeOf(context: StatementContext | null | undefined): { cause?: number } {
    const cause = context?.cause ?? this.runtime.cause;
    return cause === undefined ? {} : { cause };
  }

  locate(error: unknown): ErrorLocation | undefined {
    return this.compiler.locate(error);
  }

  // ------------------------------------------------------------ the queue

  private accept(item: CodeItem, result: { statements: SplitStatement[]; error?: SplitError }): void {
    for (const statement of result.statements) item.statements.push(statement);
    if (result.error && !item.syntaxError) {
      const index = item.statements.length;
      item.syntaxError = { error: result.error, index };
      // Reported as soon as it is certain; the reply stops when the queue gets there.
      if (!item.reply.stopped) {
        this.emit({
          type: "error",
          error: this.compiler.syntaxError(item, result.error),
          statement: index,
          reply: item.reply.id,
        });
      }
    }
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.queue.length > 0 && this.inFlight === undefined && !this.yielding) {
        const item = this.queue[0];
        const finished = item.kind === "code" ? this.advanceCode(item) : this.advanceData(item);
        if (!finished) break;
        this.queue.shift();
      }
    } finally {
      this.draining = false;
    }
    if (this.inFlight === undefined && !this.yielding && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** Runs what it can of a code block; true when the block is finished. */
  private advanceCode(item: CodeItem): boolean {
    for (;;) {
      const reply = item.reply;
      if (reply.stopped) {
        item.stopAt ??= { statement: item.next, reason: reply.stopped };
        if (!item.ended) return false;
        this.emitSkipped(item);
        this.emit({ type: "block-done", block: item.block });
        return true;
      }
      if (item.next < item.statements.length) {
        if (this.guard.isTripped) {
          // A statement caught a loop-guard error and finished: let the event
          // loop turn before the next one, or its first loop would trip at once.
          this.yieldToEventLoop();
          return false;
        }
        const index = item.next;
        item.next += 1;
        if (this.runStatement(item, index)) return false;
        continue;
      }
      if (item.syntaxError) {
        reply.stopped = "error";
        item.stopAt = { statement: item.syntaxError.index, reason: "error" };
        continue;
      }
      if (item.ended) {
        if (item.defaultExport) this.showDefaultExport(item);
        this.emit({ type: "block-done", block: item.block });
        return true;
      }
      return false;
    }
  }

  /** The model declared a realm global as its own (`const [x, y, z] = point`): say once where the realm's value went. */
  private warnTakeOver(name: string): void {
    if (this.takenOver.has(name)) return;
    this.takenOver.add(name);
    const alias = this.hooks?.aliasOf(name);
    if (alias)
      this.emitConsole(
        "warn",
        `Note: \`${name}\` is now your own binding in your code; the realm's ${name} is still available as \`${alias}\`.`,
      );
  }

  /** `export default App` that the block did not mount: the realm mounts it, and tells the model. */
  private showDefaultExport(item: CodeItem): void {
    const { value, name, context } = item.defaultExport!;
    item.defaultExport = undefined;
    const hooks = this.hooks;
    if (!hooks || hooks.mountCount() !== item.mountsAtStart) return;
    const runtime = this.runtime;
    const previous = runtime.current;
    runtime.current = context;
    try {
      const note = hooks.mountDefaultExport(value, name);
      if (note) this.emitConsole("info", note);
    } catch (error) {
      this.reportAsync(error, context);
    } finally {
      runtime.current = previous;
    }
  }

  private emitSkipped(item: CodeItem): void {
    const stopAt = item.stopAt!;
    const from = stopAt.statement;
    const broken = item.syntaxError !== undefined && item.syntaxError.index >= from ? 1 : 0;
    const count = Math.max(0, item.statements.length - from) + broken;
    if (count === 0) return;
    const fromLine =
      from < item.statements.length
        ? item.line + item.statements[from].line - 1
        : item.line + this.unparsedStartLine(item) - 1;
    this.emit({ type: "skipped", block: item.block, fromStatement: from, count, fromLine, reason: stopAt.reason });
  }

  /** Body line where the text after the last complete statement starts (for a syntax error's skip). */
  private unparsedStartLine(item: CodeItem): number {
    const last = item.statements[item.statements.length - 1];
    let offset = last ? last.start + last.source.length : 0;
    const body = item.body;
    while (offset < body.length && /\s/.test(body[offset])) offset += 1;
    let line = 1;
    for (let index = 0; index < offset && index < body.length; index += 1) if (body.charCodeAt(index) === 10) line += 1;
    return Math.min(line, item.syntaxError?.error.line ?? line);
  }

  private advanceData(item: DataItem): boolean {
    if (item.state === "waiting") {
      if (item.reply.stopped) {
        item.state = "done";
        this.emit({
          type: "skipped",
          block: item.block,
          fromStatement: 0,
          count: 0,
          fromLine: item.line,
          reason: item.reply.stopped,
        });
        this.emit({ type: "block-done", block: item.block });
        return true;
      }
      let sink: DataSink | undefined;
      try {
        sink = this.options.openDataTarget?.(item.id);
      } catch (error) {
        this.emit({ type: "error", error: this.dataError(item, "data-invalid", error), reply: item.reply.id });
      }
      if (sink) {
        item.sink = sink;
        item.state = "streaming";
        const deltas = item.deltas;
        item.deltas = [];
        for (const delta of deltas) if (item.state === "streaming") this.pushToSink(item, delta);
      } else {
        item.state = "dead";
        item.deltas = [];
        this.emit({
          type: "error",
          error: {
            code: "unknown-target",
            name: "UnknownTargetError",
            message: `No StreamedData with id ${JSON.stringify(item.id)} exists: create it with \`new StreamedData(${JSON.stringify(item.id)})\` in a code block before the data fence`,
            block: item.block,
            line: item.line,
          },
          reply: item.reply.id,
        });
      }
    }
    if (!item.ended) return false;
    if (item.state === "streaming") {
      let error: ExecError | void = undefined;
      try {
        error = item.sink!.end(item.unterminated);
      } catch (thrown) {
        error = this.dataError(item, "data-invalid", thrown);
      }
      if (error)
        this.emit({
          type: "error",
          error: { ...error, block: item.block, line: error.line ?? item.line },
          reply: item.reply.id,
        });
    }
    item.state = "done";
    this.emit({ type: "block-done", block: item.block });
    return true;
  }

  private pushToSink(item: DataItem, delta: string): void {
    try {
      item.sink!.push(delta);
    } catch (error) {
      item.state = "dead";
      this.emit({ type: "error", error: this.dataError(item, "data-invalid", error), reply: item.reply.id });
    }
  }

  private dataError(item: DataItem, code: ExecErrorCode, error: unknown): ExecError {
    const { name, message } = describeThrown(error);
    return { code, name, message, block: item.block, line: item.line };
  }

  // ------------------------------------------------------------ statements

  private yieldToEventLoop(): void {
    this.yielding = true;
    const resume = () => {
      this.yielding = false;
      this.guard.yielded();
      this.drain();
    };
    (this.options.scheduleMacrotask ?? ((callback) => void platformSetTimeout(callback, 0)))(resume);
  }

  /** Runs statement `index` of `item`; true when it is still running (top-level await). */
  private runStatement(item: CodeItem, index: number): boolean {
    const split = item.statements[index];
    const context: StatementContext = {
      reply: item.reply,
      block: item.block,
      statement: index,
      line: item.line + split.line - 1,
      detached: false,
      item,
      split,
    };
    this.lastContext = context;
    if (index === 0 && this.hooks) item.mountsAtStart = this.hooks.mountCount();
    const start: ExecEvent = {
      type: "statement-start",
      block: item.block,
      statement: index,
      line: context.line,
      endLine: item.line + split.endLine - 1,
      source: split.source,
    };

    let compiled: CompiledStatement;
    try {
      compiled = this.compiler.compile(context);
    } catch (error) {
      this.emit(start);
      const execError =
        error instanceof TransformError
          ? this.compiler.transformError(context, error)
          : this.compiler.mapError(error, context);
      this.emit({
        type: "statement-end",
        block: item.block,
        statement: index,
        status: "error",
        error: execError,
        durationMs: 0,
      });
      item.reply.stopped ??= "error";
      return false;
    }

    this.emit(start);
    const runtime = this.runtime;
    const started = this.now();
    const previous = runtime.current;
    runtime.current = context;
    let result: unknown;
    try {
      result = compiled.run(this.scope, this.globals, runtime, context);
    } catch (error) {
      runtime.current = previous;
      this.finishStatement(context, started, true, error);
      return false;
    }
    runtime.current = previous;
    if (!compiled.async) {
      this.finishStatement(context, started, false, undefined, compiled.takesOver);
      return false;
    }

    let settled = false;
    const settle = (failed: boolean, error: unknown, takesOver?: string[]) => {
      if (settled) return;
      settled = true;
      this.inFlight = undefined;
      this.finishStatement(context, started, failed, error, takesOver);
      this.drain();
    };
    this.inFlight = { context, abort: () => settle(true, new ExecutionAborted()) };
    (result as Promise<unknown>).then(
      () => settle(false, undefined, compiled.takesOver),
      (error: unknown) => settle(true, error),
    );
    return true;
  }

  private finishStatement(
    context: StatementContext,
    started: number,
    failed: boolean,
    error: unknown,
    takesOver: string[] = [],
  ): void {
    const durationMs = this.now() - started;
    const base = { type: "statement-end", block: context.block, statement: context.statement, durationMs } as const;
    if (!failed) {
      for (const name of takesOver) this.warnTakeOver(name);
      this.emit({ ...base, status: "done" });
      return;
    }
    const execError = this.compiler.mapError(error, context);
    this.emit({ ...base, status: "error", error: execError });
    context.reply.stopped ??= execError.code === "aborted" ? "aborted" : "error";
  }

  // ------------------------------------------------------------ console and timers

  private emit(event: ExecEvent): void {
    this.options.onEvent(event);
  }

  private emitConsole(level: ConsoleLevel, text: string): void {
    const context = this.runtime.current ?? this.lastContext;
    if (!context) return;
    const cause = this.causeOf(this.runtime.current);
    this.emit({
      type: "console",
      block: context.block,
      statement: context.statement,
      level,
      text,
      reply: context.reply.id,
      ...cause,
    });
  }

  private reportAsync(error: unknown, context: StatementContext | null): void {
    if (error instanceof ExecutionAborted) return;
    const target = context ?? this.lastContext;
    if (!target) return;
    this.emit({
      type: "error",
      error: this.compiler.mapError(error, target),
      statement: target.statement,
      reply: target.reply.id,
      ...this.causeOf(context),
    });
  }
}

// ---------------------------------------------------------------- helpers
function defaultNow(): () => number {
  const performance = (globalThis as { performance?: { now(): number } }).performance;
  return performance ? () => performance.now() : () => Date.now();
}
