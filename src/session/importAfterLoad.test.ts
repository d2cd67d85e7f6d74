/**
 * An import that arrives before the store is open (a file dropped right after
 * the page loads) waits for it instead of failing with "Storage is
 * unavailable".
 */
import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import { exportSession, serializeExport } from "../store/exportImport";
import { createSession, saveMessages } from "../store/sessions";
import { conversation, openTestStore } from "../store/testSupport";
import { SessionController } from "./sessionController";
import { idleAgent } from "./testAgent";

async function sessionFile(title: string): Promise<string> {
  const store = await openTestStore();
  const session = await createSession(store, { title });
  await saveMessages(store, session.id, conversation(3));
  return serializeExport(await exportSession(store, session.id));
}

describe("SessionController import right after page load", () => {
  it("waits for the store, then imports (nothing is lost, no false error)", async () => {
    const file = await sessionFile("Dropped early");
    const controller = new SessionController({ realm: { reset: async () => undefined }, makeAgent: idleAgent });
    const starting = controller.start();
    // The store is still opening: before, this said "Storage is unavailable".
    expect(controller.getState().storage).toBe("opening");
    const imported = await controller.importFrom(file);
    await starting;
    const state = controller.getState();
    expect(state.banner?.text).not.toMatch(/unavailable/);
    expect(imported).toBe(true);
    expect(state.sessions.map((session) => session.title)).toContain("Dropped early");
    expect(state.current?.title).toBe("Dropped early");
  });
});
