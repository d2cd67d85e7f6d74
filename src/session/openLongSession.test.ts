/**
 * A long session opens on its newest messages (issue 34 §1): the controller
 * gives the agent the newest ones, reads the older ones once the page has
 * drawn those and puts them before the others, a page at a time; the agent
 * is told when they are all in. An export taken meanwhile has every message.
 */
import { IDBFactory } from "fake-indexeddb";
import "fake-indexeddb/auto";
import { beforeEach, describe, expect, it } from "vitest";
import type { Agent, AgentState, ChatMessage } from "../agent/agent";
import { createSession, OPEN_NEWEST, saveMessages } from "../store/sessions";
import { openStore } from "../store/store";
import { conversation } from "../store/testSupport";
import { SessionController } from "./sessionController";

/** Just what the controller asks of an agent, with the older messages' hand-over recorded. */
function fakeAgent(initial: ChatMessage[]) {
  let state: AgentState = { messages: initial, phase: "idle", turn: 0, maxTurns: 10, canContinue: false };
  const pages: number[] = [];
  let older: Promise<unknown> = Promise.resolve();
  const agent = {
    getState: () => state,
    subscribe: () => () => undefined,
    close: () => undefined,
    dispose: () => undefined,
    busy: false,
    prependOlder: (messages: ChatMessage[]) => {
      pages.push(messages.length);
      state = { ...state, messages: [...messages, ...state.messages] };
    },
    loadingOlder: (promise: Promise<unknown>) => void (older = promise),
    olderLoaded: () => older.then(() => undefined),
  } as unknown as Agent;
  return { agent, pages, olderLoaded: () => older };
}

describe("SessionController: a long session", () => {
  beforeEach(() => {
    globalThis.indexedDB = new IDBFactory();
  });

  it("opens on its newest messages, then the older ones come before them once the page has drawn; an export meanwhile is whole", async () => {
    const opened = await openStore();
    if (!opened.ok) throw new Error("store did not open");
    const session = await createSession(opened.store, { title: "Long" });
    const messages = conversation(450);
    await saveMessages(opened.store, session.id, messages);
    opened.store.db.close();

    const made: ReturnType<typeof fakeAgent>[] = [];
    let painted!: () => void;
    const controller = new SessionController({
      realm: { reset: async () => undefined },
      makeAgent: (initial) => {
        made.push(fakeAgent(initial));
        return made.at(-1)!.agent;
      },
      afterPaint: () => new Promise<void>((resolve) => (painted = resolve)),
    });
    await controller.start();
    const [{ agent, pages, olderLoaded }] = made;
    expect(controller.getState().agent).toBe(agent);
    expect(agent.getState().messages.map((message) => message.id)).toEqual(
      messages.slice(-OPEN_NEWEST).map((message) => message.id),
    );
    // Nothing older is read before the page has drawn the newest.
    expect(pages).toEqual([]);
    const exported = await controller.exportCurrent();
    expect((JSON.parse(exported!.text) as { messages: ChatMessage[] }).messages.map((message) => message.id)).toEqual(
      messages.map((message) => message.id),
    );

    painted();
    await olderLoaded();
    expect(pages).toEqual([200, 200, 10]);
    expect(agent.getState().messages).toEqual(messages);
    expect(made).toHaveLength(1);
  });
});
