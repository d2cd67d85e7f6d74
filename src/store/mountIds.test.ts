/**
 * Mount identity in storage: mounts made by the app carry a realm-qualified
 * id (`r7k2…:m1`); older exports carry bare ids (`m1`). Both import, and a
 * reply always names the mount records its session holds, even when an id
 * was taken and the import gave the mount a new one.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../agent/types";
import { importFile } from "./exportImport";
import { SESSION_FORMAT, EXPORT_VERSION } from "./exportSchema";
import { loadSession } from "./sessions";
import type { Store } from "./store";
import { openTestStore, sampleReply, sampleSnapshot } from "./testSupport";

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.db.close();
});

function exportWithMounts(mountIds: string[]) {
  const reply = {
    ...sampleReply(1),
    mounts: mountIds.map((mountId, index) => ({ mountId, afterBlock: index, title: `Panel ${index}` })),
  };
  const messages: ChatMessage[] = [
    { id: "u1", role: "user", text: "Order a pizza", createdAt: 1 },
    { id: "a1", role: "assistant", text: "Here.", reply, state: "done", createdAt: 2 },
  ];
  return JSON.stringify({
    format: SESSION_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: "2026-01-01T00:00:00.000Z",
    session: {
      id: "s1",
      title: "Pizza",
      createdAt: 1,
      updatedAt: 2,
      origin: "local",
      settings: { network: "ask", allowedHosts: [] },
    },
    messages,
    mounts: mountIds.map((mountId, index) => ({
      mountId,
      messageId: "a1",
      snapshot: sampleSnapshot(index + 1),
      updatedAt: 2,
    })),
    grants: [],
    audit: [],
  });
}

/** Each reply's mount ids, and the session's mount records by id. */
async function mountsOf(store: Store, sessionId: string) {
  const loaded = (await loadSession(store, sessionId))!;
  const named = loaded.messages.flatMap((message) =>
    message.role === "assistant" ? (message.reply.mounts ?? []).map((mount) => mount.mountId) : [],
  );
  const records = new Map(loaded.mounts.map((mount) => [mount.mountId, mount.snapshot]));
  return { named, records };
}

describe("mount ids on import", () => {
  it("imports bare ids of older exports and realm-qualified ids alike", async () => {
    const store = await openTestStore();
    stores.push(store);
    const result = await importFile(store, exportWithMounts(["m1", "rk3j9x0a1:m1", "rz8w2q7c4:m1"]));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { named, records } = await mountsOf(store, result.sessions[0].id);
    expect(named).toEqual(["m1", "rk3j9x0a1:m1", "rz8w2q7c4:m1"]);
    expect([...records.keys()].sort()).toEqual(["m1", "rk3j9x0a1:m1", "rz8w2q7c4:m1"]);
    expect(records.get("rz8w2q7c4:m1")).toEqual(sampleSnapshot(3));
  });

  it("a mount id already taken gets a new one, and the reply names the new one", async () => {
    const store = await openTestStore();
    stores.push(store);
    const first = await importFile(store, exportWithMounts(["m1", "m2"]));
    const second = await importFile(store, exportWithMounts(["m1", "m2"]));
    expect(first.ok && second.ok).toBe(true);
    if (!first.ok || !second.ok) return;
    for (const [imported, seed] of [
      [first, 0],
      [second, 0],
    ] as const) {
      const { named, records } = await mountsOf(store, imported.sessions[0].id);
      expect(named).toHaveLength(2);
      // Every mount the reply shows is a record of its session, holding that mount's tree.
      expect(named.map((id) => records.get(id))).toEqual([sampleSnapshot(seed + 1), sampleSnapshot(seed + 2)]);
    }
  });
});
