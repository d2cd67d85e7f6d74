/** Public types of the host side of the sandbox. */
import type { ExecEvent } from "../wire/events";
import type { BlockEvent } from "../wire/types";
import type { RealmCapabilityMethod, ToolDescriptor } from "../wire/capabilities";
import type { JsonValue, MountRealmMessage, UiEventMessage } from "../wire/mount";

/**
 * A host service the realm can call (a CALL of its name, src/wire/types.ts).
 * `payload` has been validated as JSON; the answer must be JSON too. `signal`
 * aborts when the realm withdraws the request, it times out, the reply is
 * stopped or the realm is reset: stop working then (the answer is dropped).
 * Throw a HostServiceError to answer with a code of your own.
 */
export type HostService = (payload: JsonValue, context: HostServiceContext) => JsonValue | Promise<JsonValue>;

export interface HostServiceContext {
  signal: AbortSignal;
  service: string;
}

export type RealmResetReason =
  /** No heartbeat within the timeout, or it did not stop within ~1 s of abort(). */
  | "unresponsive"
  /** The worker died (out of memory, a crash). */
  | "crashed"
  /** reset() was called. */
  | "requested";

/** The statement that was running when the realm went away: its statement-start had no statement-end. */
export interface RunningStatement {
  block: number;
  statement: number;
  source: string;
}

export type RealmErrorCode =
  /** A message from the realm failed validation (or answered no request) and was dropped. */
  | "malformed-message"
  /** The realm speaks another wire version (a stale realm.js). */
  | "version-mismatch"
  /** generated/realm.js could not be fetched. */
  | "bundle-unavailable"
  /** The realm did not become ready after repeated attempts. */
  | "boot-failed";

export type RealmEvent =
  | ExecEvent
  /**
   * The realm was thrown away and a fresh one is starting: every binding,
   * mount and timer of the session is gone. Commands of the interrupted reply
   * are dropped until the next beginReply().
   */
  | { type: "realm-reset"; reason: RealmResetReason; running?: RunningStatement; detail?: string }
  /**
   * A realm (the first or a fresh one after a reset) is listening.
   * `startMs`: from starting it (or killing its predecessor) to ready; of
   * that, `loadMs` went to evaluating the bundle in the worker and `setupMs`
   * to the realm's set-up after it. (Babel's warm-up follows READY in the
   * worker: what the host sends first waits for it there.)
   */
  | { type: "ready"; startMs: number; loadMs: number; setupMs: number }
  /** Something the host refused or could not do; the realm may still be usable. */
  | { type: "realm-error"; code: RealmErrorCode; message: string };

export interface RealmHostOptions {
  /** Where the hidden iframe goes. Default: document.body. */
  container?: HTMLElement;
  /** Silence after which a ready realm counts as stuck. Default 3000 ms. */
  heartbeatTimeoutMs?: number;
  /**
   * Silence after which a realm that is running a statement counts as stuck
   * (guarded code sends busy pulses; code no guard reaches is silent).
   * Default 750 ms.
   */
  busyTimeoutMs?: number;
  /** How often the host probes the realm while a statement runs (five times less often otherwise). Default 100 ms. */
  heartbeatIntervalMs?: number;
  /** How long abort() waits for the realm to stop before resetting it. Default 1000 ms. */
  abortTimeoutMs?: number;
  /** How long one attempt to start a realm may take. Default 15000 ms. */
  bootTimeoutMs?: number;
  /**
   * Keep a warm spare realm so a reset is a swap instead of a Babel load
   * (costs a second worker's memory, ~tens of MB). Default true.
   */
  spare?: boolean;
  /** Default `generated/realm.js` relative to the document (works from dev, dist and any sub-path). */
  realmUrl?: string;
  /** Default `sandbox.html` relative to the document. */
  sandboxUrl?: string;
}

export interface RealmHostStatus {
  /** The current realm: still starting, or warm and listening. */
  realm: "starting" | "ready" | "failed" | "disposed";
  /** The warm spare a reset would swap in. */
  spare: "none" | "starting" | "ready";
}

/** What the current realm is doing, read-only (the test probe, src/testProbe.ts). */
export interface RealmActivity {
  /** A statement is running (its `statement-start` came, its end not yet). */
  running: boolean;
  /** `flush()` calls not yet settled: code sent to the realm that has not finished. */
  flushing: number;
  /** Stop requests (`abort()`) not yet answered: until each is, a reset for not stopping may follow. */
  stopping: number;
  /** A spare realm is due to start (its delay is running). */
  spareScheduled: boolean;
}

export interface FlushOptions {
  signal?: AbortSignal;
}

/**
 * What talks to the realm, for the rest of the app: the one declaration of
 * the host's verbs (the agent's RealmPort is a Pick of it). One per page,
 * across resets; each realm it starts has a connection of its own inside
 * (createRealmConnection.ts), never seen outside src/sandbox.
 */
export interface RealmHost {
  /** Resolves when a realm is warm. Rejects (RealmHostError) only if none can start. */
  ready(): Promise<void>;
  beginReply(): void;
  /** One event of a code or data block, in protocol order (src/agent/routeBlocks.ts sends them). */
  sendBlock(event: BlockEvent): void;
  /**
   * Resolves when everything sent so far has run in the realm. Rejects with a
   * RealmHostError: `timeout` (default 60 s; pass Infinity to wait for e.g. a
   * form without limit), `cancelled` (signal), `realm-reset`, `disposed`.
   */
  flush(timeoutMs?: number, options?: FlushOptions): Promise<void>;
  /** Stop what runs now (the Stop button). A realm that does not stop within abortTimeoutMs is reset. */
  abort(): void;
  subscribe(listener: (event: RealmEvent) => void): () => void;
  /**
   * Mount-tree messages (src/wire/mount.ts) from the current realm, already
   * validated, for the renderer. Their `mountId` is qualified by the realm
   * (`<realm key>:m1`, qualifyMountId) so mounts of different realms never
   * share an id. A `realm-reset` (via subscribe) means every mount of the old
   * realm is gone.
   */
  subscribeMounts(listener: (message: MountRealmMessage) => void): () => void;
  /**
   * The person acted on a mounted UI (its qualified `mountId`): pass it to the
   * current realm. Dropped while a realm starts after a reset, and for mounts
   * another realm made.
   */
  sendUiEvent(event: UiEventMessage): void;
  /**
   * Offer a service the realm can call by name (`requestHost(name, payload)`
   * on the realm side). Returns a function that withdraws it; requests in
   * flight are then answered `unknown-service` when they arrive, not cut.
   */
  provide(name: string, service: HostService): () => void;
  /**
   * The connected MCP tools (src/wire/capabilities.ts): sent to the current
   * realm now and to every realm started later (a reset, a spare), so the
   * realm's `tools` global always shows exactly this list.
   */
  setTools(tools: ToolDescriptor[]): void;
  /**
   * Call a method a capability's realm half serves (`storage.erased`) on the
   * current realm, without waiting for its answer (a realm that ends first
   * ends the call: a fresh realm knows nothing to forget).
   */
  tell(method: RealmCapabilityMethod, payload?: JsonValue): void;
  /** Throw the realm away and start a fresh one; resolves when it is ready. */
  reset(reason?: string): Promise<void>;
  /**
   * The Retry button: after the realm failed to start (status "failed"),
   * try again from scratch (bundle, iframe, worker) without a `realm-reset`
   * event; while one is starting, wait for it; a live realm is reset.
   */
  restart(): Promise<void>;
  status(): RealmHostStatus;
  /** What the current realm is doing (optional: stand-ins need not say). */
  activity?(): RealmActivity;
  dispose(): void;
}
