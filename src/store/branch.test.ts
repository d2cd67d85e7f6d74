import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../agent/types";
import { exportSession, importFile, serializeExport } from "./exportImport";
import {
  branchSession,
  createSession,
  listSessions,
  loadSession,
  removeMessages,
  saveMessages,
  saveMounts,
  searchSessions,
  updateSessionChat,
} from "./sessions";
import type { Store } from "./store";
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
});
