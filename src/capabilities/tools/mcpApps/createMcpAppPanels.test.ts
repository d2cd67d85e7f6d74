import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../../wire/mount";
import { createDemoMcpServer } from "../demoMcpServer";
import { createMcpServers, describeTools } from "../createMcpServers";
import { createToolBroker, type ConnectedTool, type ToolPermissionAsk } from "../createToolBroker";
import type { McpToolInfo } from "../mcpClient";
import { createMcpAppPanels, MAX_SAVED_JSON, panelsAt, type McpAppPanel } from "./createMcpAppPanels";
import { DEFAULT_VIEW_HEIGHT, MAX_VIEW_HEIGHT, toolUiOf } from "./toolUi";

const showFilm: ConnectedTool = {
  descriptor: {
    name: "show_film",
    server: "films",
    tool: "show_film",
    description: "",
    inputSchema: { type: "object" },
    readOnly: true,
  },
  address: "http://127.0.0.1:9/mcp",
  ui: { resourceUri: "ui://films/card.html", visibility: ["model", "app"] },
  call: async () => ({ content: [{ type: "text", text: "Dune" }], structuredContent: { title: "Dune" } }),
};

function setUp() {
  let saved: JsonValue | undefined;
  const panels = createMcpAppPanels({ place: () => ({ replyId: "r1", afterBlock: 2 }), newId: () => "p1" });
  panels.load(undefined, (value) => void (saved = value));
  return { panels, saved: () => saved };
}

describe("MCP App panels", () => {
  it("open where the code runs, with the call's input; settle with its result; saved with the session", () => {
    const { panels, saved } = setUp();
    const id = panels.open(showFilm, { title: "Dune" });
    expect(panels.list()).toEqual([
      expect.objectContaining({
        id,
        replyId: "r1",
        afterBlock: 2,
        server: "films",
        tool: "show_film",
        resourceUri: "ui://films/card.html",
        height: DEFAULT_VIEW_HEIGHT,
        input: { title: "Dune" },
        live: true,
      }),
    ]);
    panels.settle(id, { result: { content: [], structuredContent: { title: "Dune" } } });
    panels.resize(id, 99_999);
    expect(panels.list()[0].height).toBe(MAX_VIEW_HEIGHT);
    const kept = (saved() as { appPanels: Record<string, unknown>[] }).appPanels;
    expect(kept).toEqual([
      expect.objectContaining({
        id,
        height: MAX_VIEW_HEIGHT,
        result: { content: [], structuredContent: { title: "Dune" } },
      }),
    ]);
    expect(kept[0]).not.toHaveProperty("live");
  });

  it("come back from what was saved waiting for Reopen (not live); Reopen starts a new view", () => {
    const { panels, saved } = setUp();
    const id = panels.open(showFilm, { title: "Dune" });
    panels.resize(id, 450);
    const restored = createMcpAppPanels({ place: () => ({ afterBlock: -1 }) });
    restored.load(saved());
    expect(restored.list()).toEqual([expect.objectContaining({ id, height: 450, live: false, generation: 0 })]);
    restored.reopen(id);
    expect(restored.list()).toEqual([expect.objectContaining({ id, live: true, generation: 1 })]);
  });

  it("do not save a result too large to keep (Reopen shows the view without it), nor a record that is not a view", () => {
    const { panels, saved } = setUp();
    const id = panels.open(showFilm, {});
    panels.settle(id, { result: { content: [{ type: "text", text: "x".repeat(MAX_SAVED_JSON) }] } });
    expect((saved() as { appPanels: Record<string, unknown>[] }).appPanels[0]).not.toHaveProperty("result");
    const restored = createMcpAppPanels({ place: () => ({ afterBlock: -1 }) });
    restored.load({
      appPanels: [{ id: "x", server: "s", address: "a", tool: "t", resourceUri: "https://evil", afterBlock: 0 }],
    });
    expect(restored.list()).toEqual([]);
  });

  it("hand what views added to the model's context to the next turn once, marked untrusted", () => {
    const { panels } = setUp();
    const id = panels.open(showFilm, {});
    expect(panels.takeModelContext()).toBe("");
    panels.setModelContext(id, "first");
    panels.setModelContext(id, "The person picked Dune.");
    const taken = panels.takeModelContext();
    expect(taken).toContain("[untrusted content: MCP App views]");
    expect(taken).toContain("From the view of films/show_film:\nThe person picked Dune.");
    expect(taken).not.toContain("first");
    expect(panels.takeModelContext()).toBe("");
  });
});

describe("tools with views among the servers' tools", () => {
  const tool = (name: string, meta?: unknown): McpToolInfo => ({
    name,
    description: "",
    inputSchema: { type: "object" },
    readOnly: false,
    ...(toolUiOf(meta) ? { ui: toolUiOf(meta) } : {}),
  });

  it("an app-only tool is not among the realm's (nor the prompt's) tools", () => {
    const names = describeTools([
      {
        name: "films",
        tools: [
          tool("show_film", { ui: { resourceUri: "ui://films/card.html" } }),
          tool("rate_film", { ui: { resourceUri: "ui://films/card.html", visibility: ["app"] } }),
          tool("lookup_film"),
        ],
      },
    ]).map((descriptor) => descriptor.name);
    expect(names).toEqual(["show_film", "lookup_film"]);
  });

  it("a view's tool call goes through the code's consent: asked (saying a view asks), denied, audited", async () => {
    const servers = createMcpServers({ demoServer: createDemoMcpServer, remember: null });
    const entry = await servers.addDemo();
    const asked: ToolPermissionAsk[] = [];
    const audit: Record<string, unknown>[] = [];
    const answers = ["deny", "once"] as const;
    const broker = createToolBroker({
      ask: async (request) => {
        asked.push(request);
        return answers[asked.length - 1];
      },
      audit: (record) => audit.push(record as unknown as Record<string, unknown>),
    });
    broker.setTools(servers.connected());
    const lookup = servers.appServer(entry.address)!.tool("lookup_film")!;
    await expect(broker.callFromView(lookup, { title: "Dune" }, new AbortController().signal)).rejects.toMatchObject({
      code: "denied",
    });
    const result = await broker.callFromView(lookup, { title: "Dune" }, new AbortController().signal);
    expect(result.structuredContent).toMatchObject({ title: "Dune" });
    expect(asked.map((request) => [request.tool, request.via])).toEqual([
      ["lookup_film", "app"],
      ["lookup_film", "app"],
    ]);
    expect(audit.map((record) => [record.decision, record.result, record.via])).toEqual([
      ["denied", "denied", "app"],
      ["allowed-once", "ok", "app"],
    ]);
    // Only its own server: another address has no server here.
    expect(servers.appServer("https://elsewhere.example/mcp")).toBeUndefined();
  });
});

describe("where a panel shows (panelsAt)", () => {
  const opened = (afterBlock: number, live = true): McpAppPanel => {
    const panels = createMcpAppPanels({ place: () => ({ replyId: "r1", afterBlock }), newId: () => `p${afterBlock}` });
    panels.open(showFilm, {});
    const [panel] = panels.list();
    return { ...panel, live };
  };
  /** Every slot of reply r1 as the timeline draws it: one per drawn code block, then the reply's end. */
  const slots = (panels: readonly McpAppPanel[], drawnCode: readonly number[]) =>
    [
      ...drawnCode.map(
        (afterBlock) => [`after ${afterBlock}`, panelsAt(panels, { replyId: "r1", afterBlock })] as const,
      ),
      ["end", panelsAt(panels, { replyId: "r1", rest: drawnCode })] as const,
    ]
      .filter(([, here]) => here.length > 0)
      .map(([slot, here]) => [slot, here.map((panel) => panel.id)]);

  it("a live panel whose block the timeline has not drawn yet waits for it: it first shows under its block, never at the reply's end first (moving would load its view again)", () => {
    const panel = opened(3);
    // The frame before the reply's newest blocks are drawn: nothing drawn, or only an earlier code block.
    expect(slots([panel], [])).toEqual([]);
    expect(slots([panel], [1])).toEqual([]);
    // The next frame draws block 3: the panel is there, and only there.
    expect(slots([panel], [1, 3])).toEqual([["after 3", ["p3"]]]);
  });

  it("the reply's end keeps the panels of no drawn code block: no block at all, a block before the drawn ones, and saved panels", () => {
    expect(slots([opened(-1)], [])).toEqual([["end", ["p-1"]]]);
    expect(slots([opened(0)], [1, 3])).toEqual([["end", ["p0"]]]);
    // A saved panel (no view until Reopen) whose block is not in the reply shows at its end as before.
    expect(slots([opened(5, false)], [1, 3])).toEqual([["end", ["p5"]]]);
    // Another reply's panels are not here.
    expect(panelsAt([opened(3)], { replyId: "r2", afterBlock: 3 })).toEqual([]);
  });
});
