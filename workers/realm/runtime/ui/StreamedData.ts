/**
 * `new StreamedData(id)`: the target of ```` ```json agent.data => "id" ````.
 *
 *   const sales = new StreamedData("sales");
 *   sales.value          // current value: undefined before the first fence,
 *                        // then growing (arrays gain items, strings grow;
 *                        // numbers appear only complete)
 *   sales.streaming      // a fence is open
 *   await sales.done     // the value once the current (or, if none has come
 *                        // yet, the next) fence completes; rejects when it
 *                        // was malformed or truncated, once the last valid
 *                        // value is in place (a catch handler can read it)
 *   JSON.stringify(sales), [...sales], sales.length, sales.map(...), sales.rows
 *                        // read through to the current value
 *
 * Each fence replaces the value; the previous value stays until the new
 * fence produces its first token (no flash of emptiness). Malformed JSON
 * stops that fence: the last valid partial value stays and the fence reports
 * `data-invalid`. Mounts that read the value re-render at most once per
 * frame while it grows.
 *
 * The value is immutable-looking: each frame's value is a new object where
 * something changed (the incomplete spine), complete parts keep their
 * identity (jsonFeed.ts). Don't mutate it; copy it into a Data to edit.
 *
 * Read-through: any property that is not part of the API (`id`, `value`,
 * `streaming`, `done`, `error`, `toJSON`) is read from the current value,
 * methods bound to it, so `sales.map(...)` and `sales.length` work on an
 * array and `sales.total` on an object; `Object.keys(sales)` lists the
 * value's keys. API names win over the value's own keys (`sales.id` is the
 * target id, also in `{ ...sales }`): use `sales.value` for an exact copy.
 * A StreamedData is never thenable.
 */
import { createDeferred, type Deferred } from "../../../../src/wire/createDeferred";
import type { ExecError } from "../../../../src/wire/events";
import { createJsonFeed, type JsonFeed } from "./jsonFeed";
import { notify, trackRead, type ReactiveSource, type Subscriber } from "./tracking";

/** What the executor drives for one fence (ExecutorOptions.openDataTarget). */
export interface DataSink {
  push(delta: string): void;
  end(unterminated: boolean): ExecError | void;
}

export interface StreamedDataRegistry {
  /** The sink for a new fence into `id`, or undefined when no StreamedData has that id. */
  open(id: string): DataSink | undefined;
  /** Streamed data targets currently registered. */
  ids(): string[];
}

export interface StreamedDataOptions {
  /** A second `new StreamedData(id)` took the id over from an older one. */
  onDuplicate(id: string): void;
  scheduleWake?(wake: () => void): void;
}

export type StreamedDataConstructor = new (id: string) => StreamedDataInstance;

export interface StreamedDataInstance {
  readonly id: string;
  readonly value: unknown;
  readonly streaming: boolean;
  readonly done: Promise<unknown>;
  readonly error: { code: "data-invalid"; message: string } | undefined;
  toJSON(): unknown;
  [Symbol.iterator](): Iterator<unknown>;
  [key: string]: unknown;
}

const MAX_ID_LENGTH = 200;

class StreamedDataError extends Error {
  readonly code = "data-invalid";
  constructor(message: string) {
    super(message);
    this.name = "StreamedDataError";
  }
}

/** The state behind one StreamedData (the instance itself is a read-through proxy). */
class StreamState implements ReactiveSource {
  readonly subscribers = new Set<Subscriber>();
  /** Settled value for the API; undefined until the first token. */
  current: unknown = undefined;
  /** The open fence's parser, while streaming. */
  feed: JsonFeed | undefined;
  /** `current` is older than the feed's progress. */
  stale = false;
  streaming = false;
  error: { code: "data-invalid"; message: string } | undefined;
  /** Waiters for the open (or next) fence. */
  pending: Deferred<unknown> | undefined;
  /** The outcome of the last finished fence. */
  settled: Promise<unknown> | undefined;
  fence = 0;

  constructor(
    readonly id: string,
    private readonly scheduleWake?: (wake: () => void) => void,
  ) {}

  isStreaming(): boolean {
    return this.streaming;
  }

  read(): unknown {
    trackRead(this);
    if (this.stale && this.feed) {
      this.stale = false;
      this.current = this.feed.snapshot();
    }
    return this.current;
  }

  open(): DataSink {
    this.feed?.cancel();
    const fence = ++this.fence;
    let failure: unknown;
    const feed = createJsonFeed({
      onProgress: () => {
        if (this.fence !== fence) return;
        this.stale = true;
        notify(this);
      },
      onError: (error) => {
        if (this.fence !== fence) return;
        failure = error;
      },
      scheduleWake: this.scheduleWake,
    });
    this.feed = feed;
    this.streaming = true;
    this.error = undefined;
    this.settled = undefined;
    notify(this);

    return {
      push: (delta) => {
        if (this.fence !== fence || failure !== undefined) return;
        feed.push(delta);
      },
      end: (unterminated) => {
        if (this.fence !== fence) return undefined;
        // The parser runs a few microtasks behind; the end must be decided
        // now, so the whole text is checked once (O(n), once per fence).
        const text = feed.text();
        let parsed: { value: unknown } | undefined;
        let problem: string | undefined;
        try {
          parsed = { value: JSON.parse(text) };
        } catch (error) {
          problem =
            text.trim() === ""
              ? "the data block is empty"
              : unterminated
                ? "the data block ended before its JSON was complete"
                : `malformed JSON${lineOf(text, error)}: ${error instanceof Error ? error.message : String(failure)}`;
        }
        return this.finish(fence, parsed, problem);
      },
    };
  }

  private finish(fence: number, parsed: { value: unknown } | undefined, problem: string | undefined): ExecError | void {
    const feed = this.feed!;
    this.streaming = false;
    const waiters = this.pending;
    this.pending = undefined;
    if (parsed) {
      feed.cancel();
      this.feed = undefined;
      this.stale = false;
      this.current = parsed.value;
      this.settled = Promise.resolve(parsed.value);
      waiters?.resolve(parsed.value);
      notify(this);
      return undefined;
    }
    const message = `StreamedData ${JSON.stringify(this.id)}: ${problem}; the last valid value is kept`;
    this.error = { code: "data-invalid", message };
    const error = new StreamedDataError(message);
    // Keep the last valid partial value: let the parser finish what it was
    // given (it stops at the error), then stop listening. `done` rejects
    // only after that, so a waiter reading `value` sees what was kept:
    //   part.done.catch(() => part.value)   // [{"a": 1}, {"a": 2}], not undefined
    const kept = feed.idle().then(() => {
      if (this.fence !== fence) return;
      // jsonriver builds in place: what it parsed before the error counts even if it never yielded it.
      if (feed.hasValue()) {
        this.stale = true;
        this.read();
      }
      feed.cancel();
      if (this.feed === feed) this.feed = undefined;
      notify(this);
    });
    const settled = kept.then(() => Promise.reject(error));
    settled.catch(() => {});
    this.settled = settled;
    if (waiters) settled.catch((reason: unknown) => waiters.reject(reason));
    notify(this);
    return { code: "data-invalid", name: "StreamedDataError", message, block: 0 };
  }

  done(): Promise<unknown> {
    if (!this.streaming && this.settled) return this.settled;
    this.pending ??= createDeferred<unknown>();
    return this.pending.promise;
  }
}

/** " at line k of the data block", when JSON.parse said where. */
function lineOf(text: string, error: unknown): string {
  const match = error instanceof Error ? /position (\d+)/.exec(error.message) : null;
  if (!match) return "";
  let line = 1;
  const end = Math.min(Number(match[1]), text.length);
  for (let index = 0; index < end; index += 1) if (text.charCodeAt(index) === 10) line += 1;
  return ` at line ${line} of the data block`;
}

const states = new WeakMap<object, StreamState>();

/** The reactive state behind a StreamedData (for serialization and subscriptions); undefined for anything else. */
export function streamStateOf(value: unknown): (ReactiveSource & { read(): unknown }) | undefined {
  return typeof value === "object" && value !== null ? states.get(value) : undefined;
}

/** Resolves once every delta pushed so far has been parsed (benchmarks, tests). */
export function streamIdle(value: unknown): Promise<void> {
  const state = typeof value === "object" && value !== null ? states.get(value) : undefined;
  return state?.feed?.idle() ?? Promise.resolve();
}

/** Resolves once the parser has parsed what it was handed, without handing it what is queued for its next wake (the JSON bench: the end of a task). */
export function streamDrained(value: unknown): Promise<void> {
  const state = typeof value === "object" && value !== null ? states.get(value) : undefined;
  return state?.feed?.drained() ?? Promise.resolve();
}

const API: ReadonlySet<PropertyKey> = new Set([
  "id",
  "value",
  "streaming",
  "done",
  "error",
  "toJSON",
  Symbol.iterator,
  Symbol.toStringTag,
]);

export function createStreamedDataClass(options: StreamedDataOptions): {
  StreamedData: StreamedDataConstructor;
  registry: StreamedDataRegistry;
} {
  const byId = new Map<string, StreamState>();

  function api(state: StreamState, key: PropertyKey): unknown {
    switch (key) {
      case "id":
        return state.id;
      case "value":
        return state.read();
      case "streaming":
        trackRead(state);
        return state.streaming;
      case "done":
        return state.done();
      case "error":
        trackRead(state);
        return state.error;
      case "toJSON":
        return () => state.read();
      case Symbol.iterator:
        return function* iterate(): Generator<unknown> {
          const value = state.read();
          if (
            value !== null &&
            typeof value === "object" &&
            typeof (value as Iterable<unknown>)[Symbol.iterator] === "function"
          ) {
            yield* value as Iterable<unknown>;
          }
        };
      case Symbol.toStringTag:
        return "StreamedData";
      default:
        return undefined;
    }
  }

  function valueObject(state: StreamState): Record<PropertyKey, unknown> | undefined {
    const value = state.read();
    return typeof value === "object" && value !== null ? (value as Record<PropertyKey, unknown>) : undefined;
  }

  const handler: ProxyHandler<object> = {
    get(target, key) {
      const state = states.get(target)!;
      if (API.has(key)) return api(state, key);
      // Never thenable: `await sd` must not hang or resolve to the value by accident.
      if (key === "then" || typeof key === "symbol") return undefined;
      const value = valueObject(state);
      if (!value) return undefined;
      const member = value[key];
      return typeof member === "function" ? member.bind(value) : member;
    },
    has(target, key) {
      if (API.has(key)) return true;
      const value = valueObject(states.get(target)!);
      return value !== undefined && key in value;
    },
    ownKeys(target) {
      const value = valueObject(states.get(target)!);
      return value ? Reflect.ownKeys(value).filter((key) => typeof key === "string") : [];
    },
    getOwnPropertyDescriptor(target, key) {
      const value = valueObject(states.get(target)!);
      if (!value || typeof key === "symbol" || !Object.hasOwn(value, key)) return undefined;
      return { value: value[key], enumerable: true, configurable: true, writable: false };
    },
    set() {
      throw new TypeError("A StreamedData is read-only: its value comes from `json agent.data` blocks");
    },
    deleteProperty() {
      throw new TypeError("A StreamedData is read-only: its value comes from `json agent.data` blocks");
    },
    defineProperty() {
      throw new TypeError("A StreamedData is read-only: its value comes from `json agent.data` blocks");
    },
  };

  const StreamedData = function StreamedData(this: unknown, id: unknown) {
    if (!new.target) throw new TypeError('StreamedData is a class: write new StreamedData("id")');
    if (typeof id !== "string" || id.length === 0 || id.length > MAX_ID_LENGTH) {
      throw new TypeError(
        'new StreamedData(id) needs a non-empty string id, the one the data block names: ```json agent.data => "id"',
      );
    }
    const state = new StreamState(id, options.scheduleWake);
    // The proxy target is a bare object with StreamedData.prototype, so
    // `instanceof` works and nothing of the state is reachable from it.
    const target = Object.create(StreamedData.prototype) as object;
    states.set(target, state);
    const proxy = new Proxy(target, handler);
    states.set(proxy, state);
    if (byId.has(id)) options.onDuplicate(id);
    byId.set(id, state);
    return proxy;
  } as unknown as StreamedDataConstructor;

  const registry: StreamedDataRegistry = {
    open: (id) => byId.get(id)?.open(),
    ids: () => [...byId.keys()],
  };
  return { StreamedData, registry };
}
