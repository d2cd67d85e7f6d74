import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../agent/types";
import { applyProtocolEvent, emptyReply } from "../agent/reply";
import { createProtocolParser } from "../protocol/parser";
import { exportSession, importFile, serializeExport } from "./exportImport";
import { parseExportText } from "./exportSchema";
import { createSession, loadSession, saveMessages } from "./sessions";
import type { Store } from "./store";
import { openTestStore } from "./testSupport";

/** A reasoning model's thinking travels with its reply through export and import. */

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.db.close();
});

function thinkingReply(): ChatMessage {
  const text = "<think>\nTry it:\n```tsx agent.run\ndraft()\n```\n</think>\nAnswer.\n";
  const parser = createProtocolParser();
  let reply = emptyReply();
  for (const event of [...parser.push(text), ...parser.end()]) reply = applyProtocolEvent(reply, event);
  reply = { ...reply, thinking: { ...reply.thinking!, startedAt: 1_000, endedAt: 4_000 } };
  return { id: "a1", role: "assistant", text, reply, state: "done", createdAt: 5 };
}

describe("thinking in exports", () => {
  it("exports the thinking with its reply and imports it back unchanged", async () => {
    const store = await openTestStore();
    stores.push(store);
    const session = await createSession(store, { title: "Reasoning" });
    const message = thinkingReply();
    await saveMessages(store, session.id, [{ id: "u1", role: "user", text: "go", createdAt: 1 }, message]);
    const file = serializeExport(await exportSession(store, session.id));
    const parsed = parseExportText(file);
    expect(parsed.ok).toBe(true);
    const result = await importFile(store, file);
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    const imported = await loadSession(store, result.sessions[0].id);
    const reply = imported?.messages.find((item) => item.role === "assistant");
    expect(reply?.role === "assistant" && reply.reply.thinking).toEqual({
      source: "think",
      text: "\nTry it:\n```tsx agent.run\ndraft()\n```\n",
      closed: true,
      unterminated: false,
      startedAt: 1_000,
      endedAt: 4_000,
    });
    expect(reply?.role === "assistant" && reply.reply.blocks.map((block) => block.kind)).toEqual(["text"]);
  });

  it("still accepts files written before thinking existed, and rejects a malformed thinking with its path", async () => {
    const store = await openTestStore();
    stores.push(store);
    const session = await createSession(store, { title: "Old" });
    const message = thinkingReply();
    await saveMessages(store, session.id, [message]);
    const document = JSON.parse(serializeExport(await exportSession(store, session.id)));
    delete document.messages[0].reply.thinking;
    expect(parseExportText(JSON.stringify(document)).ok).toBe(true);
    document.messages[0].reply.thinking = { source: "dream", text: 5, closed: true, unterminated: false };
    const bad = parseExportText(JSON.stringify(document));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.path).toContain("thinking");
  });
});
