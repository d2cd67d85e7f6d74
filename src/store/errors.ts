/**
 * The store's error catalog (STYLE.md §5): platform failures from Dexie and
 * IndexedDB become `{ code, message, retryable, cause }`, where `message` is a
 * plain sentence with the next step and `cause` keeps the original. The UI
 * switches on `code`, never on `instanceof` or message text.
 */

export type StoreErrorCode =
  /** The origin's storage quota (or the disk) is full. */
  | "quota-exceeded"
  /** No usable IndexedDB: private browsing, storage disabled, a sandboxed frame. */
  | "unavailable"
  /** The database was written by a newer Livemark than this page. */
  | "version-too-new"
  /** Our upgrade waits because another tab keeps the old version open. */
  | "upgrade-blocked"
  /** Another tab upgraded (or deleted) the database; this tab should reload. */
  | "version-change"
  /** The connection was closed; the next operation reopens it. */
  | "closed"
  /** The browser lost its database connection (Safari's UnknownError). */
  | "connection-lost"
  /** The session (or record) does not exist, or was purged. */
  | "not-found"
  /** A key already exists; nothing was overwritten. */
  | "conflict"
  /** The browser refused to store a value (not cloneable, invalid key): a bug. */
  | "not-storable"
  /** The transaction was aborted before it finished. */
  | "aborted"
  | "timeout"
  | "unknown";

export interface StoreErrorInfo {
  code: StoreErrorCode;
  /** Plain words with the next step, for the person. */
  message: string;
  /** Retrying the same write later may succeed (the write-behind keeps trying). */
  retryable: boolean;
  cause?: unknown;
}

const CATALOG: Record<StoreErrorCode, { message: string; retryable: boolean }> = {
  "quota-exceeded": {
    message:
      "The browser's storage for Livemark is full, so the latest changes are not saved yet (this tab keeps them and retries). Free space by exporting and deleting old sessions, or export this session now.",
    retryable: true,
  },
  unavailable: {
    message:
      "This browser window does not let Livemark save anything (private browsing, or site storage is blocked in the browser's settings). You can keep chatting, but sessions are lost when the tab closes; use Export to keep one.",
    retryable: false,
  },
  "version-too-new": {
    message:
      "Your saved sessions were written by a newer version of Livemark than this page. Reload the page to get the newer version.",
    retryable: false,
  },
  "upgrade-blocked": {
    message:
      "Livemark needs to update its saved data, but another Livemark tab still has the old version open. Close or reload the other Livemark tabs; this tab continues as soon as they let go.",
    retryable: true,
  },
  "version-change": {
    message: "Livemark was updated in another tab. Reload this tab to continue with the new version.",
    retryable: false,
  },
  closed: {
    message:
      "The connection to the saved data was closed. Livemark reconnects and retries; if this keeps happening, reload the page.",
    retryable: true,
  },
  "connection-lost": {
    message:
      "The browser lost its connection to Livemark's saved data (Safari does this after a while in the background). Reload the page to reconnect.",
    retryable: true,
  },
  "not-found": {
    message: "This session no longer exists; it may have been deleted in another tab.",
    retryable: false,
  },
  conflict: {
    message: "A record with the same id already exists; nothing was overwritten.",
    retryable: false,
  },
  "not-storable": {
    message:
      "Part of this session could not be saved because the browser cannot store it. This is a bug in Livemark: export the session and report it.",
    retryable: false,
  },
  aborted: {
    message: "Saving was interrupted before it finished. Livemark retries automatically.",
    retryable: true,
  },
  timeout: {
    message: "Saving took too long and was cancelled. Livemark retries automatically.",
    retryable: true,
  },
  unknown: {
    message:
      "Saving failed for an unexpected reason. Livemark keeps your changes in this tab and retries; if it keeps failing, export the session and reload the page.",
    retryable: true,
  },
};

export function storeError(code: StoreErrorCode, cause?: unknown, message?: string): StoreErrorInfo {
  const entry = CATALOG[code];
  return { code, message: message ?? entry.message, retryable: entry.retryable, cause };
}

/** Thrown by the repository functions; carries the same fields as `StoreErrorInfo`. */
export class StoreError extends Error {
  readonly code: StoreErrorCode;
  readonly retryable: boolean;

  constructor(info: StoreErrorInfo) {
    super(info.message, { cause: info.cause });
    this.name = "StoreError";
    this.code = info.code;
    this.retryable = info.retryable;
  }

  toInfo(): StoreErrorInfo {
    return { code: this.code, message: this.message, retryable: this.retryable, cause: this.cause };
  }
}

/**
 * Every error in a Dexie chain: Dexie wraps DOM errors in `inner`, bulk
 * operations list theirs in `failures`, and modern code uses `cause`. Bounded,
 * so a cyclic chain cannot loop.
 */
function errorChain(error: unknown): { name: string; message: string; code?: number }[] {
  const chain: { name: string; message: string; code?: number }[] = [];
  const queue: unknown[] = [error];
  const seen = new Set<unknown>();
  while (queue.length > 0 && chain.length < 16) {
    const current = queue.shift();
    if (!current || typeof current !== "object" || seen.has(current)) continue;
    seen.add(current);
    const record = current as Record<string, unknown>;
    chain.push({
      name: typeof record.name === "string" ? record.name : "",
      message: typeof record.message === "string" ? record.message : "",
      code: typeof record.code === "number" ? record.code : undefined,
    });
    queue.push(record.inner, record.cause);
    if (Array.isArray(record.failures)) queue.push(...record.failures.slice(0, 4));
  }
  return chain;
}

/**
 * Map any error from Dexie or IndexedDB. `during: "open"` marks errors from
 * opening the database, where an InvalidStateError means storage is refused
 * (Firefox private browsing) rather than a connection closing under us.
 */
export function toStoreError(error: unknown, during?: "open"): StoreErrorInfo {
  if (error instanceof StoreError) return error.toInfo();
  const chain = errorChain(error);
  const names = new Set(chain.map((entry) => entry.name));
  const has = (...candidates: string[]) => candidates.some((name) => names.has(name));
  // Quota first: Dexie reports it as an AbortError whose inner error is the quota error.
  if (
    has("QuotaExceededError", "NS_ERROR_DOM_QUOTA_REACHED") ||
    chain.some((entry) => entry.code === 22 || /quota/i.test(entry.message))
  ) {
    return storeError("quota-exceeded", error);
  }
  if (has("MissingAPIError", "SecurityError")) return storeError("unavailable", error);
  // Firefox's private mode (before v115) refuses to open with InvalidStateError.
  if (has("InvalidStateError") && (during === "open" || has("OpenFailedError")))
    return storeError("unavailable", error);
  if (has("VersionError")) return storeError("version-too-new", error);
  if (has("VersionChangeError")) return storeError("version-change", error);
  if (has("DatabaseClosedError", "InvalidStateError", "TransactionInactiveError")) return storeError("closed", error);
  if (has("UnknownError")) return storeError("connection-lost", error);
  if (has("ConstraintError")) return storeError("conflict", error);
  if (has("DataCloneError", "DataError")) return storeError("not-storable", error);
  if (has("TimeoutError")) return storeError("timeout", error);
  if (has("AbortError")) return storeError("aborted", error);
  if (has("OpenFailedError")) return storeError("unavailable", error);
  return storeError("unknown", error);
}
