/**
 * The MCP servers the person connected (DESIGN.md §4): their connections
 * (held here, with any token, never shown or saved), the tools they offer as
 * `ToolDescriptor`s for the realm and the prompt, and `ConnectedTool`s for
 * the broker. The SDK is imported only when the first server is added.
 *
 * Names: a server is shown by its own `serverInfo.name` (lower-cased, made
 * unique: `films`, `films-2`); a tool by its MCP name, or `server/tool` when
 * two servers offer a tool of that name (then both are qualified). Those
 * names are for reading only: any server can call itself anything, so its
 * grants are keyed by its `address` (the origin and path of its URL,
 * toolPolicy.ts `serverAddress`).
 *
 * This module and the SDK client are loaded on demand (the page imports it
 * when a server is added, the demo's tools script runs, or the tab had
 * servers before a reload); the demo server comes from `demoServer`.
 */
import type { ToolDescriptor } from "../../wire/capabilities";
import { MAX_TOOLS } from "../../wire/capabilities";
import type { JsonValue } from "../../wire/mount";
import type { ConnectedTool } from "./createToolBroker";
import { isAppOnly } from "./mcpApps/toolUi";
import {
  connectInMemory,
  connectMcpServer,
  type McpConnection,
  type McpResourceContent,
  type McpToolInfo,
} from "./mcpClient";
import { createBrowserOAuthProvider, takePendingSignIn } from "./mcpOAuth";
import { REMEMBERED_SERVERS_KEY } from "./rememberedServers";
import { serverAddress } from "./toolPolicy";

/** A server as the UI shows it: no token, no connection. */
export interface McpServerEntry {
  id: string;
  /** The URL as added; `builtin:demo` for the demo server. */
  url: string;
  /** Who it is for its grants: `serverAddress(url)` (origin and path). */
  address: string;
  /** What it calls itself, made unique in this page: for reading, never for grants. */
  name: string;
  transport: McpConnection["transport"];
  tools: readonly McpToolInfo[];
  /** Whether a bearer token was given (the token itself stays in the connection). */
  hasToken: boolean;
}

/** A connected server as its MCP App views reach it: every tool (app-only ones too) and its resources. */
export interface McpAppServer {
  readonly entry: McpServerEntry;
  /** Its tools by MCP name, `descriptor.name` being that name. */
  tool(name: string): ConnectedTool | undefined;
  readResource(uri: string, signal: AbortSignal): Promise<{ contents: McpResourceContent[] }>;
}

export interface McpServers {
  /** Connect and list the server's tools; rejects with an McpConnectError in plain words. */
  add(options: { url: string; token?: string }): Promise<McpServerEntry>;
  /**
   * The page was opened by an MCP server's OAuth redirect (`?code=…&state=…`):
   * finish the sign-in and connect. Undefined when the address is not such a
   * return (no sign-in pending, or a state that does not match).
   */
  resumeSignIn(search: string): Promise<McpServerEntry | undefined>;
  /**
   * Reconnect the servers this tab had before a reload (or a sign-in's
   * round trip). Resolves with the failures, in plain words; never sends the
   * person to a sign-in page.
   */
  restore(): Promise<string[]>;
  /** The built-in demo server, in this page (idempotent). */
  addDemo(): Promise<McpServerEntry>;
  remove(id: string): Promise<void>;
  list(): readonly McpServerEntry[];
  descriptors(): ToolDescriptor[];
  connected(): ConnectedTool[];
  /** The connected server at this address (its MCP App views' way to it), if any. */
  appServer(address: string): McpAppServer | undefined;
  subscribe(listener: () => void): () => void;
}

const MAX_DESCRIPTION = 1_000;
const MAX_SCHEMA_CHARS = 20_000;

export function serverNameOf(name: string, url: string, taken: readonly string[]): string {
  let base = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  if (!base) {
    try {
      base = new URL(url).hostname.replace(/[^a-z0-9_-]+/g, "-").slice(0, 40) || "server";
    } catch {
      base = "server";
    }
  }
  let candidate = base;
  for (let index = 2; taken.includes(candidate); index += 1) candidate = `${base}-${index}`;
  return candidate;
}

function descriptorOf(server: string, tool: McpToolInfo, name: string): ToolDescriptor {
  const schemaText = JSON.stringify(tool.inputSchema ?? {});
  return {
    name,
    server,
    tool: tool.name,
    description: tool.description.slice(0, MAX_DESCRIPTION),
    // A huge schema would not fit the wire or the prompt: the server checks such arguments itself.
    inputSchema: schemaText.length > MAX_SCHEMA_CHARS ? ({ type: "object" } as JsonValue) : tool.inputSchema,
    readOnly: tool.readOnly,
  };
}

/**
 * The realm's view of every server's tools: plain names where unique, `server/tool` where shared. A tool only
 * its MCP App view may call (visibility `["app"]`) is not among them: neither the code nor the prompt sees it.
 */
export function describeTools(servers: readonly { name: string; tools: readonly McpToolInfo[] }[]): ToolDescriptor[] {
  const visible = servers.map((server) => ({ ...server, tools: server.tools.filter((tool) => !isAppOnly(tool.ui)) }));
  const counts = new Map<string, number>();
  for (const server of visible)
    for (const tool of server.tools) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
  const descriptors: ToolDescriptor[] = [];
  for (const server of visible) {
    for (const tool of server.tools) {
      const name = (counts.get(tool.name) ?? 0) > 1 ? `${server.name}/${tool.name}` : tool.name;
      descriptors.push(descriptorOf(server.name, tool, name));
    }
  }
  return descriptors.slice(0, MAX_TOOLS);
}

export interface McpServersOptions {
  newId?: () => string;
  /** Where an OAuth sign-in comes back to (default: this page's address); none: no OAuth. */
  redirectUrl?: string | null;
  /** Leave the page for a server's sign-in (default: `location.assign`). */
  navigate?: (url: URL) => void;
  storage?: Pick<Storage, "getItem" | "setItem" | "removeItem">;
  /**
   * Where this tab remembers its servers (URL and token) across reloads
   * (default: `sessionStorage`, the app's origin, gone with the tab); null: nowhere.
   */
  remember?: Pick<Storage, "getItem" | "setItem"> | null;
  /** The built-in demo server (demoMcpServer.ts), for `addDemo`; the page loads it lazily. */
  demoServer?: () => McpInMemoryServer | Promise<McpInMemoryServer>;
}

/** What an in-memory server must offer (the SDK's McpServer). */
export type McpInMemoryServer = Parameters<typeof connectInMemory>[0];

const REMEMBERED = REMEMBERED_SERVERS_KEY;

interface Remembered {
  url: string;
  token?: string;
}

export function createMcpServers(options: McpServersOptions = {}): McpServers {
  const newId = options.newId ?? (() => crypto.randomUUID());
  const servers: { entry: McpServerEntry; connection: McpConnection }[] = [];
  const listeners = new Set<() => void>();
  let demo: Promise<McpServerEntry> | undefined;
  const memory =
    options.remember === null
      ? undefined
      : (options.remember ?? (typeof sessionStorage === "undefined" ? undefined : sessionStorage));
  /** What to reconnect after a reload, by entry id (not the demo: it comes back with its script). */
  const remembered = new Map<string, Remembered>();
  const save = () => {
    try {
      memory?.setItem(REMEMBERED, JSON.stringify([...remembered.values()]));
    } catch {
      // Storage full or blocked: the servers still work until the tab reloads.
    }
  };

  const notify = () => {
    for (const listener of [...listeners]) listener();
  };

  const register = (
    url: string,
    connection: McpConnection,
    hasToken: boolean,
    remember?: Remembered,
  ): McpServerEntry => {
    const entry: McpServerEntry = {
      id: newId(),
      url,
      address: serverAddress(url),
      name: serverNameOf(
        connection.serverName,
        url,
        servers.map((server) => server.entry.name),
      ),
      transport: connection.transport,
      tools: connection.tools,
      hasToken,
    };
    servers.push({ entry, connection });
    if (remember) {
      remembered.set(entry.id, remember);
      save();
    }
    notify();
    return entry;
  };

  const descriptors = () => describeTools(servers.map((server) => server.entry));

  const redirectUrl =
    options.redirectUrl === null
      ? undefined
      : (options.redirectUrl ??
        (typeof location === "undefined" ? undefined : `${location.origin}${location.pathname}`));
  /** The OAuth side of a server added without a token (used only if the server asks for sign-in). */
  const signIn = async (serverUrl: string, stay = false) => {
    if (redirectUrl === undefined) return undefined;
    const navigate = stay ? () => undefined : options.navigate;
    return createBrowserOAuthProvider({
      serverUrl,
      redirectUrl,
      ...(options.storage ? { storage: options.storage } : {}),
      ...(navigate ? { navigate } : {}),
    });
  };

  return {
    async add({ url, token }) {
      const trimmed = url.trim();
      const bearer = token?.trim();
      const authProvider = bearer ? undefined : await signIn(trimmed);
      const connection = await connectMcpServer({
        url: trimmed,
        ...(bearer ? { token: bearer } : {}),
        ...(authProvider ? { authProvider } : {}),
      });
      return register(trimmed, connection, Boolean(bearer), { url: trimmed, ...(bearer ? { token: bearer } : {}) });
    },
    async restore() {
      let list: Remembered[] = [];
      try {
        const parsed: unknown = JSON.parse(memory?.getItem(REMEMBERED) ?? "[]");
        if (Array.isArray(parsed))
          list = parsed.filter(
            (item): item is Remembered =>
              typeof item?.url === "string" && (item.token === undefined || typeof item.token === "string"),
          );
      } catch {
        list = [];
      }
      // What this page has connected already (it remembered it itself) is not connected again.
      list = list.filter((item) => !servers.some((server) => server.entry.url === item.url));
      if (list.length === 0) return [];
      const failures: string[] = [];
      const results = await Promise.all(
        list.map(async (item) => {
          try {
            const authProvider = item.token ? undefined : await signIn(item.url, true);
            return {
              item,
              connection: await connectMcpServer({
                url: item.url,
                ...(item.token ? { token: item.token } : {}),
                ...(authProvider ? { authProvider } : {}),
              }),
            };
          } catch (error) {
            const code = (error as { code?: unknown }).code;
            failures.push(
              code === "signing-in"
                ? `${item.url} needs you to sign in again: add it again in Session settings.`
                : String((error as Error)?.message ?? error),
            );
            return undefined;
          }
        }),
      );
      // In the order they were added, so names (`films`, `films-2`) come out as before. A server this page
      // connected meanwhile (a sign-in's return finishing first, which remembers it too) is not added twice.
      const restored = new Set<string>();
      for (const result of results) {
        if (!result) continue;
        const here = servers.some((server) => server.entry.url === result.item.url && !restored.has(server.entry.id));
        if (here) {
          void result.connection.close().catch(() => undefined);
          continue;
        }
        restored.add(register(result.item.url, result.connection, Boolean(result.item.token), result.item).id);
      }
      if (failures.length > 0) {
        // Forget what could not come back; the person adds it again.
        save();
      }
      return failures;
    },
    async resumeSignIn(search) {
      if (redirectUrl === undefined || !/[?&](code|error)=/.test(search)) return undefined;
      const taken = takePendingSignIn(search, options.storage);
      if (!taken) return undefined;
      if ("error" in taken) throw new Error(taken.error);
      const authProvider = await signIn(taken.pending.serverUrl);
      const connection = await connectMcpServer({ url: taken.pending.serverUrl, authProvider, signInCode: taken.code });
      return register(taken.pending.serverUrl, connection, false, { url: taken.pending.serverUrl });
    },
    addDemo() {
      demo ??= (async () => {
        const existing = servers.find((server) => server.entry.url === DEMO_SERVER_URL);
        if (existing) return existing.entry;
        if (!options.demoServer) throw new Error("this page has no demo MCP server");
        return register(DEMO_SERVER_URL, await connectInMemory(await options.demoServer()), false);
      })();
      demo.catch(() => (demo = undefined));
      return demo;
    },
    async remove(id) {
      const index = servers.findIndex((server) => server.entry.id === id);
      if (index < 0) return;
      const [removed] = servers.splice(index, 1);
      if (removed.entry.url === DEMO_SERVER_URL) demo = undefined;
      if (remembered.delete(id)) save();
      notify();
      await removed.connection.close().catch(() => undefined);
    },
    list: () => servers.map((server) => server.entry),
    descriptors,
    connected() {
      const all = descriptors();
      return all.map((descriptor) => {
        const server = servers.find((item) => item.entry.name === descriptor.server)!;
        const ui = server.entry.tools.find((tool) => tool.name === descriptor.tool)?.ui;
        return {
          descriptor,
          address: server.entry.address,
          ...(ui ? { ui } : {}),
          call: (args, signal) => server.connection.call(descriptor.tool, args, signal),
        };
      });
    },
    appServer(address) {
      const server = servers.find((item) => item.entry.address === address);
      if (!server) return undefined;
      const { entry, connection } = server;
      return {
        entry,
        tool(name) {
          const info = entry.tools.find((tool) => tool.name === name);
          if (!info) return undefined;
          return {
            descriptor: descriptorOf(entry.name, info, info.name),
            address: entry.address,
            ...(info.ui ? { ui: info.ui } : {}),
            call: (args, signal) => connection.call(info.name, args, signal),
          };
        },
        readResource: (uri, signal) => connection.readResource(uri, signal),
      };
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export const DEMO_SERVER_URL = "builtin:demo";
