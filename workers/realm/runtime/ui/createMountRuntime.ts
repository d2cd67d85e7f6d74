/**
 * `mount()`, `<Slot>`, UI events and the frame loop. One runtime per realm.
 *
 * Rendering: each mount is a react-reconciler root over its own NodeTable.
 * Everything the runtime starts renders on the sync lane and commits before
 * returning: `mount()` (then MOUNT_OPEN carries the snapshot, or announces
 * the parts a big one is sent in: src/wire/mount.ts "Bounded messages"), a frame's
 * re-render of mounts whose Data/StreamedData changed, a UI event's handler
 * (as react-dom does for a click). React's own async work (an effect's
 * setState) commits whenever React runs it. Either way the ops wait in the
 * table, and a frame posts them: at most one batch per mount per frame
 * (in MOUNT_OPS of at most MAX_OPS_PER_MESSAGE ops each).
 *
 * Errors: an error boundary wraps each mount's `ui`. A render error shows in
 * the panel (MOUNT_ERROR) and is reported to the model once (`onError`), with
 * the component and, via `locate`, the line. While a StreamedData the mount
 * read is still streaming, a render error is held instead: the ops are not
 * sent (the panel keeps its last good tree) and nothing is reported, because
 * `rows.map` on a half-streamed value is expected to fail and then succeed;
 * if it still fails once the stream ended, it is shown and reported. A later
 * successful render clears the panel's error (MOUNT_ERROR with null).
 */
import { createDeferred, type Deferred } from "../../../../src/wire/createDeferred";
import {
  Component,
  createContext,
  createElement,
  isValidElement,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useReducer,
  useRef,
  useState,
  useSyncExternalStore,
  type ComponentType,
  type Dispatch,
  type ErrorInfo,
  type ReactNode,
} from "react";
import {
  MOUNT,
  MOUNT_CLOSE,
  MOUNT_ERROR,
  MOUNT_FORM_ERRORS,
  MOUNT_OPEN,
  MOUNT_OPEN_PART,
  MOUNT_OPS,
  MOUNT_PAUSED_ERROR_NAME,
  MOUNT_PAUSED_NOTICE,
  MOUNT_WAITING,
  MAX_MOUNT_ID_LENGTH,
  MAX_OPEN_MOUNTS,
  MAX_OPEN_PARTS,
  MAX_OPS_PER_MESSAGE,
  validateUiEvent,
  type FormValues,
  type MountErrorInfo,
  type MountRealmMessage,
  type WireProps,
} from "../../../../src/wire/mount";
import type { ChosenFile } from "../../../../src/wire/mount";
import { createRenderer, type Renderer, type RendererRoot } from "../../reconciler/createRenderer";
import type { MountContainer } from "../../reconciler/hostConfig";
import { createNodeTable, type NodeTable, type TableNode } from "../../reconciler/nodeTable";
import { toWireProps, type PropIssue } from "../../reconciler/toWireProps";
import { currentProxy, sourceOf, toRaw } from "./Data";
import { createCommitLimiter, DEFAULT_COMMIT_LIMITS, type CommitLimiter, type CommitLimits } from "./commitLimiter";
import { buildFormObject, isZodSchema, parseForm, type ZodLike } from "./formValues";
import { streamStateOf } from "./StreamedData";
import { plainStreamedValue, uiPropWarnings, unknownOptionWarnings } from "./mountWarnings";
import { setRenderingSubscriber, subscribe, type ReactiveSource, type Subscriber } from "./tracking";
import { uiEventArgument } from "./uiEventArgument";

export type UiErrorCode =
  /** Rendering a mount's ui threw (also shown in the panel). */
  | "render"
  /** An event handler threw or its promise rejected. */
  | "handler"
  /** A function (not on…) or a React element in a prop: dropped. */
  | "unsupported-prop"
  /** The mount committed faster than the page can draw and was paused (commitLimiter.ts). */
  | "update-loop"
  /** `mount()` while MAX_OPEN_MOUNTS mounts are open. */
  | "too-many-mounts"
  /** A second `new StreamedData(id)` took over an id. */
  | "duplicate-target"
  /** `mountSlot(name)` but the mount rendered no `<Slot name>`. */
  | "unknown-slot"
  /** `outputSchema` threw while validating. */
  | "bad-schema"
  /** Not an error: an unknown mount option or a prop ui reads that mount never passes (mountWarnings.ts). */
  | "mount-warning";

/** An error for the model. Plain data except `cause`, the original thrown value (for mapping its stack). */
export interface UiError {
  code: UiErrorCode;
  name: string;
  message: string;
  mountId?: string;
  component?: string;
  /** The handler prop, for code "handler". */
  handler?: string;
  line?: number;
  column?: number;
  cause?: unknown;
}

export interface MountRuntimeOptions {
  post(message: MountRealmMessage): void;
  onError(error: UiError): void;
  /** Call `callback` at the next frame (default: leading-edge, at most every MOUNT_FRAME_MS; see scheduleFrame.ts). */
  schedule(callback: () => void): void;
  /** Where a thrown value points in the model's source (the executor knows its compiled statements). */
  locate?(error: unknown): { line?: number; column?: number } | undefined;
  /** Keep the UI event being handled as the cause of `callback` when it runs later (the executor's bindCause). */
  bindCause?<A extends unknown[]>(callback: (...args: A) => void): (...args: A) => void;
  /** The UI event whose handler (or an await or timer it started) runs now: a mount changed then carries it (MOUNT_OPS `eventId`). */
  currentCause?(): number | undefined;
  /** A file the person chose in a mounted file input, as model code reads it. */
  files?(chosen: ChosenFile): unknown;
  /** Clock for the commit limit (default performance.now). */
  now?(): number;
  commitLimits?: CommitLimits;
}

/** A React function component or an element. */
export type Ui = ((props: UiProps) => ReactNode) | ReactNode;

export interface UiProps {
  data: unknown;
  /** The current plain value of the StreamedData given to mount (the prototype's API), not the object. */
  streamedData: unknown;
  /** The prototype's name for `submit`. */
  output(values: unknown): boolean;
  callbacks: Record<string, unknown>;
  /** Field errors of the last rejected submit, keyed by field name. */
  errors: Record<string, string>;
  /** Submit values from code (controlled inputs): validated like a form submit; true when accepted. */
  submit(values: unknown): boolean;
}

export interface MountOptions {
  ui: Ui;
  data?: unknown;
  streamedData?: unknown;
  outputSchema?: unknown;
  callbacks?: Record<string, unknown>;
  title?: string;
}

/** `comp.result`: a thenable, so awaiting it is observable ("Waiting for input"). */
export interface MountResult<T = unknown> extends PromiseLike<T> {
  catch<R = never>(onRejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R>;
  finally(onFinally?: (() => void) | null): Promise<T>;
}

export interface MountHandle {
  readonly id: string;
  readonly result: MountResult;
  mountSlot(name: string, ui: Ui): void;
  /** Replace some options (ui, data, streamedData, callbacks, outputSchema); re-renders at the next frame. */
  update(options: Partial<MountOptions>): void;
  unmount(): void;
}

export interface MountRuntime {
  mount(options: MountOptions | Ui): MountHandle;
  Slot(props: { name: string; fallback?: ReactNode }): ReactNode;
  /** A UI_EVENT from the host (validated here). False when it was dropped. */
  handleUiEvent(message: unknown): boolean;
  /** Run a frame now (tests; the scheduler calls it otherwise). */
  frame(): void;
  unmountAll(): void;
  /** React's hooks whose setters note the running UI event as the cause of the mount's next ops (model code's `useState`/`useReducer`). */
  useState: typeof useState;
  useReducer: typeof useReducer;
  /** React's effect hooks, their effects charged to their mount (`caller`). */
  useEffect: typeof useEffect;
  useLayoutEffect: typeof useLayoutEffect;
  /**
   * The mount whose code is running now: its render (and the effects of a
   * synchronous render), or a UI event's handler, also after its awaits (by
   * the event's cause). What a capability call is charged to (`ai`).
   */
  caller(): MountCaller | undefined;
  /** Hears each mount the commit limit pauses (its calls in flight end). */
  onPause(listener: (mountId: string) => void): void;
  /**
   * An edited block runs again (`reuse`, the mounts it made before, in
   * order) or anything else runs (undefined): until the next call, a
   * `mount()` whose title matches one of them (else at the same position)
   * updates that open mount in place — same id, same root, so state is kept
   * where the tree allows — instead of opening another.
   */
  reuseMounts(reuse: readonly { mountId: string; title?: string; titleOnly?: boolean }[] | undefined): void;
  /**
   * The person pressed Stop: the code that awaited a mount's `result` will
   * not go on, so each waiting mount says so (MOUNT_WAITING `stopped`) and
   * the page shows its form as no longer sending, never as a live form
   * whose submit does nothing. Code that awaits the result again makes it
   * wait again.
   */
  stopWaiting(): void;
}

/** A mount as a capability call sees it: its id, and whether the commit limit paused it (read live). */
export interface MountCaller {
  readonly id: string;
  readonly paused: boolean;
}

/** UI events remembered with their mount (the calls their handlers make after an await find it). */
const MAX_CAUSES = 256;

const MountContext = createContext<MountRecord | null>(null);

/** `set`, but calling it first notes the running UI event (if any) as the cause of the mount's next ops. Stable while `set` is. */
function useCausedSetter<A>(set: Dispatch<A>): Dispatch<A> {
  const mount = useContext(MountContext);
  const wrapped = useRef<{ set: Dispatch<A>; caused: Dispatch<A> } | null>(null);
  if (wrapped.current?.set !== set) {
    wrapped.current = {
      set,
      caused: (action) => {
        mount?.noteCause();
        set(action);
      },
    };
  }
  return wrapped.current.caused;
}

const causedUseState = ((initial?: unknown) => {
  const [state, set] = useState(initial);
  return [state, useCausedSetter(set)];
}) as typeof useState;

/**
 * `useEffect` / `useLayoutEffect` whose effect (and its cleanup) run as their
 * mount's code (`MountRuntime.caller`): a model call made there is charged
 * to the mount, so a paused mount's loop is refused.
 */
function chargedEffect(hook: typeof useEffect): typeof useEffect {
  return (effect, deps) => {
    const mount = useContext(MountContext);
    hook(() => {
      if (!mount) return effect();
      const cleanup = mount.runAs(effect);
      return typeof cleanup === "function" ? () => mount.runAs(cleanup) : cleanup;
    }, deps);
  };
}
const chargedUseEffect = chargedEffect(useEffect);
const chargedUseLayoutEffect = chargedEffect(useLayoutEffect);

const causedUseReducer = ((
  reducer: (state: unknown, action: unknown) => unknown,
  initialArg: unknown,
  init?: (arg: unknown) => unknown,
) => {
  const [state, dispatch] = init ? useReducer(reducer, initialArg, init) : useReducer(reducer, initialArg);
  return [state, useCausedSetter(dispatch)];
}) as typeof useReducer;

const INTERNAL_COMPONENTS: ReadonlySet<string> = new Set(["MountRoot", "MountErrorBoundary", "UiRenderer", "Slot"]);

/** The innermost model component in a React component stack (V8 `at Name (…)`, Firefox/Safari `Name@…`). */
export function componentFromStack(stack: string | null | undefined): string | undefined {
  if (!stack) return undefined;
  for (const line of stack.split("\n")) {
    const match = /^\s*at ([A-Za-z_$][\w$.]*)/.exec(line) ?? /^\s*([A-Za-z_$][\w$.]*)@/.exec(line);
    if (!match) continue;
    const name = match[1];
    if (INTERNAL_COMPONENTS.has(name) || !/^[A-Z]/.test(name)) continue;
    return name;
  }
  return undefined;
}

function describeThrown(error: unknown): { name: string; message: string } {
  try {
    if (error instanceof Error) return { name: error.name || "Error", message: String(error.message) };
    if (typeof error === "object" && error !== null) {
      const { name, message } = error as { name?: unknown; message?: unknown };
      if (typeof message === "string") return { name: typeof name === "string" ? name : "Error", message };
    }
    return {
      name: "Error",
      message: `${typeof error === "string" ? error : (JSON.stringify(error) ?? String(error))} was thrown`,
    };
  } catch {
    return { name: "Error", message: "an unreadable value was thrown" };
  }
}

class MountClosedError extends Error {
  readonly code = "mount-closed";
  constructor(id: string) {
    super(`The mount ${id} was unmounted before it was submitted`);
    this.name = "MountClosedError";
  }
}

interface Runtime {
  readonly options: MountRuntimeOptions;
  readonly renderer: Renderer;
  requestFrame(): void;
  now(): number;
  pause(record: MountRecord): void;
  /** The mount rendering now, if any (`MountRuntime.caller`). */
  active: MountRecord | undefined;
}

class MountRecord implements Subscriber, MountContainer {
  readonly table: NodeTable;
  readonly root: RendererRoot;
  options: MountOptions;
  version = 0;
  /** Bumped when an edited run's `ui` calls other hooks than the one it replaces: its state starts afresh. */
  uiKey = 0;
  dirty = false;
  opened = false;
  closed = false;
  readonly sources = new Set<ReactiveSource>();
  readonly slots = new Map<string, Ui>();
  private readonly slotListeners = new Set<() => void>();
  private readonly renderedSlots = new Map<string, number>();
  readonly slotsToCheck = new Set<string>();
  errors: Record<string, string> = {};
  /** Set by the boundary when it catches during the current render. */
  failed = false;
  /** Key of the error the panel shows. */
  private shownError: string | null = null;
  private readonly reported = new Set<string>();
  holdOps = false;
  private readonly reportedProps = new Set<string>();
  private readonly beforeOpen: MountRealmMessage[] = [];
  private readonly deferred: Deferred<unknown>;
  readonly result: MountResult;
  settled = false;
  private waiting = false;
  /** Stopped by the commit limit: renders nothing more, sends nothing more. */
  paused = false;
  readonly commits: CommitLimiter;
  private lastFlush = -Infinity;
  /** The UI event that caused the ops waiting in the table (the latest one, when several did). */
  private cause: number | undefined;

  constructor(
    readonly id: string,
    options: MountOptions,
    private readonly runtime: Runtime,
  ) {
    this.options = options;
    this.commits = createCommitLimiter(runtime.options.commitLimits);
    this.table = createNodeTable({
      serialize: (type, props) => this.serialize(type, props),
      // Ops before MOUNT_OPEN are replaced by its snapshot.
      onOps: () => {
        if (this.opened) runtime.requestFrame();
      },
    });
    this.root = runtime.renderer.createRoot(this, {
      onUncaughtError: (error, info) => this.renderFailed(error, info.componentStack),
    });
    this.deferred = createDeferred<unknown>();
    const promise = this.deferred.promise;
    const markWaiting = (): void => this.markWaiting();
    this.result = {
      then(onFulfilled, onRejected) {
        markWaiting();
        return promise.then(onFulfilled, onRejected);
      },
      catch(onRejected) {
        markWaiting();
        return promise.catch(onRejected);
      },
      finally(onFinally) {
        markWaiting();
        return promise.finally(onFinally);
      },
    };
  }

  // ---- MountContainer (called by the host config)
  onRenderStart(): void {
    setRenderingSubscriber(this);
    this.runtime.active = this;
  }
  onRenderEnd(): void {
    setRenderingSubscriber(null);
    if (this.runtime.active === this) this.runtime.active = undefined;
  }

  /** Runs `fn` as this mount's code (`MountRuntime.caller`). */
  runAs<T>(fn: () => T): T {
    const previous = this.runtime.active;
    this.runtime.active = this;
    try {
      return fn();
    } finally {
      this.runtime.active = previous;
    }
  }
  onCommit(): void {
    if (this.paused || !this.opened) return;
    // Not inside React's commit: stopping the root is only allowed outside it.
    if (this.commits.commit(this.runtime.now()) === "suspend") queueMicrotask(() => this.runtime.pause(this));
  }

  /** A change is on its way: if a UI event's handler (or what it started) makes it, the next MOUNT_OPS carries the event's id. */
  noteCause(): void {
    const cause = this.runtime.options.currentCause?.();
    if (cause !== undefined) this.cause = cause;
  }

  // ---- Subscriber
  invalidate(): void {
    this.noteCause();
    if (this.closed || this.dirty || this.paused) return;
    this.dirty = true;
    this.runtime.requestFrame();
  }
  addSource(source: ReactiveSource): void {
    this.sources.add(source);
  }

  post(message: MountRealmMessage): void {
    if (this.closed) return;
    if (this.opened) this.runtime.options.post(message);
    else this.beforeOpen.push(message);
  }

  open(): void {
    this.render();
    // The first render's ops, applied to an empty tree, build the snapshot (nodeTable invariant 3).
    const ops = this.table.takeOps();
    const title = this.options.title !== undefined ? String(this.options.title) : undefined;
    if (ops.length <= MAX_OPS_PER_MESSAGE) {
      const message: MountRealmMessage = {
        type: MOUNT,
        kind: MOUNT_OPEN,
        mountId: this.id,
        snapshot: this.table.snapshot(),
      };
      if (title !== undefined) message.title = title;
      this.runtime.options.post(message);
    } else {
      // Too big for one message (the host clones and checks each in one
      // task): announced, then sent in parts the host applies in order and
      // shows when the last one is in. Past MAX_OPEN_PARTS the host would
      // refuse the rest anyway (a mount holds at most 10,000 nodes there).
      const parts = Math.min(MAX_OPEN_PARTS, Math.ceil(ops.length / MAX_OPS_PER_MESSAGE));
      const sent = ops.slice(0, parts * MAX_OPS_PER_MESSAGE);
      const nodes = sent.reduce((count, op) => count + (op.op === "create" ? 1 : 0), 0);
      const message: MountRealmMessage = {
        type: MOUNT,
        kind: MOUNT_OPEN,
        mountId: this.id,
        snapshot: { nodes: [] },
        parts,
        nodes,
      };
      if (title !== undefined) message.title = title;
      this.runtime.options.post(message);
      for (let index = 0; index < parts; index += 1) {
        this.runtime.options.post({
          type: MOUNT,
          kind: MOUNT_OPEN_PART,
          mountId: this.id,
          index,
          ops: sent.slice(index * MAX_OPS_PER_MESSAGE, (index + 1) * MAX_OPS_PER_MESSAGE),
        });
      }
    }
    this.opened = true;
    for (const queued of this.beforeOpen.splice(0)) this.runtime.options.post(queued);
  }

  render(): void {
    this.dirty = false;
    if (this.paused) return;
    this.version += 1;
    this.failed = false;
    const previous = this.runtime.active;
    this.runtime.active = this;
    try {
      this.root.renderSync(createElement(MountRoot, { mount: this, version: this.version }));
    } finally {
      this.runtime.active = previous;
      // prepareForCommit clears it too; this covers a render that never reached a commit.
      setRenderingSubscriber(null);
    }
    if (!this.failed && !this.closed) this.renderSucceeded();
  }

  flush(): void {
    if (this.closed || this.paused || !this.opened || this.holdOps || !this.table.hasOps()) return;
    const time = this.runtime.now();
    // Throttled: the page gets a state every throttledFrameMs, not every commit
    // (the ops pile up in the table meanwhile and leave as one batch).
    const limits = this.runtime.options.commitLimits ?? DEFAULT_COMMIT_LIMITS;
    if (this.commits.state(time) === "throttle" && time - this.lastFlush < limits.throttledFrameMs) return;
    this.lastFlush = time;
    const ops = this.table.takeOps();
    const cause = this.cause;
    this.cause = undefined;
    // One frame's batch, in messages of at most MAX_OPS_PER_MESSAGE ops (the host applies them in order).
    for (let start = 0; start < ops.length; start += MAX_OPS_PER_MESSAGE) {
      const message: MountRealmMessage = {
        type: MOUNT,
        kind: MOUNT_OPS,
        mountId: this.id,
        ops: start === 0 && ops.length <= MAX_OPS_PER_MESSAGE ? ops : ops.slice(start, start + MAX_OPS_PER_MESSAGE),
      };
      if (cause !== undefined) message.eventId = cause;
      this.runtime.options.post(message);
    }
  }

  uiProps(): UiProps {
    return {
      data: currentProxy(this.options.data),
      streamedData: plainStreamedValue(this.options.streamedData),
      callbacks: this.options.callbacks ?? {},
      errors: this.errors,
      submit: (values: unknown) => this.submit(values, false),
      output: (values: unknown) => this.submit(values, false),
    };
  }

  // ---- errors
  renderFailed(error: unknown, componentStack: string | null | undefined): void {
    this.failed = true;
    const { name, message } = describeThrown(error);
    const info: MountErrorInfo = { code: "render", name, message };
    const component = componentFromStack(componentStack);
    if (component) info.component = component;
    const where = this.locate(error);
    if (where?.line !== undefined) info.line = where.line;
    if ([...this.sources].some((source) => source.isStreaming())) {
      this.holdOps = true;
      return;
    }
    this.holdOps = false;
    const key = `${info.name}\u0000${info.message}\u0000${info.component ?? ""}`;
    if (this.shownError !== key) {
      this.shownError = key;
      this.post({ type: MOUNT, kind: MOUNT_ERROR, mountId: this.id, error: info });
    }
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.runtime.options.onError({
      code: "render",
      name,
      message: `${message} (while rendering ${component ? `<${component}>` : "the ui"} of mount ${this.id})`,
      mountId: this.id,
      component,
      line: where?.line,
      column: where?.column,
      cause: error,
    });
  }

  private renderSucceeded(): void {
    this.holdOps = false;
    this.reported.clear();
    if (this.shownError !== null) {
      this.shownError = null;
      this.post({ type: MOUNT, kind: MOUNT_ERROR, mountId: this.id, error: null });
    }
  }

  locate(error: unknown): { line?: number; column?: number } | undefined {
    try {
      return this.runtime.options.locate?.(error);
    } catch {
      return undefined;
    }
  }

  private serialize(type: string, props: Record<string, unknown>): WireProps {
    return toWireProps(type, props, {
      unwrap: (value) => {
        const stream = streamStateOf(value);
        if (stream) {
          subscribe(stream, this);
          return { value: stream.read() };
        }
        const data = sourceOf(value);
        if (data) {
          subscribe(data, this);
          return { value: toRaw(value) };
        }
        return undefined;
      },
      report: (issue) => this.reportProp(issue),
    });
  }

  private reportProp(issue: PropIssue): void {
    const key = `${issue.kind}:${issue.type}:${issue.prop}`;
    if (this.reportedProps.has(key)) return;
    this.reportedProps.add(key);
    const message =
      issue.kind === "function-prop"
        ? `<${issue.type} ${issue.prop}={function}>: only event handlers (on…) can be functions; ${issue.prop} is ignored on the page. Compute such values in code instead (e.g. pre-format labels in the data).`
        : `<${issue.type} ${issue.prop}={<element />}>: React elements are only supported as children; ${issue.prop} is ignored. Put the element in the children instead.`;
    this.runtime.options.onError({
      code: "unsupported-prop",
      name: "UnsupportedPropError",
      message,
      mountId: this.id,
      component: issue.type,
    });
  }

  // ---- slots
  subscribeSlots = (listener: () => void): (() => void) => {
    this.slotListeners.add(listener);
    return () => this.slotListeners.delete(listener);
  };

  setSlot(name: string, ui: Ui): void {
    this.slots.set(name, ui);
    this.slotsToCheck.add(name);
    for (const listener of [...this.slotListeners]) listener();
    this.runtime.requestFrame();
  }

  slotRendered(name: string): () => void {
    this.renderedSlots.set(name, (this.renderedSlots.get(name) ?? 0) + 1);
    return () => {
      const count = (this.renderedSlots.get(name) ?? 1) - 1;
      if (count <= 0) this.renderedSlots.delete(name);
      else this.renderedSlots.set(name, count);
    };
  }

  checkSlots(): void {
    for (const name of this.slotsToCheck) {
      if (this.renderedSlots.has(name) || this.failed || this.holdOps) continue;
      this.runtime.options.onError({
        code: "unknown-slot",
        name: "UnknownSlotError",
        mountId: this.id,
        message: `mountSlot(${JSON.stringify(name)}): mount ${this.id} renders no <Slot name=${JSON.stringify(name)} />; the content is kept until such a Slot appears`,
      });
    }
    this.slotsToCheck.clear();
  }

  // ---- forms and result
  private markWaiting(): void {
    if (this.settled || this.waiting || this.closed) return;
    this.waiting = true;
    this.post({ type: MOUNT, kind: MOUNT_WAITING, mountId: this.id, waiting: true });
  }

  /** Stop: nobody awaits the result any more (`MountRuntime.stopWaiting`). */
  stopWaiting(): void {
    if (!this.waiting || this.settled || this.closed) return;
    this.waiting = false;
    this.post({ type: MOUNT, kind: MOUNT_WAITING, mountId: this.id, waiting: false, stopped: true });
  }

  setErrors(errors: Record<string, string>): void {
    const same =
      Object.keys(errors).length === Object.keys(this.errors).length &&
      Object.keys(errors).every((key) => this.errors[key] === errors[key]);
    if (same) return;
    this.errors = errors;
    this.post({ type: MOUNT, kind: MOUNT_FORM_ERRORS, mountId: this.id, errors });
    this.invalidate();
  }

  /** Validates and, when valid, resolves `result`. True when accepted. */
  submit(values: unknown, fromForm: boolean): boolean {
    if (this.settled || this.closed) return this.settled;
    const object = fromForm ? buildFormObject(values as FormValues) : toRaw(values);
    let value: unknown = object;
    const schema = this.options.outputSchema;
    if (schema !== undefined) {
      let parsed;
      try {
        parsed = parseForm(object, schema as ZodLike);
      } catch (error) {
        const { name, message } = describeThrown(error);
        this.runtime.options.onError({
          code: "bad-schema",
          name,
          message: `outputSchema of mount ${this.id} failed: ${message}`,
          mountId: this.id,
          cause: error,
        });
        return false;
      }
      if (!parsed.ok) {
        this.setErrors(parsed.errors);
        return false;
      }
      value = parsed.value;
    }
    this.setErrors({});
    this.settled = true;
    this.deferred.resolve(value);
    // Also when nothing awaited it yet: the page shows the form as sent (a second submit would go nowhere).
    this.waiting = false;
    this.post({ type: MOUNT, kind: MOUNT_WAITING, mountId: this.id, waiting: false });
    return true;
  }

  close(): void {
    if (!this.settled) {
      this.settled = true;
      this.deferred.reject(new MountClosedError(this.id));
    }
    for (const source of this.sources) source.subscribers.delete(this);
    this.sources.clear();
  }
}

function MountRoot({ mount }: { mount: MountRecord; version: number }): ReactNode {
  return createElement(
    MountContext.Provider,
    { value: mount },
    createElement(
      MountErrorBoundary,
      { mount, version: mount.version },
      createElement(UiRenderer, { key: mount.uiKey, ui: mount.options.ui, mount }),
    ),
  );
}

/**
 * A function `ui` is called here rather than made an element of its own
 * type: its hooks belong to this renderer, which lives as long as the mount,
 * so a new `ui` for the same mount (an edited block run again, `update({ ui
 * })`) keeps the state its hooks hold — unless it calls other hooks
 * (`hookSignature`), when `uiKey` gives it a fresh renderer. A class is an
 * element as usual.
 */
function UiRenderer({ ui, mount }: { ui: Ui; mount: MountRecord }): ReactNode {
  if (typeof ui === "function") {
    if ((ui as { prototype?: { isReactComponent?: unknown } }).prototype?.isReactComponent)
      return createElement(ui as unknown as ComponentType<UiProps>, mount.uiProps());
    return (ui as (props: UiProps) => ReactNode)(mount.uiProps());
  }
  return ui as ReactNode;
}

/** The hooks a `ui` calls, in order, as its source names them: state carries over only between equal signatures. */
export function hookSignature(ui: unknown): string {
  if (typeof ui !== "function") return "";
  return (Function.prototype.toString.call(ui).match(/\buse[A-Z]\w*\s*\(/g) ?? [])
    .map((call) => call.replace(/\s/g, ""))
    .join(",");
}

interface BoundaryProps {
  mount: MountRecord;
  version: number;
  children?: ReactNode;
}

interface BoundaryState {
  failed: boolean;
  version: number;
}

/** Each new root render (a new version) retries the ui. */
class MountErrorBoundary extends Component<BoundaryProps, BoundaryState> {
  override state: BoundaryState = { failed: false, version: this.props.version };

  static getDerivedStateFromProps(props: BoundaryProps, state: BoundaryState): Partial<BoundaryState> | null {
    return props.version !== state.version ? { failed: false, version: props.version } : null;
  }

  static getDerivedStateFromError(): Partial<BoundaryState> {
    return { failed: true };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    this.props.mount.renderFailed(error, info.componentStack);
  }

  override render(): ReactNode {
    return this.state.failed ? null : this.props.children;
  }
}

function Slot({ name, fallback }: { name: string; fallback?: ReactNode }): ReactNode {
  const mount = useContext(MountContext);
  const subscribeSlots = useCallback(
    (listener: () => void) => (mount ? mount.subscribeSlots(listener) : () => {}),
    [mount],
  );
  const ui = useSyncExternalStore(subscribeSlots, () => mount?.slots.get(name));
  useEffect(() => mount?.slotRendered(name), [mount, name]);
  if (ui === undefined || mount === null) return fallback ?? null;
  return createElement(UiRenderer, { ui, mount });
}

function isUi(value: unknown): value is Ui {
  return typeof value === "function" || isValidElement(value);
}

function explicitSources(value: unknown): ReactiveSource[] {
  const own = streamStateOf(value) ?? sourceOf(value);
  if (own) return [own];
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  const found: ReactiveSource[] = [];
  for (const member of Object.values(value)) {
    const source = streamStateOf(member) ?? sourceOf(member);
    if (source) found.push(source);
  }
  return found;
}

function normalizeOptions(input: unknown): MountOptions {
  const options = isUi(input) ? { ui: input } : input;
  if (typeof options !== "object" || options === null) {
    throw new TypeError("mount(options) needs an object: mount({ ui: ({ data }) => <Card>…</Card> })");
  }
  const { ui, outputSchema, callbacks } = options as MountOptions;
  if (!isUi(ui))
    throw new TypeError("mount({ ui }) needs ui to be a component, e.g. ui: ({ data, errors }) => <Card>…</Card>");
  if (outputSchema !== undefined && !isZodSchema(outputSchema)) {
    throw new TypeError("mount({ outputSchema }) needs a zod schema, e.g. z.object({ name: z.string() })");
  }
  if (callbacks !== undefined && (typeof callbacks !== "object" || callbacks === null)) {
    throw new TypeError(
      "mount({ callbacks }) needs an object of functions, e.g. { onSave: (value) => console.log(value) }",
    );
  }
  return { ...(options as MountOptions) };
}

export function createMountRuntime(options: MountRuntimeOptions): MountRuntime {
  const renderer = createRenderer();
  const mounts = new Map<string, MountRecord>();
  /** Each recent UI event's mount, by the event's cause. */
  const causes = new Map<number, MountRecord>();
  const pauseListeners: ((mountId: string) => void)[] = [];
  let nextId = 1;
  let frameRequested = false;
  let inFrame = false;

  const now = options.now ?? (() => performance.now());
  const runtime: Runtime = {
    options,
    renderer,
    now,
    pause,
    active: undefined,
    requestFrame() {
      // During a frame, whatever is left at its end asks for the next one.
      if (frameRequested || inFrame) return;
      frameRequested = true;
      options.schedule(frame);
    },
  };

  function frame(): void {
    frameRequested = false;
    inFrame = true;
    try {
      for (const record of [...mounts.values()]) if (record.dirty && !record.closed) record.render();
      for (const record of [...mounts.values()]) {
        record.flush();
        if (record.slotsToCheck.size > 0) record.checkSlots();
      }
    } finally {
      inFrame = false;
    }
    // A render that changed what it read (or an effect) asks for another frame.
    for (const record of mounts.values()) {
      if (record.paused) continue;
      if (record.dirty || (!record.holdOps && record.table.hasOps())) {
        runtime.requestFrame();
        break;
      }
    }
  }

  /** The commit limit stopped a mount: its root goes (ending the loop), the host keeps the last tree under a notice. */
  function pause(record: MountRecord): void {
    if (record.paused || record.closed) return;
    const commits = record.commits.count;
    record.paused = true;
    try {
      record.root.unmount();
    } catch {
      // A throwing cleanup must not keep the loop alive.
    }
    record.table.takeOps();
    record.dirty = false;
    for (const listener of pauseListeners) listener(record.id);
    options.post({
      type: MOUNT,
      kind: MOUNT_ERROR,
      mountId: record.id,
      error: { code: "render", name: MOUNT_PAUSED_ERROR_NAME, message: MOUNT_PAUSED_NOTICE },
    });
    options.onError({
      code: "update-loop",
      name: MOUNT_PAUSED_ERROR_NAME,
      mountId: record.id,
      message: `mount ${record.id} re-rendered ${commits} times within a second and was paused (${MOUNT_PAUSED_NOTICE}). A component that sets state on every render (useEffect without a dependency list calling a setter) loops forever; give the effect dependencies, or update at most a few times per second.`,
    });
  }

  function unmount(record: MountRecord): void {
    if (record.closed) return;
    try {
      record.root.unmount();
    } catch {
      // A throwing cleanup must not keep the mount alive.
    }
    record.table.takeOps();
    record.close();
    record.post({ type: MOUNT, kind: MOUNT_CLOSE, mountId: record.id });
    record.closed = true;
    mounts.delete(record.id);
  }

  /** The earlier mounts of a block run again (reuseMounts), and how many mounts this run made. */
  let reuse:
    { entries: { mountId: string; title?: string; titleOnly?: boolean; claimed: boolean }[]; made: number } | undefined;

  function reuseMounts(list: readonly { mountId: string; title?: string; titleOnly?: boolean }[] | undefined): void {
    reuse = list ? { entries: list.map((entry) => ({ ...entry, claimed: false })), made: 0 } : undefined;
  }

  /** The open mount an edited block's `mount()` takes over: same title first, else same position. */
  function reusable(options: MountOptions): MountRecord | undefined {
    if (!reuse) return undefined;
    const position = reuse.made;
    reuse.made += 1;
    const title = options.title !== undefined ? String(options.title) : undefined;
    const open = (entry: { mountId: string; claimed: boolean; titleOnly?: boolean } | undefined) => {
      const record = entry && !entry.claimed ? mounts.get(entry.mountId) : undefined;
      return record && !record.closed && !record.paused ? record : undefined;
    };
    const entry =
      (title !== undefined ? reuse.entries.find((item) => item.title === title && open(item)) : undefined) ??
      (open(reuse.entries[position]) && !reuse.entries[position].titleOnly ? reuse.entries[position] : undefined);
    if (!entry) return undefined;
    entry.claimed = true;
    return mounts.get(entry.mountId);
  }

  function mount(input: MountOptions | Ui): MountHandle {
    const mountOptions = normalizeOptions(input);
    const reused = reusable(mountOptions);
    if (reused) {
      warn(reused.id, [...(isUi(input) ? [] : unknownOptionWarnings(input)), ...uiPropWarnings(mountOptions.ui)]);
      if (hookSignature(reused.options.ui) !== hookSignature(mountOptions.ui)) reused.uiKey += 1;
      reused.options = mountOptions;
      for (const source of [...explicitSources(mountOptions.data), ...explicitSources(mountOptions.streamedData)])
        subscribe(source, reused);
      reused.invalidate();
      return handleOf(reused);
    }
    if (mounts.size >= MAX_OPEN_MOUNTS) {
      throw new RangeError(
        `mount(): ${MAX_OPEN_MOUNTS} mounts are already open, the limit; unmount() some, or update an existing one`,
      );
    }
    const id = `m${nextId++}`.slice(0, MAX_MOUNT_ID_LENGTH);
    const record = new MountRecord(id, mountOptions, runtime);
    mounts.set(id, record);
    warn(id, [...(isUi(input) ? [] : unknownOptionWarnings(input)), ...uiPropWarnings(mountOptions.ui)]);
    for (const source of [...explicitSources(mountOptions.data), ...explicitSources(mountOptions.streamedData)])
      subscribe(source, record);
    record.open();
    return handleOf(record);
  }

  function handleOf(record: MountRecord): MountHandle {
    const id = record.id;
    return Object.freeze({
      id,
      result: record.result,
      mountSlot(name: string, ui: Ui) {
        if (typeof name !== "string" || name === "")
          throw new TypeError('mountSlot(name, ui) needs the name of a <Slot name="…" /> in the mount');
        if (!isUi(ui)) throw new TypeError("mountSlot(name, ui) needs ui to be a component, e.g. () => <Card>…</Card>");
        if (!record.closed) record.setSlot(name, ui);
      },
      update(changes: Partial<MountOptions>) {
        if (record.closed) return;
        const next = normalizeOptions({ ...record.options, ...changes });
        if (typeof changes === "object" && changes !== null) {
          warn(record.id, [
            ...unknownOptionWarnings(changes),
            ...(changes.ui !== undefined ? uiPropWarnings(changes.ui) : []),
          ]);
        }
        record.options = next;
        for (const source of [...explicitSources(next.data), ...explicitSources(next.streamedData)])
          subscribe(source, record);
        record.invalidate();
      },
      unmount: () => unmount(record),
    });
  }

  function warn(mountId: string, warnings: string[]): void {
    for (const message of warnings)
      options.onError({
        code: "mount-warning",
        name: "MountWarning",
        message: `${message} (mount ${mountId})`,
        mountId,
      });
  }

  function callHandler(record: MountRecord, node: TableNode, handler: string, argument: unknown): void {
    const fn = node.props[handler];
    if (typeof fn !== "function") return;
    const report = (error: unknown): void => {
      const { name, message } = describeThrown(error);
      const where = record.locate(error);
      options.onError({
        code: "handler",
        name,
        message: `${message} (in ${handler} of <${node.type}> in mount ${record.id})`,
        mountId: record.id,
        component: node.type,
        handler,
        line: where?.line,
        column: where?.column,
        cause: error,
      });
    };
    try {
      const returned: unknown = renderer.discreteEvent(() => (fn as (argument: unknown) => unknown)(argument));
      if (
        typeof returned === "object" &&
        returned !== null &&
        typeof (returned as PromiseLike<unknown>).then === "function"
      ) {
        // A rejection after the handler's first await still belongs to this event.
        (returned as PromiseLike<unknown>).then(undefined, options.bindCause ? options.bindCause(report) : report);
      }
    } catch (error) {
      report(error);
    }
  }

  function handleUiEvent(message: unknown): boolean {
    const checked = validateUiEvent(message);
    if (!checked.ok) return false;
    const { mountId, nodeId, handler, payload } = checked.message;
    const record = mounts.get(mountId);
    const node = record?.table.get(nodeId);
    if (!record || record.paused || !node || !node.attached) return false;
    const argument = uiEventArgument(handler, payload, node.props, options.files);
    const cause = options.currentCause?.();
    if (cause !== undefined) {
      causes.set(cause, record);
      if (causes.size > MAX_CAUSES) causes.delete(causes.keys().next().value as number);
    }
    const previous = runtime.active;
    runtime.active = record;
    try {
      callHandler(record, node, handler, argument);
    } finally {
      runtime.active = previous;
      setRenderingSubscriber(null);
    }
    if (handler === "onSubmit" && payload.values !== undefined && !record.closed) {
      // The realm's own form flow: with an outputSchema always; without one,
      // only for forms that have no onSubmit of their own.
      if (record.options.outputSchema !== undefined || typeof node.props.onSubmit !== "function") {
        renderer.discreteEvent(() => record.submit(payload.values, true));
      }
    }
    return true;
  }

  return {
    mount,
    Slot: Slot as (props: { name: string; fallback?: ReactNode }) => ReactNode,
    handleUiEvent,
    frame,
    useState: causedUseState,
    useReducer: causedUseReducer,
    useEffect: chargedUseEffect,
    useLayoutEffect: chargedUseLayoutEffect,
    caller() {
      const cause = options.currentCause?.();
      const record = runtime.active ?? (cause !== undefined ? causes.get(cause) : undefined);
      return record
        ? {
            id: record.id,
            get paused() {
              return record.paused;
            },
          }
        : undefined;
    },
    onPause(listener) {
      pauseListeners.push(listener);
    },
    reuseMounts,
    stopWaiting() {
      for (const record of mounts.values()) record.stopWaiting();
    },
    unmountAll() {
      for (const record of [...mounts.values()]) unmount(record);
    },
  };
}
