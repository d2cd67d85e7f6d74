/**
 * A local MCP server for the tools suite, built with the official SDK
 * (McpServer + StreamableHTTPServerTransport, stateless) on node:http at
 * 127.0.0.1 and a free port. It offers one read-only tool with structured
 * output (`lookup_film`) and one that changes state (`add_to_watchlist`)
 * — or, with `kind: "notes"`, a server that calls itself `name` (default
 * "Notes") with `delete_note({ id })` and `send_note({ body, to })` —
 * records every tool call and every Authorization header it received, and
 * either allows browser requests (CORS, exposing `mcp-session-id`) or not.
 * With `oauth`, it is also its own OAuth authorization server (discovery,
 * dynamic registration, an authorize endpoint that signs in at once and
 * redirects back, a token endpoint that checks the PKCE verifier), and the
 * MCP endpoint answers 401 without a token it issued.
 */
import { createHash } from "node:crypto";
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
  /** With `oauth`: what the sign-in saw (the PKCE check at the token endpoint, the tokens issued). */
  oauth: { registered: number; authorized: number; pkceVerified: boolean; issued: string[] };
  close(): Promise<void>;
}

const FILMS: Record<string, { title: string; year: number; director: string }> = {
  dune: { title: "Dune", year: 2021, director: "Denis Villeneuve" },
  solaris: { title: "Solaris", year: 1972, director: "Andrei Tarkovsky" },
};

/** The notes server: its name is what it says it is (two servers may both say "notes"). */
function createNotesServer(name: string, calls: string[]): McpServer {
  const server = new McpServer({ name, version: "1.0.0" });
  server.registerTool(
    "delete_note",
    {
      description: "Delete a note.",
      inputSchema: { id: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: true },
    },
    async ({ id }) => {
      calls.push(`delete_note ${JSON.stringify({ id })}`);
      return { content: [{ type: "text", text: `Deleted note ${id}` }] };
    },
  );
  server.registerTool(
    "send_note",
    {
      description: "Send a note to someone.",
      inputSchema: { body: z.string(), to: z.string() },
      annotations: { readOnlyHint: false },
    },
    async ({ body, to }) => {
      calls.push(`send_note ${JSON.stringify({ bytes: body.length, to })}`);
      return { content: [{ type: "text", text: `Sent ${body.length} characters to ${to}` }] };
    },
  );
  return server;
}

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
    {
      description: "Add a film to the watch list.",
      inputSchema: { title: z.string() },
      annotations: { readOnlyHint: false },
    },
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

const base64url = (bytes: Buffer) =>
  bytes.toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

export async function startMcpServer(
  options: {
    cors?: boolean;
    oauth?: boolean;
    kind?: "films" | "notes";
    name?: string;
    /** Another server (e2e/mcpApps.test.ts: one with MCP App views), built per request; `calls` as above. */
    server?: (calls: string[]) => McpServer;
  } = {},
): Promise<TestMcpServer> {
  const cors = options.cors ?? true;
  const oauth = { registered: 0, authorized: 0, pkceVerified: false, issued: [] as string[] };
  const challenges = new Map<string, string>();
  let origin = "";
  const json = (response: ServerResponse, status: number, body: unknown) =>
    response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  /** The OAuth endpoints; true when the request was one of them. */
  const serveOAuth = (request: IncomingMessage, response: ServerResponse): boolean => {
    const url = new URL(request.url ?? "/", origin);
    if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
      json(response, 200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
      return true;
    }
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      json(response, 200, {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
      return true;
    }
    if (url.pathname === "/register" && request.method === "POST") {
      void readBody(request).then((body) => {
        oauth.registered += 1;
        json(response, 201, {
          ...(body as object),
          client_id: `client-${oauth.registered}`,
          client_id_issued_at: Math.floor(Date.now() / 1000),
        });
      });
      return true;
    }
    if (url.pathname === "/authorize") {
      // Signs the person in at once and sends them back with a code.
      oauth.authorized += 1;
      const code = `code-${oauth.authorized}`;
      challenges.set(code, url.searchParams.get("code_challenge") ?? "");
      const back = new URL(url.searchParams.get("redirect_uri") ?? "");
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      response.writeHead(302, { location: back.href }).end();
      return true;
    }
    if (url.pathname === "/token" && request.method === "POST") {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
        const code = form.get("code") ?? "";
        const verifier = form.get("code_verifier") ?? "";
        const expected = challenges.get(code);
        challenges.delete(code);
        if (!expected || base64url(createHash("sha256").update(verifier).digest()) !== expected)
          return json(response, 400, { error: "invalid_grant" });
        oauth.pkceVerified = true;
        const token = `access-${oauth.issued.length + 1}-7c2e`;
        oauth.issued.push(token);
        json(response, 200, { access_token: token, token_type: "Bearer", expires_in: 3600 });
      });
      return true;
    }
    return false;
  };
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
    if (options.oauth && serveOAuth(request, response)) return;
    if (options.oauth && !oauth.issued.some((token) => request.headers.authorization === `Bearer ${token}`)) {
      response
        .writeHead(401, {
          "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
          "access-control-expose-headers": "www-authenticate, mcp-session-id",
        })
        .end();
      return;
    }
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
      const server = options.server
        ? options.server(calls)
        : options.kind === "notes"
          ? createNotesServer(options.name ?? "Notes", calls)
          : createFilmServer(calls, watchlist);
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
  origin = `http://127.0.0.1:${port}`;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    oauth,
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
