import { guard } from "./sessions";
import type { Store } from "./store";

/**
 * A session's app data (`storage` in the realm, issue 28 §1): one row per
 * key, keyed by `[sessionId+key]`, so no session reaches another's keys.
 * The value is kept as its JSON text, exactly as the code's `set` sent it;
 * `bytes` is the key's and the text's size in UTF-8 (the limits count it).
 * The capability (src/capabilities/storage) checks the limits before it
 * writes; this only keeps the rows.
 */
export interface AppDataRecord {
  sessionId: string;
  key: string;
  json: string;
  bytes: number;
  updatedAt: number;
}

/** One write of a batch: a value (its JSON text) or, with `json: null`, a removal. */
export interface AppDataWrite {
  key: string;
  json: string | null;
  bytes: number;
}

/** Every key of the session, in key order. */
export function listAppData(store: Store, sessionId: string): Promise<AppDataRecord[]> {
  const { db } = store;
  return guard(() =>
    db.appData.where("[sessionId+key]").between([sessionId, ""], [sessionId, []], true, true).toArray(),
  );
}

/** The writes that arrived together, in their order, in one transaction: all of them are on disk when it resolves, or none. */
export async function writeAppData(store: Store, sessionId: string, writes: readonly AppDataWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const { db } = store;
  const now = store.now();
  // The last write of a key wins; the rest never reach the disk.
  const last = new Map<string, AppDataWrite>();
  for (const write of writes) last.set(write.key, write);
  const puts: AppDataRecord[] = [];
  const deletes: [string, string][] = [];
  for (const write of last.values()) {
    if (write.json === null) deletes.push([sessionId, write.key]);
    else puts.push({ sessionId, key: write.key, json: write.json, bytes: write.bytes, updatedAt: now });
  }
  await guard(() =>
    db.transaction("rw", db.appData, async () => {
      if (deletes.length > 0) await db.appData.bulkDelete(deletes);
      if (puts.length > 0) await db.appData.bulkPut(puts);
    }),
  );
}

/** **Erase app data**: every key of the session goes. */
export async function eraseAppData(store: Store, sessionId: string): Promise<void> {
  const { db } = store;
  await guard(() => db.appData.where("sessionId").equals(sessionId).delete());
}
