/**
 * App data in the store (issue 28 §1): rows per session, batched writes,
 * purge, a version-4 database upgraded without loss, and the session's app
 * data in exports, imports (checked like the rest of a file) and share
 * links (only when asked).
 */
import Dexie from "dexie";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { afterEach, describe, expect, it } from "vitest";
import { eraseAppData, listAppData, writeAppData } from "./appData";
import { SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4, SCHEMA_VERSION } from "./db";
import { exportSession, importFile, serializeExport } from "./exportImport";
import { createSession, deleteSession, purgeDeleted } from "./sessions";
import { createShareLink, decodeShare } from "./share";
import { openStore, type Store } from "./store";
import { dumpDatabase, openTestStore } from "./testSupport";

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.db.close();
});

async function open(): Promise<Store> {
  const store = await openTestStore();
  stores.push(store);
  return store;
}

const value = (key: string, json: unknown) => {
  const text = JSON.stringify(json);
  return { key, json: text, bytes: key.length + text.length };
};

async function withData(store: Store) {
  const session = await createSession(store, { title: "To-do" });
  await writeAppData(store, session.id, [value("todos", ["milk", "eggs"]), value("__proto__", { safe: true })]);
  return session;
}

describe("app data rows", () => {
  it("keep each session's keys apart; a batch's last write of a key wins; erase and purge remove them", async () => {
    const store = await open();
    await writeAppData(store, "a", [
      value("k", 1),
      value("k", 2),
      value("gone", 0),
      { key: "gone", json: null, bytes: 0 },
    ]);
    await writeAppData(store, "b", [value("k", "b's")]);
    expect((await listAppData(store, "a")).map((row) => [row.key, row.json])).toEqual([["k", "2"]]);
    expect((await listAppData(store, "b")).map((row) => [row.key, row.json])).toEqual([["k", '"b\'s"']]);
    await eraseAppData(store, "a");
    expect(await listAppData(store, "a")).toEqual([]);
    expect(await listAppData(store, "b")).toHaveLength(1);

    const session = await createSession(store);
    await writeAppData(store, session.id, [value("x", 1)]);
    await deleteSession(store, session.id);
    // In the trash it keeps its data (Undo brings it back whole); the purge takes it.
    expect(await listAppData(store, session.id)).toHaveLength(1);
    await purgeDeleted(store);
    expect(await listAppData(store, session.id)).toEqual([]);
  });

  it("a version-4 database opens as version 5 with every row kept and an empty appData table", async () => {
    const indexedDB = new IDBFactory();
    const v4 = new Dexie("livemark-v4", { indexedDB, IDBKeyRange });
    v4.version(1).stores(SCHEMA_V1);
    v4.version(2).stores(SCHEMA_V2);
    v4.version(3).stores(SCHEMA_V3);
    v4.version(4).stores(SCHEMA_V4);
    await v4.open();
    await v4.table("sessions").put({
      id: "s1",
      title: "Before app data",
      createdAt: 1,
      updatedAt: 2,
      origin: "local",
      settings: { network: "ask", allowedHosts: [] },
      futureField: "kept",
    });
    await v4.table("messages").put({ id: "m1", sessionId: "s1", order: 0, role: "user", text: "hi", createdAt: 1 });
    const before: Record<string, unknown[]> = {};
    for (const table of v4.tables) before[table.name] = await table.toArray();
    v4.close();
    const opened = await openStore({ name: "livemark-v4", indexedDB, IDBKeyRange });
    if (!opened.ok) throw new Error(opened.error.message);
    stores.push(opened.store);
    expect(opened.store.db.verno).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(5);
    const after = await dumpDatabase(opened.store.db);
    expect(after).toEqual({ ...before, appData: [] });
  });
});

describe("app data in exports, imports and share links", () => {
  it("is exported with the session and restored by the import into the new session", async () => {
    const store = await open();
    const session = await withData(store);
    const document = await exportSession(store, session.id);
    expect(document.appData).toEqual([
      { key: "__proto__", json: '{"safe":true}' },
      { key: "todos", json: '["milk","eggs"]' },
    ]);
    const other = await open();
    const result = await importFile(other, serializeExport(document));
    if (!result.ok) throw new Error(result.error.message);
    const imported = result.sessions[0].id;
    expect((await listAppData(other, imported)).map((row) => [row.key, JSON.parse(row.json), row.bytes])).toEqual([
      ["__proto__", { safe: true }, 9 + 13],
      ["todos", ["milk", "eggs"], 5 + 15],
    ]);
    // Into the same browser: a new session id, its own copy.
    const again = await importFile(store, serializeExport(document));
    if (!again.ok) throw new Error(again.error.message);
    expect(again.sessions[0].id).not.toBe(session.id);
    expect(await listAppData(store, again.sessions[0].id)).toHaveLength(2);
  });

  it("a session without app data exports none (files older builds read)", async () => {
    const store = await open();
    const session = await createSession(store);
    expect("appData" in (await exportSession(store, session.id))).toBe(false);
  });

  it.each([
    ["a value that is not JSON", [{ key: "a", json: "{nope" }], /appData\[0\]\.json: expected a value as JSON text/],
    [
      "a value over 1 MB",
      [{ key: "a", json: JSON.stringify("é".repeat(600_000)) }],
      /one app data value may be at most 1 MB/,
    ],
    [
      "more than 10 MB in all",
      Array.from({ length: 11 }, (_, index) => ({ key: `k${index}`, json: JSON.stringify("x".repeat(1_000_000)) })),
      /the session's app data is more than 10 MB/,
    ],
    [
      "a key twice",
      [
        { key: "a", json: "1" },
        { key: "a", json: "2" },
      ],
      /the key "a" is already used by \$\.appData\[0\]/,
    ],
    [
      "a key over 256 characters",
      [{ key: "k".repeat(257), json: "1" }],
      /\$\.appData\[0\]\.key: expected at most 256 characters/,
    ],
    ["an unknown field", [{ key: "a", json: "1", sessionId: "someone-else" }], /\$\.appData\[0\]\.sessionId/],
  ])("a hostile file with %s is refused with a clear error, and nothing is written", async (_, appData, message) => {
    const store = await open();
    const session = await createSession(store);
    const document = { ...(await exportSession(store, session.id)), appData };
    const before = await dumpDatabase(store.db);
    const result = await importFile(store, JSON.stringify(document));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toMatch(message);
    expect(await dumpDatabase(store.db)).toEqual(before);
  });

  it("a share link carries the app data only when asked to (Include app data)", async () => {
    const store = await open();
    const session = await withData(store);
    const without = await createShareLink(store, session.id, "https://example.test/");
    const withIt = await createShareLink(store, session.id, "https://example.test/", { includeAppData: true });
    if (!without.ok || !withIt.ok) throw new Error("no link");
    const plain = await decodeShare(without.url);
    const full = await decodeShare(withIt.url);
    if (!plain.ok || !full.ok) throw new Error("not decoded");
    expect(plain.document.appData).toBeUndefined();
    expect(full.document.appData?.map((entry) => entry.key)).toEqual(["__proto__", "todos"]);
  });
});
