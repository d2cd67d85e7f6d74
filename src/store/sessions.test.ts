import { afterEach, describe, expect, it, vi } from "vitest";
import { applyProtocolEvent } from "../agent/reply";
import { replyWithStatement } from "../agent/replyTestSupport";
import type { ChatMessage } from "../agent/types";
import { StoreError } from "./errors";
import {
  createSession,
  deleteSession,
  getSession,
  listDeletedSessions,
  listSessions,
  loadSession,
  purgeDeleted,
  removeMounts,
  renameSession,
  saveMessages,
  saveMounts,
  searchSessions,
  undoDelete,
  updateSessionSettings,
} from "./sessions";
import { addAuditEntry, addGrant, listAudit, listGrants } from "./capabilities";
import type { Store } from "./store";
import {
  assistantMessage,
  conversation,
  dumpDatabase,
  openTestStore,
  sampleSnapshot,
  userMessage,
} from "./testSupport";

let store: Store | undefined;
afterEach(() => store?.db.close());

async function fresh(): Promise<Store> {
  store = await openTestStore();
  return store;
}

describe("sessions", () => {
  it("creates sessions with defaults and lists the most recent first", async () => {
    const s = await fresh();
    const first = await createSession(s);
    const second = await createSession(s, { title: "  Sales \n by   region " });
    expect(first).toMatchObject({
      title: "New session",
      origin: "local",
      settings: { network: "ask", allowedHosts: [] },
    });
    expect(second.title).toBe("Sales by region");
    expect((await listSessions(s)).map((session) => session.id)).toEqual([second.id, first.id]);

    // Saving a message is activity: the first session moves to the top.
    await saveMessages(s, first.id, [userMessage("u1", "hello")]);
    expect((await listSessions(s)).map((session) => session.id)).toEqual([first.id, second.id]);
  });

  it("renames without reordering, and rejects unknown ids with a StoreError", async () => {
    const s = await fresh();
    const a = await createSession(s, { title: "A" });
    const b = await createSession(s, { title: "B" });
    const renamed = await renameSession(s, a.id, "Quarterly numbers");
    expect(renamed.title).toBe("Quarterly numbers");
    expect((await renameSession(s, a.id, "   ")).title).toBe("New session");
    expect((await renameSession(s, a.id, "x".repeat(500))).title).toHaveLength(200);
    expect((await listSessions(s)).map((session) => session.id)).toEqual([b.id, a.id]);
    const error = await renameSession(s, "missing", "x").catch((caught) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect(error.code).toBe("not-found");
  });

  it("updates capability settings", async () => {
    const s = await fresh();
    const session = await createSession(s);
    await updateSessionSettings(s, session.id, { network: "allowed", allowedHosts: ["api.example.com"] });
    expect((await getSession(s, session.id))?.settings).toEqual({
      network: "allowed",
      allowedHosts: ["api.example.com"],
    });
  });

  it("soft-deletes with undo, and purges everything of a deleted session", async () => {
    const s = await fresh();
    const keep = await createSession(s, { title: "Keep" });
    const doomed = await createSession(s, { title: "Doomed" });
    await saveMessages(s, doomed.id, [userMessage("u1", "needle in doomed"), assistantMessage("a1", "reply")]);
    await saveMounts(s, doomed.id, [{ mountId: "mount-1", messageId: "a1", snapshot: sampleSnapshot(1) }]);
    await addGrant(s, { sessionId: doomed.id, capability: "network", host: "example.com", grantedAt: 1 });
    await addAuditEntry(s, {
      sessionId: doomed.id,
      at: 1,
      capability: "network",
      method: "GET",
      url: "https://example.com",
      decision: "allowed-once",
    });
    await saveMessages(s, keep.id, [userMessage("k1", "kept")]);

    await deleteSession(s, doomed.id);
    expect((await listSessions(s)).map((session) => session.id)).toEqual([keep.id]);
    expect((await listDeletedSessions(s)).map((session) => session.id)).toEqual([doomed.id]);
    expect(await searchSessions(s, "needle")).toEqual([]);

    await undoDelete(s, doomed.id);
    expect((await getSession(s, doomed.id))?.deletedAt).toBeUndefined();
    expect((await searchSessions(s, "needle")).map((hit) => hit.session.id)).toEqual([doomed.id]);

    await deleteSession(s, doomed.id);
    const deletedAt = (await getSession(s, doomed.id))!.deletedAt!;
    expect(await purgeDeleted(s, { deletedBefore: deletedAt })).toBe(0);
    expect(await purgeDeleted(s)).toBe(1);
    const dump = await dumpDatabase(s.db);
    for (const table of ["sessions", "messages", "mounts", "grants", "audit", "searchText"]) {
      expect(
        dump[table].some((row) => JSON.stringify(row).includes(doomed.id)),
        table,
      ).toBe(false);
    }
    expect(dump.messages).toHaveLength(1);
    const error = await undoDelete(s, doomed.id).catch((caught) => caught);
    expect(error.code).toBe("not-found");
  });

  it("searches titles and message content, every word, case-insensitively", async () => {
    const s = await fresh();
    const sales = await createSession(s, { title: "Sales dashboard" });
    const weather = await createSession(s, { title: "Weather" });
    await saveMessages(s, sales.id, [
      userMessage("u1", "Plot the revenue per Region"),
      assistantMessage("a1", "Here is the chart of revenue."),
    ]);
    await saveMessages(s, weather.id, [
      userMessage("w1", "Fetch the forecast for Zürich"),
      {
        id: "f1",
        role: "feedback",
        text: "<runtime>temperature 21</runtime>",
        body: "temperature 21",
        source: "runtime",
        createdAt: 3,
      },
    ]);
    const ids = async (query: string) => (await searchSessions(s, query)).map((hit) => hit.session.id);
    expect(await ids("REVENUE")).toEqual([sales.id]);
    expect(await ids("sales region")).toEqual([sales.id]); // one word in the title, one in a message
    expect(await ids("revenue zürich")).toEqual([]);
    expect(await ids("zurich")).toEqual([weather.id]);
    expect(await ids("ZÜRICH")).toEqual([weather.id]);
    expect((await searchSessions(s, "zurich"))[0].snippet).toBe("Fetch the forecast for Zürich");
    expect(await ids("temperature")).toEqual([weather.id]);
    expect(await ids("")).toEqual([weather.id, sales.id]);
    const [hit] = await searchSessions(s, "region revenue");
    expect(hit.messageId).toBe("u1");
    expect(hit.snippet).toBe("Plot the revenue per Region");
  });

  it("a reply saved while a statement ran reads back with nothing running: that statement stopped, the rest skipped", async () => {
    const s = await fresh();
    const session = await createSession(s);
    let reply = replyWithStatement("while (true) {}");
    reply = applyProtocolEvent(reply, { type: "block-start", index: 1, kind: "code", lang: "ts", line: 5 } as never);
    const live = { ...assistantMessage("live", "``` ts agent.run", { state: "streaming" }), reply };
    const stopped = {
      ...assistantMessage("stopped", "``` ts agent.run", { state: "done" }),
      reply,
      state: "stopped" as const,
    };
    await saveMessages(s, session.id, [stopped, live]);
    const loaded = await loadSession(s, session.id);
    for (const message of loaded!.messages) {
      if (message.role !== "assistant") throw new Error("not a reply");
      expect(JSON.stringify(message.reply)).not.toContain('"running"');
      expect(message.reply.blocks.map((block) => block.kind !== "text" && block.status)).toEqual(["error", "skipped"]);
    }
    expect(loaded!.messages.map((message) => message.role === "assistant" && message.state)).toEqual([
      "stopped",
      "interrupted",
    ]);
  });

  it("loads messages in order with their mounts; a reply saved mid-stream reads as interrupted", async () => {
    const s = await fresh();
    const session = await createSession(s);
    const messages = conversation(30);
    await saveMessages(s, session.id, messages.slice(0, 10));
    await saveMessages(s, session.id, messages);
    await saveMounts(s, session.id, [
      { mountId: "mount-1", messageId: "m1", snapshot: sampleSnapshot(1) },
      { mountId: "mount-2", messageId: "m3", snapshot: sampleSnapshot(2) },
    ]);
    await removeMounts(s, session.id, ["mount-2"]);
    const streaming = assistantMessage("live", "half a rep", { state: "streaming" });
    await saveMessages(s, session.id, [streaming]);

    const loaded = await loadSession(s, session.id);
    expect(loaded?.messages.map((message) => message.id)).toEqual([...messages.map((message) => message.id), "live"]);
    expect(loaded?.messages.slice(0, 30)).toEqual(messages);
    expect(loaded?.messages[30]).toEqual({ ...streaming, state: "interrupted" });
    expect(loaded?.mounts).toEqual([
      {
        sessionId: session.id,
        mountId: "mount-1",
        messageId: "m1",
        snapshot: sampleSnapshot(1),
        updatedAt: expect.any(Number),
      },
    ]);
    expect(await loadSession(s, "nope")).toBeUndefined();
  });

  it("writes only messages that changed, and keeps each message's first position", async () => {
    const s = await fresh();
    const session = await createSession(s);
    let messages: ChatMessage[] = conversation(20);
    expect(await saveMessages(s, session.id, messages)).toBe(20);
    expect(await saveMessages(s, session.id, messages)).toBe(0);
    const changed = { ...messages[5], text: "edited" } as ChatMessage;
    messages = messages.map((message, index) => (index === 5 ? changed : message));
    messages.push(userMessage("new", "appended"));
    expect(await saveMessages(s, session.id, messages)).toBe(2);
    // A subset (as the write-behind sends) keeps orders: the changed one stays 5th.
    expect(await saveMessages(s, session.id, [{ ...changed, text: "edited again" } as ChatMessage])).toBe(1);
    const loaded = await loadSession(s, session.id);
    expect(loaded?.messages.map((message) => message.id)).toEqual(messages.map((message) => message.id));
    expect(loaded?.messages[5]).toMatchObject({ text: "edited again" });
    // Loaded objects count as saved: handing them back writes nothing.
    expect(await saveMessages(s, session.id, loaded!.messages)).toBe(0);
  });

  it("saves a growing reply of a session opened here again and again without reading its row back", async () => {
    const s = await fresh();
    const session = await createSession(s);
    const messages: ChatMessage[] = [userMessage("u", "Write a lot."), assistantMessage("a", "Paragraph.")];
    await saveMessages(s, session.id, messages);
    // Reading a stored reply deserializes all of it (megabytes for a huge one), on the page's thread.
    const reads = vi.spyOn(s.db.messages, "bulkGet");
    let text = "Paragraph.";
    for (let save = 0; save < 3; save += 1) {
      text += "\n\nMore.";
      expect(await saveMessages(s, session.id, [{ ...messages[1], text } as ChatMessage])).toBe(1);
    }
    expect(reads).not.toHaveBeenCalled();
    reads.mockRestore();
    const loaded = await loadSession(s, session.id);
    expect(loaded?.messages.map((message) => [message.id, message.role === "assistant" && message.text])).toEqual([
      ["u", false],
      ["a", text],
    ]);
  });

  it("refuses to save into a session that does not exist, writing nothing", async () => {
    const s = await fresh();
    const before = await dumpDatabase(s.db);
    const error = await saveMessages(s, "ghost", [userMessage("u", "x")]).catch((caught) => caught);
    expect(error.code).toBe("not-found");
    expect(await dumpDatabase(s.db)).toEqual(before);
  });

  it("loads a long session whole and in order, read a page at a time", async () => {
    const s = await fresh();
    const other = await createSession(s);
    await saveMessages(s, other.id, conversation(5));
    // Page size 200: two whole pages and nothing after, and two whole pages and one message.
    for (const count of [400, 401]) {
      const session = await createSession(s);
      const messages = conversation(count);
      await saveMessages(s, session.id, messages);
      const loaded = await loadSession(s, session.id);
      expect(loaded?.messages.map((message) => message.id)).toEqual(messages.map((message) => message.id));
      expect(loaded?.messages).toEqual(messages);
    }
    expect((await loadSession(s, other.id))?.messages).toHaveLength(5);
  });

  it("keeps message rows of different sessions apart even when ids collide", async () => {
    const s = await fresh();
    const a = await createSession(s);
    const b = await createSession(s);
    await saveMessages(s, a.id, [userMessage("same", "in a")]);
    await saveMessages(s, b.id, [userMessage("same", "in b")]);
    expect((await loadSession(s, a.id))?.messages[0]).toMatchObject({ text: "in a" });
    expect((await loadSession(s, b.id))?.messages[0]).toMatchObject({ text: "in b" });
  });

  it("keeps grants and audit", async () => {
    const s = await fresh();
    const session = await createSession(s);
    await addAuditEntry(s, {
      sessionId: session.id,
      at: 5,
      capability: "network",
      method: "POST",
      url: "https://b.example",
      decision: "denied",
    });
    await addAuditEntry(s, {
      sessionId: session.id,
      at: 2,
      capability: "network",
      method: "GET",
      url: "https://a.example",
      decision: "allowed-once",
    });
    expect((await listAudit(s, session.id)).map((entry) => entry.url)).toEqual([
      "https://a.example",
      "https://b.example",
    ]);
    await addGrant(s, { sessionId: session.id, capability: "network", host: "a.example", grantedAt: 3 });
    expect(await listGrants(s, session.id)).toHaveLength(1);
  });
});
