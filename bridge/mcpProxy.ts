import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { BIND_ADDRESS } from "./httpGuard";

/**
 * `--mcp-proxy <url>`: the bridge as a stdio MCP server for ACP agents that
 * take no HTTP MCP servers (no `mcpCapabilities.http`). The agent launches
 * it from the `stdio` entry the page puts in `session/new`'s `mcpServers`;
 * it forwards every JSON-RPC message, unread, between its stdin/stdout
 * (`StdioServerTransport`) and its link's Livemark MCP endpoint
 * (`StreamableHTTPClientTransport`), so the page still decides every call
 * under the room's rights. Only a loopback `/acp-mcp/<token>` URL is taken.
 */

export function proxyUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `--mcp-proxy needs the ACP link's MCP address, got ${value}`;
  }
  if (url.protocol !== "http:" || url.hostname !== BIND_ADDRESS || !/^\/acp-mcp\/[\w-]+$/.test(url.pathname))
    return `--mcp-proxy takes only the bridge's own http://${BIND_ADDRESS}:PORT/acp-mcp/<token> address, got ${value}`;
  return undefined;
}

/** Runs until stdin ends or the endpoint goes away; resolves then. */
export async function runMcpProxy(address: string): Promise<void> {
  const local = new StdioServerTransport();
  const remote = new StreamableHTTPClientTransport(new URL(address));
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let closing = false;
  const close = () => {
    if (closing) return;
    closing = true;
    void remote
      .terminateSession()
      .catch(() => undefined)
      .then(() => Promise.allSettled([remote.close(), local.close()]))
      .then(() => finish());
  };
  local.onmessage = (message) => {
    remote.send(message).catch((error: unknown) => {
      process.stderr.write(`livemark MCP proxy: ${error instanceof Error ? error.message : String(error)}\n`);
      // A request that could not be delivered is answered, so the agent does not wait for ever.
      if ("id" in message && "method" in message)
        void local
          .send({
            jsonrpc: "2.0",
            id: message.id,
            error: { code: -32603, message: "The Livemark bridge could not be reached." },
          })
          .catch(() => undefined);
    });
  };
  remote.onmessage = (message) => void local.send(message).catch(() => undefined);
  remote.onerror = (error) => process.stderr.write(`livemark MCP proxy: ${error.message}\n`);
  local.onclose = close;
  remote.onclose = close;
  await remote.start();
  await local.start();
  process.stdin.once("end", close);
  return finished;
}
