/**
 * The host side of the sandbox (DESIGN.md §3): owns the hidden iframe, the
 * realm's MessagePort and the watchdog, and turns the realm's validated
 * messages into RealmEvents.
 *
 * Lifecycle of one realm: fetch the bundle (once per host) → iframe loads
 * sandbox.html at an opaque origin → hello → we post the bundle and port →
 * the sandbox starts the worker → READY (after Babel warm-up) → heartbeat
 * probes until the realm is reset or the host disposed. A reset removes the
 * iframe, which kills the worker and everything model code started in it.
 *
 * Invariants:
 *  1. Nothing of the host is reachable from the realm: it only ever receives
 *     plain HostMessages and its bundle.
 *  2. Every message from the realm is validated; invalid ones are dropped and
 *     reported as `realm-error`.
 *  3. At most one realm is current; messages from an older one are ignored
 *     (its port is closed before the next starts).
 *  4. After a reset, pending requests reject with `realm-reset` and the rest
 *     of the interrupted reply is dropped until the next beginReply().
 *  5. A spare realm (if enabled) is booted and warm but has never received a
 *     command; it becomes current only at a reset, so a reset costs a swap,
 *     not a Babel load. It is started a while after the current realm is
 *     ready, so it never competes with the first start.
 */
import { ABORT, BLOCK, FLUSH, SERVICE_NAME_PATTERN, TOOLS, WIRE_VERSION } from "../wire/constants";
import type { ToolDescriptor } from "../wire/capabilities";
import { createDeferred } from "../wire/createDeferred";
import type { ExecEvent } from "../wire/events";
import { UI_EVENT, type MountRealmMessage } from "../wire/mount";
import type { HostMessage } from "../wire/types";
import { createRealmConnection, type RealmConnection } from "./createRealmConnection";
import { createSandboxFrame, type SandboxFrame } from "./createSandboxFrame";
import { takeEarlyRealm } from "./earlyRealm";
import { loadRealmBundle } from "./loadRealmBundle";
import { RealmHostError } from "./RealmHostError";
import { STARTING, isBooted, nextRealmPhase, type RealmPhase, type RealmPhaseEvent } from "./realmPhase";
import type {
  FlushOptions,
  HostService,
  RealmErrorCode,
  RealmEvent,
  RealmHost,
  RealmHostOptions,
  RealmResetReason,
  RunningStatement,
} from "./types";

export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 3_000;
/**
 * Silence after which a realm running a statement counts as stuck: guarded
 * code pulses while it runs (createRealmConnection.ts), so this silence is
 * code no guard reaches. With the interval below, a stuck realm is replaced
 * within about a second.
 */
export const DEFAULT_BUSY_TIMEOUT_MS = 750;
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 100;
/**
 * While no statement runs the probing is this many times slower (500 ms by
 * default): an idle realm is judged by the 3 s limit alone, and the probes
 * were ~20 tasks a second on the page's thread for as long as it was open.
 */
const IDLE_HEARTBEAT_FACTOR = 5;
export const DEFAULT_ABORT_TIMEOUT_MS = 1_000;
export const DEFAULT_BOOT_TIMEOUT_MS = 15_000;
export const DEFAULT_FLUSH_TIMEOUT_MS = 60_000;
/** A `performance.mark` made each time a realm becomes ready; `detail` is the `ready` event. */
export const REALM_READY_MARK = "livemark:realm-ready";
/**
 * A `performance.mark` made when a realm host is created: a realm's READY
 * counts from when its host listens, so on the app's page the first ready is
 * never before this (the app creates its host in its first render).
 */
export const REALM_HOST_MARK = "livemark:realm-host";
/** Consecutive failed starts before ready() gives up. */
const MAX_BOOT_ATTEMPTS = 3;
/** Malformed-message reports per realm; a flood beyond this is dropped silently. */
const MAX_INVALID_REPORTS = 20;
/** After a worker `error` event, how long a live realm has to answer a probe. */
const CRASH_PROBE_MS = 1_000;
/** How long the sandbox document has to answer when the realm went silent. */
const DOCUMENT_PING_MS = 500;
/** Delay between a realm becoming current and ready, and starting its spare. */
const SPARE_DELAY_MS = 1_000;
/** Failed spare starts before the host stops keeping one. */
const MAX_SPARE_FAILURES = 3;

interface Realm {
  /** Session-unique name of this realm: the first half of every mount id it makes (see qualifyMountId). */
  key: string;
  connection: RealmConnection;
  frame?: SandboxFrame;
  /** Where it is in its life (realmPhase.ts); changed only through `advance`. */
  phase: RealmPhase;
  timings: { loadMs: number; setupMs: number };
  bootTimer?: ReturnType<typeof setTimeout>;
  invalidReports: number;
  /** performance.now() when it started, or became current after a reset (the kill). */
  startedAt: number;
}

/**
 * Mount identity. The realm numbers its mounts `m1`, `m2`, … and a fresh
 * realm (reload, reset, Revive, session switch) starts again at `m1`, so the
 * host names each mount `<realm key>:<realm's id>`, with a random key per
 * realm: two realms of one session can never share a mount id, on screen or
 * in storage. Saved mounts with bare ids (older exports) keep them and never
 * collide with a qualified one.
 */
export function qualifyMountId(realmKey: string, mountId: string): string {
  return `${realmKey}:${mountId}`;
}

/** The realm's own id of a host mount id, or undefined when another realm made it. */
export function localMountId(realmKey: string, mountId: string): string | undefined {
  const prefix = `${realmKey}:`;
  return mountId.startsWith(prefix) ? mountId.slice(prefix.length) : undefined;
}

/** The one writer of a realm's phase. */
function advance(realm: Realm, event: RealmPhaseEvent): void {
  realm.phase = nextRealmPhase(realm.phase, event);
}

function newRealmKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `r${Array.from(bytes, (byte) => (byte % 36).toString(36)).join("")}`;
}

export function createRealmHost(options: RealmHostOptions = {}): RealmHost {
  performance.mark(REALM_HOST_MARK);
  const heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_TIMEOUT_MS;
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const abortTimeoutMs = options.abortTimeoutMs ?? DEFAULT_ABORT_TIMEOUT_MS;
  const bootTimeoutMs = options.bootTimeoutMs ?? DEFAULT_BOOT_TIMEOUT_MS;
  const realmUrl = options.realmUrl ?? new URL("generated/realm.js", document.baseURI).href;
  const sandboxUrl = options.sandboxUrl ?? new URL("sandbox.html", document.baseURI).href;
  const container = options.container ?? document.body;
  const keepSpare = options.spare ?? true;

  const listeners = new Set<(event: RealmEvent) => void>();
  const mountListeners = new Set<(message: MountRealmMessage) => void>();
  const services = new Map<string, HostService>();
  /** The connected tools; every realm gets them first thing (the port keeps order). */
  let tools: ToolDescriptor[] = [];
  let requestId = 0;
  /** `flush()` calls and stop requests not yet settled (activity(), read by the test probe). */
  let flushing = 0;
  let stopping = 0;
  const nextId = () => ++requestId;
  let bundle: Promise<Blob> | undefined;
  let readiness = createDeferred();
  let disposed = false;
  let bootAttempts = 0;
  let running: RunningStatement | undefined;
  /** Set by a reset: the interrupted reply's remaining commands are dropped. */
  let dropping = false;
  let spare: Realm | undefined;
  let spareTimer: ReturnType<typeof setTimeout> | undefined;
  let spareFailures = 0;
  let current!: Realm;
  current = startRealm();

  function emit(event: RealmEvent): void {
    notify(listeners, event);
  }

  function notify<T>(targets: Set<(value: T) => void>, value: T): void {
    for (const listener of [...targets]) {
      try {
        listener(value);
      } catch (error) {
        // One broken listener must not starve the others or the watchdog.
        if (typeof reportError === "function") reportError(error);
        else console.error(error);
      }
    }
  }

  function realmError(code: RealmErrorCode, message: string): void {
    emit({ type: "realm-error", code, message });
  }

  function loadBundle(): Promise<Blob> {
    // Fetched by script, never preloaded by a <link rel=preload> in
    // index.html: with the preload, Chromium sometimes resolved our fetch()
    // with 200 and then rejected `response.blob()` ("Failed to fetch"),
    // 2–7 page loads in 30. Transient failures are retried with backoff.
    bundle ??= loadRealmBundle(realmUrl);
    bundle.catch(() => (bundle = undefined)); // retry on the next start
    return bundle;
  }

  function role(realm: Realm): "current" | "spare" | "gone" {
    if (disposed) return "gone";
    return realm === current ? "current" : realm === spare ? "spare" : "gone";
  }

  function startRealm(): Realm {
    // The page's first realm may already be loading (src/boot.ts): take it over.
    const early = takeEarlyRealm({ realmUrl, sandboxUrl, container });
    const channel = early ? undefined : new MessageChannel();
    const realm: Realm = {
      key: newRealmKey(),
      connection: undefined as unknown as RealmConnection,
      phase: STARTING,
      timings: { loadMs: 0, setupMs: 0 },
      invalidReports: 0,
      startedAt: early?.startedAt ?? performance.now(),
    };
    realm.connection = createRealmConnection({
      port: early?.port ?? channel!.port1,
      held: early?.takeHeld(),
      nextId,
      // A spare has run no code, so it asks for nothing.
      service: (name) => (role(realm) === "current" ? services.get(name) : undefined),
      handlers: {
        onReady(version, timings) {
          const is = role(realm);
          if (is === "gone" || realm.phase.name !== "starting") return;
          if (version !== WIRE_VERSION) {
            const message = `the realm speaks wire version ${version}, the app ${WIRE_VERSION}: reload the page`;
            if (is === "spare") return discardSpare(realm, MAX_SPARE_FAILURES);
            stopRealm(realm, new RealmHostError("version-mismatch", message));
            readiness.reject(new RealmHostError("version-mismatch", message));
            realmError("version-mismatch", message);
            return;
          }
          advance(realm, { type: "ready" });
          realm.timings = timings;
          clearTimeout(realm.bootTimer);
          if (is === "current") activate(realm);
        },
        onEvent(event) {
          // A spare has run nothing; anything from it is ignored.
          if (role(realm) !== "current") return;
          track(event);
          if (event.type === "statement-start") realm.connection.busyNow();
          emit(event);
        },
        onMount(message) {
          if (role(realm) === "current")
            notify(mountListeners, { ...message, mountId: qualifyMountId(realm.key, message.mountId) });
        },
        onInvalid(reason) {
          if (role(realm) !== "current") return;
          realm.invalidReports += 1;
          if (realm.invalidReports <= MAX_INVALID_REPORTS) {
            realmError("malformed-message", `dropped a message from the realm: ${reason}`);
          }
        },
        onUnresponsive() {
          const is = role(realm);
          if (is === "spare") return discardSpare(realm);
          if (is !== "current") return;
          if (!isBooted(realm.phase)) return retryBoot(realm, "did not answer");
          // Stuck or dead? The sandbox document shares the worker's process
          // but not its thread: it still answers if only the worker is stuck.
          const frame = realm.frame;
          void (frame ? frame.ping(DOCUMENT_PING_MS) : Promise.resolve(false)).then((documentAlive) => {
            const crashed = !documentAlive || (realm.phase.name !== "stopped" && realm.phase.workerError);
            if (role(realm) === "current") resetRealm(crashed ? "crashed" : "unresponsive");
          });
        },
        onClosed() {
          const is = role(realm);
          if (is === "spare") return discardSpare(realm);
          if (is !== "current") return;
          if (isBooted(realm.phase)) resetRealm("crashed");
          else retryBoot(realm, "closed its port");
        },
      },
    });
    // Waits in the port until the realm listens, like any command sent before READY.
    sendTools(realm);
    realm.bootTimer = setTimeout(() => {
      if (isBooted(realm.phase)) return;
      const is = role(realm);
      if (is === "current") retryBoot(realm, `was not ready within ${bootTimeoutMs} ms`);
      else if (is === "spare") discardSpare(realm);
    }, bootTimeoutMs);
    const onWorkerError = () => {
      // Model code can make the worker fire `error` at will, so the text
      // is ignored; only a realm that then stays silent is dead.
      advance(realm, { type: "worker-error" });
      if (role(realm) === "current" && isBooted(realm.phase)) realm.connection.probe(CRASH_PROBE_MS);
    };
    let blob: Promise<Blob>;
    if (early) {
      // Its fetch is this host's bundle too (a failed one is fetched again by the next start).
      blob = bundle ??= early.bundle;
      blob.catch(() => (bundle = undefined));
      early.onWorkerError(onWorkerError);
      realm.frame = early.frame;
    } else {
      blob = loadBundle();
      realm.frame = createSandboxFrame({ container, sandboxUrl, bundle: blob, port: channel!.port2, onWorkerError });
    }
    blob.catch((error: unknown) => {
      const is = role(realm);
      if (is === "spare") return discardSpare(realm);
      if (is !== "current") return;
      const failure =
        error instanceof RealmHostError
          ? error
          : new RealmHostError("bundle-unavailable", `could not load the realm from ${realmUrl}`, { cause: error });
      stopRealm(realm, failure);
      // Settled first, so status() already says "failed" to listeners.
      readiness.reject(failure);
      realmError("bundle-unavailable", failure.message);
    });
    return realm;
  }

  /** The current realm is booted: start watching it and tell everyone. */
  function activate(realm: Realm): void {
    const before = realm.phase;
    advance(realm, { type: "activate" });
    bootAttempts = 0;
    realm.connection.startHeartbeat({
      intervalMs: heartbeatIntervalMs,
      idleIntervalMs: IDLE_HEARTBEAT_FACTOR * heartbeatIntervalMs,
      timeoutMs: heartbeatTimeoutMs,
      // Only the current realm runs statements; `running` is its.
      busy: { timeoutMs: busyTimeoutMs, isBusy: () => running !== undefined && realm === current },
    });
    if (before.name === "warm" && before.stopAsked) requestStop(realm);
    readiness.resolve();
    const ready = { type: "ready", startMs: performance.now() - realm.startedAt, ...realm.timings } as const;
    // For tools and benchmarks that look at the page, not at this host.
    performance.mark(REALM_READY_MARK, { detail: { ...ready } });
    emit(ready);
    scheduleSpare();
  }

  function stopRealm(realm: Realm, reason: RealmHostError): void {
    advance(realm, { type: "stop" });
    clearTimeout(realm.bootTimer);
    realm.connection.close(reason);
    realm.frame?.remove();
  }

  function scheduleSpare(): void {
    if (!keepSpare || disposed || spare || spareTimer !== undefined || spareFailures >= MAX_SPARE_FAILURES) return;
    spareTimer = setTimeout(() => {
      spareTimer = undefined;
      if (!disposed && !spare && current.phase.name === "active") spare = startRealm();
    }, SPARE_DELAY_MS);
  }

  function discardSpare(realm: Realm, failures = 1): void {
    if (spare !== realm) return;
    spare = undefined;
    spareFailures += failures;
    stopRealm(realm, new RealmHostError("boot-failed", "the spare realm did not start"));
    scheduleSpare();
  }

  function retryBoot(realm: Realm, what: string): void {
    bootAttempts += 1;
    const failure = new RealmHostError(
      "boot-failed",
      `the realm ${what} (attempt ${bootAttempts} of ${MAX_BOOT_ATTEMPTS})`,
    );
    stopRealm(realm, failure);
    if (bootAttempts >= MAX_BOOT_ATTEMPTS) {
      readiness.reject(failure);
      realmError("boot-failed", failure.message);
      return;
    }
    current = startRealm();
  }

  function resetRealm(reason: RealmResetReason, detail?: string): Promise<void> {
    const interrupted = running;
    running = undefined;
    dropping = true;
    stopRealm(
      current,
      new RealmHostError("realm-reset", `the realm was reset (${reason})`, {
        details: { reason, running: interrupted },
      }),
    );
    if (readiness.settled) readiness = createDeferred();
    bootAttempts = 0;
    const next = spare ?? startRealm();
    spare = undefined;
    // For the record, a reset takes from the kill to the next realm's ready.
    next.startedAt = performance.now();
    current = next;
    const event: RealmEvent = { type: "realm-reset", reason };
    if (interrupted) event.running = interrupted;
    if (detail !== undefined) event.detail = detail;
    emit(event);
    if (next.phase.name === "warm" && role(next) === "current") activate(next);
    return readiness.promise;
  }

  function track(event: ExecEvent): void {
    if (event.type === "statement-start") {
      running = { block: event.block, statement: event.statement, source: event.source };
    } else if (
      event.type === "statement-end" &&
      running?.block === event.block &&
      running.statement === event.statement
    ) {
      running = undefined;
    }
  }

  /** Ask the realm to stop; reset it if it has not within abortTimeoutMs. */
  function requestStop(realm: Realm): void {
    stopping += 1;
    realm.connection
      .request(ABORT, { timeoutMs: abortTimeoutMs })
      .catch((error: unknown) => {
        if (error instanceof RealmHostError && error.code === "timeout" && role(realm) === "current") {
          resetRealm("unresponsive", `did not stop within ${abortTimeoutMs} ms of abort()`);
        }
      })
      .finally(() => void (stopping -= 1));
  }

  /**
   * The tools, whole, to one realm (its TOOLS method; the call waits in the
   * port until the realm listens). The realm answers `null`; a realm that
   * ends first ends the call with it, which is nothing to report.
   */
  function sendTools(realm: Realm): void {
    realm.connection.request(TOOLS, { payload: { tools } }).catch(() => undefined);
  }

  function send(message: HostMessage): void {
    if (disposed || dropping) return;
    current.connection.send(message);
  }

  return {
    ready: () => readiness.promise,

    beginReply() {
      if (disposed) return;
      dropping = false;
      send({ type: BLOCK, event: { type: "begin-reply" } });
    },
    sendBlock(event) {
      // An edited block's earlier mounts, by the realm's own ids; another realm's are gone.
      if (event.type === "block-start" && event.kind === "code" && event.reuse) {
        const reuse = event.reuse.flatMap((entry) => {
          const mountId = localMountId(current.key, entry.mountId);
          return mountId === undefined ? [] : [{ ...entry, mountId }];
        });
        send({ type: BLOCK, event: { ...event, reuse } });
        return;
      }
      send({ type: BLOCK, event });
    },

    flush(timeoutMs = DEFAULT_FLUSH_TIMEOUT_MS, flushOptions: FlushOptions = {}) {
      if (disposed) return Promise.reject(new RealmHostError("disposed", "the realm host was disposed"));
      flushing += 1;
      const settled = current.connection.request(FLUSH, { timeoutMs, signal: flushOptions.signal });
      const done = () => void (flushing -= 1);
      settled.then(done, done);
      return settled;
    },

    abort() {
      if (disposed) return;
      // Stop ends what the realm is waiting for from us, too.
      current.connection.endServiceRequests({ code: "aborted", message: "stopped by the person" });
      // A realm still starting runs nothing yet: its deadline starts at READY.
      if (current.phase.name === "active") requestStop(current);
      else advance(current, { type: "abort" });
    },

    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },

    subscribeMounts(listener) {
      mountListeners.add(listener);
      return () => void mountListeners.delete(listener);
    },

    sendUiEvent(event) {
      // Not `send`: UI events are not part of a reply, so a reset's dropping
      // does not apply; but an old realm's mounts are gone, and a realm that
      // is not active yet has none.
      if (disposed || current.phase.name !== "active") return;
      // A mount of an earlier realm (or a restored snapshot) has no handler here.
      const mountId = localMountId(current.key, event.mountId);
      if (mountId === undefined) return;
      current.connection.send({ ...event, type: UI_EVENT, mountId });
    },

    provide(name, service) {
      if (!SERVICE_NAME_PATTERN.test(name))
        throw new TypeError(`"${name}" is not a service name (${SERVICE_NAME_PATTERN})`);
      services.set(name, service);
      return () => {
        if (services.get(name) === service) services.delete(name);
      };
    },

    tell(method, payload) {
      if (disposed) return;
      current.connection.request(method, { payload: payload ?? null }).catch(() => undefined);
    },

    setTools(next) {
      tools = next;
      if (disposed) return;
      sendTools(current);
      if (spare) sendTools(spare);
    },

    reset(reason) {
      if (disposed) return Promise.reject(new RealmHostError("disposed", "the realm host was disposed"));
      return resetRealm("requested", reason);
    },

    restart() {
      if (disposed) return Promise.reject(new RealmHostError("disposed", "the realm host was disposed"));
      // A realm that never started had no state to lose: start afresh
      // without a `realm-reset` (nothing was reset). A live one is reset.
      const active = current.phase.name === "active";
      if (active || !readiness.settled) return active ? resetRealm("requested", "restart") : readiness.promise;
      readiness = createDeferred();
      bootAttempts = 0;
      current = startRealm();
      return readiness.promise;
    },

    status() {
      const realm = disposed
        ? "disposed"
        : current.phase.name === "active"
          ? "ready"
          : readiness.settled
            ? "failed"
            : "starting";
      return { realm, spare: !spare ? "none" : isBooted(spare.phase) ? "ready" : "starting" };
    },

    activity() {
      return { running: running !== undefined, flushing, stopping, spareScheduled: spareTimer !== undefined };
    },

    dispose() {
      if (disposed) return;
      disposed = true;
      const error = new RealmHostError("disposed", "the realm host was disposed");
      clearTimeout(spareTimer);
      if (spare) stopRealm(spare, error);
      spare = undefined;
      stopRealm(current, error);
      if (!readiness.settled) readiness.reject(error);
      listeners.clear();
      mountListeners.clear();
    },
  };
}
