/**
 * The app view's runtime in Node: a stand-in realm that "runs" a code block
 * by opening the mount its source names or failing as it says. Only the
 * mounts of the app's reply (and those opened after the re-run) are the
 * app; failures and a reset are plain sentences; the app's session is the
 * one its capabilities open with.
 */
import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../agent/types";
import { CAPABILITIES } from "../capabilities";
import { DEFAULT_SETTINGS } from "../llm/settings";
import type { RealmEvent, RealmHost } from "../sandbox";
import type { BlockEvent } from "../wire/types";
import type { MountRealmMessage } from "../wire/mount";
import { NET_FETCH, STORAGE_GET } from "../wire/capabilities";
import type { Session } from "../store/types";
import { createAppRuntime } from "./appView";

function scriptedRealm() {
  const provided: string[] = [];
  const listeners = new Set<(event: RealmEvent) => void>();
  const mountListeners = new Set<(message: MountRealmMessage) => void>();
  const sources = new Map<number, string>();
  const emit = (event: RealmEvent) => listeners.forEach((listener) => listener(event));
  const open = (mountId: string, title: string) =>
    mountListeners.forEach((listener) =>
      listener({ type: "mount", kind: "open", mountId, title, snapshot: { nodes: [] } } as MountRealmMessage),
    );
  const realm = {
    provide: (name: string) => {
      provided.push(name);
      return () => undefined;
    },
    subscribe: (listener: (event: RealmEvent) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    subscribeMounts: (listener: (message: MountRealmMessage) => void) => {
      mountListeners.add(listener);
      return () => mountListeners.delete(listener);
    },
    setTools: () => undefined,
    tell: () => undefined,
    sendUiEvent: () => undefined,
    flush: async () => undefined,
    beginReply: () => sources.clear(),
    sendBlock: (event: BlockEvent) => {
      if (event.type === "block-start") sources.set(event.index, "");
      if (event.type === "block-delta") sources.set(event.index, (sources.get(event.index) ?? "") + event.text);
      if (event.type !== "block-end") return;
      const source = sources.get(event.index) ?? "";
      const mount = /mount\("([^"]+)"\)/.exec(source);
      if (mount) open(`m-${mount[1]}`, mount[1]);
      const thrown = /throw "([^"]+)"/.exec(source);
      if (thrown)
        emit({
          type: "statement-end",
          block: event.index,
          statement: 0,
          status: "error",
          error: { code: "runtime", name: "Error", message: thrown[1], block: event.index },
          durationMs: 1,
        } as RealmEvent);
    },
    status: () => ({ realm: "ready" }),
  };
  return { realm: realm as unknown as RealmHost, provided, emit, open };
}

function reply(id: string, source: string): ChatMessage {
  return {
    id,
    role: "assistant",
    text: "prose",
    reply: {
      blocks: [
        { index: 0, kind: "text", line: 1, text: "prose" },
        {
          index: 1,
          kind: "code",
          lang: "tsx",
          line: 2,
          source,
          closed: true,
          unterminated: false,
          status: "done",
          statements: [],
        },
      ],
      protocolErrors: [],
      notices: [],
    },
    state: "done",
    createdAt: 1,
  };
}

const session: Session = {
  id: "app-0123",
  title: "Counter",
  createdAt: 1,
  updatedAt: 1,
  origin: "imported",
  settings: { network: "ask", allowedHosts: [] },
};

describe("the app view's runtime", () => {
  it("re-runs every reply, keeps only the app reply's mounts, says what failed in plain words", async () => {
    const { realm, provided, open, emit } = scriptedRealm();
    const runtime = createAppRuntime({
      settings: () => ({ ...DEFAULT_SETTINGS, maxTurns: 3 }),
      capabilities: CAPABILITIES,
      realm,
    });
    expect(provided).toEqual(expect.arrayContaining([NET_FETCH, STORAGE_GET]));
    await runtime.run({
      messages: [
        reply("r1", 'mount("Earlier")'),
        { id: "u1", role: "user", text: "again", createdAt: 1 },
        reply("r2", 'mount("Counter"); throw "the sheet is missing"'),
      ],
      session,
      store: undefined,
    });
    expect(runtime.getState()).toMatchObject({
      phase: "live",
      mounts: ["m-Counter"],
      problems: ["A block of the app's code failed: the sheet is missing"],
    });
    expect(runtime.capabilities.getState().sessionId).toBe("app-0123");

    // A UI of the app opens another mount: it is the app's too.
    open("m-Details", "Details");
    await runtime.inbox.idle();
    expect(runtime.getState().mounts).toEqual(["m-Counter", "m-Details"]);

    emit({ type: "realm-reset", reason: "unresponsive" } as RealmEvent);
    expect(runtime.getState().phase).toBe("stopped");
    expect(runtime.getState().mounts).toEqual([]);
    expect(runtime.getState().problems.at(-1)).toMatch(/^The app stopped: its sandbox was reset .*Run again/);

    // Run again: the same replies in the fresh realm, the app live again.
    await runtime.runAgain();
    expect(runtime.getState()).toMatchObject({ phase: "live", mounts: ["m-Counter"] });
  });
});
