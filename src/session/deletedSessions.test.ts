/**
 * Issue 33 §5, at the controller: a session deleted in another tab (two
 * controllers on one database and one BroadcastChannel, as two tabs) stops
 * being written there and comes back with Restore, with that tab's turns;
 * on a full store, Delete works through Delete forever, which frees space,
 * and saving is retried at once (and on the person's next action) instead
 * of after the backoff.
 */
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Agent, AgentState, ChatMessage } from "../agent/agent";
import { loadSession } from "../store/sessions";
import { openSessionWriters } from "../store/sessionWriter";
import { quotaFault } from "../store/testSupport";
import { SessionController } from "./sessionController";

/** An agent the test drives: `say` adds a person's message as the real one would. */
function scriptedAgent(messages: ChatMessage[]) {
  let state: AgentState = { messages, phase: "idle", turn: 0, maxTurns: 10, canContinue: false };
  const listeners = new Set<(state: AgentState) => void>();
  return {
    getState: () => state,
    subscribe: (listener: (state: AgentState) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => undefined,
    dispose: () => undefined,
    busy: false,
    say(text: string) {
      state = {
        ...state,
        messages: [...state.messages, { id: `u${Math.random()}`, role: "user", text, createdAt: Date.now() }],
      };
      for (const listener of listeners) listener(state);
    },
  };
}

type Tab = { controller: SessionController; current: () => ReturnType<typeof scriptedAgent> };

async function openTab(): Promise<Tab> {
  const agents: ReturnType<typeof scriptedAgent>[] = [];
  const controller = new SessionController({
    realm: { reset: async () => undefined },
    makeAgent: (messages) => {
      const agent = scriptedAgent(messages);
      agents.push(agent);
      return agent as unknown as Agent;
    },
  });
  await controller.start();
  return { controller, current: () => agents[agents.length - 1] };
}

let fault: ReturnType<typeof quotaFault> | undefined;
let database = 0;
function freshDatabase() {
  indexedDB.deleteDatabase("livemark");
  database += 1;
  let clock = 1_800_000_000_000 + database * 1_000_000;
  vi.spyOn(Date, "now").mockImplementation(() => (clock += 7));
}

afterEach(() => {
  fault?.restore();
  fault = undefined;
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const texts = async (controller: SessionController, id: string) =>
  ((await loadSession(controller.storeHandle()!, id))?.messages ?? []).map((message) =>
    message.role === "user" ? message.text : message.role,
  );

describe("a session deleted in another tab", () => {
  it("stops being written in the tab that has it open, which offers Restore; Restore brings it back with that tab's turns", async () => {
    freshDatabase();
    const a = await openTab();
    a.current().say("first turn in A");
    const b = await openTab();
    const id = a.controller.getState().current!.id;
    expect(b.controller.getState().current?.id).toBe(id);
    // A turn A has not saved yet when B deletes the session.
    a.current().say("second turn in A");

    await b.controller.remove(id);
    await vi.waitFor(() => expect(a.controller.getState().deletedElsewhere).toBe(true));
    expect(a.controller.getState().readOnly).toBe(true);
    expect(openSessionWriters().filter((writer) => writer.sessionId === id)).toEqual([]);
    expect(await texts(a.controller, id)).toEqual(["first turn in A", "second turn in A"]);
    expect(b.controller.getState().deleted.map((session) => session.id)).toEqual([id]);
    await vi.waitFor(() => expect(a.controller.getState().deleted.map((session) => session.id)).toEqual([id]));

    await a.controller.restore(id);
    expect(a.controller.getState().deletedElsewhere).toBe(false);
    expect(a.controller.getState().readOnly).toBe(false);
    expect(a.controller.getState().current?.id).toBe(id);
    // Writable again: a new turn is saved.
    a.current().say("third turn in A");
    await vi.waitFor(async () =>
      expect(await texts(a.controller, id)).toEqual(["first turn in A", "second turn in A", "third turn in A"]),
    );
    await vi.waitFor(() => expect(b.controller.getState().sessions.map((session) => session.id)).toContain(id));
    expect(b.controller.getState().deleted).toEqual([]);
  });

  it("Delete forever in one tab removes the session, and the tab that showed it deleted moves on", async () => {
    freshDatabase();
    const a = await openTab();
    a.current().say("doomed");
    const id = a.controller.getState().current!.id;
    const b = await openTab();
    await b.controller.remove(id);
    await vi.waitFor(() => expect(a.controller.getState().deletedElsewhere).toBe(true));
    await b.controller.deleteForever(id);
    expect(await loadSession(b.controller.storeHandle()!, id)).toBeUndefined();
    expect(b.controller.getState().deleted).toEqual([]);
    await vi.waitFor(() => expect(a.controller.getState().current?.id).not.toBe(id));
    expect(a.controller.getState().deletedElsewhere).toBe(false);
  });
});

describe("when storage is full", () => {
  it("Delete does not fail silently, Delete forever frees space, and saving is retried at once", async () => {
    freshDatabase();
    const tab = await openTab();
    tab.current().say("an old session");
    const old = tab.controller.getState().current!.id;
    await tab.controller.newSession();
    const open = tab.controller.getState().current!.id;
    // Fake timers for the writer only: its backoff never fires in this test.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    fault = quotaFault();
    fault.full = true;
    tab.current().say("written while the disk is full");
    await vi.advanceTimersByTimeAsync(500);
    await vi.waitFor(() => expect(tab.controller.getState().banner?.storageFull).toBe(true));
    expect(await texts(tab.controller, open)).toEqual([]);

    // Delete needs a write: it says so and offers Delete forever (no unhandled rejection).
    await tab.controller.remove(old);
    expect(tab.controller.getState().banner?.deleteForeverSessionId).toBe(old);
    expect(tab.controller.getState().sessions.map((session) => session.id)).toContain(old);

    // Delete forever only deletes; the space it frees lets the waiting turn save now, not after the backoff.
    fault.full = false;
    await tab.controller.deleteForever(old);
    expect(await loadSession(tab.controller.storeHandle()!, old)).toBeUndefined();
    await Promise.all(openSessionWriters().map((writer) => writer.whenIdle()));
    expect(await texts(tab.controller, open)).toEqual(["written while the disk is full"]);
    expect(tab.controller.getState().banner?.storageFull).not.toBe(true);
  });

  it("the person's next action retries saving", async () => {
    freshDatabase();
    const tab = await openTab();
    const open = tab.controller.getState().current!.id;
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    fault = quotaFault();
    fault.full = true;
    tab.current().say("kept in the tab");
    await vi.advanceTimersByTimeAsync(500);
    await vi.waitFor(() => expect(tab.controller.getState().banner?.storageFull).toBe(true));
    // Space comes back outside the app (another site cleared): nothing is written until something happens.
    fault.full = false;
    await vi.advanceTimersByTimeAsync(900);
    expect(await texts(tab.controller, open)).toEqual([]);
    tab.controller.retrySaving();
    await Promise.all(openSessionWriters().map((writer) => writer.whenIdle()));
    expect(await texts(tab.controller, open)).toEqual(["kept in the tab"]);
    expect(tab.controller.getState().banner).toBeUndefined();
  });
});
