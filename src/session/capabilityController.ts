/**
 * The open session's capabilities as the person sees them (DESIGN.md §4):
 * the asks waiting in the timeline, the Session settings (network mode,
 * granted hosts, strict mode) and the audit list, kept in IndexedDB with the
 * session. The rules themselves are enforced by the brokers in src/capabilities;
 * this only asks the person, shows, and saves.
 */
import type { Agent } from "../agent/agent";
import { runningStatement } from "../agent/reply";
import { isRedirect, type NetworkBroker } from "../capabilities/network/createNetworkBroker";
import type { RemoteImagePolicy } from "../render/RemoteImage";
import { rasterImageBlob } from "../render/rasterImage";
import type { FileChooser } from "../render/fileChooser";
import { HostServiceError } from "../sandbox/HostServiceError";
import type { HostService } from "../sandbox/types";
import { bytesToBase64, base64ToBytes } from "../capabilities/base64";
import { MAX_DOWNLOAD_BYTES, MAX_FILE_BYTES, type FileOfferPayload, type FileReadResponse } from "../wire/capabilities";
import type { ChosenFile, JsonValue } from "../wire/mount";
import {
  DEFAULT_NETWORK_POLICY,
  covers,
  type NetworkMode,
  type NetworkPolicyState,
} from "../capabilities/network/networkPolicy";
import { addAuditEntry, addGrant, forgetToolServer, listAudit, listGrants, removeGrant } from "../store/capabilities";
import { updateCapabilitySettings, updateSessionSettings } from "../store/sessions";
import type { Store } from "../store/store";
import type { AuditEntry, CapabilityDecision, Session } from "../store/types";
import type { ToolBroker } from "../capabilities/tools/createToolBroker";
import type { McpServerEntry, McpServers } from "../capabilities/tools/createMcpServers";
import { hasRememberedServers } from "../capabilities/tools/rememberedServers";
import {
  DEFAULT_TOOL_POLICY,
  isServerAddress,
  parseToolKey,
  type ToolPolicyState,
} from "../capabilities/tools/toolPolicy";
import type { ToolDescriptor } from "../wire/capabilities";
import type {
  AskAnswer,
  AskKind,
  AskRequest,
  AuditInput,
  InstalledCapability,
  OpenSession,
  PersonSide,
} from "../capabilities/Capability";
import type { JsonValue as SavedValue } from "../wire/mount";

export type { AskAnswer, AuditInput };

/**
 * An ask shown in the timeline, where the call was made, of any kind (a
 * network request, a tool call): the request as its broker raised it, read
 * through its kind (`AskKind`, registered by its capability).
 */
export type PendingAsk = AskRequest & {
  /** The reply whose code made the call, and the code block that was running. */
  replyId?: string;
  afterBlock: number;
};

/**
 * The timeline's record of an ask, where the call was made: the ask itself
 * is answered in the fixed area above the composer (generated UI cannot
 * move it there), the record says what became of it.
 */
export interface AskRecord {
  ask: PendingAsk;
  /** Unset while it waits; "withdrawn" when the call ended unanswered (Stop, the code gave up, another session). */
  outcome?: AskAnswer | "withdrawn";
}

/** The records kept for the timeline (the audit list keeps everything). */
const MAX_ASK_RECORDS = 500;

/**
 * Asks drawn at once; a call that would be one more is refused without
 * asking (`too-many-asks`). Calls of a host (or tool) already asked about
 * wait behind that ask instead (createCapabilityCore.ts) and count not.
 */
export const MAX_PENDING_ASKS = 20;

/** The MCP servers as Session settings shows them. */
export interface ToolServersState {
  servers: readonly McpServerEntry[];
  /** A server being connected (the URL), while Add server works. */
  connecting?: string;
  /** Why the last Add server failed, in plain words. */
  error?: string;
}

/** A file offered by `download(...)`, waiting for the person's Save. */
export interface PendingDownload {
  id: string;
  name: string;
  mimeType: string;
  size: number;
  replyId?: string;
  afterBlock: number;
  saved: boolean;
  data: Uint8Array;
}

export interface CapabilityState {
  sessionId?: string;
  policy: NetworkPolicyState;
  tools: ToolPolicyState;
  toolServers: ToolServersState;
  /** The asks waiting for the person, oldest first (drawn above the composer). */
  asks: PendingAsk[];
  /** What the timeline shows of each ask, oldest first. */
  askRecords: AskRecord[];
  downloads: PendingDownload[];
  audit: AuditEntry[];
}

const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

export class CapabilityController implements PersonSide {
  private state: CapabilityState = {
    policy: DEFAULT_NETWORK_POLICY,
    tools: DEFAULT_TOOL_POLICY,
    toolServers: { servers: [] },
    asks: [],
    askRecords: [],
    downloads: [],
    audit: [],
  };
  private readonly listeners = new Set<() => void>();
  private readonly answers = new Map<string, (answer: AskAnswer) => void>();
  /** The kinds of ask the capabilities registered (`asker`), by their tag. */
  private readonly kinds = new Map<string, AskKind>();
  private store: Store | undefined;
  private broker: NetworkBroker | undefined;
  private toolBroker: ToolBroker | undefined;
  private loadServers: (() => Promise<McpServers>) | undefined;
  private serversLoaded: Promise<McpServers> | undefined;
  /** The connected tools' list, kept for the system prompt (read synchronously at each model call). */
  private descriptors: ToolDescriptor[] = [];
  private publishTools: ((tools: ToolDescriptor[]) => void) | undefined;
  /** Files the person chose in mounted file inputs, by handle (this session only). */
  private readonly chosenFiles = new Map<string, File>();
  /** Downloads arriving in parts, by the realm's offer id. */
  private readonly offersInProgress = new Map<
    string,
    { name: string; mimeType: string; size: number; parts: Uint8Array[] }
  >();
  /** Outside content that entered the realm since the last feedback message (for the untrusted label). */
  private untrusted: string[] = [];
  /** Which session a given open() belongs to: a late load of a previous session is dropped. */
  private generation = 0;
  /** The installed capabilities that follow the open session (`open`, `setStrict`), in the list's order. */
  private readonly installed: [name: string, capability: InstalledCapability][] = [];

  constructor(private readonly options: { agent: () => Agent | undefined; now?: () => number }) {}

  getState = (): CapabilityState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private set(patch: Partial<CapabilityState>): void {
    if (patch.asks && patch.asks.length !== this.state.asks.length)
      this.options.agent()?.setWaitingForPermission(patch.asks.length > 0);
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }

  /** A capability installed on the page (createApp): it hears of each session that opens and of strict mode. */
  install(name: string, capability: InstalledCapability): void {
    this.installed.push([name, capability]);
  }

  /** Each installed capability's view of the open session (`undefined`: none): its saved settings, and how it saves them. */
  private openInstalled(session: Session | undefined, store: Store | undefined): Promise<unknown> {
    return Promise.all(
      this.installed.map(async ([name, capability]) => {
        if (!capability.open) return;
        const view: OpenSession | undefined =
          session && store
            ? {
                session,
                store,
                saved: session.settings.capabilities?.[name],
                save: (value: SavedValue) =>
                  updateCapabilitySettings(store, session.id, name, value).then(() => undefined),
              }
            : undefined;
        // One capability's failure to load leaves the others (and the session) working.
        await Promise.resolve(capability.open(view)).catch(() => undefined);
      }),
    );
  }

  /** The broker this controller configures (one per page, like the realm). */
  attach(broker: NetworkBroker): void {
    this.broker = broker;
    broker.subscribe((policy) => this.set({ policy }));
  }

  /**
   * The tool broker and the MCP servers (one per page, loaded on first use:
   * `loadServers`). `publish` gets the realm's list of tools whenever a
   * server is added or removed.
   */
  attachTools(
    broker: ToolBroker,
    loadServers: () => Promise<McpServers>,
    publish: (tools: ToolDescriptor[]) => void,
  ): void {
    this.toolBroker = broker;
    this.loadServers = loadServers;
    this.publishTools = publish;
    broker.subscribe((tools) => this.set({ tools }));
  }

  private servers(): Promise<McpServers> | undefined {
    const load = this.loadServers;
    const broker = this.toolBroker;
    if (!load || !broker) return undefined;
    this.serversLoaded ??= load().then((servers) => {
      servers.subscribe(() => {
        broker.setTools(servers.connected());
        this.descriptors = servers.descriptors();
        this.publishTools?.(this.descriptors);
        this.set({ toolServers: { ...this.state.toolServers, servers: servers.list() } });
      });
      return servers;
    });
    this.serversLoaded.catch(() => (this.serversLoaded = undefined));
    return this.serversLoaded;
  }

  /** The connected tools (for the system prompt). */
  toolDescriptors(): ToolDescriptor[] {
    return this.descriptors;
  }

  /** Add server: connect from this page; a failure is shown in plain words and changes nothing. */
  async addServer(url: string, token?: string): Promise<boolean> {
    if (!this.loadServers) return false;
    if (!url.trim()) {
      this.set({
        toolServers: {
          ...this.state.toolServers,
          error: "Enter the MCP server URL first (for example https://example.com/mcp).",
        },
      });
      return false;
    }
    this.set({ toolServers: { ...this.state.toolServers, connecting: url.trim(), error: undefined } });
    try {
      const servers = await this.servers()!;
      await servers.add({ url, token });
      this.set({ toolServers: { servers: servers.list() } });
      return true;
    } catch (error) {
      // Leaving for the server's sign-in page: not a failure; the page comes back to resumeSignIn.
      if ((error as { code?: unknown }).code === "signing-in") return false;
      const message = error instanceof Error ? error.message : String(error);
      this.set({ toolServers: { servers: this.state.toolServers.servers, error: message } });
      return false;
    }
  }

  /** After a reload: reconnect the servers this tab had (nothing happens, and nothing loads, when it had none). */
  async restoreServers(): Promise<void> {
    if (!hasRememberedServers()) return;
    try {
      const servers = await this.servers()!;
      const failures = await servers.restore();
      this.set({
        toolServers: { servers: servers.list(), ...(failures.length > 0 ? { error: failures.join(" ") } : {}) },
      });
    } catch (error) {
      this.set({ toolServers: { ...this.state.toolServers, error: String((error as Error)?.message ?? error) } });
    }
  }

  /** The page came back from an MCP server's OAuth sign-in (`search`: the address's query). */
  async resumeSignIn(search: string): Promise<void> {
    if (!this.loadServers) return;
    this.set({
      toolServers: { ...this.state.toolServers, connecting: "the server you signed in to", error: undefined },
    });
    try {
      const servers = await this.servers()!;
      await servers.resumeSignIn(search);
      this.set({ toolServers: { servers: servers.list() } });
    } catch (error) {
      this.set({
        toolServers: {
          servers: this.state.toolServers.servers,
          error: error instanceof Error ? error.message : String(error),
        },
      });
    }
  }

  /** The built-in demo server (the demo model's tools script). */
  async addDemoServer(): Promise<void> {
    await (await this.servers())?.addDemo();
  }

  /**
   * Remove: the server and everything granted for it go together — its tools' "Always allow"
   * and its read-only switch, in this session and in every saved one (a server added later
   * at that address asks again). Kept while another connected server has the same address.
   */
  async removeServer(id: string): Promise<void> {
    const servers = await this.servers();
    if (!servers) return;
    const removed = servers.list().find((server) => server.id === id);
    await servers.remove(id);
    if (!removed || servers.list().some((server) => server.address === removed.address)) return;
    this.toolBroker?.forgetServer(removed.address);
    if (this.store) await forgetToolServer(this.store, removed.address).catch(() => undefined);
  }

  /** A server's switch (by its address): its read-only-annotated tools run without asking. Saved with the session. */
  setReadOnlyToolsAllowed(address: string, allowed: boolean): void {
    this.toolBroker?.setReadOnlyAllowed(address, allowed);
  }

  /** Revoke "Always allow this tool": at once in the broker, then in storage. */
  async revokeTool(key: string): Promise<void> {
    this.toolBroker?.revokeTool(key);
    const { store, state } = this;
    if (!store || !state.sessionId) return;
    const grants = await listGrants(store, state.sessionId).catch(() => []);
    for (const grant of grants)
      if (grant.capability === "tool" && grant.host === key && grant.id !== undefined)
        await removeGrant(store, grant.id).catch(() => undefined);
  }

  /** Another session is open: its rules, grants and audit replace the previous one's. */
  async open(session: Session | undefined, store: Store | undefined): Promise<void> {
    const generation = ++this.generation;
    this.store = store;
    for (const resolve of this.answers.values()) resolve("deny");
    this.answers.clear();
    this.chosenFiles.clear();
    this.untrusted = [];
    this.offersInProgress.clear();
    // The session's own settings apply at once, with none of its saved grants yet (they load below): code that
    // runs meanwhile is asked about what the grants would allow, never let through by the previous session's.
    // What it asks and what it records while they load belongs to this session and stays.
    const settings = session?.settings;
    const policyWith = (granted: readonly string[]): NetworkPolicyState => ({
      mode: settings?.network ?? DEFAULT_NETWORK_POLICY.mode,
      hosts: [...new Set([...(settings?.allowedHosts ?? []), ...granted])],
      strict: settings?.strict === true,
      grants: [],
    });
    // Tools are granted by server address (toolPolicy.ts); what older versions saved under a server's
    // self-declared name could belong to any server that calls itself that, so it allows nothing.
    const toolsWith = (allowed: readonly string[]): ToolPolicyState => ({
      allowed: [...new Set(allowed.filter((key) => parseToolKey(key) !== undefined))],
      readOnlyServers: (settings?.readOnlyToolServers ?? []).filter(isServerAddress),
      strict: settings?.strict === true,
      grants: [],
    });
    this.broker?.load(policyWith([]));
    this.toolBroker?.load(toolsWith([]));
    const installedOpened = this.openInstalled(session, store);
    this.set({
      sessionId: session?.id,
      policy: policyWith([]),
      tools: toolsWith([]),
      asks: [],
      askRecords: [],
      downloads: [],
      audit: [],
    });
    if (!session || !store) return void (await installedOpened);
    const [grants, saved] = await Promise.all([
      listGrants(store, session.id).catch(() => []),
      listAudit(store, session.id).catch(() => []),
      installedOpened,
    ]);
    if (generation !== this.generation) return;
    const policy = policyWith(grants.filter((grant) => grant.capability === "network").map((grant) => grant.host));
    this.broker?.load(policy, { keepCalls: true });
    const tools = toolsWith(grants.filter((grant) => grant.capability === "tool").map((grant) => grant.host));
    this.toolBroker?.load(tools, { keepCalls: true });
    for (const grant of grants) {
      if (grant.capability === "tool" && parseToolKey(grant.host) === undefined && grant.id !== undefined)
        void removeGrant(store, grant.id).catch(() => undefined);
    }
    // Lines recorded while the list loaded may be in it already (their write went first).
    const key = (entry: AuditEntry) => `${entry.at} ${entry.capability} ${entry.method} ${entry.url} ${entry.decision}`;
    const known = new Set(saved.map(key));
    this.set({ policy, tools, audit: [...saved, ...this.state.audit.filter((entry) => !known.has(key(entry)))] });
  }

  /** Where in the timeline something the running code asked for belongs. */
  private position(): { replyId?: string; afterBlock: number } {
    const messages = this.options.agent()?.getState().messages ?? [];
    for (let index = messages.length - 1; index >= 0; index -= 1) {
      const message = messages[index];
      if (message.role !== "assistant") continue;
      const running = runningStatement(message.reply);
      const lastCode = [...message.reply.blocks].reverse().find((block) => block.kind === "code");
      return { replyId: message.id, afterBlock: running?.block ?? lastCode?.index ?? -1 };
    }
    return { afterBlock: -1 };
  }

  /** A capability's kind of ask (once per page): its broker asks the person through what this returns. */
  asker<Ask extends AskRequest, Always extends string>(
    kind: AskKind<Ask, Always>,
  ): (request: Ask, signal: AbortSignal) => Promise<AskAnswer<Always>> {
    this.kinds.set(kind.capability, kind as unknown as AskKind);
    return (request, signal) => this.ask(request, signal) as Promise<AskAnswer<Always>>;
  }

  /**
   * Asks the person, in the one queue of every kind: the ask waits above the
   * composer until answered, withdrawn when `signal` aborts; one more than
   * `MAX_PENDING_ASKS` is refused without asking. Its kind must be registered.
   */
  ask = (request: AskRequest, signal: AbortSignal): Promise<AskAnswer> =>
    new Promise<AskAnswer>((resolve, reject) => {
      const kind = this.kinds.get(request.capability);
      if (!kind) throw new Error(`no kind of ask "${request.capability}" is registered`);
      const remove = (outcome: AskRecord["outcome"]) => {
        this.answers.delete(request.id);
        this.set({
          asks: this.state.asks.filter((ask) => ask.id !== request.id),
          askRecords: this.state.askRecords.map((record) =>
            record.ask.id === request.id ? { ...record, outcome } : record,
          ),
        });
      };
      const onAbort = () => {
        remove("withdrawn");
        reject(signal.reason);
      };
      if (signal.aborted) return reject(signal.reason);
      if (this.state.asks.length >= MAX_PENDING_ASKS) {
        const action = kind.refused(request);
        return reject(
          new HostServiceError(
            "too-many-asks",
            `${MAX_PENDING_ASKS} permission requests are already waiting for the person; ${action} was refused without asking. ` +
              "Make fewer calls at once (await them one by one) instead of retrying.",
          ),
        );
      }
      signal.addEventListener("abort", onAbort, { once: true });
      this.answers.set(request.id, (answer) => {
        signal.removeEventListener("abort", onAbort);
        remove(answer);
        resolve(answer);
      });
      const ask: PendingAsk = { ...request, ...this.position() };
      this.set({
        asks: [...this.state.asks, ask],
        askRecords: [...this.state.askRecords, { ask }].slice(-MAX_ASK_RECORDS),
      });
    });

  /** The person clicked Allow once, Always allow this host (or this tool), or Deny. */
  answer(askId: string, answer: AskAnswer): void {
    const ask = this.state.asks.find((item) => item.id === askId);
    const kind = ask && this.kinds.get(ask.capability);
    // Each ask has its own "always" button (a host for a request, the tool for a tool call): another kind's is refused.
    if (ask && answer !== "once" && answer !== "deny" && answer !== kind?.always) return;
    this.answers.get(askId)?.(answer);
    // The broker applied "always" already; the session keeps it as a grant.
    if (ask && kind && answer === kind.always) void this.persistGrant(kind.capability, kind.grant(ask));
  }

  /** Deny all (shown while more than one ask waits), and Stop: every ask on screen is denied, with the calls waiting behind them. */
  denyAll(): void {
    for (const ask of this.state.asks) this.answers.get(ask.id)?.("deny");
  }

  private async persistGrant(capability: string, key: string): Promise<void> {
    const { store, state } = this;
    if (!store || !state.sessionId) return;
    await addGrant(store, { sessionId: state.sessionId, capability, host: key, grantedAt: this.now() }).catch(
      () => undefined,
    );
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /**
   * What outside content reached the code since the last call (a network
   * response, a chosen file), for the feedback's untrusted label; then forget it.
   */
  takeUntrusted = (): string | undefined => {
    if (this.untrusted.length === 0) return undefined;
    const sources = [...new Set(this.untrusted)];
    this.untrusted = [];
    return sources.slice(0, 5).join("; ") + (sources.length > 5 ? `; and ${sources.length - 5} more` : "");
  };

  /** Outside content reached the code (a capability's response, a tool's result): the next feedback says so. */
  noteUntrusted = (source: string): void => {
    this.untrusted.push(source);
  };

  /** One line of the audit list, kept with the open session. */
  record = (entry: AuditInput): void => {
    const sessionId = this.state.sessionId;
    const full: AuditEntry = { ...entry, sessionId: sessionId ?? "" };
    this.set({ audit: [...this.state.audit, full] });
    if (this.store && sessionId) void addAuditEntry(this.store, { ...entry, sessionId }).catch(() => undefined);
  };

  /** Saved by `policyChanged`, which the broker calls on every change. */
  setMode(mode: NetworkMode): void {
    this.broker?.setMode(mode);
  }

  /** Strict mode is the session's: it asks for every network request and every tool call. */
  setStrict(strict: boolean): void {
    this.broker?.setStrict(strict);
    this.toolBroker?.setStrict(strict);
    for (const [, capability] of this.installed) capability.setStrict?.(strict);
  }

  /** Revoke a host: at once in the broker (a call in flight on it is aborted), then in storage. */
  async revoke(host: string): Promise<void> {
    this.broker?.revokeHost(host);
    const { store, state } = this;
    if (!store || !state.sessionId) return;
    const grants = await listGrants(store, state.sessionId).catch(() => []);
    for (const grant of grants)
      if (grant.host === host && grant.id !== undefined) await removeGrant(store, grant.id).catch(() => undefined);
  }

  /** The broker's policy changed (NetworkBrokerOptions.onChange): save the session's rules. */
  async policyChanged(): Promise<void> {
    const { store, state } = this;
    if (!store || !state.sessionId) return;
    const policy = this.broker?.state() ?? state.policy;
    await updateSessionSettings(store, state.sessionId, {
      network: policy.mode,
      // Also kept as grant records ("Always allow this host"), which the export lists.
      allowedHosts: [...policy.hosts],
      strict: policy.strict,
      readOnlyToolServers: [...(this.toolBroker?.state() ?? state.tools).readOnlyServers],
    }).catch(() => undefined);
  }

  /**
   * Remote images (src/render/RemoteImage.tsx): shown without asking only when
   * the network capability covers their host; a click on Load is the consent
   * for one image. Fetched like the broker does: no credentials, no referrer,
   * a size limit; every load is audited.
   */
  readonly imagePolicy: RemoteImagePolicy = {
    covers: (url) => covers(this.state.policy, url),
    subscribe: (listener) => this.subscribe(listener),
    load: async (url, signal) => {
      const covered = covers(this.state.policy, url);
      const decision: CapabilityDecision = covered
        ? this.state.policy.mode === "allowed"
          ? "allowed-session"
          : "allowed-host"
        : "allowed-once";
      const base = { at: this.now(), capability: "network" as const, method: "GET", url, decision, kind: "image" };
      let response: Response;
      try {
        // Never "follow" (the consent covers this URL only): see createNetworkBroker.ts.
        response = await fetch(url, {
          credentials: "omit",
          referrerPolicy: "no-referrer",
          mode: "cors",
          cache: "no-store",
          redirect: "manual",
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        this.record({ ...base, result: "cors" });
        throw new Error("the server does not allow browser requests (no CORS headers) or could not be reached", {
          cause: error,
        });
      }
      if (isRedirect(response)) {
        this.record({ ...base, status: response.status || undefined, result: "redirected" });
        throw new Error(
          "the server redirected to another address (redirects are not followed; use the image's final URL)",
        );
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes.length > MAX_IMAGE_BYTES) {
        this.record({ ...base, status: response.status, bytes: bytes.length, result: "too-large" });
        throw new Error(`it is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB`);
      }
      if (!response.ok) {
        this.record({ ...base, status: response.status, bytes: bytes.length, result: "http-error" });
        throw new Error(`the server answered ${response.status}`);
      }
      // The type comes from the bytes, never from the server (src/render/rasterImage.ts).
      const image = rasterImageBlob(bytes);
      this.record({ ...base, status: response.status, bytes: bytes.length, result: image.ok ? "ok" : "not-an-image" });
      if (!image.ok) throw new Error(image.reason);
      return image.blob;
    },
  };

  /** A mounted file input (src/render/fileChooser.ts): the person's choice is the consent. */
  readonly fileChooser: FileChooser = {
    register: (file) => {
      const handle = crypto.randomUUID();
      this.chosenFiles.set(handle, file);
      this.record({
        at: this.now(),
        capability: "file",
        method: "CHOOSE",
        url: file.name,
        decision: "chosen",
        bytes: file.size,
        result: "ok",
      });
      const chosen: ChosenFile = {
        handle,
        name: file.name,
        size: file.size,
        type: file.type,
        lastModified: file.lastModified,
      };
      return chosen;
    },
  };

  /** FILE_READ: the bytes of a chosen file, by its handle, within the size limit. */
  readonly fileReadService: HostService = async (payload) => {
    const handle = (payload as { handle?: unknown } | null)?.handle;
    const file = typeof handle === "string" ? this.chosenFiles.get(handle) : undefined;
    if (!file)
      throw new HostServiceError(
        "not-found",
        "no such chosen file (files are handed over only when the person picks them, and only in this session)",
      );
    if (file.size > MAX_FILE_BYTES) {
      throw new HostServiceError(
        "too-large",
        `the file “${file.name}” is ${(file.size / 1024 / 1024).toFixed(1)} MB; files up to ${MAX_FILE_BYTES / 1024 / 1024} MB can be handed to code`,
      );
    }
    const answer: FileReadResponse = { body: bytesToBase64(new Uint8Array(await file.arrayBuffer())) };
    this.untrusted.push(`a file the person chose: ${file.name}`);
    return answer as unknown as JsonValue;
  };

  /** FILE_OFFER: `download(...)` in the realm, in parts; the last part shows the Save button. */
  readonly fileOfferService: HostService = (payload): JsonValue => {
    const input = payload as Partial<Record<keyof FileOfferPayload, unknown>> | null;
    const { offer, part, parts, name, mimeType, size, body } = input ?? {};
    if (
      typeof offer !== "string" ||
      typeof part !== "number" ||
      typeof parts !== "number" ||
      typeof name !== "string" ||
      typeof mimeType !== "string" ||
      typeof size !== "number" ||
      typeof body !== "string" ||
      !Number.isInteger(part) ||
      part < 0 ||
      part >= parts
    ) {
      throw new HostServiceError("invalid", "download: malformed offer");
    }
    if (size > MAX_DOWNLOAD_BYTES)
      throw new HostServiceError(
        "too-large",
        `download: files up to ${MAX_DOWNLOAD_BYTES / 1024 / 1024} MB can be offered`,
      );
    const progress =
      part === 0 ? { name, mimeType, size, parts: [] as Uint8Array[] } : this.offersInProgress.get(offer);
    if (!progress || progress.parts.length !== part)
      throw new HostServiceError("invalid", "download: parts out of order");
    let bytes: Uint8Array;
    try {
      bytes = base64ToBytes(body);
    } catch {
      throw new HostServiceError("invalid", "download: a part is not base64");
    }
    progress.parts.push(bytes);
    this.offersInProgress.set(offer, progress);
    const received = progress.parts.reduce((total, item) => total + item.length, 0);
    if (received > progress.size) throw new HostServiceError("invalid", "download: more bytes than announced");
    if (part < parts - 1) return { received };
    this.offersInProgress.delete(offer);
    const data = new Uint8Array(received);
    let offset = 0;
    for (const item of progress.parts) {
      data.set(item, offset);
      offset += item.length;
    }
    this.offerDownload({ name: progress.name, mimeType: progress.mimeType, data });
    return { offered: true, size: received };
  };

  /** `download(...)` in the realm: shown in the timeline with a Save button. */
  offerDownload(file: { name: string; mimeType: string; data: Uint8Array }): PendingDownload {
    const offer: PendingDownload = {
      id: crypto.randomUUID(),
      name: file.name,
      mimeType: file.mimeType,
      size: file.data.length,
      saved: false,
      data: file.data,
      ...this.position(),
    };
    this.set({ downloads: [...this.state.downloads, offer] });
    this.record({
      at: this.now(),
      capability: "file",
      method: "DOWNLOAD",
      url: file.name,
      decision: "offered",
      bytes: file.data.length,
      result: "ok",
    });
    return offer;
  }

  /** The person clicked Save: only now does a file leave the page. */
  saveDownload(id: string, save: (name: string, data: Uint8Array, mimeType: string) => void): void {
    const offer = this.state.downloads.find((item) => item.id === id);
    if (!offer) return;
    save(offer.name, offer.data, offer.mimeType);
    this.set({ downloads: this.state.downloads.map((item) => (item.id === id ? { ...item, saved: true } : item)) });
    this.record({
      at: this.now(),
      capability: "file",
      method: "DOWNLOAD",
      url: offer.name,
      decision: "saved",
      bytes: offer.size,
      result: "ok",
    });
  }
}
