import Dexie, { type DexieOptions, type Table, type Transaction } from "dexie";
import type { AuditEntry, GrantRecord, MessageRecord, MountSnapshot, SearchTextRecord, Session } from "./types";
import { searchRowOf } from "./searchText";
import type { AppDataRecord } from "./appData";

/**
 * The one schema file (STYLE.md §9). Every shipped `version(n)` is frozen:
 * never edit one, add `version(n + 1)` with an `.upgrade()` when data moves.
 * Upgrades read what they understand and never drop or rewrite fields they do
 * not know; Dexie ≥ 3 carries over tables a version does not mention.
 *
 * Keys:
 * - messages are keyed by `[sessionId+id]`, so one session can never
 *   overwrite another's rows even if two message ids collide; the plain `id`
 *   index finds collisions on import.
 * - mounts are keyed by `[sessionId+mountId]` (the realm restarts its mount
 *   counter in every session); `mountId` is indexed for the same reason.
 * - `deletedAt` is indexed only where set (IndexedDB skips undefined keys), so
 *   the purge reads just the deleted sessions.
 */

export const DATABASE_NAME = "livemark";

/** Shipped. Do not edit. */
export const SCHEMA_V1: Readonly<Record<string, string>> = Object.freeze({
  settings: "key",
  sessions: "id, updatedAt, deletedAt",
  messages: "[sessionId+id], [sessionId+order], id",
  mounts: "[sessionId+mountId], sessionId, mountId",
  grants: "++id, sessionId",
  audit: "++id, sessionId, [sessionId+at]",
});

/**
 * Version 2: a `searchText` table (one small row per message) so search scans
 * text only instead of deserialising every reply with its blocks. The upgrade
 * backfills it from version-1 messages; it only reads them.
 */
export const SCHEMA_V2: Readonly<Record<string, string>> = Object.freeze({
  searchText: "[sessionId+messageId], sessionId",
});

/**
 * Version 3: the `settings` table goes. App settings (key, model…) live in
 * the browser's local storage (src/ui/settings.ts); no build ever wrote to
 * this table. Every other table is untouched.
 */
export const SCHEMA_V3: Readonly<Record<string, string | null>> = Object.freeze({
  settings: null,
});

/**
 * Version 4: no new table or index. Imported messages carry `imported: true`
 * (set by the import since this version); the upgrade marks those of
 * sessions imported before it, which were told apart by date alone
 * (`createdAt <= importedAt`, dates the file chose). See `markImportedMessages`.
 */
export const SCHEMA_V4: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Version 5: an `appData` table, the session's app data (`storage` in the
 * realm, src/store/appData.ts), keyed by `[sessionId+key]` so one session
 * can never write another's keys. A new table: nothing moves, every other
 * table and row is kept.
 */
export const SCHEMA_V5: Readonly<Record<string, string>> = Object.freeze({
  appData: "[sessionId+key], sessionId",
});

export const SCHEMA_VERSION = 5;

async function backfillSearchText(transaction: Transaction): Promise<void> {
  const rows: SearchTextRecord[] = [];
  await transaction
    .table("messages")
    .toCollection()
    .each((record: unknown) => {
      const row = searchRowOf(record);
      if (row) rows.push(row);
    });
  // Chunked so a large history does not build one enormous request.
  for (let start = 0; start < rows.length; start += 500) {
    await transaction.table("searchText").bulkPut(rows.slice(start, start + 500));
  }
}

/**
 * An imported session's messages are a prefix of its rows by `order`: the
 * import wrote the file's messages first, and the person's came after, dated
 * by this browser's clock after `importedAt`. So every row up to the last one
 * the old rule counted as imported (`createdAt <= importedAt`), or dated
 * after now (no message of the person's can be), is the file's: that covers
 * what the old rule covered and the file's messages dated in the future it
 * let through. Only the mark is added; rows the upgrade cannot read are left
 * as they are.
 */
async function markImportedMessages(transaction: Transaction, now: number): Promise<void> {
  const sessions = (await transaction.table("sessions").toArray()) as {
    id?: unknown;
    origin?: unknown;
    importedAt?: unknown;
  }[];
  for (const session of sessions) {
    if (session.origin !== "imported" || typeof session.importedAt !== "number" || typeof session.id !== "string")
      continue;
    const importedAt = session.importedAt;
    const rows = (await transaction
      .table("messages")
      .where("[sessionId+order]")
      .between([session.id, Dexie.minKey], [session.id, Dexie.maxKey])
      .toArray()) as { createdAt?: unknown; imported?: unknown }[];
    let last = -1;
    rows.forEach((row, index) => {
      if (typeof row.createdAt === "number" && (row.createdAt <= importedAt || row.createdAt > now)) last = index;
    });
    const marked = rows
      .slice(0, last + 1)
      .filter((row) => row.imported !== true)
      .map((row) => ({ ...row, imported: true }));
    for (let start = 0; start < marked.length; start += 500)
      await transaction.table("messages").bulkPut(marked.slice(start, start + 500));
  }
}

export function defineSchema(db: Dexie, now: () => number = () => Date.now()): void {
  db.version(1).stores(SCHEMA_V1);
  db.version(2).stores(SCHEMA_V2).upgrade(backfillSearchText);
  db.version(3).stores(SCHEMA_V3);
  db.version(4)
    .stores(SCHEMA_V4)
    .upgrade((transaction) => markImportedMessages(transaction, now()));
  db.version(5).stores(SCHEMA_V5);
}

export class LivemarkDatabase extends Dexie {
  sessions!: Table<Session, string>;
  messages!: Table<MessageRecord, [string, string]>;
  mounts!: Table<MountSnapshot, [string, string]>;
  grants!: Table<GrantRecord, number>;
  audit!: Table<AuditEntry, number>;
  searchText!: Table<SearchTextRecord, [string, string]>;
  appData!: Table<AppDataRecord, [string, string]>;

  /** `now` dates the version-4 upgrade (tests pass their clock). */
  constructor(name: string = DATABASE_NAME, options?: DexieOptions, now?: () => number) {
    super(name, options);
    defineSchema(this, now);
  }
}

/** Every table: each holds a session's data. */
export const SESSION_TABLES = ["sessions", "messages", "mounts", "grants", "audit", "searchText", "appData"] as const;
