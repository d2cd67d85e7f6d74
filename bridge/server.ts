import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { randomBytes, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { ChannelRegistry, makeCode } from "./channels";
import { BIND_ADDRESS, allowedOrigins as originsAllowed, refuseRequest, refuseUpgrade } from "./httpGuard";
import { createAgentTools } from "./mcpTools";
import { PageSockets } from "./pageSocket";
import { AcpLink } from "./acpLink";
import { ACP_SOCKET_PATH, BRIDGE_WIRE_VERSION, DEFAULT_BRIDGE_PORT } from "../src/wire/bridge";

export { DEFAULT_PAGE_ORIGINS, hostnameOf, isLoopbackHost } from "./httpGuard";

/**
 * The local bridge (DESIGN.md §4b): MCP for the agent (Streamable HTTP at
 * /mcp, or stdio), a WebSocket at /page for the Livemark page. This file
 * only wires the parts: the HTTP guard (httpGuard.ts: loopback binding,
 * Host and Origin checks, before anything else sees a request), the page
 * sockets (pageSocket.ts) and the agents' tools (mcpTools.ts). It keeps
 * nothing but the open channels.
 */

export interface BridgeOptions {
  /** 0 picks a free port. Default 4737. */
  port?: number;
  /** Origins whose pages may open a channel, on top of DEFAULT_PAGE_ORIGINS. */
  allowOrigins?: readonly string[];
  /** Also serve MCP on this process's stdin/stdout. */
  stdio?: boolean;
  /** How long an unused code lives (default 10 minutes). */
  codeTtlMs?: number;
  /** How long a channel whose page went away (a reload) waits for it (default two minutes). */
  resumeGraceMs?: number;
  /** How often a call held open (a run waiting for the person) sends progress (default 10 s). */
  progressEveryMs?: number;
  /** ACP mode: the person's agent, launched with this command for each page socket at `/acp` (acpLink.ts). */
  acp?: string;
  /** ACP mode: how to launch this program (`--mcp-proxy` is added) for agents without HTTP MCP (mcpProxy.ts). */
  mcpProxy?: { command: string; args: readonly string[] };
  now?: () => number;
  log?: (line: string) => void;
}

export interface RunningBridge {
  port: number;
  /** Agents' waits for a command still open (tests wait on this rather than a clock). */
  waiting(): number;
  close(): Promise<void>;
}

export async function startBridge(options: BridgeOptions = {}): Promise<RunningBridge> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const allowedOrigins = originsAllowed(options.allowOrigins);
  let agentCount = 0;

  const registry: ChannelRegistry = new ChannelRegistry({
    now: options.now,
    ttlMs: options.codeTtlMs,
    newCode: () => makeCode((count) => randomBytes(count)),
    newChannelId: () => randomBytes(18).toString("base64url"),
    onClaim: (channel, command, agent) =>
      pages.tell(channel, { type: "claimed", commandId: command.commandId, agent: tools.labelOf(agent) }),
  });
  const pages: PageSockets = new PageSockets({
    registry,
    log,
    labelOf: (agent) => tools.labelOf(agent),
    graceMs: options.resumeGraceMs,
  });
  const tools = createAgentTools({ registry, pages, progressEveryMs: options.progressEveryMs });

  // ---- HTTP + WebSocket ----

  const transports = new Map<string, StreamableHTTPServerTransport>();
  const transportPaths = new WeakMap<StreamableHTTPServerTransport, string>();
  /** ACP mode: the open links, by their MCP token. */
  const acpLinks = new Map<string, AcpLink>();
  const socketPaths = options.acp ? ["/page", ACP_SOCKET_PATH] : ["/page"];
  const closers = new Set<() => Promise<void>>();

  const refuse = (response: ServerResponse, status: number, message: string) => {
    response
      .writeHead(status, { "content-type": "application/json" })
      .end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
  };

  const readBody = (incoming: IncomingMessage): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > 4_000_000) {
          reject(new Error("too large"));
          incoming.destroy();
        } else chunks.push(chunk);
      });
      incoming.on("end", () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        } catch (error) {
          reject(error);
        }
      });
      incoming.on("error", reject);
    });

  const handleMcp = async (
    incoming: IncomingMessage,
    response: ServerResponse,
    acpServer?: () => ReturnType<AcpLink["createMcpServer"]>,
  ) => {
    const sessionId = incoming.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? transports.get(sessionId) : undefined;
    // An MCP session belongs to the path it began on: a link's session only with that link's token.
    const path = new URL(incoming.url ?? "/", "http://127.0.0.1").pathname;
    if (existing && transportPaths.get(existing) !== path) return refuse(response, 404, "Not found");
    if (existing) return existing.handleRequest(incoming, response);
    if (sessionId !== undefined) return refuse(response, 404, "Unknown MCP session: initialize again.");
    if (incoming.method !== "POST") return refuse(response, 400, "Initialize first (POST).");
    let body: unknown;
    try {
      body = await readBody(incoming);
    } catch {
      return refuse(response, 400, "The body is not JSON.");
    }
    if (!isInitializeRequest(body)) return refuse(response, 400, "Initialize first.");
    const agent = acpServer ? "ACP agent" : `agent ${++agentCount}`;
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void transports.set(id, transport),
    });
    transportPaths.set(transport, path);
    const server = acpServer ? acpServer() : tools.createAgentServer(agent);
    const close = async () => {
      await server.close().catch(() => undefined);
    };
    closers.add(close);
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
      closers.delete(close);
      if (!acpServer) tools.leave(agent);
    };
    await server.connect(transport);
    await transport.handleRequest(incoming, response, body);
  };

  const http = createServer((incoming, response) => {
    // Before anything else: loopback Host (DNS rebinding), listed Origin.
    const refusal = refuseRequest(incoming.headers, allowedOrigins);
    if (refusal) return refuse(response, 403, refusal);
    const path = new URL(incoming.url ?? "/", "http://127.0.0.1").pathname;
    if (path.startsWith("/acp-mcp/")) {
      // The MCP server of one ACP link: only with that link's token.
      const link = acpLinks.get(path.slice("/acp-mcp/".length));
      if (!link) return refuse(response, 404, "Not found");
      handleMcp(incoming, response, () => link.createMcpServer()).catch((error: unknown) => {
        log(`acp mcp request failed: ${error instanceof Error ? error.message : String(error)}`);
        if (!response.headersSent) refuse(response, 500, "Internal error");
      });
      return;
    }
    if (path === "/mcp") {
      handleMcp(incoming, response).catch((error: unknown) => {
        log(`mcp request failed: ${error instanceof Error ? error.message : String(error)}`);
        if (!response.headersSent) refuse(response, 500, "Internal error");
      });
      return;
    }
    if (path === "/" && incoming.method === "GET") {
      response
        .writeHead(200, { "content-type": "text/plain" })
        .end("Livemark bridge: MCP at /mcp, the page connects to /page.\n");
      return;
    }
    refuse(response, 404, "Not found");
  });

  const sockets = new WebSocketServer({ noServer: true, maxPayload: 4_000_000 });
  const rejectUpgrade = (socket: Duplex, status: string) => {
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  };
  http.on("upgrade", (incoming: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(incoming.url ?? "/", "http://127.0.0.1").pathname;
    const refusal = refuseUpgrade(path, incoming.headers, allowedOrigins, socketPaths);
    if (refusal) {
      if (refusal.log) log(refusal.log);
      return rejectUpgrade(socket, refusal.status);
    }
    sockets.handleUpgrade(incoming, socket, head, (ws) => sockets.emit("connection", ws, incoming));
  });
  sockets.on("connection", (socket: WebSocket, incoming: IncomingMessage) => {
    const path = new URL(incoming.url ?? "/", "http://127.0.0.1").pathname;
    if (path !== ACP_SOCKET_PATH || !options.acp) return void pages.accept(socket);
    const token = randomBytes(18).toString("base64url");
    const link = new AcpLink({
      socket,
      command: options.acp,
      token,
      port,
      log,
      mcpProxy: options.mcpProxy,
      onClose: () => acpLinks.delete(token),
    });
    acpLinks.set(token, link);
  });

  let port = 0;
  let stdio: StdioServerTransport | undefined;
  if (options.stdio) {
    const agent = "stdio agent";
    const server = tools.createAgentServer(agent);
    stdio = new StdioServerTransport();
    stdio.onclose = () => tools.leave(agent);
    await server.connect(stdio);
    closers.add(() => server.close());
  }

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? DEFAULT_BRIDGE_PORT, BIND_ADDRESS, () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  log(
    `Livemark bridge (wire v${BRIDGE_WIRE_VERSION}): MCP at http://127.0.0.1:${port}/mcp${options.stdio ? " and on stdio" : ""}; pages connect to ws://127.0.0.1:${port}/page from ${[...allowedOrigins].join(", ")}`,
  );
  if (options.acp)
    log(
      `ACP mode: each page at ws://127.0.0.1:${port}${ACP_SOCKET_PATH} drives its own ${JSON.stringify(options.acp)}`,
    );

  return {
    port,
    waiting: () => registry.waiting(),
    async close() {
      pages.endAll("bridge stopped");
      for (const link of [...acpLinks.values()]) link.close();
      for (const socket of sockets.clients) socket.terminate();
      await Promise.all([...closers].map((close) => close().catch(() => undefined)));
      for (const transport of transports.values()) await transport.close().catch(() => undefined);
      sockets.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
