/**
 * The session list as the person sees it: New session on an empty session
 * adds nothing, and the list is newest first after creating sessions.
 */
import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Agent, AgentState, ChatMessage } from "../agent/agent";
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

let database = 0;
async function started() {
  // Each test its own database (the controller opens the app's default name).
  indexedDB.deleteDatabase("livemark");
  database += 1;
  let clock = 1_800_000_000_000 + database * 1_000_000;
  vi.spyOn(Date, "now").mockImplementation(() => (clock += 7));
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

afterEach(() => {
  vi.restoreAllMocks();
});

describe("session list", () => {
  it("New session on a session that is still empty adds no other empty one", async () => {
    const { controller } = await started();
    expect(controller.getState().sessions).toHaveLength(1);
    await controller.newSession();
    await controller.newSession();
    expect(controller.getState().sessions).toHaveLength(1);
  });

  it("is newest first after creating sessions, even when the previous one saves on the way out", async () => {
    const { controller, current } = await started();
    current().say("first question");
    await controller.newSession();
    const second = controller.getState().current!.id;
    current().say("second question");
    await controller.newSession();
    const third = controller.getState().current!.id;
    const order = controller.getState().sessions.map((session) => session.id);
    expect(order[0]).toBe(third);
    expect(order[1]).toBe(second);
    expect(order).toHaveLength(3);
  });
});
