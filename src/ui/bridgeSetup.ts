import { DEFAULT_BRIDGE_PORT } from "../wire/bridge";

/**
 * What Invite agent offers to start the bridge without a clone of Livemark:
 * the bundled file beside index.html (`livemark-bridge.mjs`, built by
 * scripts/buildBridge.mjs), the command to run it, and MCP client
 * configurations to paste. Pure, except `downloadBridge`.
 */

export const BRIDGE_FILE = "livemark-bridge.mjs";
/** Where the built file leaves room for the origin of the page that hands it out (bridge/main.ts). */
export const PAGE_ORIGIN_MARK = "%%LIVEMARK_PAGE_ORIGIN%%";
export const BRIDGE_COMMAND = `node ${BRIDGE_FILE}`;

/** The port of a bridge address such as ws://127.0.0.1:4737/page. */
export function bridgePort(address: string): number {
  try {
    const port = Number(new URL(address).port);
    return Number.isInteger(port) && port > 0 ? port : DEFAULT_BRIDGE_PORT;
  } catch {
    return DEFAULT_BRIDGE_PORT;
  }
}

/** The command with this page's origin spelled out (for a copy of the file not downloaded from this page). */
export function commandWithOrigin(origin: string, port = DEFAULT_BRIDGE_PORT): string {
  return `${BRIDGE_COMMAND}${port === DEFAULT_BRIDGE_PORT ? "" : ` --port ${port}`} --allow-origin ${origin}`;
}

export interface ClientConfig {
  client: string;
  /** Where it goes, in the client's words. */
  where: string;
  transport: "Streamable HTTP" | "stdio";
  text: string;
}

/** Ready configurations for the common MCP clients, with the page's origin and the bridge's port filled in. */
export function clientConfigs(origin: string, port = DEFAULT_BRIDGE_PORT): ClientConfig[] {
  const url = `http://127.0.0.1:${port}/mcp`;
  const path = `/path/to/${BRIDGE_FILE}`;
  const args = [
    path,
    "--stdio",
    ...(port === DEFAULT_BRIDGE_PORT ? [] : ["--port", String(port)]),
    "--allow-origin",
    origin,
  ];
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  return [
    {
      client: "Claude Desktop",
      where: "claude_desktop_config.json (Settings → Developer → Edit Config); replace the path",
      transport: "stdio",
      text: json({ mcpServers: { livemark: { command: "node", args } } }),
    },
    {
      client: "Claude Code",
      where: "a terminal, with the bridge running",
      transport: "Streamable HTTP",
      text: `claude mcp add --transport http livemark ${url}`,
    },
    {
      client: "Codex",
      where: "~/.codex/config.toml; replace the path",
      transport: "stdio",
      text: `[mcp_servers.livemark]\ncommand = "node"\nargs = [${args.map((arg) => JSON.stringify(arg)).join(", ")}]`,
    },
    {
      client: "VS Code",
      where: ".vscode/mcp.json, with the bridge running",
      transport: "Streamable HTTP",
      text: json({ servers: { livemark: { type: "http", url } } }),
    },
    {
      client: "Cursor",
      where: "~/.cursor/mcp.json, with the bridge running",
      transport: "Streamable HTTP",
      text: json({ mcpServers: { livemark: { url } } }),
    },
    {
      client: "Any MCP client",
      where: "Streamable HTTP, with the bridge running",
      transport: "Streamable HTTP",
      text: json({ mcpServers: { livemark: { type: "http", url } } }),
    },
    {
      client: "Any MCP client",
      where: "stdio: the client starts the bridge (do not also run it yourself on the same port); replace the path",
      transport: "stdio",
      text: json({ mcpServers: { livemark: { command: "node", args } } }),
    },
  ];
}

/** The built file with `origin` written in: the copy accepts the page it came from. */
export function withPageOrigin(source: string, origin: string): string {
  return source.split(PAGE_ORIGIN_MARK).join(origin);
}

/** **Download bridge**: the file beside index.html, with this page's origin written in, saved by the browser. */
export async function downloadBridge(save: (name: string, data: Uint8Array) => void): Promise<void> {
  const response = await fetch(new URL(BRIDGE_FILE, document.baseURI), { cache: "no-cache" });
  if (!response.ok) throw new Error(`The bridge file is not on this site (${response.status}).`);
  const source = await response.text();
  // A dev server answers an unknown path with the page itself: only the built bridge is handed out.
  if (!source.startsWith("#!/usr/bin/env node") || !source.includes(PAGE_ORIGIN_MARK))
    throw new Error("The bridge file is not on this site (it is made by npm run build).");
  save(BRIDGE_FILE, new TextEncoder().encode(withPageOrigin(source, location.origin)));
}
