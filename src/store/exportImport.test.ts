import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../agent/types";
import { applyExecEvent, applyProtocolEvent, emptyReply } from "../agent/reply";
import { parseExportText } from "./exportSchema";
import { addAuditEntry, addGrant, listGrants } from "./capabilities";
import { exportAll, exportFileName, exportSession, importFile, serializeExport } from "./exportImport";
import type { SessionExport } from "./exportSchema";
import {
  createSession,
  deleteSession,
  listSessions,
  loadSession,
  saveMessages,
  saveMounts,
  updateSessionSettings,
  updateCapabilitySettings,
} from "./sessions";
import type { OpenStoreOptions, Store } from "./store";
import { assistantMessage, conversation, dumpDatabase, openTestStore, sampleSnapshot } from "./testSupport";

const FAKE_KEY = "sk-live-THIS-IS-THE-SECRET-KEY-1234567890";

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.db.close();
});

async function open(options: OpenStoreOptions = {}): Promise<Store> {
  const store = await openTestStore(options);
  stores.push(store);
  return store;
}

/**
 * A session with every kind of record. The app's settings (with the API key)
 * are not in this database at all (local storage, src/ui/settings.ts); the
 * export is still checked for the key and its field names.
 */
async function populated(store: Store, title = "Sales by region") {
  const session = await createSession(store, { title });
  await updateSessionSettings(store, session.id, { network: "allowed", allowedHosts: ["api.example.com"] });
  const messages: ChatMessage[] = [
    ...conversation(40, "m"),
    {
      ...assistantMessage("tail", "cut mid-stream", { state: "streaming" }),
      futureField: { kept: [1, 2] },
    } as unknown as ChatMessage,
  ];
  await saveMessages(store, session.id, messages);
  await saveMounts(store, session.id, [
    { mountId: "mount-1", messageId: "m1", snapshot: sampleSnapshot(1) },
    { mountId: "mount-2", messageId: "m3", snapshot: { weird: ["nested", { deep: [null, true, 1.5] }] } },
  ]);
  await addGrant(store, { sessionId: session.id, capability: "network", host: "api.example.com", grantedAt: 5 });
  await addAuditEntry(store, {
    sessionId: session.id,
    at: 6,
    capability: "network",
    method: "GET",
    url: "https://api.example.com/sales",
    decision: "allowed-host",
    status: 200,
  });
  await addAuditEntry(store, {
    sessionId: session.id,
    at: 7,
    capability: "network",
    method: "POST",
    url: "https://evil.example/steal",
    decision: "denied",
  });
  return session;
}

function withoutIds<T extends object>(records: T[], keys: string[]): Record<string, unknown>[] {
  return records.map((record) => {
    const copy: Record<string, unknown> = { ...(record as Record<string, unknown>) };
    for (const key of keys) delete copy[key];
    return copy;
  });
}

describe("export", () => {
  it("holds everything needed to show the session, and never the API key or app settings", async () => {
    const store = await open();
    const session = await populated(store);
    const document = await exportSession(store, session.id);
    expect(document).toMatchObject({
      format: "livemark.session",
      version: 1,
      session: { id: session.id, title: "Sales by region" },
    });
    expect(Object.keys(document)).toEqual([
      "format",
      "version",
      "exportedAt",
      "session",
      "messages",
      "mounts",
      "grants",
      "audit",
    ]);
    expect(document.messages).toHaveLength(41);
    expect(document.messages.at(-1)).toMatchObject({ state: "interrupted", futureField: { kept: [1, 2] } });
    expect(document.mounts).toHaveLength(2);
    expect(document.grants).toEqual([{ capability: "network", host: "api.example.com", grantedAt: 5 }]);
    expect(document.audit.map((entry) => entry.at)).toEqual([6, 7]);

    const text = serializeExport(document);
    const backup = serializeExport(await exportAll(store));
    for (const exported of [text, backup]) {
      expect(exported).not.toContain(FAKE_KEY);
      expect(exported).not.toContain("THIS-IS-THE-SECRET");
      expect(exported).not.toMatch(/apiKey|baseURL|sk-live/);
    }
    expect(exportFileName(document)).toMatch(/^livemark-sales-by-region-\d{4}-\d{2}-\d{2}\.json$/);
  });

  it("rejects an unknown session with a StoreError", async () => {
    const store = await open();
    await expect(exportSession(store, "nope")).rejects.toMatchObject({ code: "not-found" });
  });

  it("leaves trashed sessions out of the backup", async () => {
    const store = await open();
    const kept = await createSession(store, { title: "kept" });
    const trashed = await createSession(store, { title: "trashed" });
    await deleteSession(store, trashed.id);
    const backup = await exportAll(store);
    expect(backup.sessions.map((body) => body.session.id)).toEqual([kept.id]);
    expect(exportFileName(backup)).toMatch(/^livemark-backup-/);
  });
});

describe("tool capability records", () => {
  it("tool grants, tool audit entries and the read-only switch export; an import keeps the audit as history, never the grants or the switch", async () => {
    const store = await open();
    const session = await createSession(store, { title: "Films" });
    await updateSessionSettings(store, session.id, {
      network: "ask",
      allowedHosts: [],
      readOnlyToolServers: ["films"],
    });
    await addGrant(store, { sessionId: session.id, capability: "tool", host: "films/lookup_film", grantedAt: 5 });
    await addAuditEntry(store, {
      sessionId: session.id,
      at: 6,
      capability: "tool",
      method: "CALL",
      url: "films/lookup_film",
      decision: "allowed-tool",
      bytesOut: 17,
      bytes: 80,
      result: "ok",
    });
    await addAuditEntry(store, {
      sessionId: session.id,
      at: 7,
      capability: "tool",
      method: "CALL",
      url: "films/add_to_watchlist",
      decision: "allowed-read-only",
      bytesOut: 17,
      result: "ok",
    });
    const document = await exportSession(store, session.id);
    expect(document.session.settings).toEqual({ network: "ask", allowedHosts: [], readOnlyToolServers: ["films"] });
    expect(document.grants).toEqual([{ capability: "tool", host: "films/lookup_film", grantedAt: 5 }]);
    expect(document.audit.map((entry) => [entry.capability, entry.url, entry.decision])).toEqual([
      ["tool", "films/lookup_film", "allowed-tool"],
      ["tool", "films/add_to_watchlist", "allowed-read-only"],
    ]);

    const target = await open();
    const result = await importFile(target, serializeExport(document));
    if (!result.ok) throw new Error(result.error.message);
    const imported = await exportSession(target, result.sessions[0].id);
    expect(imported.grants).toEqual([]);
    expect(imported.session.settings).toEqual({ network: "ask", allowedHosts: [] });
    expect(imported.audit.map((entry) => entry.decision)).toEqual(["allowed-tool", "allowed-read-only"]);
  });
});

describe("capability modules' own settings", () => {
  it("export with the session and pass the file's check; an import never sets them, and a made-up tag and decision in the audit pass", async () => {
    const store = await open();
    const session = await createSession(store, { title: "Quiz" });
    await updateCapabilitySettings(store, session.id, "ai", { mode: "allowed", budget: 10_000 });
    await addAuditEntry(store, {
      sessionId: session.id,
      at: 6,
      capability: "ai",
      method: "COMPLETE",
      url: "Translate …",
      decision: "allowed-session",
      result: "ok",
    });
    const document = await exportSession(store, session.id);
    expect(document.session.settings.capabilities).toEqual({ ai: { mode: "allowed", budget: 10_000 } });
    const target = await open();
    const result = await importFile(target, serializeExport(document));
    if (!result.ok) throw new Error(result.error.message);
    const imported = await exportSession(target, result.sessions[0].id);
    expect(imported.session.settings).toEqual({ network: "ask", allowedHosts: [] });
    expect(imported.audit.map((entry) => [entry.capability, entry.decision])).toEqual([["ai", "allowed-session"]]);
  });

  it("a capability tag that is not a lower-case name is refused by the import's check", async () => {
    const store = await open();
    const session = await createSession(store, { title: "Bad tag" });
    const document = await exportSession(store, session.id);
    const forged = {
      ...document,
      audit: [{ at: 1, capability: "<img src=x>", method: "GET", url: "x", decision: "denied" }],
    };
    const result = await importFile(await open(), JSON.stringify(forged));
    expect(result.ok).toBe(false);
  });
});

describe("import", () => {
  it("round-trips losslessly into another browser (no collisions: ids kept)", async () => {
    const source = await open();
    const session = await populated(source);
    const document = await exportSession(source, session.id);
    // The other browser's clock is later than this one's (an import clamps times past its own clock).
    let time = 1_800_000_000_000;
    const target = await open({ now: () => (time += 1) });
    const result = await importFile(target, serializeExport(document));
    expect(result).toEqual({
      ok: true,
      droppedGrants: 1,
      sessions: [
        {
          id: session.id,
          originalId: session.id,
          title: "Sales by region",
          remapped: { session: false, messages: 0, mounts: 0 },
        },
      ],
    });
    const original = await loadSession(source, session.id);
    const imported = await loadSession(target, session.id);
    // Every message is marked as imported (content from outside), nothing else changes.
    expect(imported!.messages).toEqual(original!.messages.map((message) => ({ ...message, imported: true })));
    expect(imported!.mounts).toEqual(original!.mounts);
    // Content from outside: marked, and its rights do not travel (DESIGN.md §4).
    expect(imported!.session).toMatchObject({
      title: original!.session.title,
      createdAt: original!.session.createdAt,
      updatedAt: original!.session.updatedAt,
      origin: "imported",
      settings: { network: "ask", allowedHosts: [] },
      importedAt: expect.any(Number),
    });
    expect(await listGrants(target, session.id)).toEqual([]);
    // Exporting the import gives the same document, but for what import deliberately changes.
    const again = await exportSession(target, session.id);
    const comparable = (doc: SessionExport) => ({
      ...doc,
      exportedAt: "",
      grants: [],
      session: { ...doc.session, origin: "", settings: {}, importedAt: 0 },
      messages: doc.messages.map(({ imported: _imported, ...message }) => message),
      audit: doc.audit.map(({ fromFile: _fromFile, ...entry }) => entry),
    });
    expect(comparable(again)).toEqual(comparable(document));
  });

  it("never overwrites: importing into the same database gives new session, message and mount ids", async () => {
    const store = await open();
    const session = await populated(store);
    const document = await exportSession(store, session.id);
    const before = await loadSession(store, session.id);
    const result = await importFile(store, serializeExport(document));
    if (!result.ok) throw new Error(result.error.message);
    const [imported] = result.sessions;
    expect(imported.id).not.toBe(session.id);
    expect(imported.remapped).toEqual({ session: true, messages: 41, mounts: 2 });

    // The original is untouched.
    expect(await loadSession(store, session.id)).toEqual(before);
    const copy = await loadSession(store, imported.id);
    const originalIds = new Set(before!.messages.map((message) => message.id));
    expect(copy!.messages.every((message) => !originalIds.has(message.id))).toBe(true);
    // Structurally the same, once ids are set aside; mounts follow their messages.
    expect(withoutIds(copy!.messages, ["id", "imported"])).toEqual(withoutIds(before!.messages, ["id"]));
    expect(copy!.messages.every((message) => message.imported === true)).toBe(true);
    const positionOf = (messages: ChatMessage[], id: string) => messages.findIndex((message) => message.id === id);
    for (const [index, mount] of copy!.mounts.entries()) {
      const originalMount = before!.mounts.find(
        (candidate) => candidate.snapshot && JSON.stringify(candidate.snapshot) === JSON.stringify(mount.snapshot),
      )!;
      expect(positionOf(copy!.messages, mount.messageId), `mount ${index}`).toBe(
        positionOf(before!.messages, originalMount.messageId),
      );
      expect(mount.mountId).not.toBe(originalMount.mountId);
    }
    const all = new Set<string>();
    for (const message of await store.db.messages.toArray()) all.add(`${message.sessionId}/${message.id}`);
    expect(all.size).toBe(82);
    // Importing the same file a third time still works and still overwrites nothing.
    const third = await importFile(store, serializeExport(document));
    expect(third.ok).toBe(true);
    expect(await listSessions(store)).toHaveLength(3);
  });

  it("imports a backup of several sessions in one go, reading a File", async () => {
    const store = await open();
    await populated(store, "first");
    await populated(store, "second");
    const backup = serializeExport(await exportAll(store));
    const target = await open();
    const result = await importFile(target, new Blob([backup], { type: "application/json" }));
    if (!result.ok) throw new Error(result.error.message);
    expect(result.sessions.map((session) => session.title).sort()).toEqual(["first", "second"]);
    expect(result.droppedGrants).toBe(2);
    expect((await listSessions(target)).every((session) => session.origin === "imported")).toBe(true);
  });

  it("rolls everything back when the database fails halfway", async () => {
    const store = await open();
    const session = await populated(store);
    const text = serializeExport(await exportSession(store, session.id));
    const before = await dumpDatabase(store.db);
    store.db.audit.bulkAdd = (() =>
      Promise.reject(new DOMException("The quota has been exceeded.", "QuotaExceededError"))) as never;
    const result = await importFile(store, text);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe("storage");
      expect(result.error.message).toMatch(/^Nothing was imported: .*full/);
    }
    expect(await dumpDatabase(store.db)).toEqual(before);
  });

  it("accepts replies exactly as the agent's reducers build them (guards against the shapes drifting apart)", async () => {
    let reply = emptyReply();
    for (const event of [
      { type: "block-start", index: 0, kind: "text", line: 1 },
      { type: "block-delta", index: 0, text: "Intro\n" },
      { type: "block-end", index: 0, unterminated: false },
      { type: "block-start", index: 1, kind: "code", lang: "tsx", line: 3 },
      { type: "block-delta", index: 1, text: "console.log(1);\nthrow new Error('x');\nlater();\n" },
      { type: "block-end", index: 1, unterminated: true },
      { type: "block-start", index: 2, kind: "data", id: "rows", line: 8 },
      { type: "block-end", index: 2, unterminated: false },
      { type: "protocol-error", code: "malformed-header", message: "bad fence", line: 9, info: "agent.runn" },
    ] as const) {
      reply = applyProtocolEvent(reply, event);
    }
    for (const event of [
      { type: "statement-start", block: 1, statement: 0, line: 3, endLine: 3, source: "console.log(1);" },
      { type: "console", block: 1, statement: 0, level: "log", text: "1" },
      { type: "statement-end", block: 1, statement: 0, status: "done", durationMs: 1 },
      { type: "statement-start", block: 1, statement: 1, line: 4, endLine: 4, source: "throw new Error('x');" },
      {
        type: "statement-end",
        block: 1,
        statement: 1,
        status: "error",
        durationMs: 1,
        error: {
          code: "runtime",
          name: "Error",
          message: "x",
          block: 1,
          line: 4,
          column: 1,
          lineText: "throw new Error('x');",
        },
      },
      { type: "skipped", block: 1, fromStatement: 2, count: 1, fromLine: 5, reason: "error" },
      { type: "skipped", block: 2, fromStatement: 0, count: 0, fromLine: 8, reason: "error" },
      { type: "block-done", block: 1 },
    ] as const) {
      reply = applyExecEvent(reply, event);
    }
    const store = await open();
    const session = await createSession(store);
    const message: ChatMessage = {
      id: "a1",
      role: "assistant",
      text: "…",
      reply,
      state: "done",
      createdAt: 1,
      error: { code: "disconnected", message: "lost", retryable: true },
    };
    await saveMessages(store, session.id, [message]);
    const parsed = parseExportText(serializeExport(await exportSession(store, session.id)));
    if (!parsed.ok) throw new Error(parsed.error.message);
    expect(parsed.document.format === "livemark.session" && parsed.document.messages[0]).toEqual(message);
  });

  it("turns a reply that was streaming in the file into an interrupted one", async () => {
    const store = await open();
    const session = await populated(store);
    const document = await exportSession(store, session.id);
    const last = document.messages.at(-1) as ChatMessage & { state: string };
    last.state = "streaming";
    const result = await importFile(store, JSON.stringify(document));
    if (!result.ok) throw new Error(result.error.message);
    const loaded = await store.db.messages
      .where("[sessionId+order]")
      .between([result.sessions[0].id, 0], [result.sessions[0].id, Infinity])
      .last();
    expect(loaded).toMatchObject({ state: "interrupted" });
  });
});
