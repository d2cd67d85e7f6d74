import { describe, expect, it } from "vitest";
import { emptyReply } from "./reply";
import { StateStore, type StateStoreOptions } from "./stateStore";
import type { AgentState, ChatMessage, Phase } from "./types";

/** The agent's state alone: one new state per change, each listener told once, the phase only through the table. */

function setup(initial: ChatMessage[] = [], overrides: Partial<StateStoreOptions> = {}) {
  let id = 0;
  let busy = true;
  const entered: Phase[] = [];
  const store = new StateStore(
    {
      maxTurns: 7,
      now: () => 1000,
      newId: () => `id${++id}`,
      wrapFeedback: (body, source) => `<${source}>${body}</${source}>`,
      busy: () => busy,
      entered: (phase) => void entered.push(phase),
      ...overrides,
    },
    initial,
  );
  const heard: AgentState[] = [];
  store.subscribe((state) => void heard.push(state));
  return { store, heard, entered, setBusy: (value: boolean) => void (busy = value) };
}

const reply = (id: string, state: "done" | "interrupted"): ChatMessage => ({
  id,
  role: "assistant",
  text: "",
  reply: emptyReply(),
  state,
  createdAt: 0,
});

describe("StateStore", () => {
  it("starts idle with the turn cap, and offers Continue only when the last reply was saved interrupted", () => {
    const { store } = setup([reply("a", "interrupted"), reply("b", "done")]);
    expect(store.state()).toMatchObject({ phase: "idle", turn: 0, maxTurns: 7, canContinue: false });
    expect(setup([reply("a", "done"), reply("b", "interrupted")]).store.state().canContinue).toBe(true);
  });

  it("a phase change and its patch reach each listener in one new state; the lifecycle hears busy phases only", () => {
    const { store, heard, entered } = setup();
    const before = store.state();
    store.move({ type: "interaction-start" }, { turn: 0, detail: "x" });
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({ phase: "streaming", detail: "x" });
    expect(heard[0]).not.toBe(before);
    expect(store.state()).toBe(heard[0]);
    store.move({ type: "reply-streamed" });
    store.move({ type: "end", outcome: "done" });
    expect(heard.map((state) => state.phase)).toEqual(["streaming", "running", "done"]);
    expect(entered).toEqual(["streaming", "running"]);
  });

  it("an event the table ignores publishes only its patch, or nothing without one", () => {
    const { store, heard } = setup();
    store.move({ type: "mounts-waiting", waiting: true });
    expect(heard).toHaveLength(0);
    store.move({ type: "mounts-waiting", waiting: true }, { detail: "d" });
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({ phase: "idle", detail: "d" });
  });

  it("notices and feedback are appended with an id and time; feedback returns the wrapped text and marks a reply to the invited agent", () => {
    const { store } = setup();
    store.notice("hello", "warn");
    expect(store.pushFeedback("out", "runtime")).toBe("<runtime>out</runtime>");
    store.pushFeedback("click", "ui-event", "agent");
    expect(store.state().messages).toEqual([
      { id: "id1", role: "notice", text: "hello", level: "warn", createdAt: 1000 },
      { id: "id2", role: "feedback", body: "out", text: "<runtime>out</runtime>", source: "runtime", createdAt: 1000 },
      {
        id: "id3",
        role: "feedback",
        body: "click",
        text: "<ui-event>click</ui-event>",
        source: "ui-event",
        createdAt: 1000,
        to: "agent",
      },
    ]);
  });

  it("update changes only the message with that id", () => {
    const { store } = setup([reply("a", "done"), reply("b", "done")]);
    store.update("b", (message) => ({ ...message, text: "changed" }));
    expect(store.state().messages.map((message) => message.text)).toEqual(["", "changed"]);
  });

  it("says Waiting for input while a mount's code awaits the person, and running again once none does", () => {
    const { store } = setup();
    store.move({ type: "revive-start" });
    store.mountWaiting("m1", true);
    store.mountWaiting("m2", true);
    expect(store.state().phase).toBe("waiting-input");
    store.mountWaiting("m1", false);
    expect(store.state().phase).toBe("waiting-input");
    store.mountWaiting("m2", false);
    expect(store.state().phase).toBe("running");
  });

  it("a mount that waits while nothing runs changes no phase, and is counted when a run checks", () => {
    const { store, setBusy } = setup();
    setBusy(false);
    store.mountWaiting("m1", true);
    expect(store.state().phase).toBe("idle");
    setBusy(true);
    store.move({ type: "revive-start" });
    store.checkWaiting();
    expect(store.state().phase).toBe("waiting-input");
  });

  it("after clear no listener hears of changes", () => {
    const { store, heard } = setup();
    store.clear();
    store.notice("late", "info");
    expect(heard).toHaveLength(0);
    expect(store.state().messages).toHaveLength(1);
  });
});
