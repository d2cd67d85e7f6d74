import type { z } from "zod";
import {
  BRIDGE_WIRE_VERSION,
  CHANNEL_CLOSED,
  RESUME_GRACE_MS,
  DEFAULT_BRIDGE_ADDRESS,
  bridgeMessageSchema,
  parseFrame,
  type BridgeMessage,
  type PageMessage,
  type PageRequest,
  type PageResult,
  type Selection,
} from "../wire/bridge";
import type { Agent, ChatMessage } from "./agent";
import type { ObservedChanges } from "./externalAgentTypes";
import type { AcpClient } from "./acpClient";
import { mountsOf, readSession, runMarkdown } from "./sessionTools";

/**
 * The page's end of an invited agent's channel (DESIGN.md §4b): a WebSocket
 * to the local bridge, validated with the wire's schemas. The person's
 * messages become commands; the agent's tool calls arrive as requests and
 * go to the session's agent — `run` through the same turn as a model's
 * reply (`Agent.runExternal`), `report` into the timeline. Loaded when the
 * person opens Invite agent.
 *
 * States, in the words the dialog shows: "bridge not running" (no socket;
 * retried), "waiting for the agent" (a code is out), "agent joined", and
 * "code expired" / "channel ended".
 */

export type ChannelConnection = "setup" | "connecting" | "not-running" | "waiting" | "joined" | "expired" | "ended";

export const CONNECTION_WORDS: Record<ChannelConnection, string> = {
  setup: "no code yet: choose what the agent may do, then Issue code",
  connecting: "connecting to the bridge…",
  "not-running": "bridge not running",
  waiting: "waiting for the agent",
  joined: "agent joined",
  expired: "code expired",
  ended: "channel ended",
};

/**
 * What the person allows the invited agent in this room, enforced here in
 * the page (the bridge only carries requests, it cannot grant anything).
 */
export interface AgentRights {
  /** **Read the session**: livemark_read_session, and the title and mounts at join. */
  read: boolean;
  /** **Run code**: livemark_run. */
  run: boolean;
  /** **Confirm each run**: each livemark_run waits for the person's **Allow once** or **Reject**. */
  confirm: boolean;
}

export const DEFAULT_RIGHTS: AgentRights = { read: true, run: true, confirm: false };

/** What a switched-off right answers the agent. */
export const NOT_ALLOWED = {
  read: "the person has not allowed this agent to read this session",
  run: "the person has not allowed this agent to run code in this session",
} as const;
/** What Reject answers the agent. */
export const RUN_REJECTED = "the person rejected this run: nothing of it ran";

/** A livemark_run held for the person's **Allow once** or **Reject** (Confirm each run). */
export interface PendingRun {
  id: string;
  agent: string;
  commandId: string;
  /** The person's message the run answers (when this tab sent it). */
  commandText?: string;
  markdown: string;
  /** SHA-256 of the Markdown, hex: the approval is bound to it. */
  sha256: string;
}

/** What this tab keeps in sessionStorage so a reload resumes the channel (RESUME_GRACE_MS). */
export interface StoredChannel {
  address: string;
  channelId: string;
  code: string;
  rights: AgentRights;
  sendToAgent: boolean;
  everJoined: boolean;
  /** The commands this tab sent, with their session: a report goes to the session its command came from. */
  commands: [string, SentCommand][];
  session?: { id: string; title: string };
  savedAt: number;
}

export interface SentCommand {
  sessionId: string;
  text: string;
}

export const STORED_CHANNEL_KEY = "livemark.agentChannel";
const MAX_KEPT_COMMANDS = 200;

/** An audit line (src/capabilities: AuditInput), with the agent's name. */
export interface ChannelAudit {
  at: number;
  capability: "agent";
  method: string;
  url: string;
  decision: string;
  agent: string;
  reason?: string;
}

export interface AgentChannelState {
  address: string;
  rights: AgentRights;
  /** Runs waiting for the person (Confirm each run). */
  pendingRuns: readonly PendingRun[];
  connection: ChannelConnection;
  code?: string;
  expiresAt?: number;
  agents: number;
  /** The composer sends to the agent (the person may switch back to the model). */
  sendToAgent: boolean;
  /**
   * An agent has joined this channel: from then on the person's messages go
   * to it while the channel is open, and wait in the mailbox if it is away
   * for a moment (it resumes with its cursor).
   */
  everJoined: boolean;
  /**
   * Agents waiting for the person's **Admit** or **Refuse**: a channel code
   * admits one agent (the bridge then shows the next code); every further
   * agent is admitted here, by the person, never by the code alone.
   */
  admissions: readonly Admission[];
  /** The person's ACP agent, once connected from Invite agent (acpClient.ts): the header and the composer follow it. */
  acp?: AcpClient;
}

/**
 * What the session view needs of an agent link (the composer's target, the
 * runs and questions answered inline): an invited agent's channel, or the
 * person's ACP agent (acpClient.ts: `AcpClient.channel`).
 */
export interface SessionChannelState {
  pendingRuns: readonly { id: string; agent: string; markdown: string; commandId?: string; commandText?: string }[];
  code?: string;
  agents: number;
  sendToAgent: boolean;
  everJoined: boolean;
  admissions: readonly Admission[];
  /** (ACP) The agent's turn is under way, also between its replies: Stop is shown and cancels it. */
  turn?: boolean;
  /** (ACP) The agent's permission requests waiting for the person's choice. */
  permissionAsks?: number;
}
export interface SessionChannel {
  getState(): SessionChannelState;
  subscribe(listener: () => void): () => void;
  sendCommand(text: string, selection?: Selection): void;
  /** An inline answer: to the agent's question, or (ACP) the option chosen for its permission request. */
  answer(id: string, text: string): void;
  allowRun(id: string): void;
  rejectRun(id: string): void;
  admit(id: string): void;
  refuse(id: string): void;
  setSendToAgent(sendToAgent: boolean): void;
  /** (ACP) **Stop**: cancel the agent's turn. */
  stop?(): void;
}

export interface Admission {
  id: string;
  /** The agent's name as its client gave it (untrusted: shown as text). */
  agent: string;
}

/** What a refused agent is told. */
export const REFUSED_AGENT =
  "The person refused this agent in the page: a channel code admits one agent, and a further agent joins only when the person presses Admit.";

/** What the channel needs of a WebSocket (the browser's; tests pass a fake). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(): void;
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
}

/**
 * A socket to the bridge (the channel's `/page`, the ACP link's `/acp`):
 * each text frame is checked against `schema` and goes to `onMessage` while
 * `isCurrent(socket)` (a replaced socket's late frames are dropped); a frame
 * that fails the check is dropped. Undefined when the socket cannot even be
 * made (the browser refuses the URL); open, close and errors are the caller's.
 */
export function openBridgeSocket<T>(
  address: string,
  options: {
    createSocket?: (url: string) => SocketLike;
    schema: z.ZodType<T>;
    isCurrent: (socket: SocketLike) => boolean;
    onMessage: (message: T) => void;
  },
): SocketLike | undefined {
  let socket: SocketLike;
  try {
    socket = (options.createSocket ?? ((url) => new WebSocket(url) as unknown as SocketLike))(address);
  } catch {
    return undefined;
  }
  socket.onmessage = (event) => {
    if (!options.isCurrent(socket) || typeof event.data !== "string") return;
    const parsed = parseFrame(options.schema, event.data);
    if (parsed.ok) options.onMessage(parsed.message);
  };
  socket.onerror = () => undefined;
  return socket;
}

export interface AgentChannelOptions {
  address?: string;
  createSocket?: (url: string) => SocketLike;
  session: () => { id: string; title: string } | undefined;
  agent: () => Agent | undefined;
  /** A mount's current tree (src/render registry), for read-session. */
  mountSnapshot?: (mountId: string) => unknown;
  /** Resolves when the mount messages received so far are applied (a run's mounts are then in its reply). */
  mountsApplied?: () => Promise<void>;
  newId?: () => string;
  now?: () => number;
  /** While the bridge is not running, try again this often. */
  retryMs?: number;
  /** One line of the open session's audit list. */
  audit?: (entry: ChannelAudit) => void;
  /** Put a message in another session's timeline (a report on a command of a session the person left). */
  recordIn?: (sessionId: string, message: ChatMessage) => Promise<void>;
  /** This tab's storage (sessionStorage): the channel survives a reload. */
  storage?: Pick<Storage, "getItem" | "setItem" | "removeItem">;
  /** SHA-256 of a text, hex (default: crypto.subtle). */
  sha256?: (text: string) => Promise<string>;
  /** The open session's capability uses since `since` (its audit list), in words. */
  capabilityUses?: (since: number) => string[];
  /** Hear of each app data write once on disk (src/capabilities/storage: onAppDataWritten). */
  onAppDataWritten?: (listener: (sessionId: string, key: string) => void) => () => void;
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The channel this tab kept for a reload, if any and still within the grace. */
export function storedChannel(
  storage: Pick<Storage, "getItem"> | undefined,
  now = Date.now(),
): StoredChannel | undefined {
  try {
    const raw = storage?.getItem(STORED_CHANNEL_KEY);
    if (!raw) return undefined;
    const stored = JSON.parse(raw) as StoredChannel;
    if (typeof stored?.channelId !== "string" || typeof stored.code !== "string") return undefined;
    if (typeof stored.savedAt !== "number" || now - stored.savedAt > RESUME_GRACE_MS + 60_000) return undefined;
    return stored;
  } catch {
    return undefined;
  }
}

const OPEN = 1;

let counter = 0;
const defaultId = () =>
  `c${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export function isLoopbackAddress(address: string): boolean {
  try {
    const url = new URL(address);
    return (
      (url.protocol === "ws:" || url.protocol === "wss:") && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)
    );
  } catch {
    return false;
  }
}

/** A command an agent holds, as the page records it: since when, its runs, the mounts before, app data keys written. */
interface Held {
  since: number;
  sessionId: string | undefined;
  replyIds: string[];
  before: Map<string, string>;
  dataKeys: Set<string>;
}

export class AgentChannel {
  private state: AgentChannelState;
  private readonly listeners = new Set<() => void>();
  private socket: SocketLike | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly newId: () => string;
  private readonly now: () => number;
  /** The session this channel belongs to. */
  private sessionId: string | undefined;
  /** A run the channel started and End channel stops. */
  private running = false;
  private ended = false;
  /** Join requests this channel has answered or is answering: the first is the code's one agent. */
  private joinRequests = 0;
  private readonly pendingAdmissions = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  private readonly pendingRunAnswers = new Map<string, (allowed: boolean) => void>();
  /** Allow once: (channel, command id, SHA-256 of the Markdown), each spent by the run it allowed. */
  private readonly approvals = new Set<string>();
  /** The bridge's secret id of this channel (with the code, it resumes the channel after a reload). */
  private channelId: string | undefined;
  /** Commands this tab sent, by id: the session each came from. */
  private readonly commands = new Map<string, SentCommand>();
  /** The session the person is in, as the channel last saw it. */
  private lastSession: { id: string; title: string } | undefined;
  /** The person moved here from this session since the last command. */
  private switchedFrom: { sessionId: string; title: string } | undefined;
  /** Resuming after a reload: the hello asks for this channel. */
  private resuming: StoredChannel | undefined;
  /** Commands an agent holds: since when, its runs, and the mounts as they were (for what really changed). */
  private readonly held = new Map<string, Held>();

  constructor(private readonly options: AgentChannelOptions) {
    this.newId = options.newId ?? defaultId;
    this.now = options.now ?? Date.now;
    this.state = {
      address: options.address ?? DEFAULT_BRIDGE_ADDRESS,
      rights: { ...DEFAULT_RIGHTS },
      pendingRuns: [],
      connection: "setup",
      agents: 0,
      sendToAgent: true,
      everJoined: false,
      admissions: [],
    };
    options.onAppDataWritten?.((sessionId, key) => {
      for (const record of this.held.values())
        if (record.sessionId === sessionId && record.dataKeys.size < 100) record.dataKeys.add(key);
    });
  }

  /** Take up the channel this tab had before a reload: same channel, agents, cursors and claims. */
  resume(stored: StoredChannel): void {
    this.resuming = stored;
    this.channelId = stored.channelId;
    for (const [id, command] of stored.commands) this.commands.set(id, command);
    this.lastSession = stored.session;
    this.state = {
      ...this.state,
      address: stored.address,
      rights: { ...DEFAULT_RIGHTS, ...stored.rights },
      sendToAgent: stored.sendToAgent,
      everJoined: stored.everJoined,
      code: stored.code,
    };
    this.connect(stored.address, true);
  }

  /** Keep what a reload needs in this tab's storage (nothing once the channel ended). */
  private persist(): void {
    const storage = this.options.storage;
    if (!storage) return;
    try {
      if (this.ended || !this.channelId || this.state.code === undefined) {
        storage.removeItem(STORED_CHANNEL_KEY);
        return;
      }
      const stored: StoredChannel = {
        address: this.state.address,
        channelId: this.channelId,
        code: this.state.code,
        rights: this.state.rights,
        sendToAgent: this.state.sendToAgent,
        everJoined: this.state.everJoined,
        commands: [...this.commands].slice(-MAX_KEPT_COMMANDS),
        ...(this.lastSession ? { session: this.lastSession } : {}),
        savedAt: this.now(),
      };
      storage.setItem(STORED_CHANNEL_KEY, JSON.stringify(stored));
    } catch {
      // Storage full or refused: a reload then ends the channel, as closing the tab does.
    }
  }

  /** The person changes a right (the dialog, or Session settings → Invited agent): in force for the next call. */
  setRights(patch: Partial<AgentRights>): void {
    const rights = { ...this.state.rights, ...patch };
    const words = { read: "Read the session", run: "Run code", confirm: "Confirm each run" } as const;
    for (const key of Object.keys(patch) as (keyof AgentRights)[]) {
      if (rights[key] === this.state.rights[key]) continue;
      // The person's own decision: the right's name where an agent's call names the agent.
      this.options.audit?.({
        at: this.now(),
        capability: "agent",
        method: "rights",
        url: words[key],
        decision: rights[key] ? "on" : "off",
        agent: "the person",
      });
    }
    this.set({ rights });
    // Run code switched off, or Confirm each run switched off: runs still waiting are answered now.
    if (!rights.run) for (const pending of this.state.pendingRuns) this.answerRun(pending.id, false);
  }

  private audit(method: string, agentLabel: string, decision: string, reason?: string): void {
    this.options.audit?.({
      at: this.now(),
      capability: "agent",
      method,
      url: agentLabel.slice(0, 200),
      decision,
      agent: agentLabel.slice(0, 200),
      ...(reason ? { reason } : {}),
    });
  }

  getState = (): AgentChannelState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private set(patch: Partial<AgentChannelState>): void {
    this.state = { ...this.state, ...patch };
    this.persist();
    for (const listener of this.listeners) listener();
  }

  /** Connect (again) to the bridge at `address` and ask for a code (or, resuming, for this tab's channel). */
  connect(address = this.state.address, resuming = false): void {
    this.ended = false;
    this.dropSocket();
    if (!resuming) {
      this.resuming = undefined;
      this.channelId = undefined;
    }
    if (!isLoopbackAddress(address)) {
      this.set({ address, connection: "not-running", code: undefined, agents: 0 });
      return;
    }
    const session = this.options.session();
    if (!session) return;
    this.sessionId = session.id;
    if (!resuming) this.lastSession = { id: session.id, title: session.title };
    this.settleAdmissions(new Error(CHANNEL_CLOSED));
    this.settleRuns();
    this.joinRequests = resuming && this.state.everJoined ? 1 : 0;
    this.set({
      address,
      connection: "connecting",
      ...(resuming ? {} : { code: undefined, everJoined: false }),
      expiresAt: undefined,
      agents: 0,
      admissions: [],
    });
    const socket = openBridgeSocket(address, {
      createSocket: this.options.createSocket,
      schema: bridgeMessageSchema,
      isCurrent: (open) => this.socket === open,
      onMessage: (message) => this.onMessage(message),
    });
    if (!socket) {
      this.set({ connection: "not-running" });
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      const resume = this.resuming;
      this.post({
        type: "hello",
        version: BRIDGE_WIRE_VERSION,
        sessionId: session.id,
        ...(resume ? { resume: { channelId: resume.channelId, code: resume.code } } : {}),
      });
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      const hadChannel = this.state.code !== undefined;
      if (this.ended) return;
      if (hadChannel) this.note("The bridge stopped: the agent's channel ended.", "warn");
      this.settleAdmissions(new Error(CHANNEL_CLOSED));
      this.settleRuns();
      // The bridge is gone, and its channels with it: the retry opens a new one.
      this.resuming = undefined;
      this.channelId = undefined;
      this.set({ connection: "not-running", code: undefined, expiresAt: undefined, agents: 0, admissions: [] });
      this.scheduleRetry();
    };
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.ended) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.ended && this.state.connection === "not-running") this.connect();
    }, this.options.retryMs ?? 2_000);
  }

  private dropSocket(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const socket = this.socket;
    this.socket = undefined;
    if (socket) {
      socket.onclose = null;
      socket.onmessage = null;
      socket.close();
    }
  }

  private post(message: PageMessage): void {
    if (this.socket?.readyState === OPEN) this.socket.send(JSON.stringify(message));
  }

  private note(text: string, level: "info" | "warn" = "info"): void {
    this.options.agent()?.record({ id: this.newId(), role: "notice", text, level, createdAt: this.now() });
  }

  private onMessage(message: BridgeMessage): void {
    switch (message.type) {
      case "channel":
        if (message.channelId) this.channelId = message.channelId;
        if (message.resumed) {
          this.resuming = undefined;
          this.note("The page reloaded: the agent's channel goes on (nothing was lost).");
        }
        this.set({
          code: message.code,
          expiresAt: message.expiresAt,
          connection: this.state.agents > 0 ? "joined" : "waiting",
        });
        return;
      case "resume-failed":
        this.resuming = undefined;
        this.channelId = undefined;
        this.ended = true;
        this.dropSocket();
        this.note("The agent's channel ended while this page was away (over two minutes, or the bridge restarted).");
        this.set({ connection: "ended", code: undefined, expiresAt: undefined, agents: 0, everJoined: false });
        return;
      case "code-expired":
        // The bridge ends a channel whose code expired before anyone joined.
        if (this.state.agents === 0 && !this.state.everJoined) {
          this.channelId = undefined;
          this.note("The channel code expired before an agent joined: the channel ended.");
          this.set({ connection: "expired", code: undefined, expiresAt: undefined });
        }
        return;
      case "agents": {
        const before = this.state.agents;
        this.set({
          agents: message.joined,
          connection: message.joined > 0 ? "joined" : "waiting",
          ...(message.joined > before && !this.state.everJoined ? { sendToAgent: true, everJoined: true } : {}),
        });
        if (message.joined > before)
          this.note(
            message.joined === 1
              ? "An agent joined this session through the bridge."
              : `Another agent joined (${message.joined} in all).`,
          );
        else if (message.joined < before)
          this.note(
            message.joined === 0 ? "The agent left the session." : `An agent left (${message.joined} still joined).`,
          );
        return;
      }
      case "claimed": {
        this.hold(message.commandId);
        // The person sees which agent took their message.
        const agent = this.options.agent();
        const sent = agent
          ?.getState()
          .messages.find((item) => item.role === "user" && item.commandId === message.commandId);
        if (sent)
          agent!.amend(sent.id, (item) => (item.role === "user" ? { ...item, receivedBy: message.agent } : item));
        return;
      }
      case "queued":
      case "refused":
        return;
      case "request":
        void this.serve(message.requestId, message.agent, message.request);
        return;
      default: {
        const never: never = message;
        return never;
      }
    }
  }

  private async serve(requestId: number, agentLabel: string, request: PageRequest): Promise<void> {
    try {
      const result = await this.answerRequest(agentLabel, request);
      this.post({ type: "response", requestId, result });
    } catch (error) {
      this.post({
        type: "failure",
        requestId,
        error: (error instanceof Error ? error.message : String(error)).slice(0, 2_000),
      });
    }
  }

  private requireAgent(): Agent {
    const agent = this.options.agent();
    if (!agent) throw new Error("The session is not open any more.");
    return agent;
  }

  private async answerRequest(agentLabel: string, request: PageRequest): Promise<PageResult<PageRequest["method"]>> {
    switch (request.method) {
      case "join": {
        this.requireAgent();
        // The code admitted its one agent; any further agent waits for the person.
        if (this.joinRequests++ > 0) await this.askAdmission(agentLabel);
        const agent = this.requireAgent();
        const session = this.options.session();
        this.audit("livemark_join", agentLabel, "joined");
        // Without Read the session the agent learns nothing of the session at join.
        if (!this.state.rights.read) return { title: "", mounts: [] };
        return {
          title: (session?.title ?? "").slice(0, 2_000),
          mounts: mountsOf(agent.getState().messages),
          ...(session ? { sessionId: session.id } : {}),
        };
      }
      case "run": {
        const agent = this.requireAgent();
        const sent = this.commands.get(request.commandId);
        const current = this.options.session();
        if (sent && current && sent.sessionId !== current.id) {
          this.audit("livemark_run", agentLabel, "refused", "the command's session is not open");
          throw new Error(
            `Command ${request.commandId} came from a session the person has left; its sandbox is not running now. Report on it with livemark_report (it shows in that session), or take the next command.`,
          );
        }
        if (!this.state.rights.run) {
          this.audit("livemark_run", agentLabel, "refused", "Run code is off");
          throw new Error(NOT_ALLOWED.run);
        }
        if (this.state.rights.confirm) await this.confirmRun(agentLabel, request.commandId, request.markdown);
        else this.audit("livemark_run", agentLabel, "allowed");
        // Run code may have been switched off while the run waited for the person.
        if (!this.state.rights.run) throw new Error(NOT_ALLOWED.run);
        this.hold(request.commandId);
        this.running = true;
        let run;
        try {
          run = await runMarkdown(agent, request.markdown, agentLabel, this.options.mountsApplied);
        } finally {
          this.running = false;
        }
        if (run.replyId) this.hold(request.commandId).replyIds.push(run.replyId);
        return { state: run.state, feedback: run.feedback, mounts: run.mounts };
      }
      case "report": {
        const agent = this.requireAgent();
        const finished = request.kind === "reply" || request.kind === "error";
        const observed = finished ? this.observe(request.commandId) : undefined;
        const message: ChatMessage = {
          id: this.newId(),
          role: "agent",
          kind: request.kind,
          text: request.text,
          commandId: request.commandId,
          agent: agentLabel,
          ...(request.summary ? { summary: request.summary } : {}),
          ...(observed ? { observed } : {}),
          createdAt: this.now(),
        };
        // A report on a command of a session the person left is shown in that session, not this one.
        const sent = this.commands.get(request.commandId);
        const current = this.options.session();
        if (sent && current && sent.sessionId !== current.id && this.options.recordIn)
          await this.options.recordIn(sent.sessionId, message);
        else agent.record(message);
        return { shown: true };
      }
      case "read-session": {
        if (!this.state.rights.read) {
          this.audit("livemark_read_session", agentLabel, "refused", "Read the session is off");
          throw new Error(NOT_ALLOWED.read);
        }
        this.audit("livemark_read_session", agentLabel, "allowed");
        return readSession(this.requireAgent(), request, this.options.mountSnapshot);
      }
      default: {
        const never: never = request;
        return never;
      }
    }
  }

  /** The command is held by an agent from now (or since it was claimed): the mounts as they are now. */
  private hold(commandId: string): Held {
    let record = this.held.get(commandId);
    if (record) return record;
    const before = new Map<string, string>();
    const sent = this.commands.get(commandId);
    const current = this.options.session();
    const agent = this.options.agent();
    if (agent && (!sent || sent.sessionId === current?.id))
      for (const mount of mountsOf(agent.getState().messages))
        before.set(mount.mountId, JSON.stringify(this.options.mountSnapshot?.(mount.mountId) ?? null));
    record = {
      since: this.now(),
      sessionId: sent?.sessionId ?? current?.id,
      replyIds: [],
      before,
      dataKeys: new Set(),
    };
    this.held.set(commandId, record);
    return record;
  }

  /** What really happened while the command was held, from the page's own records; the hold ends. */
  private observe(commandId: string): ObservedChanges | undefined {
    const record = this.held.get(commandId);
    const sent = this.commands.get(commandId);
    const current = this.options.session();
    const agent = this.options.agent();
    this.held.delete(commandId);
    if (!record || !agent || (sent && sent.sessionId !== current?.id)) return undefined;
    const messages = agent.getState().messages;
    const runs = record.replyIds.flatMap((replyId) => {
      const reply = messages.find((message) => message.id === replyId);
      if (reply?.role !== "assistant") return [];
      const code = reply.reply.blocks.flatMap((block) => (block.kind === "code" ? [block] : []));
      const statements = code.flatMap((block) => block.statements);
      const errors = [
        ...reply.reply.blocks.flatMap((block) => (block.kind !== "text" && block.error ? [block.error.message] : [])),
        ...statements.flatMap((statement) => (statement.error ? [statement.error.message] : [])),
        ...reply.reply.notices,
      ];
      // Statements are numbered from 0 in each block; the view keeps those with something to show.
      const ran = code.reduce(
        (sum, block) =>
          sum +
          block.statements
            .filter((statement) => statement.status === "done" || statement.status === "error")
            .reduce((most, statement) => Math.max(most, statement.statement + 1), 0),
        0,
      );
      return [
        {
          statements: ran,
          errors: [...new Set(errors)].map((error) => error.slice(0, 300)).slice(0, 20),
        },
      ];
    });
    const created = mountsOf(messages.filter((message) => record.replyIds.includes(message.id)));
    const titleOf = (mount: { mountId: string; title?: string }) => mount.title ?? "untitled";
    const updated = mountsOf(messages).filter((mount) => {
      const before = record.before.get(mount.mountId);
      return before !== undefined && before !== JSON.stringify(this.options.mountSnapshot?.(mount.mountId) ?? null);
    });
    return {
      runs,
      mountsCreated: created.map(titleOf).slice(0, 100),
      mountsUpdated: updated.map(titleOf).slice(0, 100),
      capabilities: (this.options.capabilityUses?.(record.since) ?? []).slice(0, 100),
      dataKeys: [...record.dataKeys].map((key) => key.slice(0, 200)),
    };
  }

  /**
   * Confirm each run: the run waits (the agent's call stays open; the bridge
   * keeps it alive with progress) until the person presses **Allow once**
   * or **Reject**. The approval is bound to (channel, command id, SHA-256 of
   * the Markdown) and spent by this run.
   */
  private async confirmRun(agentLabel: string, commandId: string, markdown: string): Promise<void> {
    const sha256 = await (this.options.sha256 ?? sha256Hex)(markdown);
    const id = this.newId();
    const pending: PendingRun = {
      id,
      agent: agentLabel.slice(0, 200),
      commandId,
      markdown,
      sha256,
      ...(this.commands.has(commandId) ? { commandText: this.commands.get(commandId)!.text } : {}),
    };
    const allowed = await new Promise<boolean>((resolve) => {
      this.pendingRunAnswers.set(id, resolve);
      this.set({ pendingRuns: [...this.state.pendingRuns, pending] });
    });
    if (!allowed) {
      this.audit("livemark_run", agentLabel, "rejected", "the person rejected this run");
      throw new Error(RUN_REJECTED);
    }
    // The approval is spent here, by the run it was given for: this channel, this command, this Markdown.
    const key = approvalKey(this.channelId, commandId, await (this.options.sha256 ?? sha256Hex)(markdown));
    if (!this.approvals.delete(key)) {
      this.audit("livemark_run", agentLabel, "refused", "no approval for this Markdown");
      throw new Error("This run was not approved: the person allowed a different run.");
    }
    this.audit("livemark_run", agentLabel, "allowed once", `SHA-256 ${sha256.slice(0, 16)}…`);
  }

  private answerRun(id: string, allowed: boolean): void {
    const resolve = this.pendingRunAnswers.get(id);
    const pending = this.state.pendingRuns.find((item) => item.id === id);
    if (!resolve || !pending) return;
    this.pendingRunAnswers.delete(id);
    if (allowed) this.approvals.add(approvalKey(this.channelId, pending.commandId, pending.sha256));
    this.set({ pendingRuns: this.state.pendingRuns.filter((item) => item.id !== id) });
    resolve(allowed);
  }

  /** **Allow once**: this run, and only this Markdown for this command, runs. */
  allowRun(id: string): void {
    this.answerRun(id, true);
  }

  /** **Reject**: the agent hears the person rejected this run; nothing of it runs. */
  rejectRun(id: string): void {
    this.answerRun(id, false);
  }

  private settleRuns(): void {
    for (const pending of this.state.pendingRuns) this.answerRun(pending.id, false);
  }

  /**
   * The person opened another session: the channel follows. The next command
   * carries the new session's id and title and says the person switched.
   */
  sessionChanged(): void {
    const session = this.options.session();
    if (!session || this.ended) return;
    const before = this.lastSession;
    if (before && before.id !== session.id) {
      this.switchedFrom ??= { sessionId: before.id, title: before.title.slice(0, 2_000) };
      if (this.switchedFrom.sessionId === session.id) this.switchedFrom = undefined;
      if (this.state.everJoined && this.state.code !== undefined)
        this.note("Your invited agent stays with you in this session: your next message tells it you switched.");
    }
    this.lastSession = { id: session.id, title: session.title };
    this.sessionId = session.id;
    this.persist();
  }

  /** The person's message, sent to the agent; the selection goes along as untrusted context. */
  sendCommand(text: string, selection?: Selection): void {
    const trimmed = text.trim();
    this.sessionChanged();
    const sessionId = this.sessionId;
    if (!trimmed || !sessionId || this.state.code === undefined) return;
    const commandId = this.newId();
    this.remember(commandId, { sessionId, text: trimmed.slice(0, 2_000) });
    this.options.agent()?.record({
      id: this.newId(),
      role: "user",
      text: trimmed,
      createdAt: this.now(),
      to: "agent",
      commandId,
      ...(selection ? { selection: { kind: selection.kind, id: selection.id, label: selection.label } } : {}),
    });
    this.post({
      type: "command",
      command: {
        commandId,
        sessionId,
        kind: "message",
        text: trimmed,
        capturedAt: this.now(),
        ...this.whereabouts(),
        ...(selection ? { selection } : {}),
      },
    });
    this.switchedFrom = undefined;
    this.persist();
  }

  private remember(commandId: string, command: SentCommand): void {
    this.commands.set(commandId, command);
    if (this.commands.size > MAX_KEPT_COMMANDS) this.commands.delete(this.commands.keys().next().value!);
  }

  /** The session's title, and the session the person came from since the last command. */
  private whereabouts(): { sessionTitle?: string; switchedFrom?: { sessionId: string; title: string } } {
    const title = this.options.session()?.title;
    return {
      ...(title !== undefined ? { sessionTitle: title.slice(0, 2_000) } : {}),
      ...(this.switchedFrom ? { switchedFrom: this.switchedFrom } : {}),
    };
  }

  /** The person answers the agent's question inline: the answer is the agent's next command. */
  answer(questionId: string, text: string): void {
    const trimmed = text.trim();
    const agent = this.options.agent();
    this.sessionChanged();
    const sessionId = this.sessionId;
    const question = agent?.getState().messages.find((message) => message.id === questionId);
    if (
      !trimmed ||
      !agent ||
      !sessionId ||
      question?.role !== "agent" ||
      question.kind !== "question" ||
      question.answer !== undefined
    )
      return;
    agent.amend(questionId, (message) => (message.role === "agent" ? { ...message, answer: trimmed } : message));
    const commandId = this.newId();
    this.remember(commandId, { sessionId, text: trimmed.slice(0, 2_000) });
    agent.record({
      id: this.newId(),
      role: "user",
      text: trimmed,
      createdAt: this.now(),
      to: "agent",
      commandId,
      answers: questionId,
    });
    this.post({
      type: "command",
      command: {
        commandId,
        sessionId,
        kind: "answer",
        text: trimmed,
        capturedAt: this.now(),
        answerTo: { commandId: question.commandId, question: question.text.slice(0, 10_000) },
        ...this.whereabouts(),
      },
    });
    this.switchedFrom = undefined;
    this.persist();
  }

  private askAdmission(agentLabel: string): Promise<void> {
    const id = this.newId();
    this.note(
      `Another agent asks to join this session: ${agentLabel.slice(0, 200)}. It joins only if you press Admit.`,
      "warn",
    );
    return new Promise<void>((resolve, reject) => {
      this.pendingAdmissions.set(id, { resolve, reject });
      this.set({ admissions: [...this.state.admissions, { id, agent: agentLabel.slice(0, 200) }] });
    });
  }

  private answerAdmission(id: string, admitted: boolean): void {
    const pending = this.pendingAdmissions.get(id);
    const admission = this.state.admissions.find((item) => item.id === id);
    if (!pending || !admission) return;
    this.pendingAdmissions.delete(id);
    this.set({ admissions: this.state.admissions.filter((item) => item.id !== id) });
    if (admitted) pending.resolve();
    else {
      this.note(`You refused the agent ${admission.agent}.`);
      pending.reject(new Error(REFUSED_AGENT));
    }
  }

  /** **Admit**: the waiting agent joins the channel. */
  admit(id: string): void {
    this.answerAdmission(id, true);
  }

  /** **Refuse**: the waiting agent is told so and does not join. */
  refuse(id: string): void {
    this.answerAdmission(id, false);
  }

  private settleAdmissions(error: Error): void {
    for (const pending of this.pendingAdmissions.values()) pending.reject(error);
    this.pendingAdmissions.clear();
  }

  /** A new code: the same channel's, or, once an unused code expired (which ended its channel), a new channel's. */
  newCode(): void {
    if (this.state.connection === "expired" && this.state.code === undefined) this.connect();
    else this.post({ type: "new-code" });
  }

  setSendToAgent(sendToAgent: boolean): void {
    this.set({ sendToAgent });
  }

  /** End channel: the code stops working, waits return "channel closed", claims are dropped, the timeline records it. */
  end(): void {
    if (this.ended) return;
    const open = this.state.code !== undefined;
    this.ended = true;
    this.post({ type: "end" });
    this.dropSocket();
    if (this.running) this.options.agent()?.stop();
    if (open) this.note("Channel ended: the agent can no longer act in this session.");
    this.settleAdmissions(new Error(CHANNEL_CLOSED));
    this.settleRuns();
    this.channelId = undefined;
    this.resuming = undefined;
    this.set({ connection: "ended", code: undefined, expiresAt: undefined, agents: 0, admissions: [] });
  }

  /** The person's ACP agent joins the room (its state changes are this channel's too: the page redraws). */
  attachAcp(link: AcpClient): void {
    if (this.state.acp === link) return;
    this.set({ acp: link });
    link.subscribe(() => this.set({}));
  }

  /** What the channel was given of the page (the session, its agent, mounts, audit): an ACP link uses the same. */
  get page(): AgentChannelOptions {
    return this.options;
  }

  /** The session the channel belongs to (undefined before it connected). */
  get session(): string | undefined {
    return this.sessionId;
  }

  get active(): boolean {
    return !this.ended;
  }
}

const approvalKey = (channelId: string | undefined, commandId: string, sha256: string) =>
  JSON.stringify([channelId ?? "", commandId, sha256]);
