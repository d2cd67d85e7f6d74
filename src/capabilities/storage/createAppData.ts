/**
 * The host half of `storage` (issue 28 §1): the open session's app data,
 * in memory and in IndexedDB (src/store/appData.ts).
 *
 * - The session a call belongs to is the one open when the call arrives;
 *   the payload never names one, so a realm reaches its own session's data
 *   and nothing else.
 * - Every payload is checked again here (key, parts, JSON, 1 MB a value,
 *   10 MB a session): the realm's own checks are a courtesy to the model.
 * - A call is applied to the in-memory view the moment it arrives, in the
 *   order calls arrive, so a `get` after a `set` sees it; the writes that
 *   arrive together (in one task) are committed in one transaction, and a
 *   `set` or `delete` is answered only once its transaction has committed.
 *   A write the realm was told about is on disk: a reload, a reset or a
 *   crash after that loses nothing.
 * - A write that arrived is committed even if the realm is reset or the
 *   call is stopped before the answer.
 */
import { HostServiceError } from "../../sandbox/HostServiceError";
import type { HostService } from "../../sandbox/types";
import { eraseAppData, listAppData, writeAppData, type AppDataWrite } from "../../store/appData";
import type { Store } from "../../store/store";
import { appDataWritten, countUncommitted } from "./uncommittedWrites";
import { keyProblem, sessionFull, utf8Bytes, valueTooLarge } from "../../wire/appData";
import {
  MAX_STORAGE_SESSION_BYTES,
  MAX_STORAGE_VALUE_BYTES,
  STORAGE_DELETE,
  STORAGE_GET,
  STORAGE_KEYS,
  STORAGE_PART_CHARS,
  STORAGE_SET,
  type StorageGetResponse,
  type StorageKeysResponse,
  type StorageWriteResponse,
} from "../../wire/capabilities";
import type { JsonValue } from "../../wire/mount";

/** What Session settings shows: the open session's keys and their size. */
export interface AppDataState {
  sessionId: string | undefined;
  /** Loaded from the store (false while loading, or with no session). */
  loaded: boolean;
  keys: readonly { key: string; bytes: number }[];
  bytes: number;
  /** The last write that failed to reach the disk, in words. */
  error?: string;
}

interface Entry {
  json: string;
  bytes: number;
}

/** One session's data as this page holds it. */
interface Book {
  readonly sessionId: string;
  readonly store: Store;
  readonly entries: Map<string, Entry>;
  bytes: number;
  loaded: boolean;
  /** Loaded, or failed to load: calls wait for it. */
  readonly ready: Promise<void>;
  /** Writes waiting for the next transaction, with their callers. */
  queue: { write: AppDataWrite; done: (error?: unknown) => void }[];
  /** The transaction under way (the next waits for it: one at a time, in order). */
  committing: Promise<void>;
}

export interface AppData {
  readonly services: Readonly<Record<string, HostService>>;
  /** Another session is open (undefined: none): load its data. */
  open(session: { sessionId: string; store: Store } | undefined): Promise<void>;
  /** **Erase app data**: every key of the open session, here and on disk. */
  erase(): Promise<void>;
  getState(): AppDataState;
  subscribe(listener: () => void): () => void;
}

const EMPTY: AppDataState = { sessionId: undefined, loaded: false, keys: [], bytes: 0 };

export { uncommittedAppDataWrites } from "./uncommittedWrites";

export { onAppDataWritten } from "./uncommittedWrites";

export function createAppData(
  options: {
    /** When the writes that arrived together are committed (default: after the current task). */
    schedule?: (commit: () => void) => void;
    /** The open session's app data was erased (and committed): the realm forgets what it knew. */
    onErased?: () => void;
  } = {},
): AppData {
  const schedule = options.schedule ?? ((commit) => void setTimeout(commit, 0));
  let book: Book | undefined;
  let state: AppDataState = EMPTY;
  let error: string | undefined;
  const listeners = new Set<() => void>();

  function publish(): void {
    state = book
      ? {
          sessionId: book.sessionId,
          loaded: book.loaded,
          keys: [...book.entries].map(([key, entry]) => ({ key, bytes: entry.bytes })).sort(byKey),
          bytes: book.bytes,
          ...(error ? { error } : {}),
        }
      : EMPTY;
    for (const listener of listeners) listener();
  }

  /** The book a call that arrives now belongs to; refused when no session is open. */
  function current(method: string): Book {
    if (!book)
      throw new HostServiceError(
        "no-session",
        `storage.${method}: no session is open, so there is nowhere to keep data`,
      );
    return book;
  }

  function put(target: Book, key: string, entry: Entry | undefined): void {
    const previous = target.entries.get(key);
    target.bytes -= previous ? previous.bytes : 0;
    if (entry) {
      target.entries.set(key, entry);
      target.bytes += entry.bytes;
    } else target.entries.delete(key);
  }

  /** Queue a write; resolves once its transaction has committed. */
  function enqueue(target: Book, write: AppDataWrite): Promise<void> {
    countUncommitted(1);
    return new Promise<void>((resolve, reject) => {
      if (target.queue.length === 0) schedule(() => commit(target));
      target.queue.push({
        write,
        done: (failure) => {
          countUncommitted(-1);
          if (failure === undefined) resolve();
          else reject(failure);
        },
      });
    });
  }

  function commit(target: Book): void {
    const batch = target.queue;
    target.queue = [];
    if (batch.length === 0) return;
    target.committing = target.committing.then(async () => {
      try {
        await writeAppData(
          target.store,
          target.sessionId,
          batch.map((item) => item.write),
        );
        for (const item of batch) item.done();
        for (const item of batch) appDataWritten(target.sessionId, item.write.key);
        if (error !== undefined && book === target) {
          error = undefined;
          publish();
        }
      } catch (failure) {
        const message = failure instanceof Error ? failure.message : String(failure);
        if (book === target) {
          error = `App data could not be saved: ${message}`;
          publish();
        }
        for (const item of batch)
          item.done(
            new HostServiceError(
              "failed",
              `storage.${item.write.json === null ? "delete" : "set"}: not saved (${message})`,
            ),
          );
      }
    });
  }

  /** Erase app data: every key of `target`, here and (once this resolves) on disk. */
  async function eraseCommitted(target: Book): Promise<void> {
    await target.ready;
    // After the writes already queued: none of them comes back.
    commit(target);
    const erased = target.committing.then(() => eraseAppData(target.store, target.sessionId));
    // The writes after it wait for it, whatever became of it.
    target.committing = erased.catch(() => undefined);
    target.entries.clear();
    target.bytes = 0;
    if (book === target) publish();
    await erased;
    if (book === target) options.onErased?.();
  }

  function readKey(method: string, payload: JsonValue): string {
    const key = (payload as { key?: unknown } | null)?.key;
    const problem = keyProblem(method, key);
    if (problem) throw new HostServiceError("invalid-key", problem);
    return key as string;
  }

  /** The value's JSON text from its parts, checked as if the realm had checked nothing. */
  function readValue(key: string, payload: JsonValue): Entry {
    const parts = (payload as { parts?: unknown } | null)?.parts;
    if (!Array.isArray(parts) || parts.length === 0 || parts.some((part) => typeof part !== "string"))
      throw new HostServiceError("not-json", `storage.set: the value did not arrive as JSON text`);
    let length = 0;
    for (const part of parts as string[]) {
      // A part the port cut is longer than any part the realm sends.
      if (part.length > STORAGE_PART_CHARS)
        throw new HostServiceError(
          "not-json",
          `storage.set: a part of the value was longer than ${STORAGE_PART_CHARS} characters`,
        );
      length += part.length;
    }
    // UTF-8 has at least one byte a character: a text this long is too large before it is joined.
    if (length > MAX_STORAGE_VALUE_BYTES) throw new HostServiceError("too-large", valueTooLarge(key, length));
    const json = (parts as string[]).join("");
    const bytes = utf8Bytes(json);
    if (bytes > MAX_STORAGE_VALUE_BYTES) throw new HostServiceError("too-large", valueTooLarge(key, bytes));
    try {
      JSON.parse(json);
    } catch {
      throw new HostServiceError("not-json", `storage.set: the value is not JSON text`);
    }
    return { json, bytes: bytes + utf8Bytes(key) };
  }

  const services: Record<string, HostService> = {
    [STORAGE_GET]: async (payload) => {
      const target = current("get");
      const key = readKey("get", payload);
      await target.ready;
      const answer: StorageGetResponse = { json: target.entries.get(key)?.json ?? null };
      return answer as unknown as JsonValue;
    },
    [STORAGE_KEYS]: async (payload) => {
      const target = current("keys");
      const prefix = (payload as { prefix?: unknown } | null)?.prefix ?? "";
      if (typeof prefix !== "string")
        throw new HostServiceError("invalid-key", "storage.keys(prefix): prefix must be a string");
      await target.ready;
      const answer: StorageKeysResponse = {
        keys: [...target.entries.keys()].filter((key) => key.startsWith(prefix)).sort(),
      };
      return answer as unknown as JsonValue;
    },
    [STORAGE_SET]: async (payload) => {
      const target = current("set");
      const key = readKey("set", payload);
      const entry = readValue(key, payload);
      await target.ready;
      const previous = target.entries.get(key);
      const total = target.bytes - (previous?.bytes ?? 0) + entry.bytes;
      if (total > MAX_STORAGE_SESSION_BYTES) throw new HostServiceError("session-full", sessionFull(key, total));
      put(target, key, entry);
      if (book === target) publish();
      await enqueue(target, { key, json: entry.json, bytes: entry.bytes });
      const answer: StorageWriteResponse = { bytes: target.bytes };
      return answer as unknown as JsonValue;
    },
    [STORAGE_DELETE]: async (payload) => {
      const target = current("delete");
      const key = readKey("delete", payload);
      await target.ready;
      put(target, key, undefined);
      if (book === target) publish();
      await enqueue(target, { key, json: null, bytes: 0 });
      const answer: StorageWriteResponse = { bytes: target.bytes };
      return answer as unknown as JsonValue;
    },
  };

  return {
    services,
    async open(session) {
      error = undefined;
      if (!session) {
        book = undefined;
        publish();
        return;
      }
      const entries = new Map<string, Entry>();
      let resolveReady!: () => void;
      const opened: Book = {
        sessionId: session.sessionId,
        store: session.store,
        entries,
        bytes: 0,
        loaded: false,
        ready: new Promise<void>((resolve) => (resolveReady = resolve)),
        queue: [],
        committing: Promise.resolve(),
      };
      book = opened;
      publish();
      try {
        for (const record of await listAppData(session.store, session.sessionId)) {
          entries.set(record.key, { json: record.json, bytes: record.bytes });
          opened.bytes += record.bytes;
        }
        opened.loaded = true;
      } catch (failure) {
        if (book === opened)
          error = `App data could not be read: ${failure instanceof Error ? failure.message : String(failure)}`;
      } finally {
        resolveReady();
        if (book === opened) publish();
      }
    },
    async erase() {
      const target = book;
      if (!target) return;
      // Counted as a write not yet on disk until it has committed (the probe waits for it before a reload).
      countUncommitted(1);
      try {
        await eraseCommitted(target);
      } finally {
        countUncommitted(-1);
      }
    },
    getState: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function byKey(a: { key: string }, b: { key: string }): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
