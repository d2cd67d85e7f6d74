/**
 * The composition root in Node: a stand-in realm, fake IndexedDB. Each
 * capability's host services reach the realm once, under their wire names;
 * a UI event leaves with the id the open session's agent noted for it.
 */
import "fake-indexeddb/auto";
import { describe, expect, it, vi } from "vitest";
import { emptyReply } from "../agent/reply";
import type { ChatMessage } from "../agent/types";
import { createSession, loadSession, saveMessages } from "../store/sessions";
import { openStore } from "../store/store";
import type { MountRealmMessage } from "../wire/mount";
import { MOUNT_SNAPSHOT_DELAY_MS } from "./sessionController";
import { MOUNT_WRITE_WITHIN_MS } from "../store/sessionWriter";
import { CAPABILITIES } from "../capabilities";
import type { UiEvent } from "../render";
import type { RealmHost } from "../sandbox";
import type { UiEventMessage } from "../wire/mount";
import {
  AI_CALL,
  AI_NEXT,
  FILE_ATTACHMENT,
  FILE_OFFER,
  FILE_READ,
  NET_FETCH,
  STORAGE_DELETE,
  STORAGE_GET,
  STORAGE_KEYS,
  STORAGE_SET,
  TOOL_CALL,
} from "../wire/capabilities";
import { DEFAULT_SETTINGS } from "../llm/settings";
import { readFileSync } from "node:fs";
import type { CapabilityHost } from "../capabilities";
import { toolsPrompt } from "../llm/toolsPrompt";
import type { ToolDescriptor } from "../wire/capabilities";
import { createApp, systemPrompt } from "./createApp";

function standInRealm() {
  const provided: string[] = [];
  const mountListeners: ((message: MountRealmMessage) => void)[] = [];
  const uiEvents: UiEventMessage[] = [];
  const realm = {
    provide: (name: string) => {
      provided.push(name);
      return () => undefined;
    },
    subscribe: () => () => undefined,
    subscribeMounts: (listener: (message: MountRealmMessage) => void) => {
      mountListeners.push(listener);
      return () => undefined;
    },
    setTools: () => undefined,
    sendUiEvent: (event: UiEventMessage) => void uiEvents.push(event),
    reset: async () => undefined,
    restart: async () => undefined,
    abort: () => undefined,
    flush: async () => undefined,
    beginReply: () => undefined,
    sendBlock: () => undefined,
    status: () => ({ realm: "ready" }),
  };
  const sendMount = (message: MountRealmMessage) => mountListeners.forEach((listener) => listener(message));
  return { realm: realm as unknown as RealmHost, provided, uiEvents, sendMount };
}

const page = {
  location: { href: "https://livemark.test/", search: "", pathname: "/", hash: "", protocol: "https:" },
  history: { state: null, replaceState: () => undefined },
};

describe("createApp", () => {
  it("provides each capability's host services to the realm once", () => {
    const { realm, provided } = standInRealm();
    createApp({ settings: () => ({ ...DEFAULT_SETTINGS, maxTurns: 10 }), capabilities: CAPABILITIES, realm, page });
    expect(provided).toEqual([
      NET_FETCH,
      FILE_READ,
      FILE_OFFER,
      FILE_ATTACHMENT,
      TOOL_CALL,
      STORAGE_GET,
      STORAGE_KEYS,
      STORAGE_SET,
      STORAGE_DELETE,
      AI_CALL,
      AI_NEXT,
    ]);
  });

  it("sends a UI event with the id the open session's agent noted for it", async () => {
    const { realm, uiEvents } = standInRealm();
    const app = createApp({
      settings: () => ({ ...DEFAULT_SETTINGS, maxTurns: 10 }),
      capabilities: CAPABILITIES,
      realm,
      page,
    });
    await app.started;
    expect(app.controller.getState().agent).toBeDefined();
    const event: UiEvent = { mountId: "m1", nodeId: 1, handler: "onClick", payload: {} };
    app.mounts.sendEvent(event);
    app.mounts.sendEvent(event);
    expect(uiEvents.map((sent) => sent.type)).toEqual(["ui-event", "ui-event"]);
    expect(typeof uiEvents[0]!.eventId).toBe("number");
    expect(uiEvents[1]!.eventId).toBeGreaterThan(uiEvents[0]!.eventId!);
  });

  it("opens the sessions only once startAfter settles (src/main.tsx: the realm's READY), given the page's realm", async () => {
    const { realm } = standInRealm();
    let allow!: () => void;
    const gate = new Promise<void>((resolve) => (allow = resolve));
    const startAfter = vi.fn(() => gate);
    const app = createApp({
      settings: () => ({ ...DEFAULT_SETTINGS, maxTurns: 10 }),
      capabilities: CAPABILITIES,
      realm,
      page,
      startAfter,
    });
    expect(startAfter).toHaveBeenCalledWith(realm);
    let started = false;
    void app.started.then(() => (started = true));
    // The same (fake) IndexedDB serves an open and a read meanwhile: the app's own open would have done as much.
    const other = await openStore();
    if (!other.ok) throw other.error;
    await other.store.db.table("sessions").count();
    expect(started).toBe(false);
    expect(app.controller.getState()).toMatchObject({ starting: true, storage: "opening" });
    expect(app.controller.getState().agent).toBeUndefined();
    allow();
    await app.started;
    expect(app.controller.getState()).toMatchObject({ starting: false, storage: "ready" });
    expect(app.controller.getState().agent).toBeDefined();
  });
});

describe("mount snapshots", () => {
  it("a mount's change is on disk within 0.5 s (snapshot after 150 ms, its write within 100 ms more), with no reply ending", async () => {
    const seeded = await openStore();
    if (!seeded.ok) throw new Error(seeded.error.message);
    const session = await createSession(seeded.store, { title: "Counter" });
    const reply: ChatMessage = {
      id: "a1",
      role: "assistant",
      text: "",
      reply: emptyReply(),
      state: "done",
      createdAt: 1,
    };
    await saveMessages(seeded.store, session.id, [reply]);
    const { realm, sendMount } = standInRealm();
    const app = createApp({
      settings: () => ({ ...DEFAULT_SETTINGS, maxTurns: 10 }),
      capabilities: CAPABILITIES,
      realm,
      page,
    });
    await app.started;
    expect(app.controller.getState().current?.id).toBe(session.id);
    const saved = async () => {
      const loaded = await loadSession(seeded.store, session.id);
      return JSON.stringify(loaded?.mounts.find((mount) => mount.mountId === "m1")?.snapshot ?? null);
    };
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      sendMount({ type: "mount", kind: "open", mountId: "m1", title: "Counter", snapshot: { nodes: [] } });
      sendMount({
        type: "mount",
        kind: "ops",
        mountId: "m1",
        ops: [
          { op: "create", id: 1, type: "#text", text: "count 3" },
          { op: "insert", parent: 0, child: 1 },
        ],
      });
      app.inbox.drain();
      expect(await saved()).not.toContain("count 3");
      await vi.advanceTimersByTimeAsync(MOUNT_SNAPSHOT_DELAY_MS + MOUNT_WRITE_WITHIN_MS);
    } finally {
      vi.useRealTimers();
    }
    // The write started within the bound; what is left is IndexedDB committing it.
    await vi.waitFor(async () => expect(await saved()).toContain("count 3"), { timeout: 2_000, interval: 20 });
    expect(MOUNT_SNAPSHOT_DELAY_MS + MOUNT_WRITE_WITHIN_MS).toBeLessThan(500);
  });
});

describe("the system prompt the model reads", () => {
  // The prompt as it was when it was one string in src/llm, with the tools list after it.
  const before = readFileSync(new URL("../llm/__fixtures__/systemPrompt.txt", import.meta.url), "utf8");
  const tool: ToolDescriptor = {
    name: "lookup_film",
    server: "films",
    tool: "lookup_film",
    description: "Looks up a film",
    inputSchema: { type: "object" },
    readOnly: true,
  };

  it("is the base prompt with the capabilities' lines, then the connected tools, byte for byte as before", async () => {
    let tools: ToolDescriptor[] = [];
    const host = {
      person: { asker: () => async () => "deny", record: () => undefined, noteUntrusted: () => undefined },
      tools: () => tools,
      messages: () => [],
      setTools: () => undefined,
    } as unknown as CapabilityHost;
    // The tools' lines come from their module, loaded at install (open waits for it).
    await CAPABILITIES.find((capability) => capability.name === "tools")!
      .install(host)
      .open?.(undefined);
    const read = systemPrompt(CAPABILITIES, () => host);
    expect(await read()).toBe(before);
    tools = [tool];
    expect(await read()).toBe(before + toolsPrompt([tool]));
  });
});
