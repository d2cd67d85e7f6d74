import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../agent/types";
import {
  allMessageIds,
  editedTimeline,
  regeneratedTimeline,
  switchedTimeline,
  versionOf,
} from "../agent/messageActions";
import { exportSession, importFile, serializeExport } from "./exportImport";
import {
  createSession,
  listSessions,
  loadSession,
  saveMessages,
  saveMounts,
  searchSessions,
  updateSessionChat,
} from "./sessions";
import type { Store } from "./store";
import { branchSession, removeMessages } from "./timelineEdits";
import { assistantMessage, openTestStore, userMessage } from "./testSupport";

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.db.close();
});
async function open(): Promise<Store> {
  const store = await openTestStore();
  stores.push(store);
  return store;
}

function withMount(message: ChatMessage, mountId: string): ChatMessage {
  if (message.role !== "assistant") return message;
  return { ...message, reply: { ...message.reply, mounts: [{ mountId, afterBlock: 0 }] } };
}

describe("edit, regenerate and branch in the store", () => {
  it("removeMessages deletes the messages, their search rows and their mounts' snapshots, nothing else", async () => {
    const store = await open();
    const session = await createSession(store, { title: "Kept" });
    const messages = [
      userMessage("u1", "alpha question"),
      withMount(assistantMessage("a1", "alpha answer"), "r1:m1"),
      userMessage("u2", "omega question"),
      withMount(assistantMessage("a2", "omega answer"), "r1:m2"),
    ];
    await saveMessages(store, session.id, messages);
    await saveMounts(store, session.id, [
      { mountId: "r1:m1", messageId: "a1", snapshot: { one: 1 } },
      { mountId: "r1:m2", messageId: "a2", snapshot: { two: 2 } },
    ]);
    await removeMessages(store, session.id, ["u2", "a2"]);
    const loaded = (await loadSession(store, session.id))!;
    expect(loaded.messages.map((message) => message.id)).toEqual(["u1", "a1"]);
    expect(loaded.mounts.map((mount) => mount.mountId)).toEqual(["r1:m1"]);
    expect(await searchSessions(store, "omega")).toEqual([]);
    expect((await searchSessions(store, "alpha")).map((hit) => hit.session.id)).toEqual([session.id]);
  });

  it("a branch copies the messages up to there with their mounts under new ids and the model settings; the source is untouched", async () => {
    const store = await open();
    const source = await updateSessionChat(store, (await createSession(store, { title: "Trip" })).id, {
      model: "other-model",
      temperature: 0.4,
      instruction: "Be brief.",
    });
    const messages = [
      userMessage("u1", "plan"),
      withMount(assistantMessage("a1", "planned"), "r1:m1"),
      userMessage("u2", "later"),
      withMount(assistantMessage("a2", "done"), "r1:m2"),
    ];
    await saveMessages(store, source.id, messages);
    await saveMounts(store, source.id, [
      { mountId: "r1:m1", messageId: "a1", snapshot: { tree: "one" } },
      { mountId: "r1:m2", messageId: "a2", snapshot: { tree: "two" } },
    ]);
    const branch = await branchSession(
      store,
      source,
      messages.slice(0, 2),
      (await loadSession(store, source.id))!.mounts,
    );
    expect(branch.title).toBe("Branch of Trip");
    expect(branch.chat).toEqual({ model: "other-model", temperature: 0.4, instruction: "Be brief." });
    const copy = (await loadSession(store, branch.id))!;
    expect(copy.messages.map((message) => message.text)).toEqual(["plan", "planned"]);
    const reply = copy.messages[1];
    const mountId = reply.role === "assistant" ? reply.reply.mounts![0].mountId : "";
    expect(mountId).not.toBe("r1:m1");
    expect(copy.mounts).toMatchObject([{ mountId, messageId: "a1", snapshot: { tree: "one" } }]);
    expect((await loadSession(store, source.id))!.messages).toHaveLength(4);
    expect((await listSessions(store)).map((session) => session.title).sort()).toEqual(["Branch of Trip", "Trip"]);
  });

  it("a session's model settings and its messages' attachments travel in the export and come back on import (the settings as a suggestion)", async () => {
    const store = await open();
    const session = await updateSessionChat(store, (await createSession(store, { title: "With files" })).id, {
      model: "m",
      maxOutputTokens: 2048,
    });
    const attachments = [{ name: "sales.csv", mediaType: "text/csv", size: 4, data: "YSxiCg==" }];
    await saveMessages(store, session.id, [{ ...userMessage("u1", "sum it"), attachments } as ChatMessage]);
    const text = serializeExport(await exportSession(store, session.id));
    const other = await open();
    const result = await importFile(other, text);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const loaded = (await loadSession(other, result.sessions[0].id))!;
    // An import never chooses the model or the budget: the file's settings wait for Apply suggested settings.
    expect(loaded.session.chat).toBeUndefined();
    expect(loaded.session.suggestedChat).toEqual({ model: "m", maxOutputTokens: 2048 });
    const user = loaded.messages[0];
    expect(user.role === "user" && user.attachments).toEqual(attachments);
    // Clearing the settings removes them.
    expect((await updateSessionChat(store, session.id, {})).chat).toBeUndefined();
  });

  it("an import with a malformed or oversized attachment is refused, saying where", async () => {
    const store = await open();
    const session = await createSession(store, { title: "Bad" });
    await saveMessages(store, session.id, [
      {
        ...userMessage("u1", "x"),
        attachments: [{ name: "a.png", mediaType: "image/png", size: 3, data: "not base64!" }],
      } as ChatMessage,
    ]);
    const result = await importFile(await open(), serializeExport(await exportSession(store, session.id)));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toMatch(/messages\[0\]\.attachments\[0\]\.data/);
  });

  describe("versions", () => {
    const thirty = (): ChatMessage[] =>
      Array.from({ length: 30 }, (_, index) =>
        index % 2 === 0
          ? userMessage(`m${index}`, `question ${index}`)
          : assistantMessage(`m${index}`, `answer ${index}`),
      );

    /** What sessionController does when the timeline changes: write it, then drop the rows no longer shown. */
    async function show(store: Store, sessionId: string, before: readonly ChatMessage[], after: ChatMessage[]) {
      await saveMessages(store, sessionId, after);
      const shown = new Set(after.map((message) => message.id));
      const hidden = before.filter((message) => !shown.has(message.id)).map((message) => message.id);
      await removeMessages(store, sessionId, hidden, allMessageIds(after));
      return after;
    }

    it("editing message 3 of 30 keeps all 30 on disk: the reload shows the edit as 2/2, and version 1/2 brings back all 30 with their mounts", async () => {
      const store = await open();
      const session = await createSession(store, { title: "Long" });
      const original = thirty();
      original[29] = withMount(original[29], "r:last");
      await saveMessages(store, session.id, original);
      await saveMounts(store, session.id, [{ mountId: "r:last", messageId: "m29", snapshot: { kept: true } }]);
      const edited = editedTimeline(original, "m2", "question 2, edited", () => ({ id: "e2", createdAt: 50 }))!;
      await show(store, session.id, original, edited);
      let loaded = (await loadSession(store, session.id))!;
      expect(loaded.messages.map((message) => message.id)).toEqual(["m0", "m1", "e2"]);
      expect(versionOf(loaded.messages[2])).toEqual({ at: 1, total: 2 });
      expect(allMessageIds(loaded.messages).size).toBe(31);
      // The earlier version's mount snapshot stays while a version holds its message.
      expect(loaded.mounts.map((mount) => mount.mountId)).toEqual(["r:last"]);
      // Search finds what is shown.
      expect((await searchSessions(store, "edited")).map((hit) => hit.session.id)).toEqual([session.id]);

      const back = switchedTimeline(loaded.messages, "e2", 0)!.messages;
      await show(store, session.id, loaded.messages, back);
      loaded = (await loadSession(store, session.id))!;
      expect(loaded.messages.map((message) => message.text)).toEqual(original.map((message) => message.text));
      expect(versionOf(loaded.messages[2])).toEqual({ at: 0, total: 2 });
      expect(loaded.mounts.map((mount) => mount.mountId)).toEqual(["r:last"]);

      // And forth again, from what was loaded: still both, in order.
      const forth = switchedTimeline(loaded.messages, "m2", 1)!.messages;
      await show(store, session.id, loaded.messages, forth);
      loaded = (await loadSession(store, session.id))!;
      expect(loaded.messages.map((message) => message.id)).toEqual(["m0", "m1", "e2"]);
      const again = switchedTimeline(loaded.messages, "e2", 0)!.messages;
      await show(store, session.id, loaded.messages, again);
      loaded = (await loadSession(store, session.id))!;
      expect(loaded.messages.map((message) => message.id)).toEqual(original.map((message) => message.id));
    });

    it("rows left behind by a page closed before they were removed are read past: the newest row wins, export agrees", async () => {
      const store = await open();
      const session = await createSession(store, { title: "Cut" });
      const original = thirty();
      await saveMessages(store, session.id, original);
      const edited = editedTimeline(original, "m2", "edited", () => ({ id: "e2", createdAt: 50 }))!;
      // Written, but the page went before the rows it hides were removed.
      await saveMessages(store, session.id, edited);
      let loaded = (await loadSession(store, session.id))!;
      expect(loaded.messages.map((message) => message.id)).toEqual(["m0", "m1", "e2"]);
      const exported = await exportSession(store, session.id);
      expect(exported.messages.map((message) => message.id)).toEqual(["m0", "m1", "e2"]);
      // Back to version 1, again cut before the removal: its rows are written after the others and win.
      const back = switchedTimeline(loaded.messages, "e2", 0)!.messages;
      await saveMessages(store, session.id, back);
      loaded = (await loadSession(store, session.id))!;
      expect(loaded.messages.map((message) => message.id)).toEqual(original.map((message) => message.id));
      expect(allMessageIds(loaded.messages).size).toBe(31);
    });

    it("export → import round-trips the versions, their mounts and the version shown; the imported copies are marked", async () => {
      const store = await open();
      const session = await createSession(store, { title: "Versions" });
      const original = [userMessage("u1", "draw"), withMount(assistantMessage("a1", "first try"), "r:one")];
      await saveMessages(store, session.id, original);
      await saveMounts(store, session.id, [{ mountId: "r:one", messageId: "a1", snapshot: { one: 1 } }]);
      const notice = (id: string): ChatMessage => ({ id, role: "notice", text: "again", level: "info", createdAt: 3 });
      let timeline = await show(store, session.id, original, regeneratedTimeline(original, 0, notice("n1")));
      timeline = await show(store, session.id, timeline, [...timeline, assistantMessage("a2", "second try")]);
      timeline = await show(store, session.id, timeline, regeneratedTimeline(timeline, 0, notice("n2")));
      expect(versionOf(timeline[1])).toEqual({ at: 2, total: 3 });

      const text = serializeExport(await exportSession(store, session.id));
      const other = await open();
      // The same ids are taken there already: the import gives fresh ones, references follow.
      const taken = await createSession(other, { title: "Taken" });
      await saveMessages(other, taken.id, [userMessage("a1", "mine")]);
      const result = await importFile(other, text);
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      const loaded = (await loadSession(other, result.sessions[0].id))!;
      expect(loaded.messages.map((message) => message.id)).toEqual(["u1", "n2"]);
      expect(versionOf(loaded.messages[1])).toEqual({ at: 2, total: 3 });
      const oldest = switchedTimeline(loaded.messages, "n2", 0)!.messages;
      expect(oldest.map((message) => message.text)).toEqual(["draw", "first try"]);
      const firstTry = oldest[1];
      expect(firstTry.id).not.toBe("a1");
      expect(firstTry.imported).toBe(true);
      const mountId = firstTry.role === "assistant" ? firstTry.reply.mounts![0].mountId : "";
      expect(loaded.mounts).toMatchObject([{ mountId, messageId: firstTry.id, snapshot: { one: 1 } }]);
      const middle = switchedTimeline(oldest, firstTry.id, 1)!.messages;
      expect(middle.map((message) => message.text)).toEqual(["draw", "again", "second try"]);
      expect(middle.every((message) => message.imported)).toBe(true);
    });

    it("an export written before versions (no versions field) imports as it did", async () => {
      const old = {
        format: "livemark.session",
        version: 1,
        exportedAt: "2025-01-01T00:00:00.000Z",
        session: {
          id: "s-old",
          title: "Before versions",
          createdAt: 1,
          updatedAt: 2,
          origin: "local",
          settings: { network: "ask", allowedHosts: [] },
        },
        messages: [
          { id: "u1", role: "user", text: "hello", createdAt: 1 },
          {
            id: "a1",
            role: "assistant",
            text: "hi",
            reply: { blocks: [], protocolErrors: [], notices: [] },
            state: "done",
            createdAt: 2,
          },
        ],
        mounts: [],
        grants: [],
        audit: [],
      };
      const store = await open();
      const result = await importFile(store, JSON.stringify(old));
      expect(result.ok ? result.sessions[0].title : result.error.message).toBe("Before versions");
      const loaded = (await loadSession(store, "s-old"))!;
      expect(loaded.messages.map((message) => message.text)).toEqual(["hello", "hi"]);
      expect(loaded.messages.some((message) => message.versions)).toBe(false);
    });

    it("an import refuses malformed versions, saying where, and writes nothing", async () => {
      const store = await open();
      const session = await createSession(store, { title: "Bad versions" });
      await saveMessages(store, session.id, [userMessage("u1", "x")]);
      const document = JSON.parse(serializeExport(await exportSession(store, session.id)));
      const cases: [unknown, RegExp][] = [
        [{ at: 0, others: [] }, /messages\[0\]\.versions/],
        [{ at: 5, others: [[{ id: "u0", role: "user", text: "y", createdAt: 1 }]] }, /messages\[0\]\.versions/],
        [
          { at: 0, others: [[{ id: "u0", role: "robot", text: "y", createdAt: 1 }]] },
          /versions\.others\[0\]\[0\]\.role/,
        ],
        [{ at: 0, others: [[{ id: "u1", role: "user", text: "y", createdAt: 1 }]] }, /unique/],
      ];
      for (const [versions, problem] of cases) {
        document.messages[0].versions = versions;
        const other = await open();
        const result = await importFile(other, JSON.stringify(document));
        expect(result.ok ? "imported" : result.error.message).toMatch(problem);
        expect(await listSessions(other)).toEqual([]);
      }
    });
  });
});
