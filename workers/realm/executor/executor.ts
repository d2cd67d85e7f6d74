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
import { cap, formatConsoleArguments, formatValue, inspectValue } from "./formatConsole";
import { LoopGuard, LoopGuardError } from "./loopGuard";
import { createSessionScope, declare, declareAll, hoistVars, isDeclared, typeOf, type SessionScope } from "./sessionScope";
import { parseStatementFrames, sourceUrlComment, stackOf } from "./stackFrames";
import { createStatementSplitter, type SplitError, type SplitStatement, type StatementSplitter } from "./statementSplitter";
import { PARAMETERS, TransformError, transformStatement, type Mapping, type SiteKind, type TransformEnvironment } from "./transform";

export interface DataSink {
  push(delta: string): void;
  /** The fence closed (`unterminated`: the stream ended first); an error to report, if any. */
  end(unterminated: boolean): ExecError | void;
}

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
}

export interface Executor {
  /** A new reply: clears the stopped-after-error state. `id` numbers the reply in events (default: previous + 1, from 1). */
  beginReply(id?: number): void;
  /** `line`: reply line of the block's first body line. */
  openCode(block: number, line: number): void;
  pushCode(block: number, delta: string): void;
  endCode(block: number, unterminated: boolean): void;
  openData(block: number, id: string, line: number): void;
  pushData(block: number, delta: string): void;
  endData(block: number, unterminated: boolean): void;
  /** Resolves when everything queued so far has run (open blocks wait for more input). */
  idle(): Promise<void>;
  /** Cancels what is running (an awaited statement stops waiting) and skips the rest of the reply. */
  abort(): void;
  /** An error nobody caught outside a statement (e.g. `unhandledrejection`): reported as an `error` event. */
  reportUncaught(reason: unknown): void;
  /** Where in the model's code `error` was thrown (innermost compiled frame), for errors reported by others (UI runtime). */
  locate(error: unknown): ErrorLocation | undefined;
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

export function createExecutor(options: ExecutorOptions): Executor {
  return new StatementExecutor(options);
}

// ---------------------------------------------------------------- state

interface ReplyState {
  id: number;
  /** Why the rest of the reply does not run. */
  stopped: "error" | "aborted" | undefined;
  /** Code of this reply that resumes after the abort throws; its timers are cleared. */
  aborted: boolean;
}

interface StatementContext {
  reply: ReplyState;
  block: number;
  statement: number;
  /** Reply line where the statement starts. */
  line: number;
  /** Entered from outside (a UI handler): not cancelled with its reply. */
  detached: boolean;
  item: CodeItem;
  split: SplitStatement;
  detachedCopy?: StatementContext;
}

interface CodeItem {
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
}

interface DataItem {
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

type Item = CodeItem | DataItem;

interface CompiledStatement {
  id: number;
  context: StatementContext;
  run: (...parameters: unknown[]) => unknown;
  async: boolean;
  sites: number[];
  mappings: Mapping[] | undefined | null;
}

interface Site {
  kind: SiteKind;
  /** Reply line, for the loop guard's message. */
  line: number;
  /** Line and column in the block body. */
  bodyLine: number;
  column: number;
  context: StatementContext;
}

const hasOwn = Object.prototype.hasOwnProperty;
// Captured at load: model code cannot replace it for the executor.
const platformSetTimeout = globalThis.setTimeout.bind(globalThis);
const MODULES_REFUSED = "`import` and `export` are not available in the realm: every top-level declaration is already shared by later code, and modules cannot be loaded";
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor as FunctionConstructor;

// ---------------------------------------------------------------- runtime hooks ($$r)

/**
 * The object compiled code calls as `$$r`. Method names are short because they
 * are compiled into every statement; keep them in sync with transform.ts.
 */
class ExecutorRuntime {
  /** The statement whose code is running, or null between tasks. */
  current: StatementContext | null = null;
  private resetPending = false;

  constructor(
    readonly guard: LoopGuard,
    private readonly sites: Site[],
  ) {}

  /** declare */
  d(scope: SessionScope, name: string, kind: number, value: unknown): void {
    declare(scope, name, kind, value);
  }

  /** declare a destructured set */
  m(scope: SessionScope, kind: number, staged: Record<string, unknown>): void {
    declareAll(scope, kind, staged);
  }

  /** hoist `var`s */
  v(scope: SessionScope, names: string[]): void {
    hoistVars(scope, names);
  }

  /** `typeof` of a possibly undeclared name */
  ty(scope: SessionScope, name: string): string {
    return typeOf(scope, name);
  }

  /** Loop and function-entry tick: the hot path. */
  tick(site: number): void {
    if (this.current === null) this.adopt(site);
    const guard = this.guard;
    if (--guard.countdown <= 0) guard.check(site);
  }

  /** Async function entry: tick, and return the context every `await` inside restores. */
  ea(site: number): StatementContext | null {
    this.tick(site);
    return this.current;
  }

  /** After an `await`: back in `context`. */
  re<V>(context: StatementContext | null, value?: V): V | undefined {
    if (context !== null) {
      if (context.reply.aborted && !context.detached) throw new ExecutionAborted();
      this.current = context;
      this.scheduleReset();
    }
    return value;
  }

  /** `target.then/catch/finally(...)`: callbacks run in the calling statement's context. */
  th(target: unknown, method: "then" | "catch" | "finally", ...args: unknown[]): unknown {
    const context = this.current;
    if (context !== null && target instanceof Promise) {
      for (let index = 0; index < args.length; index += 1) {
        const callback = args[index];
        if (typeof callback === "function") args[index] = this.bind(callback as (...a: unknown[]) => unknown, context);
      }
    }
    return (target as Record<string, (...a: unknown[]) => unknown>)[method](...args);
  }

  bind<A extends unknown[], R>(callback: (...args: A) => R, context: StatementContext): (...args: A) => R {
    const runtime = this;
    return function (this: unknown, ...args: A): R {
      if (context.reply.aborted && !context.detached) throw new ExecutionAborted();
      const previous = runtime.current;
      runtime.current = context;
      try {
        return callback.apply(this, args);
      } finally {
        runtime.current = previous;
      }
    };
  }

  /** A function entered with no statement running: credit its defining statement. */
  private adopt(site: number): void {
    const context = this.sites[site]?.context;
    if (!context) return;
    context.detachedCopy ??= { ...context, detached: true, detachedCopy: undefined };
    this.current = context.detachedCopy;
    this.scheduleReset();
  }

  private scheduleReset(): void {
    if (this.resetPending) return;
    this.resetPending = true;
    queueMicrotask(this.reset);
  }

  private readonly reset = (): void => {
    this.resetPending = false;
    this.current = null;
  };
}

// ---------------------------------------------------------------- the executor

class StatementExecutor implements Executor {
  private readonly scope = createSessionScope();
  private readonly sites: Site[] = [];
  private readonly guard: LoopGuard;
  private readonly runtime: ExecutorRuntime;
  private readonly globals: Record<string, unknown>;
  private readonly now: () => number;
  private readonly compiled = new Map<number, CompiledStatement>();
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
  private statementIds = 0;
  private readonly timers = new Map<unknown, { context: StatementContext | null; clear(): void }>();

  constructor(private readonly options: ExecutorOptions) {
    this.now = options.now ?? defaultNow();
    this.guard = new LoopGuard({
      budgetMs: options.loopBudgetMs,
      now: this.now,
      scheduleMacrotask: options.scheduleMacrotask,
      site: (id) => this.sites[id],
      interrupt: () => {
        const context = this.runtime.current;
        return context && !context.detached && context.reply.aborted ? new ExecutionAborted() : undefined;
      },
    });
    this.runtime = new ExecutorRuntime(this.guard, this.sites);
    const own = { console: this.createConsole(), ...this.createTimers() };
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

  openCode(block: number, line: number): void {
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

  pushCode(block: number, delta: string): void {
    const item = this.blocks.get(block);
    if (item?.kind !== "code" || item.ended) return;
    item.body += delta;
    this.accept(item, item.splitter!.push(delta));
    this.drain();
  }

  endCode(block: number, _unterminated: boolean): void {
    const item = this.blocks.get(block);
    if (item?.kind !== "code" || item.ended) return;
    this.accept(item, item.splitter!.end());
    item.splitter = undefined;
    item.ended = true;
    this.drain();
  }

  openData(block: number, id: string, line: number): void {
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

  pushData(block: number, delta: string): void {
    const item = this.blocks.get(block);
    if (item?.kind !== "data" || item.ended) return;
    if (item.state === "streaming") this.pushToSink(item, delta);
    else if (item.state === "waiting") item.deltas.push(delta);
  }

  endData(block: number, unterminated: boolean): void {
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

  reportUncaught(reason: unknown): void {
    if (reason instanceof ExecutionAborted) return;
    const frame = parseStatementFrames(stackOf(reason)).find((candidate) => this.compiled.has(candidate.id));
    const context = (frame && this.compiled.get(frame.id)!.context) ?? this.runtime.current ?? this.lastContext;
    if (!context) return;
    if (context.reply.aborted && !context.detached) return;
    this.emit({ type: "error", error: this.mapError(reason, context), statement: context.statement, reply: context.reply.id });
  }

  locate(error: unknown): ErrorLocation | undefined {
    for (const frame of parseStatementFrames(stackOf(error))) {
      const compiled = this.compiled.get(frame.id);
      if (!compiled) continue;
      const position = this.position(compiled, frame.bodyLine, frame.column);
      if (!position || position.line === undefined) continue;
      const { context } = compiled;
      return { reply: context.reply.id, block: position.block, statement: context.statement, line: position.line, column: position.column, lineText: position.lineText };
    }
    return undefined;
  }

  // ------------------------------------------------------------ the queue

  private accept(item: CodeItem, result: { statements: SplitStatement[]; error?: SplitError }): void {
    for (const statement of result.statements) item.statements.push(statement);
    if (result.error && !item.syntaxError) {
      const index = item.statements.length;
      item.syntaxError = { error: result.error, index };
      // Reported as soon as it is certain; the reply stops when the queue gets there.
      if (!item.reply.stopped) {
        this.emit({ type: "error", error: this.syntaxError(item, result.error), statement: index, reply: item.reply.id });
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
        this.emit({ type: "block-done", block: item.block });
        return true;
      }
      return false;
    }
  }

  private emitSkipped(item: CodeItem): void {
    const stopAt = item.stopAt!;
    const from = stopAt.statement;
    const broken = item.syntaxError !== undefined && item.syntaxError.index >= from ? 1 : 0;
    const count = Math.max(0, item.statements.length - from) + broken;
    if (count === 0) return;
    const fromLine =
      from < item.statements.length ? item.line + item.statements[from].line - 1 : item.line + this.unparsedStartLine(item) - 1;
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
        this.emit({ type: "skipped", block: item.block, fromStatement: 0, count: 0, fromLine: item.line, reason: item.reply.stopped });
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
      if (error) this.emit({ type: "error", error: { ...error, block: item.block, line: error.line ?? item.line }, reply: item.reply.id });
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
      compiled = this.compile(context);
    } catch (error) {
      this.emit(start);
      const execError =
        error instanceof TransformError ? this.transformError(context, error) : this.mapError(error, context);
      this.emit({ type: "statement-end", block: item.block, statement: index, status: "error", error: execError, durationMs: 0 });
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
      this.finishStatement(context, started, false, undefined);
      return false;
    }

    let settled = false;
    const settle = (failed: boolean, error: unknown) => {
      if (settled) return;
      settled = true;
      this.inFlight = undefined;
      this.finishStatement(context, started, failed, error);
      this.drain();
    };
    this.inFlight = { context, abort: () => settle(true, new ExecutionAborted()) };
    (result as Promise<unknown>).then(
      () => settle(false, undefined),
      (error: unknown) => settle(true, error),
    );
    return true;
  }

  private finishStatement(context: StatementContext, started: number, failed: boolean, error: unknown): void {
    const durationMs = this.now() - started;
    const base = { type: "statement-end", block: context.block, statement: context.statement, durationMs } as const;
    if (!failed) {
      this.emit({ ...base, status: "done" });
      return;
    }
    const execError = this.mapError(error, context);
    this.emit({ ...base, status: "error", error: execError });
    context.reply.stopped ??= execError.code === "aborted" ? "aborted" : "error";
  }

  private compile(context: StatementContext): CompiledStatement {
    const id = ++this.statementIds;
    const sites: number[] = [];
    const environment: TransformEnvironment = {
      isRealmGlobal: (name) => hasOwn.call(this.globals, name),
      isPlatformGlobal: (name) => name in globalThis,
      isDeclared: (name) => isDeclared(this.scope, name),
      site: (kind, line, column) => {
        const site = this.sites.length;
        const { split } = context;
        this.sites.push({
          kind,
          line: context.line + line - 1,
          bodyLine: split.line + line - 1,
          column: line === 1 ? split.column - 1 + column : column,
          context,
        });
        sites.push(site);
        return site;
      },
    };
    const result = transformStatement(context.split.source, environment);
    const body = result.body + sourceUrlComment(id);
    let run: (...parameters: unknown[]) => unknown;
    try {
      run = (result.async ? new AsyncFunction(...PARAMETERS, body) : new Function(...PARAMETERS, body)) as typeof run;
    } catch (error) {
      // The parser accepted what the engine refuses: report it on the statement.
      throw new TransformError("syntax", describeThrown(error).message, 1, 1);
    }
    const compiled: CompiledStatement = { id, context, run, async: result.async, sites, mappings: undefined };
    this.compiled.set(id, compiled);
    return compiled;
  }

  // ------------------------------------------------------------ errors

  private transformError(context: StatementContext, error: TransformError): ExecError {
    const { item, split } = context;
    const bodyLine = split.line + error.line - 1;
    return {
      code: error.code,
      name: error.name,
      message: error.message,
      block: item.block,
      line: item.line + bodyLine - 1,
      column: error.line === 1 ? split.column - 1 + error.column : error.column,
      lineText: lineOf(item.body, bodyLine),
    };
  }

  private syntaxError(item: CodeItem, error: SplitError): ExecError {
    // The splitter parses as a script, where Babel calls modules a syntax
    // error; for the realm they are a refused feature.
    const module = error.code === "ImportOutsideModule";
    return {
      code: module ? "unsupported" : "syntax",
      name: module ? "UnsupportedError" : "SyntaxError",
      message: module ? MODULES_REFUSED : error.message,
      block: item.block,
      line: item.line + error.line - 1,
      column: error.column,
      lineText: error.lineText,
    };
  }

  /** `Name: message` located at the innermost frame of `context`'s reply, else at the statement. */
  private mapError(error: unknown, context: StatementContext): ExecError {
    const code: ExecErrorCode =
      error instanceof LoopGuardError ? "loop-guard" : error instanceof ExecutionAborted ? "aborted" : "runtime";
    const { name, message } = describeThrown(error);
    if (error instanceof LoopGuardError) {
      // Thrown from the tick: the loop (or function) it names is the place.
      const site = this.sites[error.site];
      if (site && site.context.reply === context.reply) {
        const { item } = site.context;
        return { code, name, message, block: item.block, line: site.line, column: site.column, lineText: lineOf(item.body, site.bodyLine) };
      }
    }
    for (const frame of parseStatementFrames(stackOf(error))) {
      const compiled = this.compiled.get(frame.id);
      if (!compiled || compiled.context.reply !== context.reply) continue;
      const position = this.position(compiled, frame.bodyLine, frame.column);
      if (position) return { code, name, message, ...position };
    }
    const { item, split } = context;
    return { code, name, message, block: item.block, line: context.line, column: split.column, lineText: lineOf(item.body, split.line) };
  }

  private position(compiled: CompiledStatement, bodyLine: number, column: number): Omit<ExecError, "code" | "name" | "message"> | undefined {
    const { item, split } = compiled.context;
    const codeLine = bodyLine - 1;
    const statementLines = split.endLine - split.line + 1;
    if (codeLine < 1 || codeLine > statementLines) return undefined;
    let originalLine = codeLine;
    let originalColumn: number | undefined;
    const mapping = this.lookupMapping(compiled, codeLine, column - 1);
    if (mapping) {
      originalLine = mapping.originalLine;
      originalColumn = mapping.originalColumn + 1;
    }
    const blockLine = split.line + originalLine - 1;
    return {
      block: item.block,
      line: item.line + blockLine - 1,
      column: originalColumn === undefined ? undefined : originalLine === 1 ? split.column - 1 + originalColumn : originalColumn,
      lineText: lineOf(item.body, blockLine),
    };
  }

  /** Columns need a source map: made on the first error of a statement, by compiling it again. */
  private lookupMapping(compiled: CompiledStatement, line: number, column: number): Mapping | undefined {
    if (compiled.mappings === undefined) {
      compiled.mappings = null;
      try {
        let next = 0;
        const replay: TransformEnvironment = {
          isRealmGlobal: (name) => hasOwn.call(this.globals, name),
          isPlatformGlobal: (name) => name in globalThis,
          // Same resolution as when compiled: names it declared count as declared.
          isDeclared: (name) => isDeclared(this.scope, name),
          site: () => compiled.sites[next++] ?? 0,
        };
        compiled.mappings = transformStatement(compiled.context.split.source, replay, { sourceMaps: true }).mappings ?? null;
      } catch {
        compiled.mappings = null;
      }
    }
    let best: Mapping | undefined;
    for (const mapping of compiled.mappings ?? []) {
      if (mapping.generatedLine !== line || mapping.generatedColumn > column) continue;
      if (!best || mapping.generatedColumn >= best.generatedColumn) best = mapping;
    }
    return best;
  }

  // ------------------------------------------------------------ console and timers

  private emit(event: ExecEvent): void {
    this.options.onEvent(event);
  }

  private emitConsole(level: ConsoleLevel, text: string): void {
    const context = this.runtime.current ?? this.lastContext;
    if (!context) return;
    this.emit({ type: "console", block: context.block, statement: context.statement, level, text, reply: context.reply.id });
  }

  private reportAsync(error: unknown, context: StatementContext | null): void {
    if (error instanceof ExecutionAborted) return;
    const target = context ?? this.lastContext;
    if (!target) return;
    this.emit({ type: "error", error: this.mapError(error, target), statement: target.statement, reply: target.reply.id });
  }

  private createConsole(): Record<string, (...args: unknown[]) => void> {
    let indent = "";
    const counts = new Map<string, number>();
    const timers = new Map<string, number>();
    const print = (level: ConsoleLevel, args: unknown[]) => {
      const text = formatConsoleArguments(args);
      this.emitConsole(level, indent ? indent + text.replace(/\n/g, `\n${indent}`) : text);
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
      time: (label: unknown = "default") => void timers.set(String(label), this.now()),
      timeLog: (label: unknown = "default", ...args: unknown[]) => {
        const startedAt = timers.get(String(label));
        if (startedAt !== undefined) print("log", [`${String(label)}: ${formatMs(this.now() - startedAt)}`, ...args]);
      },
      timeEnd: (label: unknown = "default") => {
        const startedAt = timers.get(String(label));
        if (startedAt === undefined) return;
        timers.delete(String(label));
        print("log", [`${String(label)}: ${formatMs(this.now() - startedAt)}`]);
      },
    };
    return Object.freeze(console);
  }

  private createTimers(): Record<string, unknown> {
    const platform = globalThis as unknown as Record<string, unknown>;
    const pick = <F>(name: string): F | undefined => {
      const candidate = (hasOwn.call(this.options.globals, name) ? this.options.globals[name] : platform[name]) as F | undefined;
      return typeof candidate === "function" ? (candidate as unknown as { bind(t: unknown): F }).bind(globalThis) : undefined;
    };
    const setTimer = pick<(callback: () => void, ms?: number) => unknown>("setTimeout")!;
    const clearTimer = pick<(handle: unknown) => void>("clearTimeout")!;
    const setRepeat = pick<(callback: () => void, ms?: number) => unknown>("setInterval")!;
    const clearRepeat = pick<(handle: unknown) => void>("clearInterval")!;
    const queueTask = pick<(callback: () => void) => void>("queueMicrotask");
    const requestFrame = pick<(callback: (time: number) => void) => unknown>("requestAnimationFrame");
    const cancelFrame = pick<(handle: unknown) => void>("cancelAnimationFrame");
    const runtime = this.runtime;
    const timers = this.timers;

    const invoke = (context: StatementContext | null, callback: (...args: unknown[]) => unknown, args: unknown[]): unknown => {
      const previous = runtime.current;
      runtime.current = context;
      try {
        callback(...args);
        return undefined;
      } catch (error) {
        this.reportAsync(error, context);
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
        this.guard.yielded();
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
        this.guard.yielded();
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
}

// ---------------------------------------------------------------- helpers

function defaultNow(): () => number {
  const performance = (globalThis as { performance?: { now(): number } }).performance;
  return performance ? () => performance.now() : () => Date.now();
}

function lineOf(text: string, line: number): string | undefined {
  let start = 0;
  for (let current = 1; current < line; current += 1) {
    const next = text.indexOf("\n", start);
    if (next < 0) return undefined;
    start = next + 1;
  }
  const end = text.indexOf("\n", start);
  return text.slice(start, end < 0 ? undefined : end);
}

/** Name and message of anything thrown; `throw "x"` becomes `Uncaught: x`. */
function describeThrown(error: unknown): { name: string; message: string } {
  try {
    if (error !== null && typeof error === "object" && "message" in error) {
      const name = (error as { name?: unknown }).name;
      return { name: typeof name === "string" && name ? name : "Error", message: cap(String((error as { message: unknown }).message)) };
    }
  } catch {
    // A hostile getter: fall through to inspecting the value.
  }
  return { name: "Uncaught", message: cap(formatValue(error)) };
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
    if (row !== null && typeof row === "object") for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  }
  const hasValues = rows.some(([, row]) => row === null || typeof row !== "object");
  const header = ["(index)", ...columns, ...(hasValues ? ["Values"] : [])];
  const cell = (value: unknown) => (value === undefined ? "" : typeof value === "string" ? value : inspectValue(value));
  const body = rows.map(([key, row]) => [
    key,
    ...columns.map((column) => (row !== null && typeof row === "object" ? cell((row as Record<string, unknown>)[column]) : "")),
    ...(hasValues ? [row !== null && typeof row === "object" ? "" : cell(row)] : []),
  ]);
  const widths = header.map((title, index) => Math.max(title.length, ...body.map((row) => row[index].length)));
  const format = (row: string[]) => row.map((value, index) => value.padEnd(widths[index])).join(" | ").trimEnd();
  return [format(header), widths.map((width) => "-".repeat(width)).join("-|-"), ...body.map(format)].join("\n");
}

