import type { DexieOptions } from "dexie";
import { DATABASE_NAME, LivemarkDatabase, SCHEMA_VERSION } from "./db";
import { storeError, toStoreError, type StoreErrorInfo } from "./errors";
import { newId as randomId } from "./ids";

/**
 * The handle every repository function takes: the database plus the injected
 * clock and id generator (so tests and benchmarks control time and ids).
 */
export interface Store {
  readonly db: LivemarkDatabase;
  readonly now: () => number;
  readonly newId: () => string;
  /**
   * Message objects known to be on disk as they are, per session id. The
   * agent replaces a message object whenever it changes (immutable updates),
   * so an object seen here needs no write.
   */
  readonly saved: WeakMap<object, string>;
  /**
   * Where each message of a session opened or written here sits (its
   * `order`), and the next free place: a page that is going away writes its
   * messages without reading first (`putSessionChangesNow`).
   */
  readonly orders: Map<string, SessionOrders>;
  /**
   * The writes of session changes under way (`writeSessionChanges`): a page
   * that is going away aborts them, as its own write, which holds the same
   * changes, would otherwise wait behind them and be cut off with the page.
   */
  readonly writing: Set<SessionWrite>;
}

export interface SessionWrite {
  readonly sessionId: string;
  abort(): void;
}

export interface SessionOrders {
  readonly byId: Map<string, number>;
  next: number;
}

export interface OpenStoreOptions {
  /** Database name; tests use a fresh name or a fresh factory each. */
  name?: string;
  /** An IndexedDB implementation (fake-indexeddb in Node); defaults to the browser's. */
  indexedDB?: DexieOptions["indexedDB"];
  IDBKeyRange?: DexieOptions["IDBKeyRange"];
  now?: () => number;
  newId?: () => string;
  /**
   * Problems that are not the answer to any call: an upgrade blocked by
   * another tab, another tab upgrading the database under this one.
   */
  onStatus?: (status: StoreErrorInfo) => void;
}

export function createStore(options: OpenStoreOptions = {}): Store {
  const db = new LivemarkDatabase(
    options.name ?? DATABASE_NAME,
    {
      ...(options.indexedDB ? { indexedDB: options.indexedDB } : {}),
      ...(options.IDBKeyRange ? { IDBKeyRange: options.IDBKeyRange } : {}),
    },
    options.now,
  );
  const onStatus = options.onStatus;
  db.on("blocked", (event) => {
    onStatus?.(storeError("upgrade-blocked", event));
  });
  // Dexie's own listener closes this connection so the other tab's upgrade can
  // proceed, and reopens on the next call; the person should still reload to
  // run the code that matches the new schema.
  db.on("versionchange", (event) => {
    onStatus?.(storeError("version-change", event));
  });
  return {
    db,
    now: options.now ?? (() => Date.now()),
    newId: options.newId ?? (() => randomId()),
    saved: new WeakMap(),
    orders: new Map(),
    writing: new Set(),
  };
}

export type OpenStoreResult = { ok: true; store: Store } | { ok: false; error: StoreErrorInfo };

/**
 * Open (and, if needed, upgrade) the database. While another tab blocks the
 * upgrade this waits, after reporting `upgrade-blocked` through `onStatus`.
 */
export async function openStore(options: OpenStoreOptions = {}): Promise<OpenStoreResult> {
  let store: Store;
  try {
    store = createStore(options);
    await store.db.open();
  } catch (error) {
    return { ok: false, error: toStoreError(error, "open") };
  }
  // Dexie opens a database of a higher version rather than failing, but a
  // newer build may have changed what the rows mean: do not write into it.
  // (Dexie stores version n as n × 10 and may add 1–9 when it patches a schema.)
  const installed = store.db.backendDB()?.version ?? 0;
  if (installed >= (SCHEMA_VERSION + 1) * 10) {
    store.db.close();
    return {
      ok: false,
      error: storeError("version-too-new", { installedVersion: installed / 10, appVersion: SCHEMA_VERSION }),
    };
  }
  return { ok: true, store };
}

export function closeStore(store: Store): void {
  store.db.close();
}
