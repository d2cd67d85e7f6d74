import Dexie from "dexie";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_VERSION, SESSION_TABLES } from "./db";
import { loadSession, searchSessions } from "./sessions";
import { openStore } from "./store";
import type { StoreErrorInfo } from "./errors";
import { assistantMessage, dumpDatabase, sampleSnapshot, userMessage } from "./testSupport";

const NAME = "livemark-upgrade";

/** A database as a version-1 build wrote it, including fields version 1 never knew. */
async function writeVersion1(indexedDB: IDBFactory): Promise<void> {
  const v1 = new Dexie(NAME, { indexedDB, IDBKeyRange });
  v1.version(1).stores(SCHEMA_V1);
  await v1.open();
  await v1.table("settings").put({ key: "llm", value: { apiKey: "sk-test-key", model: "m" }, futureSetting: true });
  await v1.table("sessions").bulkPut([
    {
      id: "s1",
      title: "Sales dashboard",
      createdAt: 10,
      updatedAt: 20,
      origin: "local",
      settings: { network: "ask", allowedHosts: [] },
      pinned: true,
      color: { hue: 210 },
    },
    {
      id: "s2",
      title: "Deleted one",
      createdAt: 1,
      updatedAt: 2,
      origin: "local",
      settings: { network: "off", allowedHosts: [] },
      deletedAt: 3,
    },
  ]);
  await v1.table("messages").bulkPut([
    { ...userMessage("u1", "Show me the Quarterly REVENUE"), sessionId: "s1", order: 0, editedAt: 99 },
    {
      ...assistantMessage("a1", "Here is the revenue chart", { state: "streaming" }),
      sessionId: "s1",
      order: 1,
      tokens: 1234,
    },
    // A row of a kind this build does not know at all: kept, never searched.
    { id: "x1", role: "tool-call", payload: { name: "fetch" }, sessionId: "s1", order: 2 },
    // A malformed row an older bug might have left: the upgrade must not choke on it.
    { id: "x2", sessionId: "s1", order: 3, text: 42 },
  ]);
  await v1.table("mounts").put({
    sessionId: "s1",
    mountId: "mount-1",
    messageId: "a1",
    snapshot: sampleSnapshot(1),
    updatedAt: 30,
    scroll: 120,
  });
  await v1
    .table("grants")
    .put({ sessionId: "s1", capability: "network", host: "api.example.com", grantedAt: 40, note: "kept" });
  await v1.table("audit").put({
    sessionId: "s1",
    at: 41,
    capability: "network",
    method: "GET",
    url: "https://api.example.com/x",
    decision: "allowed-host",
    status: 200,
  });
  v1.close();
}

describe("schema versions", () => {
  // Dexie narrates blocked upgrades and version changes on the console; the tests assert them instead.
  beforeEach(() => {
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("opens a version-1 database with the current schema and keeps every row and field", async () => {
    const indexedDB = new IDBFactory();
    await writeVersion1(indexedDB);

    const before = new Dexie(NAME, { indexedDB, IDBKeyRange });
    before.version(1).stores(SCHEMA_V1);
    await before.open();
    const rowsBefore: Record<string, unknown[]> = {};
    for (const table of before.tables) rowsBefore[table.name] = await table.toArray();
    before.close();

    const opened = await openStore({ name: NAME, indexedDB, IDBKeyRange });
    if (!opened.ok) throw new Error(opened.error.message);
    const { store } = opened;
    expect(store.db.verno).toBe(SCHEMA_VERSION);
    const after = await dumpDatabase(store.db);
    for (const [table, rows] of Object.entries(rowsBefore)) {
      // Version 3 dropped the settings table (nothing ever wrote to it); every other row is kept as it was.
      if (table === "settings") expect(after[table]).toBeUndefined();
      else expect(after[table], table).toEqual(rows);
    }

    // Version 2's search table was filled from the version-1 messages it understands.
    expect(after.searchText).toHaveLength(4);
    const hits = await searchSessions(store, "quarterly revenue");
    expect(hits.map((hit) => hit.session.id)).toEqual(["s1"]);
    expect(hits[0].snippet).toContain("Quarterly REVENUE");

    // The loader reads the old rows: unknown fields ride along, a reply cut mid-stream reads as interrupted.
    const loaded = await loadSession(store, "s1");
    expect(loaded?.session).toMatchObject({ pinned: true, color: { hue: 210 } });
    expect(loaded?.messages.map((message) => message.id)).toEqual(["u1", "a1", "x1", "x2"]);
    expect(loaded?.messages[0]).toMatchObject({ editedAt: 99 });
    expect(loaded?.messages[1]).toMatchObject({ state: "interrupted", tokens: 1234 });
    expect(loaded?.mounts[0]).toMatchObject({ scroll: 120 });
    store.db.close();
  });

  it("opens a version-2 database holding sessions: the settings table is gone (version 3), nothing else is lost", async () => {
    const indexedDB = new IDBFactory();
    await writeVersion1(indexedDB);
    const v2 = new Dexie(NAME, { indexedDB, IDBKeyRange });
    v2.version(1).stores(SCHEMA_V1);
    v2.version(2).stores(SCHEMA_V2);
    await v2.open();
    expect(v2.verno).toBe(2);
    await v2.table("sessions").put({
      id: "s3",
      title: "Written by version 2",
      createdAt: 50,
      updatedAt: 60,
      origin: "imported",
      settings: { network: "allowed", allowedHosts: ["a.example"] },
      importedAt: 55,
    });
    await v2.table("messages").put({ ...userMessage("u9", "a version-2 question"), sessionId: "s3", order: 0 });
    await v2.table("searchText").put({ sessionId: "s3", messageId: "u9", text: "a version-2 question" });
    const rowsBefore: Record<string, unknown[]> = {};
    for (const table of v2.tables) rowsBefore[table.name] = await table.toArray();
    v2.close();
    expect(rowsBefore.settings).toHaveLength(1);

    const opened = await openStore({ name: NAME, indexedDB, IDBKeyRange });
    if (!opened.ok) throw new Error(opened.error.message);
    const { store } = opened;
    expect(store.db.verno).toBe(SCHEMA_VERSION);
    expect(store.db.tables.map((table) => table.name).sort()).toEqual([...SESSION_TABLES].sort());
    const after = await dumpDatabase(store.db);
    expect(after.settings).toBeUndefined();
    for (const table of SESSION_TABLES)
      if (table !== "messages") expect(after[table], table).toEqual(rowsBefore[table] ?? []);
    // Version 4 marked the imported session's message (dated before its import) as imported; nothing else changed.
    expect(after.messages).toEqual(
      (rowsBefore.messages as Record<string, unknown>[]).map((row) =>
        row.sessionId === "s3" ? { ...row, imported: true } : row,
      ),
    );
    expect((await loadSession(store, "s3"))?.messages.map((message) => message.text)).toEqual(["a version-2 question"]);
    expect((await searchSessions(store, "version-2")).map((hit) => hit.session.id)).toEqual(["s3"]);
    store.db.close();
  });

  it("opens a version-3 database as version 4: an imported session's messages from the file are marked imported, the person's own are not, nothing else changes", async () => {
    const indexedDB = new IDBFactory();
    const v3 = new Dexie(NAME, { indexedDB, IDBKeyRange });
    v3.version(1).stores(SCHEMA_V1);
    v3.version(2).stores(SCHEMA_V2);
    v3.version(3).stores(SCHEMA_V3);
    await v3.open();
    const YEAR_2099 = Date.UTC(2099, 0, 1);
    const UPGRADED_AT = 1_000;
    await v3.table("sessions").bulkPut([
      {
        id: "imp",
        title: "From a file",
        createdAt: 5,
        updatedAt: 300,
        origin: "imported",
        settings: { network: "ask", allowedHosts: [] },
        importedAt: 100,
      },
      {
        id: "tail",
        title: "File ending in 2099",
        createdAt: 5,
        updatedAt: 300,
        origin: "imported",
        settings: { network: "ask", allowedHosts: [] },
        importedAt: 100,
      },
      {
        id: "own",
        title: "Mine",
        createdAt: 5,
        updatedAt: 300,
        origin: "local",
        settings: { network: "ask", allowedHosts: [] },
      },
    ]);
    await v3.table("messages").bulkPut([
      // The file's messages (the old rule, createdAt <= importedAt, missed the one dated 2099), then the person's.
      { ...userMessage("i0", "from the file", 1), sessionId: "imp", order: 0 },
      { ...userMessage("i1", "from the file, dated 2099", YEAR_2099), sessionId: "imp", order: 1 },
      { ...userMessage("i2", "from the file again", 50), sessionId: "imp", order: 2, futureField: "kept" },
      { ...userMessage("i3", "the person, after the import", 150), sessionId: "imp", order: 3 },
      { ...assistantMessage("i4", "the reply", { createdAt: 160 }), sessionId: "imp", order: 4 },
      { ...userMessage("t0", "from the file", 1), sessionId: "tail", order: 0 },
      { ...userMessage("t1", "the file's last message, dated 2099", YEAR_2099), sessionId: "tail", order: 1 },
      { ...userMessage("t2", "the person", 150), sessionId: "tail", order: 2 },
      { ...userMessage("o0", "my own", 1), sessionId: "own", order: 0 },
    ]);
    const rowsBefore: Record<string, unknown[]> = {};
    for (const table of v3.tables) rowsBefore[table.name] = await table.toArray();
    v3.close();

    const opened = await openStore({ name: NAME, indexedDB, IDBKeyRange, now: () => UPGRADED_AT });
    if (!opened.ok) throw new Error(opened.error.message);
    const { store } = opened;
    expect(store.db.verno).toBe(SCHEMA_VERSION);
    const after = await dumpDatabase(store.db);
    // Version 5's appData table starts empty.
    for (const table of SESSION_TABLES)
      if (table !== "messages") expect(after[table], table).toEqual(rowsBefore[table] ?? []);
    const marked = Object.fromEntries(
      (after.messages as { id: string; imported?: boolean }[]).map((row) => [row.id, row.imported === true]),
    );
    expect(marked).toEqual({
      i0: true,
      i1: true,
      i2: true,
      i3: false,
      i4: false,
      t0: true,
      t1: true,
      t2: false,
      o0: false,
    });
    // Only the mark is added.
    const strip = (rows: unknown[]) =>
      (rows as Record<string, unknown>[]).map(({ imported: _imported, ...row }) => row);
    expect(strip(after.messages)).toEqual(strip(rowsBefore.messages));
    const loaded = await loadSession(store, "imp");
    expect(loaded?.messages.find((message) => message.id === "i2")).toMatchObject({
      imported: true,
      futureField: "kept",
    });
    store.db.close();
  });

  it("reports an upgrade blocked by another tab, then finishes when that tab lets go", async () => {
    const indexedDB = new IDBFactory();
    await writeVersion1(indexedDB);
    // Another tab running an old build that ignores versionchange.
    const other = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open(NAME, 10);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const statuses: StoreErrorInfo[] = [];
    const opening = openStore({ name: NAME, indexedDB, IDBKeyRange, onStatus: (status) => statuses.push(status) });
    // The open is blocked by the other tab and says so.
    await expect.poll(() => statuses.map((status) => status.code)).toEqual(["upgrade-blocked"]);
    expect(statuses[0].message).toMatch(/other Livemark tabs/);
    other.close();
    const opened = await opening;
    expect(opened.ok).toBe(true);
    if (opened.ok) opened.store.db.close();
  });

  it("tells this tab when another tab upgrades the database", async () => {
    const indexedDB = new IDBFactory();
    const statuses: StoreErrorInfo[] = [];
    const opened = await openStore({ name: NAME, indexedDB, IDBKeyRange, onStatus: (status) => statuses.push(status) });
    expect(opened.ok).toBe(true);
    await new Promise<void>((resolve, reject) => {
      const request = indexedDB.open(NAME, (SCHEMA_VERSION + 1) * 10);
      request.onsuccess = () => {
        request.result.close();
        resolve();
      };
      request.onerror = () => reject(request.error);
    });
    expect(statuses.map((status) => status.code)).toEqual(["version-change"]);
  });

  it("refuses to write into a database from a newer Livemark", async () => {
    const indexedDB = new IDBFactory();
    await new Promise<void>((resolve, reject) => {
      const request = indexedDB.open(NAME, (SCHEMA_VERSION + 1) * 10);
      request.onupgradeneeded = () => request.result.createObjectStore("sessions", { keyPath: "id" });
      request.onsuccess = () => {
        request.result.close();
        resolve();
      };
      request.onerror = () => reject(request.error);
    });
    const opened = await openStore({ name: NAME, indexedDB, IDBKeyRange });
    expect(opened.ok).toBe(false);
    if (!opened.ok) {
      expect(opened.error.code).toBe("version-too-new");
      expect(opened.error.message).toMatch(/Reload the page/);
    }
  });

  it("says plainly when IndexedDB is unusable (private mode)", async () => {
    const refusing = {
      open() {
        throw new DOMException(
          "A mutation operation was attempted on a database that did not allow mutations.",
          "InvalidStateError",
        );
      },
    } as unknown as IDBFactory;
    const opened = await openStore({ name: NAME, indexedDB: refusing, IDBKeyRange });
    expect(opened.ok).toBe(false);
    if (!opened.ok) {
      expect(opened.error.code).toBe("unavailable");
      expect(opened.error.message).toMatch(/Export/);
      expect(opened.error.cause).toBeDefined();
    }
  });
});
