import { describe, expect, it } from "vitest";
import type { RealmEvent } from "../sandbox/types";
import type { ExecEvent } from "../wire/events";
import type { MountRealmMessage } from "../wire/mount";
import { FeedbackCollector } from "./feedback";
import { RealmOutput, type RunningInteraction } from "./realmOutput";
import { emptyReply } from "./reply";
import { StateStore } from "./stateStore";
import type { ChatMessage, RealmPort } from "./types";

/** Where the realm's output goes, alone: a realm whose events the test emits, a real StateStore, a stand-in turn. */

const reply = (id: string): ChatMessage => ({
  id,
  role: "assistant",
  text: "",
  reply: emptyReply(),
  state: "done",
  createdAt: 0,
});

const log = (text: string, cause?: number): RealmEvent => ({
  type: "console",
  block: 0,
  statement: 0,
  level: "log",
  text,
  ...(cause !== undefined ? { cause } : {}),
});

function setup(messages: ChatMessage[] = [reply("r1"), reply("r2")]) {
  const listeners = new Set<(event: RealmEvent) => void>();
  const mountListeners = new Set<(message: MountRealmMessage) => void>();
  const flushes: (() => void)[] = [];
  const realm: RealmPort = {
    beginReply: () => undefined,
    sendBlock: () => undefined,
    abort: () => undefined,
    flush: () => new Promise<void>((resolve) => flushes.push(resolve)),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    subscribeMounts: (listener) => {
      mountListeners.add(listener);
      return () => mountListeners.delete(listener);
    },
  };
  let busy = false;
  let interaction: RunningInteraction | undefined;
  let id = 0;
  const store = new StateStore(
    {
      maxTurns: 10,
      now: () => 0,
      newId: () => `n${++id}`,
      wrapFeedback: (body) => body,
      busy: () => busy,
      entered: () => undefined,
    },
    messages,
  );
  const started: string[] = [];
  const output = new RealmOutput({
    realm,
    store,
    interaction: () => interaction,
    busy: () => busy,
    closed: () => false,
    startUiTurn: (body) => void started.push(body),
  });
  /** A turn that listens, as interaction.ts would hand it over. */
  const listen = (replyId: string) => {
    const execs: ExecEvent[] = [];
    const counted: string[] = [];
    const turn = {
      listening: true,
      replyId,
      collector: new FeedbackCollector(),
      exec: (event: ExecEvent) => void execs.push(event),
    };
    interaction = {
      lifecycle: {
        exec: (event) => void counted.push(event.type),
        mount: (message) => void counted.push(message.kind),
      },
      turn,
    };
    busy = true;
    return { turn, execs, counted };
  };
  return {
    output,
    store,
    started,
    flushes,
    listen,
    idle: () => {
      interaction = undefined;
      busy = false;
    },
    emit: (event: RealmEvent) => listeners.forEach((listener) => listener(event)),
    emitMount: (message: MountRealmMessage) => mountListeners.forEach((listener) => listener(message)),
    listenerCount: () => listeners.size + mountListeners.size,
  };
}

describe("RealmOutput", () => {
  it("keeps output that arrives while nothing runs for the next interaction, once, and starts no turn", () => {
    const { output, emit, started, flushes } = setup();
    emit(log("timer fired"));
    output.reportRenderProblem("unknown component Foo");
    // A UI-event turn would first ask the realm for a flush: none was asked for.
    expect(flushes).toHaveLength(0);
    expect(started).toEqual([]);
    const carried = output.takeIdle();
    expect(carried).toContain("timer fired");
    expect(carried).toContain("UI: unknown component Foo");
    expect(output.takeIdle()).toBe("");
  });

  it("hands output to the turn that listens (its feedback, its reply, the lifecycle's counts), not to the next one", () => {
    const { output, emit, listen } = setup();
    const { turn, execs, counted } = listen("r2");
    emit(log("hello"));
    expect(turn.collector.text()).toContain("hello");
    expect(execs.map((event) => event.type)).toEqual(["console"]);
    expect(counted).toEqual(["console"]);
    expect(output.takeIdle()).toBe("");
  });

  it("once the turn's code has settled, later output waits for the next interaction", () => {
    const { output, emit, listen } = setup();
    const { turn } = listen("r2");
    turn.listening = false;
    emit(log("late"));
    expect(turn.collector.empty).toBe(true);
    expect(output.takeIdle()).toContain("late");
  });

  it("tells the person of a sandbox problem and a reset; only the reset reaches the model", () => {
    const { output, emit, store } = setup([]);
    emit({ type: "realm-error", code: "malformed-message", message: "bad frame" });
    emit({ type: "realm-error", code: "version-mismatch", message: "broken" });
    emit({ type: "realm-reset", reason: "crashed" });
    expect(store.state().messages).toMatchObject([
      { role: "notice", level: "warn", text: "Sandbox: bad frame" },
      { role: "notice", level: "error", text: "Sandbox: broken" },
      {
        role: "notice",
        level: "warn",
        text: "The sandbox was reset (it crashed, most likely out of memory): variables and mounts are gone.",
      },
    ]);
    const carried = output.takeIdle();
    expect(carried).not.toContain("bad frame");
    expect(carried).not.toBe("");
  });

  it("output tagged with a person's action starts one UI-event turn once the realm answers a flush; untagged output does not join it", async () => {
    const { output, emit, started, flushes } = setup();
    const cause = output.noteUiEvent();
    emit(log("clicked", cause));
    emit(log("again", cause));
    emit(log("timer"));
    expect(started).toEqual([]);
    expect(flushes).toHaveLength(1);
    flushes[0]();
    await expect.poll(() => started.length).toBe(1);
    expect(started[0]).toContain("clicked");
    expect(started[0]).toContain("again");
    expect(started[0]).not.toContain("timer");
    expect(output.takeIdle()).toContain("timer");
  });

  it("tagged output while an interaction runs is that interaction's, not a new turn's", () => {
    const { output, emit, started, flushes, listen } = setup();
    const cause = output.noteUiEvent();
    const { turn } = listen("r2");
    emit(log("clicked", cause));
    expect(turn.collector.text()).toContain("clicked");
    expect(flushes).toHaveLength(0);
    expect(started).toEqual([]);
  });

  it("places a mount in the reply whose turn listens, else in the reply Revive re-runs, replacing its restored mounts once", () => {
    const withRestored: ChatMessage[] = [
      { ...reply("r1"), reply: { ...emptyReply(), mounts: [{ mountId: "old", afterBlock: 0 }] } } as ChatMessage,
      reply("r2"),
    ];
    const { output, emitMount, store, listen, idle } = setup(withRestored);
    const mountsOf = (id: string) => {
      const message = store.state().messages.find((item) => item.id === id);
      return message?.role === "assistant" ? message.reply.mounts?.map((mount) => mount.mountId) : undefined;
    };
    const { counted } = listen("r1");
    emitMount({ type: "mount", kind: "open", mountId: "a", title: "A", snapshot: { nodes: [] } });
    expect(mountsOf("r1")).toEqual(["old", "a"]);
    expect(counted).toEqual(["open"]);
    idle();

    const target = output.reviveStarted();
    target({ replyId: "r1", block: 0, replaced: false });
    emitMount({ type: "mount", kind: "open", mountId: "b", snapshot: { nodes: [] } });
    emitMount({ type: "mount", kind: "open", mountId: "c", snapshot: { nodes: [] } });
    expect(mountsOf("r1")).toEqual(["b", "c"]);
    output.reviveEnded();
    emitMount({ type: "mount", kind: "open", mountId: "d", snapshot: { nodes: [] } });
    expect(mountsOf("r2")).toEqual(["d"]);
  });

  it("output while Revive runs is Revive's, never the model's", () => {
    const { output, emit } = setup();
    output.reviveStarted();
    emit(log("revived"));
    output.reviveEnded();
    expect(output.takeIdle()).toBe("");
  });

  it("a mount whose code awaits the person makes the running phase Waiting for input, until it closes", () => {
    const { emitMount, store, listen } = setup();
    listen("r2");
    store.move({ type: "revive-start" });
    emitMount({ type: "mount", kind: "waiting", mountId: "a", waiting: true });
    expect(store.state().phase).toBe("waiting-input");
    emitMount({ type: "mount", kind: "close", mountId: "a" });
    expect(store.state().phase).toBe("running");
  });

  it("dispose stops listening to the realm", () => {
    const { output, listenerCount } = setup();
    expect(listenerCount()).toBe(2);
    output.dispose();
    expect(listenerCount()).toBe(0);
  });
});
