/**
 * Servers remembered across a reload come back once: a server this page
 * connected before the restore ran (a sign-in's return, which remembers it
 * too) is not added a second time as `films-2`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMcpServer, type TestMcpServer } from "../../../e2e/mcpServer";
import { createMcpServers } from "./createMcpServers";

let films: TestMcpServer;

beforeAll(async () => {
  films = await startMcpServer();
});

afterAll(async () => {
  await films?.close();
});

function memoryStorage(): Pick<Storage, "getItem" | "setItem"> {
  const items = new Map<string, string>();
  return { getItem: (key) => items.get(key) ?? null, setItem: (key, value) => void items.set(key, value) };
}

describe("createMcpServers restore", () => {
  it("brings back what the tab had before a reload", async () => {
    const remember = memoryStorage();
    const before = createMcpServers({ remember, redirectUrl: null });
    await before.add({ url: films.url });
    const after = createMcpServers({ remember, redirectUrl: null });
    expect(await after.restore()).toEqual([]);
    expect(after.list().map((server) => server.name)).toEqual(["films"]);
  });

  it("does not add a second copy of a server this page connected before the restore ran", async () => {
    const remember = memoryStorage();
    const servers = createMcpServers({ remember, redirectUrl: null });
    await servers.add({ url: films.url });
    expect(await servers.restore()).toEqual([]);
    expect(servers.list().map((server) => server.name)).toEqual(["films"]);
  });
});
