import { guard } from "./sessions";
import type { Store } from "./store";

/**
 * App-level settings (the API key, the model…) in the `settings` table. They
 * belong to this browser profile only: no export, backup or share link ever
 * reads this table.
 */

export async function readSetting<T = unknown>(store: Store, key: string): Promise<T | undefined> {
  const record = await guard(() => store.db.settings.get(key));
  return record?.value as T | undefined;
}

export async function writeSetting(store: Store, key: string, value: unknown): Promise<void> {
  await guard(() => store.db.settings.put({ key, value }));
}

export async function deleteSetting(store: Store, key: string): Promise<void> {
  await guard(() => store.db.settings.delete(key));
}
