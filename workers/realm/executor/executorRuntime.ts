/**
 * Attribution hooks: the object compiled code calls as `$$r` (declare, loop
 * tick, await resume, promise callbacks). It keeps `current`, the running
 * statement's context, which is how console output finds its statement
 * (executor.ts explains the scheme).
 */
import { modelText } from "./formatConsole";
import { LoopGuard } from "./loopGuard";
import type { RealmHooks } from "./realmHooks";
import { declare, declareAll, hoistVars, typeOf, type SessionScope } from "./sessionScope";
import { ExecutionAborted, type Site, type StatementContext } from "./statementContext";

/**
 * The object compiled code calls as `$$r`. Method names are short because they
 * are compiled into every statement; keep them in sync with transform.ts.
 */
export class ExecutorRuntime {
  /** The statement whose code is running, or null between tasks. */
  current: StatementContext | null = null;
  /** The UI event being handled right now (runCaused), if any. */
  cause: number | undefined = undefined;
  private resetPending = false;

  constructor(
    readonly guard: LoopGuard,
    private readonly sites: Site[],
    private readonly hooks: RealmHooks | undefined,
  ) {}

  /** `import` binding: the value of `imported` of `specifier` (checked when compiled). */
  im(specifier: string, imported: string): unknown {
    const resolved = this.hooks?.resolveImport(specifier, imported);
    if (!resolved || "error" in resolved)
      throw new Error(resolved?.error ?? `cannot import ${JSON.stringify(specifier)}`);
    return resolved.value;
  }

  /** `export default value`: remembered on the block, which shows it at its end if nothing was mounted. */
  xd(value: unknown, name?: string): void {
    const context = this.current;
    if (context !== null && !context.detached) context.item.defaultExport = { value, name, context };
  }

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

  /**
   * `target.then/catch/finally(...)`: callbacks run in the calling statement's
   * context. `text` names the callee as the model wrote it, for the engine's
   * own `x.then is not a function`.
   */
  th(target: unknown, method: "then" | "catch" | "finally", text: string, ...args: unknown[]): unknown {
    const callable = (target as Record<string, unknown>)[method];
    if (typeof callable !== "function") throw new TypeError(`${text} is not a function`);
    const context = this.current;
    if (target instanceof Promise) {
      // The rejection handler reads the reason as plain JavaScript words it.
      const onRejected = method === "catch" ? 0 : method === "then" ? 1 : -1;
      for (let index = 0; index < args.length; index += 1) {
        let callback = args[index];
        if (typeof callback !== "function") continue;
        if (index === onRejected) {
          const handle = callback as (reason: unknown) => unknown;
          callback = (reason: unknown) => handle(this.ce(reason));
        }
        if (context !== null) callback = this.bind(callback as (...a: unknown[]) => unknown, context);
        args[index] = callback;
      }
    }
    return (callable as (...a: unknown[]) => unknown).apply(target, args);
  }

  /** A caught error: its message and stack lose the realm's rewrites (`$$s.rows` → `rows`); returns it. */
  ce<E>(error: E): E {
    if (error === null || typeof error !== "object") return error;
    try {
      const record = error as { message?: unknown; stack?: unknown };
      if (typeof record.message === "string" && record.message.includes("$$"))
        record.message = modelText(record.message);
      if (typeof record.stack === "string" && record.stack.includes("$$")) record.stack = modelText(record.stack);
    } catch {
      // Frozen or hostile: leave it as it is.
    }
    return error;
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
    // Entered by a UI event's handler: everything it causes carries the event's id.
    if (this.cause !== undefined)
      this.current = { ...context, detached: true, detachedCopy: undefined, cause: this.cause };
    else this.current = context.detachedCopy ??= { ...context, detached: true, detachedCopy: undefined };
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
