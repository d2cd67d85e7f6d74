/**
 * The tool broker and its rules (toolPolicy.ts) against the page's real demo
 * MCP server over the SDK's in-memory transport: ask by default, Allow once
 * spent by one call, Always allow this tool, revoke, the read-only switch,
 * strict mode, denials, tool errors — each with its audit record, and the
 * server's own count of calls showing what really ran.
 */
import { describe, expect, it } from "vitest";
import type { HostServiceContext } from "../../sandbox/types";
import type { JsonValue } from "../../wire/mount";
import { createMcpServers, describeTools, serverNameOf } from "./createMcpServers";
import { createDemoMcpServer } from "./demoMcpServer";
import { createToolBroker, type ConnectedTool, type ToolAuditRecord, type ToolPermissionAsk } from "./createToolBroker";
import {
  answerToolAsk,
  canonicalJson,
  decideTool,
  DEFAULT_TOOL_POLICY,
  parseToolKey,
  serverAddress,
  spendToolGrant,
  toolKey,
  type ToolAction,
  type ToolAnswer,
} from "./toolPolicy";

const context = (signal = new AbortController().signal): HostServiceContext => ({ signal, service: "tool.call" });

async function setUp(answers: ToolAnswer[] = []) {
  const servers = createMcpServers({ demoServer: createDemoMcpServer });
  await servers.addDemo();
  const calls: string[] = [];
  // Count what reaches the server: wrap each tool's call.
  const connected: ConnectedTool[] = servers.connected().map((tool) => ({
    descriptor: tool.descriptor,
    address: tool.address,
    call: (args, signal) => {
      calls.push(`${tool.descriptor.tool} ${JSON.stringify(args)}`);
      return tool.call(args, signal);
    },
  }));
  const asked: ToolPermissionAsk[] = [];
  const audit: ToolAuditRecord[] = [];
  const queue = [...answers];
  const broker = createToolBroker({
    ask: async (request) => {
      asked.push(request);
      const answer = queue.shift();
      if (!answer) throw new Error(`unexpected ask for ${request.name}`);
      return answer;
    },
    audit: (record) => audit.push(record),
  });
  broker.setTools(connected);
  const call = (name: string, args: JsonValue) => broker.service({ name, arguments: args }, context());
  return { broker, servers, calls, asked, audit, call, queue };
}

describe("tool rules (pure)", () => {
  const action: ToolAction = {
    server: "https://films.example/mcp",
    tool: "lookup_film",
    label: "films/lookup_film",
    readOnly: true,
    argumentsHash: "h1",
    argumentsSize: 10,
  };
  it("asks by default, even for a read-only tool", () => {
    expect(decideTool(DEFAULT_TOOL_POLICY, action).decision).toEqual({ kind: "ask" });
  });
  it("a one-time grant is bound to the call's arguments and spent once", () => {
    const { state } = answerToolAsk(DEFAULT_TOOL_POLICY, action, "once", "g1");
    expect(spendToolGrant(state, "g1", { ...action, argumentsHash: "other" })).toMatchObject({
      ok: false,
      reason: "mismatch",
    });
    const spent = spendToolGrant(state, "g1", action);
    expect(spent.ok).toBe(true);
    expect(spendToolGrant(spent.state, "g1", action)).toMatchObject({ ok: false, reason: "spent" });
    expect(spendToolGrant(state, "forged", action)).toMatchObject({ ok: false, reason: "unknown" });
  });
  it("an allowed tool of one server does not cover the same name on another", () => {
    const { state } = answerToolAsk(DEFAULT_TOOL_POLICY, action, "tool", "g");
    expect(decideTool(state, action).decision).toEqual({ kind: "allow", basis: "tool" });
    expect(state.allowed).toEqual(["https://films.example/mcp#lookup_film"]);
    // Another server that calls itself "films" too: the label is the same, the address is not.
    expect(decideTool(state, { ...action, server: "https://evil.example/mcp" }).decision).toEqual({ kind: "ask" });
    expect(decideTool({ ...state, strict: true }, action).decision).toEqual({ kind: "ask" });
  });
  it("canonical JSON ignores key order", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe(
      canonicalJson({ a: { c: null, d: [1, { e: 3, f: 2 }] }, b: 1 }),
    );
  });
});

describe("tool names", () => {
  it("a tool name two servers share is qualified on both; server names are made unique", () => {
    const tool = { name: "lookup_film", description: "d", inputSchema: { type: "object" }, readOnly: true };
    const names = describeTools([
      { name: "films", tools: [tool, { ...tool, name: "only_here" }] },
      { name: "films-2", tools: [tool] },
    ]).map((descriptor) => descriptor.name);
    expect(names).toEqual(["films/lookup_film", "only_here", "films-2/lookup_film"]);
    expect(serverNameOf("Films", "https://a.example/mcp", ["films"])).toBe("films-2");
    expect(serverNameOf("", "https://a.example/mcp", [])).toBe("a-example");
  });
});

describe("tool broker", () => {
  it("Allow once lets exactly one call through; the next call asks again", async () => {
    const { call, calls, asked, audit } = await setUp(["once", "once"]);
    await expect(call("lookup_film", { title: "Dune" })).resolves.toMatchObject({
      structured: { title: "Dune", year: 2021, director: "Denis Villeneuve" },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      capability: "tool",
      name: "lookup_film",
      server: "demo-films",
      tool: "lookup_film",
      readOnly: true,
    });
    expect(asked[0].arguments).toEqual([{ name: "title", value: '"Dune"' }]);
    await call("lookup_film", { title: "Dune" });
    expect(asked).toHaveLength(2);
    expect(calls).toHaveLength(2);
    expect(audit.map((record) => [record.url, record.decision, record.result])).toEqual([
      ["demo-films/lookup_film", "allowed-once", "ok"],
      ["demo-films/lookup_film", "allowed-once", "ok"],
    ]);
  });

  it("Always allow this tool: later calls pass without asking, until revoked", async () => {
    const { broker, call, asked, audit } = await setUp(["tool", "deny"]);
    await call("lookup_film", { title: "Dune" });
    await call("lookup_film", { title: "Solaris" });
    await call("lookup_film", { title: "Arrival" });
    expect(asked).toHaveLength(1);
    expect(broker.state().allowed).toEqual(["builtin:demo#lookup_film"]);
    broker.revokeTool("builtin:demo#lookup_film");
    await expect(call("lookup_film", { title: "Dune" })).rejects.toMatchObject({ code: "denied" });
    expect(asked).toHaveLength(2);
    expect(audit.map((record) => record.decision)).toEqual(["allowed-tool", "allowed-tool", "allowed-tool", "denied"]);
  });

  it("Deny refuses the call: the server never sees it", async () => {
    const { call, calls, audit } = await setUp(["deny"]);
    await expect(call("add_to_watchlist", { title: "Dune" })).rejects.toMatchObject({
      code: "denied",
      message: expect.stringMatching(/denied this tool call: demo-films\/add_to_watchlist/),
    });
    expect(calls).toEqual([]);
    expect(audit).toMatchObject([{ decision: "denied", result: "denied" }]);
  });

  it("the read-only switch allows the server's read-only tools only; strict mode asks anyway", async () => {
    const { broker, call, asked } = await setUp(["once", "once"]);
    broker.setReadOnlyAllowed("builtin:demo", true);
    await call("lookup_film", { title: "Dune" });
    expect(asked).toHaveLength(0);
    await expect(call("add_to_watchlist", { title: "Dune" })).resolves.toMatchObject({
      structured: null,
      text: "Watch list: Dune",
    });
    expect(asked.map((ask) => ask.tool)).toEqual(["add_to_watchlist"]);
    broker.setStrict(true);
    await call("lookup_film", { title: "Dune" });
    expect(asked.map((ask) => ask.tool)).toEqual(["add_to_watchlist", "lookup_film"]);
  });

  it("the ask shows every top-level argument whole: a 4,100-character argument does not hide the next one", async () => {
    const { call, asked } = await setUp(["deny"]);
    // The demo's tools take a title only; the server would refuse the extra argument, but the ask comes first.
    await expect(
      call("add_to_watchlist", { title: "x".repeat(4_100), to: "attacker@evil.example" }),
    ).rejects.toMatchObject({ code: "denied" });
    expect(asked[0].arguments).toEqual([
      { name: "title", value: JSON.stringify("x".repeat(4_100)) },
      { name: "to", value: '"attacker@evil.example"' },
    ]);
  });

  it("a call too large to show whole is refused without asking (too-large-to-ask), and recorded", async () => {
    const { call, calls, asked, audit } = await setUp(["once"]);
    await expect(
      call("add_to_watchlist", { title: "x".repeat(70_000), to: "attacker@evil.example" }),
    ).rejects.toMatchObject({
      code: "too-large-to-ask",
      message: expect.stringMatching(
        /demo-films\/add_to_watchlist was not called: its arguments are \d+ bytes of JSON, more than the 64 KB/,
      ),
    });
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`a${index}`, index]));
    await expect(call("add_to_watchlist", many)).rejects.toMatchObject({
      code: "too-large-to-ask",
      message: expect.stringMatching(/51 top-level arguments/),
    });
    expect(asked).toEqual([]);
    expect(calls).toEqual([]);
    expect(audit).toMatchObject([
      { decision: "denied", result: "too-large-to-ask" },
      { decision: "denied", result: "too-large-to-ask" },
    ]);
  });

  it("an isError result fails with the tool's message, code tool-error", async () => {
    const { call, audit } = await setUp(["once"]);
    await expect(call("lookup_film", { title: "Nope" })).rejects.toMatchObject({
      code: "tool-error",
      message: expect.stringContaining('No film titled "Nope"'),
    });
    expect(audit).toMatchObject([{ decision: "allowed-once", result: "tool-error" }]);
  });

  it("an unknown tool or malformed payload is refused without asking", async () => {
    const { broker, call, asked } = await setUp();
    await expect(call("send_mail", {})).rejects.toMatchObject({ code: "unknown-tool" });
    await expect(broker.service({ name: "lookup_film", arguments: [] }, context())).rejects.toMatchObject({
      code: "invalid",
    });
    await expect(broker.service("lookup_film", context())).rejects.toMatchObject({ code: "invalid" });
    expect(asked).toEqual([]);
  });

  it("a revoke aborts a call in flight that the tool's grant allowed", async () => {
    const { broker } = await setUp();
    let release: () => void = () => undefined;
    let started: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (started = resolve));
    broker.setTools([
      {
        descriptor: {
          name: "slow",
          server: "s",
          tool: "slow",
          description: "",
          inputSchema: { type: "object" },
          readOnly: false,
        },
        address: "https://s.example/mcp",
        call: () => {
          started();
          return new Promise((resolve) => (release = () => resolve({ content: [{ type: "text", text: "late" }] })));
        },
      },
    ]);
    broker.allowTool("https://s.example/mcp#slow");
    const pending = broker.service({ name: "slow", arguments: {} }, context());
    await reached;
    expect(broker.inFlight()).toBe(1);
    broker.revokeTool("https://s.example/mcp#slow");
    await expect(pending).rejects.toMatchObject({ code: "revoked" });
    release();
  });

  it("removing the server takes its tools away", async () => {
    const { broker, servers } = await setUp();
    expect(servers.descriptors().map((tool) => tool.name)).toEqual(["lookup_film", "add_to_watchlist"]);
    await servers.remove(servers.list()[0].id);
    broker.setTools(servers.connected());
    expect(servers.descriptors()).toEqual([]);
    await expect(
      broker.service({ name: "lookup_film", arguments: { title: "Dune" } }, context()),
    ).rejects.toMatchObject({ code: "unknown-tool" });
  });
});

describe("a tool grant belongs to the server's URL, not to the name it gives itself", () => {
  it("a server's address is the origin and path of its URL", () => {
    expect(serverAddress("https://Notes.Example:443/mcp?tenant=a#x")).toBe("https://notes.example/mcp");
    expect(serverAddress("http://127.0.0.1:8080/mcp")).toBe("http://127.0.0.1:8080/mcp");
    expect(serverAddress("http://127.0.0.1:8081/mcp")).not.toBe(serverAddress("http://127.0.0.1:8080/mcp"));
    expect(serverAddress("builtin:demo")).toBe("builtin:demo");
    expect(toolKey("https://notes.example/mcp", "delete_note")).toBe("https://notes.example/mcp#delete_note");
    expect(parseToolKey("https://notes.example/mcp#a#b")).toEqual({
      address: "https://notes.example/mcp",
      tool: "a#b",
    });
    // A grant of an older version (keyed by the self-declared name) is not a key: it allows nothing.
    expect(parseToolKey("notes/delete_note")).toBeUndefined();
    expect(parseToolKey("notes#delete_note")).toBeUndefined();
  });

  async function twoNotes(answers: ToolAnswer[]) {
    const asked: ToolPermissionAsk[] = [];
    const audit: ToolAuditRecord[] = [];
    const calls: string[] = [];
    const queue = [...answers];
    const broker = createToolBroker({
      ask: async (request) => {
        asked.push(request);
        return queue.shift() ?? "deny";
      },
      audit: (record) => audit.push(record),
    });
    // Both call themselves "notes"; each is the only server when it is connected, so both are `notes` and their tool is `delete_note`.
    const notes = (address: string): ConnectedTool => ({
      descriptor: {
        name: "delete_note",
        server: "notes",
        tool: "delete_note",
        description: "",
        inputSchema: { type: "object" },
        readOnly: true,
      },
      address,
      call: async (args) => {
        calls.push(`${address} ${JSON.stringify(args)}`);
        return { content: [{ type: "text", text: "deleted" }] };
      },
    });
    const call = (id: string) => broker.service({ name: "delete_note", arguments: { id } }, context());
    return {
      broker,
      asked,
      audit,
      calls,
      call,
      first: notes("http://127.0.0.1:4001/mcp"),
      second: notes("http://127.0.0.1:4002/mcp"),
    };
  }

  it("Always allow notes/delete_note on one server does not cover another server that calls itself notes", async () => {
    const { broker, asked, audit, calls, call, first, second } = await twoNotes(["tool", "deny"]);
    broker.setTools([first]);
    await call("1");
    expect(asked[0]).toMatchObject({ server: "notes", serverUrl: "http://127.0.0.1:4001/mcp", tool: "delete_note" });
    expect(broker.state().allowed).toEqual(["http://127.0.0.1:4001/mcp#delete_note"]);
    broker.setTools([second]);
    await expect(call("2")).rejects.toMatchObject({
      code: "denied",
      message: expect.stringContaining("notes/delete_note"),
    });
    expect(asked).toHaveLength(2);
    expect(asked[1]).toMatchObject({ server: "notes", serverUrl: "http://127.0.0.1:4002/mcp" });
    // The first server again: its grant holds, whatever it is called now.
    broker.setTools([
      second,
      { ...first, descriptor: { ...first.descriptor, name: "notes-2/delete_note", server: "notes-2" } },
    ]);
    await broker.service({ name: "notes-2/delete_note", arguments: { id: "3" } }, context());
    expect(asked).toHaveLength(2);
    expect(calls).toEqual(['http://127.0.0.1:4001/mcp {"id":"1"}', 'http://127.0.0.1:4001/mcp {"id":"3"}']);
    expect(audit.map((record) => [record.url, record.server, record.decision])).toEqual([
      ["notes/delete_note", "http://127.0.0.1:4001/mcp", "allowed-tool"],
      ["notes/delete_note", "http://127.0.0.1:4002/mcp", "denied"],
      ["notes-2/delete_note", "http://127.0.0.1:4001/mcp", "allowed-tool"],
    ]);
  });

  it("the read-only switch is the server's URL's too", async () => {
    const { broker, asked, call, first, second } = await twoNotes([]);
    broker.setTools([first]);
    broker.setReadOnlyAllowed(first.address, true);
    await call("1");
    expect(asked).toHaveLength(0);
    broker.setTools([second]);
    await expect(call("2")).rejects.toMatchObject({ code: "denied" });
    expect(asked).toHaveLength(1);
  });

  it("forgetting a removed server drops its grants and its switch, and nobody else's", async () => {
    const { broker, first, second } = await twoNotes([]);
    broker.allowTool(toolKey(first.address, "delete_note"));
    broker.allowTool(toolKey(second.address, "delete_note"));
    broker.setReadOnlyAllowed(first.address, true);
    broker.forgetServer(first.address);
    expect(broker.state()).toMatchObject({ allowed: ["http://127.0.0.1:4002/mcp#delete_note"], readOnlyServers: [] });
  });
});
