/**
 * Edit code (issue 29 §2): an edited block is saved as a field of its reply
 * (`source` the person's code, `original` the model's, `stale` on the blocks
 * that read what it declares); it survives a reload, travels in exports, and
 * an import checks it as the hostile input it may be.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../agent/types";
import { blockToRun } from "../agent/editBlock";
import { exportSession, importFile, serializeExport } from "./exportImport";
import { createSession, loadSession, saveMessages } from "./sessions";
import type { Store } from "./store";
import { assistantMessage, openTestStore } from "./testSupport";

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.db.close();
});

async function open(options: Parameters<typeof openTestStore>[0] = {}): Promise<Store> {
  const store = await openTestStore(options);
  stores.push(store);
  return store;
}

/** A reply whose code block the person edited, and a second reply whose block is stale. */
function editedMessages(): ChatMessage[] {
  const first = assistantMessage("a1", "first", { seed: 1 });
  const second = assistantMessage("a2", "second", { seed: 2 });
  if (first.role !== "assistant" || second.role !== "assistant") throw new Error("unreachable");
  type Reply = Extract<ChatMessage, { role: "assistant" }>;
  type Code = Extract<Reply["reply"]["blocks"][number], { kind: "code" }>;
  const edit = (message: Reply, update: (block: Code) => object): Reply => ({
    ...message,
    reply: {
      ...message.reply,
      blocks: message.reply.blocks.map((block) => (block.kind === "code" ? { ...block, ...update(block) } : block)),
    },
  });
  return [
    { id: "u1", role: "user", text: "chart", createdAt: 1 },
    edit(first, (block) => ({ ...blockToRun(block, "const rows1 = new Data({ rows: [1, 2] });"), status: "done" })),
    { id: "u2", role: "user", text: "more", createdAt: 3 },
    edit(second, () => ({ stale: true })),
  ] as ChatMessage[];
}

function codeOf(messages: readonly ChatMessage[] | undefined, id: string) {
  const message = messages?.find((item) => item.id === id);
  if (message?.role !== "assistant") return undefined;
  return message.reply.blocks.find((block) => block.kind === "code");
}

describe("edited blocks", () => {
  it("are saved with the session and read back after a reload", async () => {
    const store = await open();
    const session = await createSession(store, { title: "Edits" });
    await saveMessages(store, session.id, editedMessages());
    const loaded = await loadSession(store, session.id);
    expect(codeOf(loaded?.messages, "a1")).toMatchObject({
      source: "const rows1 = new Data({ rows: [1, 2] });",
      original: expect.stringContaining("const rows1 = new Data({ rows: [] });"),
    });
    expect(codeOf(loaded?.messages, "a2")).toMatchObject({ stale: true });
  });

  it("round-trip through an export and an import into another browser", async () => {
    const source = await open();
    const session = await createSession(source, { title: "Edits" });
    await saveMessages(source, session.id, editedMessages());
    const text = serializeExport(await exportSession(source, session.id));
    expect(text).toContain('"original"');
    const target = await open();
    const result = await importFile(target, text);
    expect(result.ok).toBe(true);
    const imported = await loadSession(target, result.ok ? result.sessions[0].id : "");
    expect(codeOf(imported?.messages, "a1")).toEqual(codeOf(editedMessages(), "a1"));
    expect(codeOf(imported?.messages, "a2")).toMatchObject({ stale: true });
  });

  it("an import refuses an edit that is not code: a non-string original, a non-boolean stale, an oversized original", async () => {
    const source = await open();
    const session = await createSession(source, { title: "Edits" });
    await saveMessages(source, session.id, editedMessages());
    const document = JSON.parse(serializeExport(await exportSession(source, session.id)));
    const codeBlock = (doc: { messages: { id: string; reply?: { blocks: { kind: string }[] } }[] }) =>
      doc.messages
        .find((message) => message.id === "a1")!
        .reply!.blocks.find((block) => block.kind === "code") as Record<string, unknown>;
    const hostile: [string, unknown][] = [
      ["original", { toString: "alert(1)" }],
      ["original", ["const a = 1"]],
      ["original", "x".repeat(4_000_001)],
      ["stale", "yes"],
    ];
    for (const [field, value] of hostile) {
      const copy = structuredClone(document);
      codeBlock(copy)[field] = value;
      const target = await open();
      const result = await importFile(target, JSON.stringify(copy));
      expect(result.ok, `${field} = ${JSON.stringify(value).slice(0, 40)}`).toBe(false);
      expect(await target.db.messages.count()).toBe(0);
    }
  });
});
