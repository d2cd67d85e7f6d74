/**
 * The composition root in Node: a stand-in realm, fake IndexedDB. Each
 * capability's host services reach the realm once, under their wire names;
 * a UI event leaves with the id the open session's agent noted for it.
 */
import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
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
  const uiEvents: UiEventMessage[] = [];
  const realm = {
    provide: (name: string) => {
      provided.push(name);
      return () => undefined;
    },
    subscribe: () => () => undefined,
    subscribeMounts: () => () => undefined,
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
  return { realm: realm as unknown as RealmHost, provided, uiEvents };
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

  it("is the base prompt with the capabilities' lines, then the connected tools, byte for byte as before", () => {
    let tools: ToolDescriptor[] = [];
    const host = {
      person: {},
      tools: () => tools,
      messages: () => [],
      setTools: () => undefined,
    } as unknown as CapabilityHost;
    const read = systemPrompt(CAPABILITIES, () => host);
    expect(read()).toBe(before);
    tools = [tool];
    expect(read()).toBe(before + toolsPrompt([tool]));
  });
});
