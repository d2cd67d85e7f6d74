import { guard } from "./sessions";
import type { Store } from "./store";
import type { AuditEntry, GrantRecord } from "./types";

/**
 * Capability grants and the audit list (DESIGN.md §4). The broker that
 * enforces them lives in src/capabilities; this only keeps the records, which are
 * exported with the session. Imported sessions never bring grants along.
 */

export async function addAuditEntry(store: Store, entry: Omit<AuditEntry, "id">): Promise<number> {
  return guard(() => store.db.audit.add({ ...entry } as AuditEntry));
}

/** Oldest first. */
export function listAudit(store: Store, sessionId: string): Promise<AuditEntry[]> {
  return guard(() => store.db.audit.where("sessionId").equals(sessionId).sortBy("at"));
}

export async function addGrant(store: Store, grant: Omit<GrantRecord, "id">): Promise<number> {
  return guard(() => store.db.grants.add({ ...grant } as GrantRecord));
}

export function listGrants(store: Store, sessionId: string): Promise<GrantRecord[]> {
  return guard(() => store.db.grants.where("sessionId").equals(sessionId).toArray());
}

export async function removeGrant(store: Store, id: number): Promise<void> {
  await guard(() => store.db.grants.delete(id));
}

/**
 * A tool server was removed: every session's grants for its tools (kept as
 * `host: "<address>#<tool>"`) and its read-only switch go with it.
 */
export async function forgetToolServer(store: Store, address: string): Promise<void> {
  const prefix = `${address}#`;
  await guard(() =>
    store.db.transaction("rw", store.db.grants, store.db.sessions, async () => {
      await store.db.grants
        .filter(
          (grant) => grant.capability === "tool" && typeof grant.host === "string" && grant.host.startsWith(prefix),
        )
        .delete();
      await store.db.sessions
        .filter((session) => session.settings?.readOnlyToolServers?.includes(address) === true)
        .modify((session) => {
          const kept = (session.settings.readOnlyToolServers ?? []).filter((item) => item !== address);
          if (kept.length > 0) session.settings.readOnlyToolServers = kept;
          else delete session.settings.readOnlyToolServers;
        });
    }),
  );
}
