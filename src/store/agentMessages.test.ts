import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../agent/types";
import { exportSession, importFile, serializeExport } from "./exportImport";
import { parseExportText } from "./exportSchema";
import { createSession, loadSession, saveMessages } from "./sessions";
import type { Store } from "./store";
import { openTestStore } from "./testSupport";

/** An invited agent's share of a session (DESIGN.md §4b) persists, exports and imports. */
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.db.close();
});

const AGENT_MESSAGES: ChatMessage[] = [
  {
    id: "u1",
    role: "user",
    text: "Make it blue",
    createdAt: 1,
    to: "agent",
    commandId: "c1",
    selection: { kind: "mount", id: "r:m1", label: "mount “Chart”" },
    receivedBy: "coder (agent 1)",
  },
  {
    id: "a1",
    role: "agent",
    kind: "status",
    text: "Looking at the chart",
    commandId: "c1",
    agent: "coder (agent 1)",
    createdAt: 2,
  },
  { id: "a2", role: "agent", kind: "question", text: "Which blue?", commandId: "c1", answer: "Navy", createdAt: 3 },
  { id: "u2", role: "user", text: "Navy", createdAt: 4, to: "agent", commandId: "c2", answers: "a2" },
  {
    id: "a3",
    role: "agent",
    kind: "reply",
    text: "Done: the chart is navy.",
    commandId: "c2",
    summary: {
      status: "done",
      changed: { mounts: ["Chart"], data: [], grants: [] },
      checks: ["read the chart's colours back"],
    },
    createdAt: 5,
  },
  { id: "a4", role: "agent", kind: "error", text: "Could not save", commandId: "c2", createdAt: 6 },
];

describe("agent messages", () => {
  it("persist, export and import unchanged", async () => {
    const store = await openTestStore();
    stores.push(store);
    const session = await createSession(store, { title: "With an agent" });
    await saveMessages(store, session.id, AGENT_MESSAGES);
    expect((await loadSession(store, session.id))?.messages).toEqual(AGENT_MESSAGES);

    const text = serializeExport(await exportSession(store, session.id));
    const parsed = parseExportText(text);
    expect(parsed.ok).toBe(true);
    const result = await importFile(store, text);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const imported = await loadSession(store, result.sessions[0].id);
    // Unchanged but for the mark every import puts on its messages.
    expect(imported?.messages.map(({ id: _id, ...rest }) => rest)).toEqual(
      AGENT_MESSAGES.map(({ id: _id, ...rest }) => ({ ...rest, imported: true })),
    );
  });

  it("a report of an unknown kind is refused with its path, and nothing is imported", async () => {
    const store = await openTestStore();
    stores.push(store);
    const session = await createSession(store, { title: "x" });
    await saveMessages(store, session.id, AGENT_MESSAGES);
    const document = JSON.parse(serializeExport(await exportSession(store, session.id)));
    document.messages[1].kind = "shout";
    const parsed = parseExportText(JSON.stringify(document));
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.message).toContain("$.messages[1].kind");
  });
});
