/**
 * A reload reopens this tab's session (src/session/tabSession.ts), whose
 * first read starts beside the session lists rather than after them (issue
 * 34 §1): the tab's session opens even when another has later activity;
 * one deleted since (in Recently deleted) is not opened, the most recent is;
 * with no session of the tab, the most recent opens.
 */
import { IDBFactory } from "fake-indexeddb";
import "fake-indexeddb/auto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../agent/agent";
import { createSession, deleteSession, saveMessages } from "../store/sessions";
import { openStore } from "../store/store";
import { conversation } from "../store/testSupport";
import { SessionController } from "./sessionController";
import { idleAgent } from "./testAgent";
import { rememberOpenSession } from "./tabSession";

/** Two sessions: `mine` with 3 messages, `later` (more recent activity) with 5. */
async function twoSessions() {
  const opened = await openStore();
  if (!opened.ok) throw new Error("store did not open");
  const mine = await createSession(opened.store, { title: "Mine" });
  await saveMessages(opened.store, mine.id, conversation(3));
  const later = await createSession(opened.store, { title: "Later" });
  await saveMessages(opened.store, later.id, conversation(5));
  return { store: opened.store, mine, later };
}

async function started() {
  const made: ChatMessage[][] = [];
  const controller = new SessionController({
    realm: { reset: async () => undefined },
    makeAgent: (initial) => {
      made.push(initial);
      return idleAgent(initial);
    },
    afterPaint: () => Promise.resolve(),
  });
  await controller.start();
  return { controller, made };
}

describe("SessionController: a reload reopens this tab's session", () => {
  const storage = new Map<string, string>();
  beforeEach(() => {
    globalThis.indexedDB = new IDBFactory();
    storage.clear();
    Object.assign(globalThis, {
      sessionStorage: {
        getItem: (key: string) => storage.get(key) ?? null,
        setItem: (key: string, value: string) => void storage.set(key, value),
      },
    });
  });
  afterEach(() => {
    delete (globalThis as { sessionStorage?: unknown }).sessionStorage;
  });

  it("opens the tab's session, with its messages, though another has later activity", async () => {
    const { store, mine, later } = await twoSessions();
    store.db.close();
    rememberOpenSession(mine.id);
    const { controller, made } = await started();
    expect(controller.getState().current?.id).toBe(mine.id);
    expect(made).toHaveLength(1);
    expect(made[0]).toHaveLength(3);
    expect(controller.getState().sessions.map((session) => session.id)).toEqual([later.id, mine.id]);
  });

  it("opens the most recent session when the tab's was deleted since, or the tab has none", async () => {
    const { store, mine, later } = await twoSessions();
    await deleteSession(store, later.id);
    store.db.close();
    rememberOpenSession(later.id);
    const first = await started();
    expect(first.controller.getState().current?.id).toBe(mine.id);
    expect(first.made).toEqual([first.controller.getState().agent!.getState().messages]);
    expect(first.made[0]).toHaveLength(3);
    expect(first.controller.getState().deleted.map((session) => session.id)).toEqual([later.id]);

    storage.clear();
    const second = await started();
    expect(second.controller.getState().current?.id).toBe(mine.id);
  });
});
