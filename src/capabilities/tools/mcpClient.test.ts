/**
 * The host's MCP client against real servers on 127.0.0.1 (Node's fetch
 * stands in for the page's): Streamable HTTP with the bearer token on every
 * request, the SSE fallback for a server that only speaks the older
 * transport, and the plain-words failures (unreachable / CORS, 401).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { z } from "zod";
import { startMcpServer, type TestMcpServer } from "../../../e2e/mcpServer";
import { connectMcpServer, McpConnectError } from "./mcpClient";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function films(): Promise<TestMcpServer> {
  const server = await startMcpServer();
  closers.push(() => server.close());
  return server;
}

/** A server that only speaks the older HTTP+SSE transport (GET /sse, POST /messages). */
async function sseOnly(): Promise<{ url: string; authorizations: (string | undefined)[] }> {
  const transports = new Map<string, SSEServerTransport>();
  const authorizations: (string | undefined)[] = [];
  const http: Server = createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/sse" && request.method === "GET") {
      const server = new McpServer({ name: "Old Server", version: "1.0.0" });
      server.registerTool("echo", { description: "Echo", inputSchema: { text: z.string() } }, async ({ text }) => ({
        content: [{ type: "text", text }],
      }));
      const transport = new SSEServerTransport("/messages", response);
      transports.set(transport.sessionId, transport);
      void server.connect(transport);
      return;
    }
    if (url.pathname === "/messages" && request.method === "POST") {
      void transports.get(url.searchParams.get("sessionId") ?? "")?.handlePostMessage(request, response);
      return;
    }
    response.writeHead(405).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`, authorizations };
}

describe("the host's MCP client", () => {
  it("Streamable HTTP: lists tools with their schemas and read-only hints; every request carries the token", async () => {
    const server = await films();
    const connection = await connectMcpServer({ url: server.url, token: "tok-1" });
    expect(connection.transport).toBe("streamable-http");
    expect(connection.serverName).toBe("Films");
    expect(connection.tools.map((tool) => [tool.name, tool.readOnly])).toEqual([
      ["lookup_film", true],
      ["add_to_watchlist", false],
    ]);
    const result = await connection.call("lookup_film", { title: "Dune" }, new AbortController().signal);
    expect(result.structuredContent).toEqual({ title: "Dune", year: 2021, director: "Denis Villeneuve" });
    await connection.close();
    expect(server.authorizations.length).toBeGreaterThan(0);
    expect(server.authorizations.every((value) => value === "Bearer tok-1")).toBe(true);
  });

  it("falls back to the SSE transport for a server that answers the Streamable HTTP POST with 405", async () => {
    const server = await sseOnly();
    const connection = await connectMcpServer({ url: server.url, token: "tok-2" });
    expect(connection.transport).toBe("sse");
    expect(connection.tools.map((tool) => tool.name)).toEqual(["echo"]);
    expect((await connection.call("echo", { text: "hi" }, new AbortController().signal)).content).toEqual([
      { type: "text", text: "hi" },
    ]);
    await connection.close();
    expect(server.authorizations.filter((value) => value !== "Bearer tok-2")).toEqual([]);
  });

  it("a server the page cannot reach (a CORS refusal looks the same to a page): a plain sentence, code cors", async () => {
    const error = await connectMcpServer({ url: "http://127.0.0.1:9/mcp" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as McpConnectError).code).toBe("cors");
    expect((error as Error).message).toMatch(/does not accept requests from a web page \(CORS\)/);
  });

  it("a server that refuses the token: code unauthorized; a URL with credentials or another scheme is refused before any request", async () => {
    const refusing = createServer((_request, response) => response.writeHead(401).end());
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => refusing.close(() => resolve())));
    const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/mcp`;
    await expect(connectMcpServer({ url, token: "wrong" })).rejects.toMatchObject({
      code: "unauthorized",
      message: expect.stringMatching(/refused the token/),
    });
    await expect(connectMcpServer({ url: "http://user:pw@127.0.0.1/mcp" })).rejects.toMatchObject({
      code: "invalid-url",
    });
    await expect(connectMcpServer({ url: "file:///etc/passwd" })).rejects.toMatchObject({ code: "invalid-url" });
    await expect(connectMcpServer({ url: "not a url" })).rejects.toMatchObject({ code: "invalid-url" });
  });
});
