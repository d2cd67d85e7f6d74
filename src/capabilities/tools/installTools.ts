/**
 * The tools capability on the page (`tools.install`): its broker, the MCP
 * servers (loaded on first use: an add, the demo script, a tab that had
 * servers, a sign-in's return), the open session's rules ("Always allow this
 * tool" as grants in the store, the read-only switches in the session's
 * settings) loaded when a session opens and saved on every change, and its
 * sections of Session settings (Settings.tsx, drawn by a lazy chunk).
 */
import { createElement } from "react";
import { toolsPrompt } from "../../llm/toolsPrompt";
import { TOOL_CALL } from "../../wire/capabilities";
import { forgetToolServer, listGrants, removeGrant } from "../../store/capabilities";
import { updateSessionRules } from "../../store/sessions";
import type { CapabilityHost, InstalledCapability, OpenSession } from "../Capability";
import { toolAsk } from "./ask";
import { toolAudit } from "./audit";
import type { McpServerEntry, McpServers } from "./createMcpServers";
import { createToolBroker, type ToolBroker, type ToolBrokerOptions } from "./createToolBroker";
import { hasRememberedServers } from "./rememberedServers";
import { isSignInReturn } from "./signInReturn";
import { ToolsSettings } from "./Settings";
import { DEFAULT_TOOL_POLICY, isServerAddress, parseToolKey, type ToolPolicyState } from "./toolPolicy";
import type { ConnectedTool } from "./createToolBroker";
import { createMcpAppPanels, type McpAppPanels } from "./mcpApps/createMcpAppPanels";
import { McpAppSlot, type McpAppsHost } from "./mcpApps/McpAppSlot";
import type { McpResourceContent } from "./mcpClient";

/** The MCP servers as Session settings shows them. */
export interface ToolServersState {
  servers: readonly McpServerEntry[];
  /** A server being connected (the URL), while Add server works. */
  connecting?: string;
  /** Why the last Add server failed, in plain words. */
  error?: string;
}

/** What Session settings' tools sections read and do. */
export interface ToolsSettingsHandle {
  /** The session's rules and the servers, one object per change (for useSyncExternalStore). */
  view(): { readonly policy: ToolPolicyState; readonly servers: ToolServersState };
  subscribe(listener: () => void): () => void;
  /** Add server: connect from this page; a failure is shown in plain words and changes nothing. */
  addServer(url: string, token?: string): Promise<boolean>;
  /**
   * Remove: the server and everything granted for it go together — its tools' "Always allow"
   * and its read-only switch, in this session and in every saved one (a server added later
   * at that address asks again). Kept while another connected server has the same address.
   */
  removeServer(id: string): Promise<void>;
  /** A server's switch (by its address): its read-only-annotated tools run without asking. Saved with the session. */
  setReadOnlyToolsAllowed(address: string, allowed: boolean): void;
  /** Revoke "Always allow this tool": at once in the broker, then in storage. */
  revokeTool(key: string): Promise<void>;
}

export type InstalledTools = InstalledCapability &
  ToolsSettingsHandle & {
    readonly broker: ToolBroker;
    /** After a reload: reconnect the servers this tab had (nothing happens, and nothing loads, when it had none). */
    restoreServers(): Promise<void>;
    /** The page came back from an MCP server's OAuth sign-in (`search`: the address's query). */
    resumeSignIn(search: string): Promise<void>;
    /** The built-in demo server (the demo model's tools script). */
    addDemoServer(): Promise<void>;
    /** The open session's MCP App panels (mcpApps/). */
    readonly apps: McpAppPanels;
    /**
     * The lines after the system prompt at a model call: the connected tools (src/llm/toolsPrompt.ts), then
     * what MCP App views added to the model's context since the last call, as untrusted content (taken).
     */
    promptAfter(): string;
  };

/** The MCP servers module and the SDK, by dynamic import: none of it is in the initial JavaScript. */
const loadMcpServers = (): Promise<McpServers> =>
  import("./createMcpServers").then(({ createMcpServers }) =>
    createMcpServers({ demoServer: () => import("./demoMcpServer").then((module) => module.createDemoMcpServer()) }),
  );

export function installTools(
  { person, setTools, tools }: Pick<CapabilityHost, "person" | "setTools" | "tools">,
  options: Pick<ToolBrokerOptions, "newId" | "now"> & { loadServers?: () => Promise<McpServers> } = {},
): InstalledTools {
  const { loadServers = loadMcpServers, ...brokerOptions } = options;
  let open: OpenSession | undefined;
  /** Which session a given open() belongs to: a late load of a previous session is dropped. */
  let generation = 0;
  const listeners = new Set<() => void>();
  let view: ReturnType<ToolsSettingsHandle["view"]> = { policy: DEFAULT_TOOL_POLICY, servers: { servers: [] } };
  const setServers = (servers: ToolServersState) => {
    view = { ...view, servers };
    for (const listener of listeners) listener();
  };
  const broker = createToolBroker({
    ...brokerOptions,
    ask: person.asker(toolAsk),
    audit: toolAudit(person),
    // The read-only switches are saved with the open session (the "always" grants by the person's side).
    onChange: (policy) => {
      if (!open) return;
      void updateSessionRules(open.store, open.session.id, {
        readOnlyToolServers: [...policy.readOnlyServers],
      }).catch(() => undefined);
    },
  });
  broker.subscribe((policy) => {
    view = { ...view, policy };
    for (const listener of listeners) listener();
  });

  const apps = createMcpAppPanels({ place: () => person.place?.() ?? { afterBlock: -1 } });
  /**
   * A tool with an MCP App view opens its panel when the code's call goes ahead (the person allowed it):
   * the view gets the input at once and the result (or the cancellation) when it comes; the code gets the
   * result as from any tool.
   */
  const withView = (tool: ConnectedTool): ConnectedTool =>
    tool.ui
      ? {
          ...tool,
          async call(args, signal) {
            const id = apps.open(tool, args);
            // The view is read alongside the call: it is there when the panel's frame is.
            void appsHost.readView({ address: tool.address, resourceUri: tool.ui!.resourceUri }).catch(() => undefined);
            try {
              const result = await tool.call(args, signal);
              apps.settle(id, { result });
              return result;
            } catch (error) {
              apps.settle(id, { cancelled: String((error as Error)?.message ?? error).slice(0, 500) });
              throw error;
            }
          },
        }
      : tool;

  let serversLoaded: Promise<McpServers> | undefined;
  const servers = (): Promise<McpServers> => {
    serversLoaded ??= loadServers().then((loaded) => {
      loaded.subscribe(() => {
        broker.setTools(loaded.connected().map(withView));
        views.clear();
        setTools(loaded.descriptors());
        setServers({ ...view.servers, servers: loaded.list() });
      });
      return loaded;
    });
    serversLoaded.catch(() => (serversLoaded = undefined));
    return serversLoaded;
  };
  const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

  /** Views read in this page, by server address and resource (McpAppsHost.readView); a change of servers forgets them. */
  const views = new Map<string, Promise<McpResourceContent>>();
  const appsHost: McpAppsHost = {
    panels: apps,
    readView({ address, resourceUri }, fresh = false) {
      const key = `${address} ${resourceUri}`;
      const cached = views.get(key);
      if (cached && !fresh) return cached;
      const read = (async () => {
        const server = serversLoaded ? (await servers()).appServer(address) : undefined;
        if (!server) throw new Error(`Connect the MCP server ${address} in Session settings, then press Reopen.`);
        const { contents } = await server.readResource(resourceUri, AbortSignal.timeout(30_000));
        const content = contents.find((item) => item.uri === resourceUri) ?? contents[0];
        if (!content) throw new Error(`${resourceUri} is empty.`);
        return content;
      })();
      views.set(key, read);
      read.catch(() => views.get(key) === read && views.delete(key));
      return read;
    },
    // A saved panel's server may not be connected in this tab: the view then says so (nothing loads for it).
    appServer: async (address) => (serversLoaded ? (await servers()).appServer(address) : undefined),
    callTool: (tool, args, signal) => broker.callFromView(tool, args, signal),
  };

  const installed: InstalledTools = {
    broker,
    apps,
    promptAfter: () => toolsPrompt(tools?.() ?? []) + apps.takeModelContext(),
    Timeline: (props) => createElement(McpAppSlot, { ...props, host: appsHost }),
    services: { [TOOL_CALL]: broker.service },
    view: () => view,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async addServer(url, token) {
      if (!url.trim()) {
        setServers({
          ...view.servers,
          error: "Enter the MCP server URL first (for example https://example.com/mcp).",
        });
        return false;
      }
      setServers({ ...view.servers, connecting: url.trim(), error: undefined });
      try {
        const loaded = await servers();
        await loaded.add({ url, token });
        setServers({ servers: loaded.list() });
        return true;
      } catch (error) {
        // Leaving for the server's sign-in page: not a failure; the page comes back to resumeSignIn.
        if ((error as { code?: unknown }).code === "signing-in") return false;
        setServers({ servers: view.servers.servers, error: message(error) });
        return false;
      }
    },

    async restoreServers() {
      if (!hasRememberedServers()) return;
      try {
        const loaded = await servers();
        const failures = await loaded.restore();
        setServers({ servers: loaded.list(), ...(failures.length > 0 ? { error: failures.join(" ") } : {}) });
      } catch (error) {
        setServers({ ...view.servers, error: message(error) });
      }
    },

    async resumeSignIn(search) {
      setServers({ ...view.servers, connecting: "the server you signed in to", error: undefined });
      try {
        const loaded = await servers();
        await loaded.resumeSignIn(search);
        setServers({ servers: loaded.list() });
      } catch (error) {
        setServers({ servers: view.servers.servers, error: message(error) });
      }
    },

    async addDemoServer() {
      await (await servers()).addDemo();
    },

    async removeServer(id) {
      const loaded = await servers();
      const removed = loaded.list().find((server) => server.id === id);
      await loaded.remove(id);
      if (!removed || loaded.list().some((server) => server.address === removed.address)) return;
      broker.forgetServer(removed.address);
      if (open) await forgetToolServer(open.store, removed.address).catch(() => undefined);
    },

    setReadOnlyToolsAllowed(address, allowed) {
      broker.setReadOnlyAllowed(address, allowed);
    },

    async revokeTool(key) {
      broker.revokeTool(key);
      if (!open) return;
      const { store, session } = open;
      const grants = await listGrants(store, session.id).catch(() => []);
      for (const grant of grants)
        if (grant.capability === "tool" && grant.host === key && grant.id !== undefined)
          await removeGrant(store, grant.id).catch(() => undefined);
    },

    async open(session) {
      const current = ++generation;
      open = session;
      // Tools are granted by server address (toolPolicy.ts); what older versions saved under a server's
      // self-declared name could belong to any server that calls itself that, so it allows nothing.
      const policyWith = (allowed: readonly string[]): ToolPolicyState => ({
        allowed: [...new Set(allowed.filter((key) => parseToolKey(key) !== undefined))],
        readOnlyServers: (session?.session.settings.readOnlyToolServers ?? []).filter(isServerAddress),
        strict: session?.strict === true,
        grants: [],
      });
      // The session's own switches apply at once, its grants once loaded (never the previous session's meanwhile).
      broker.load(policyWith([]));
      // Its MCP App panels, as saved (each waits for Reopen); a change is saved with it.
      apps.load(session?.saved, session ? (value) => void session.save(value).catch(() => undefined) : undefined);
      if (!session) return;
      const { store } = session;
      const grants = await listGrants(store, session.session.id).catch(() => []);
      if (current !== generation) return;
      broker.load(policyWith(grants.filter((grant) => grant.capability === "tool").map((grant) => grant.host)), {
        keepCalls: true,
      });
      for (const grant of grants) {
        if (grant.capability === "tool" && parseToolKey(grant.host) === undefined && grant.id !== undefined)
          void removeGrant(store, grant.id).catch(() => undefined);
      }
    },
    setStrict: (strict) => broker.setStrict(strict),
    Settings: () => createElement(ToolsSettings, { tools: installed }),

    pageOpened(search) {
      // Back from an MCP server's OAuth sign-in: finish it (the page takes the single-use code out of its address).
      if (!isSignInReturn(search)) return false;
      void installed.resumeSignIn(search);
      return true;
    },
    // The MCP servers this tab had before a reload come back (the SDK loads only if there were any), once the
    // session is open: the composer does not wait for them.
    started: () => void installed.restoreServers(),
    prepareDemo: () => installed.addDemoServer(),
  };
  return installed;
}
