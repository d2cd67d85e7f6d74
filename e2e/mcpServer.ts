/**
 * A local MCP server for the tools suite, built with the official SDK
 * (McpServer + StreamableHTTPServerTransport, stateless) on node:http at
 * 127.0.0.1 and a free port. It offers one read-only tool with structured
 * output (`lookup_film`) and one that changes state (`add_to_watchlist`),
 * records every tool call and every Authorization header it received, and
 * either allows browser requests (CORS, exposing `mcp-session-id`) or not.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export interface TestMcpServer {
  /** `http://127.0.0.1:PORT/mcp` */
  url: string;
  /** Tool calls that reached the server, in order: `lookup_film {"title":"Dune"}`. */
  calls: string[];
  /** The Authorization header of every request (undefined when none). */
  authorizations: (string | undefined)[];
  /** Every request, preflights included. */
  requests: number;
  close(): Promise<void>;
}

const FILMS: Record<string, { title: string; year: number; director: string }> = {
  dune: { title: "Dune", year: 2021, director: "Denis Villeneuve" },
  solaris: { title: "Solaris", year: 1972, director: "Andrei Tarkovsky" },
};

function createFilmServer(calls: string[], watchlist: string[]): McpServer {
  const server = new McpServer({ name: "Films", version: "1.0.0" });
  server.registerTool(
    "lookup_film",
    {
      description: "Look up a film by title.",
      inputSchema: { title: z.string().min(1) },
      outputSchema: { title: z.string(), year: z.number(), director: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ title }) => {
      calls.push(`lookup_film ${JSON.stringify({ title })}`);
      const film = FILMS[title.toLowerCase()];
      if (!film) return { isError: true, content: [{ type: "text", text: `No film titled ${title}` }] };
      return { structuredContent: film, content: [{ type: "text", text: JSON.stringify(film) }] };
    },
  );
  server.registerTool(
    "add_to_watchlist",
    { description: "Add a film to the watch list.", inputSchema: { title: z.string() }, annotations: { readOnlyHint: false } },
    async ({ title }) => {
      calls.push(`add_to_watchlist ${JSON.stringify({ title })}`);
      watchlist.push(title);
      return { content: [{ type: "text", text: `Watch list: ${watchlist.join(", ")}` }] };
    },
  );
  return server;
}

const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "content-type, authorization, mcp-session-id, mcp-protocol-version, last-event-id",
  "access-control-expose-headers": "mcp-session-id, mcp-protocol-version",
};

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

export async function startMcpServer(options: { cors?: boolean } = {}): Promise<TestMcpServer> {
  const cors = options.cors ?? true;
  const calls: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const watchlist: string[] = [];
  let requests = 0;
  const http = createServer((request: IncomingMessage, response: ServerResponse) => {
    requests += 1;
    if (cors) for (const [name, value] of Object.entries(CORS_HEADERS)) response.setHeader(name, value);
    if (request.method === "OPTIONS") {
      response.writeHead(204).end();
      return;
    }
    authorizations.push(request.headers.authorization);
    if (!request.url?.startsWith("/mcp")) {
      response.writeHead(404).end();
      return;
    }
    if (request.method !== "POST") {
      // Stateless: no server-sent stream, no session to end.
      response.writeHead(405, { allow: "POST" }).end();
      return;
    }
    void (async () => {
      // Stateless Streamable HTTP: one server and transport per request; the films and the watch list are shared.
      const server = createFilmServer(calls, watchlist);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      response.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request, response, await readBody(request));
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    authorizations,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
