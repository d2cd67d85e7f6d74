/**
 * The network and tools modules load their rules when a session opens and
 * save them when they change, through the hooks every capability module has
 * (`InstalledCapability.open`, src/capabilities/Capability.ts), installed on
 * the person's side as createApp installs them.
 */
import { describe, expect, it } from "vitest";
import { installNetwork } from "../src/capabilities/network/installNetwork";
import { createMcpServers } from "../src/capabilities/tools/createMcpServers";
import { createDemoMcpServer } from "../src/capabilities/tools/demoMcpServer";
import { installTools } from "../src/capabilities/tools/installTools";
import { CapabilityController } from "../src/session/capabilityController";
import { addGrant, listGrants } from "../src/store/capabilities";
import { createSession, getSession, updateSessionSettings } from "../src/store/sessions";
import { openTestStore } from "../src/store/testSupport";
import type { ToolDescriptor } from "../src/wire/capabilities";

async function withNetwork() {
  const store = await openTestStore();
  const controller = new CapabilityController({ agent: () => undefined });
  const network = installNetwork({ person: controller }, { newId: () => "ask-1" });
  controller.install("network", network);
  return { store, controller, network, broker: network.broker };
}

describe("the network module and the open session", () => {
  it("loads the session's grants, and never applies the previous session's while they load", async () => {
    const { store, controller, broker } = await withNetwork();
    const first = await createSession(store);
    const second = await createSession(store);
    await addGrant(store, { sessionId: first.id, capability: "network", host: "first.example", grantedAt: 1 });
    await addGrant(store, { sessionId: second.id, capability: "network", host: "second.example", grantedAt: 1 });
    await controller.open(first, store);
    expect(broker.state().hosts).toEqual(["first.example"]);
    const opening = controller.open(second, store);
    expect(broker.state().hosts).toEqual([]);
    expect(controller.getState().sessionId).toBe(second.id);
    await opening;
    expect(broker.state().hosts).toEqual(["second.example"]);
  });

  it("applies the session's mode, hosts and strict mode, and saves a change of mode with that session only", async () => {
    const { store, controller, network } = await withNetwork();
    const session = await createSession(store);
    await updateSessionSettings(store, session.id, { network: "off", allowedHosts: ["api.example"], strict: true });
    await controller.open(await getSession(store, session.id), store);
    expect(network.state()).toMatchObject({ mode: "off", hosts: ["api.example"], strict: true });
    network.setMode("allowed");
    await expect
      .poll(async () => (await getSession(store, session.id))?.settings)
      .toMatchObject({ network: "allowed", allowedHosts: ["api.example"], strict: true });
    const other = await createSession(store);
    await controller.open(other, store);
    expect(network.state()).toMatchObject({ mode: "ask", hosts: [], strict: false });
    expect((await getSession(store, other.id))?.settings.network).toBe("ask");
  });

  it("Revoke takes the host out of the rules and its grant out of the store", async () => {
    const { store, controller, network } = await withNetwork();
    const session = await createSession(store);
    await addGrant(store, { sessionId: session.id, capability: "network", host: "api.example", grantedAt: 1 });
    await controller.open(session, store);
    expect(network.state().hosts).toEqual(["api.example"]);
    await network.revoke("api.example");
    expect(network.state().hosts).toEqual([]);
    expect(await listGrants(store, session.id)).toEqual([]);
    await expect.poll(async () => (await getSession(store, session.id))?.settings.allowedHosts).toEqual([]);
  });

  it("shows a remote image without asking only on a host its rules cover", async () => {
    const { store, controller, network } = await withNetwork();
    const session = await createSession(store);
    await addGrant(store, { sessionId: session.id, capability: "network", host: "img.example", grantedAt: 1 });
    await controller.open(session, store);
    const images = network.remoteImages!;
    expect(images.covers("https://img.example/a.png")).toBe(true);
    expect(images.covers("https://other.example/a.png")).toBe(false);
    let heard = 0;
    const stop = images.subscribe(() => (heard += 1));
    await network.revoke("img.example");
    stop();
    expect(heard).toBeGreaterThan(0);
    expect(images.covers("https://img.example/a.png")).toBe(false);
  });
});

describe("tool grants are the server's address's", () => {
  async function withTools() {
    const store = await openTestStore();
    const controller = new CapabilityController({ agent: () => undefined });
    const servers = createMcpServers({ demoServer: createDemoMcpServer, remember: null, redirectUrl: null });
    const published: ToolDescriptor[][] = [];
    const installed = installTools(
      { person: controller, setTools: (list) => published.push(list) },
      { loadServers: async () => servers },
    );
    controller.install("tools", installed);
    return { store, controller, installed, tools: installed.broker, published };
  }

  it("a grant saved under a server's self-declared name (older versions) allows nothing and is dropped", async () => {
    const { store, controller, tools } = await withTools();
    const session = await createSession(store);
    await addGrant(store, { sessionId: session.id, capability: "tool", host: "notes/delete_note", grantedAt: 1 });
    await addGrant(store, {
      sessionId: session.id,
      capability: "tool",
      host: "https://notes.example/mcp#delete_note",
      grantedAt: 1,
    });
    await updateSessionSettings(store, session.id, {
      network: "ask",
      allowedHosts: [],
      readOnlyToolServers: ["notes", "https://notes.example/mcp"],
    });
    await controller.open((await getSession(store, session.id))!, store);
    expect(tools.state()).toMatchObject({
      allowed: ["https://notes.example/mcp#delete_note"],
      readOnlyServers: ["https://notes.example/mcp"],
    });
    await expect
      .poll(async () => (await listGrants(store, session.id)).map((grant) => grant.host))
      .toEqual(["https://notes.example/mcp#delete_note"]);
  });

  it("removing a server removes its grants and its read-only switch, in this session and the saved ones", async () => {
    const { store, controller, installed, tools, published } = await withTools();
    const [open, other] = [await createSession(store), await createSession(store)];
    for (const session of [open, other]) {
      await addGrant(store, {
        sessionId: session.id,
        capability: "tool",
        host: "builtin:demo#add_to_watchlist",
        grantedAt: 1,
      });
      await addGrant(store, {
        sessionId: session.id,
        capability: "tool",
        host: "https://other.example/mcp#x",
        grantedAt: 1,
      });
      await updateSessionSettings(store, session.id, {
        network: "ask",
        allowedHosts: [],
        readOnlyToolServers: ["builtin:demo"],
      });
    }
    await controller.open((await getSession(store, open.id))!, store);
    await installed.addDemoServer();
    expect(published.at(-1)?.map((tool) => tool.name)).toEqual(["lookup_film", "add_to_watchlist"]);
    expect(tools.state().allowed).toEqual(["builtin:demo#add_to_watchlist", "https://other.example/mcp#x"]);
    const [demo] = installed.view().servers.servers;
    expect(demo.address).toBe("builtin:demo");
    await installed.removeServer(demo.id);
    expect(published.at(-1)).toEqual([]);
    expect(tools.state()).toMatchObject({ allowed: ["https://other.example/mcp#x"], readOnlyServers: [] });
    for (const session of [open, other]) {
      expect((await listGrants(store, session.id)).map((grant) => grant.host)).toEqual(["https://other.example/mcp#x"]);
    }
    expect((await getSession(store, other.id))?.settings.readOnlyToolServers).toBeUndefined();
  });

  it("saves a server's read-only switch with the open session, keeping its network rules", async () => {
    const { store, controller, installed } = await withTools();
    const session = await createSession(store);
    await updateSessionSettings(store, session.id, { network: "off", allowedHosts: ["api.example"] });
    await controller.open(await getSession(store, session.id), store);
    installed.setReadOnlyToolsAllowed("builtin:demo", true);
    expect(installed.view().policy.readOnlyServers).toEqual(["builtin:demo"]);
    await expect
      .poll(async () => (await getSession(store, session.id))?.settings)
      .toMatchObject({ network: "off", allowedHosts: ["api.example"], readOnlyToolServers: ["builtin:demo"] });
  });

  it("Add server with no URL says what to enter and loads nothing", async () => {
    const store = await openTestStore();
    const controller = new CapabilityController({ agent: () => undefined });
    let loads = 0;
    const installed = installTools(
      { person: controller, setTools: () => undefined },
      {
        loadServers: async () => {
          loads += 1;
          return createMcpServers({ remember: null, redirectUrl: null });
        },
      },
    );
    controller.install("tools", installed);
    await controller.open(await createSession(store), store);
    expect(await installed.addServer("  ")).toBe(false);
    expect(installed.view().servers.error).toBe(
      "Enter the MCP server URL first (for example https://example.com/mcp).",
    );
    expect(loads).toBe(0);
  });

  it("takes an MCP sign-in's return from the page's address, and nothing else", () => {
    const installed = installTools(
      {
        person: new CapabilityController({ agent: () => undefined }),
        setTools: () => undefined,
      },
      { loadServers: async () => createMcpServers({ remember: null, redirectUrl: null }) },
    );
    expect(installed.pageOpened!("?session=abc")).toBe(false);
    expect(installed.pageOpened!("?code=xyz&state=123")).toBe(true);
  });
});
