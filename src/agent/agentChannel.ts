import {
  BRIDGE_WIRE_VERSION,
  CHANNEL_CLOSED,
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
import { createExternalReply } from "./externalReply";

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

export type ChannelConnection = "connecting" | "not-running" | "waiting" | "joined" | "expired" | "ended";

export const CONNECTION_WORDS: Record<ChannelConnection, string> = {
  connecting: "connecting to the bridge…",
  "not-running": "bridge not running",
  waiting: "waiting for the agent",
  joined: "agent joined",
  expired: "code expired",
  ended: "channel ended",
};

export interface AgentChannelState {
  address: string;
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
}

const MAX_SNAPSHOT_CHARS = 50_000;
const MAX_MESSAGE_CHARS = 50_000;
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

  constructor(private readonly options: AgentChannelOptions) {
    this.newId = options.newId ?? defaultId;
    this.now = options.now ?? Date.now;
    this.state = {
      address: options.address ?? DEFAULT_BRIDGE_ADDRESS,
      connection: "connecting",
      agents: 0,
      sendToAgent: true,
      everJoined: false,
      admissions: [],
    };
  }

  getState = (): AgentChannelState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private set(patch: Partial<AgentChannelState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }

  /** Connect (again) to the bridge at `address` and ask for a code. */
  connect(address = this.state.address): void {
    this.ended = false;
    this.dropSocket();
    if (!isLoopbackAddress(address)) {
      this.set({ address, connection: "not-running", code: undefined, agents: 0 });
      return;
    }
    const session = this.options.session();
    if (!session) return;
    this.sessionId = session.id;
    this.settleAdmissions(new Error(CHANNEL_CLOSED));
    this.joinRequests = 0;
    this.set({
      address,
      connection: "connecting",
      code: undefined,
      expiresAt: undefined,
      agents: 0,
      everJoined: false,
      admissions: [],
    });
    let socket: SocketLike;
    try {
      socket = (this.options.createSocket ?? ((url) => new WebSocket(url) as unknown as SocketLike))(address);
    } catch {
      this.set({ connection: "not-running" });
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    socket.onopen = () => this.post({ type: "hello", version: BRIDGE_WIRE_VERSION, sessionId: session.id });
    socket.onmessage = (event) => {
      if (this.socket !== socket || typeof event.data !== "string") return;
      const parsed = parseFrame(bridgeMessageSchema, event.data);
      if (parsed.ok) this.onMessage(parsed.message);
    };
    socket.onerror = () => undefined;
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      const hadChannel = this.state.code !== undefined;
      if (this.ended) return;
      if (hadChannel) this.note("The bridge stopped: the agent's channel ended.", "warn");
      this.settleAdmissions(new Error(CHANNEL_CLOSED));
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
        this.set({
          code: message.code,
          expiresAt: message.expiresAt,
          connection: this.state.agents > 0 ? "joined" : "waiting",
        });
        return;
      case "code-expired":
        if (this.state.agents === 0) this.set({ connection: "expired" });
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

  private mountsOf(messages: readonly ChatMessage[]): { mountId: string; title?: string; messageId: string }[] {
    return messages.flatMap((message) =>
      message.role === "assistant"
        ? (message.reply.mounts ?? []).map((mount) => ({
            mountId: mount.mountId,
            messageId: message.id,
            ...(mount.title ? { title: mount.title.slice(0, 2_000) } : {}),
          }))
        : [],
    );
  }

  private async answerRequest(agentLabel: string, request: PageRequest): Promise<PageResult<PageRequest["method"]>> {
    switch (request.method) {
      case "join": {
        this.requireAgent();
        // The code admitted its one agent; any further agent waits for the person.
        if (this.joinRequests++ > 0) await this.askAdmission(agentLabel);
        const agent = this.requireAgent();
        return {
          title: (this.options.session()?.title ?? "").slice(0, 2_000),
          mounts: this.mountsOf(agent.getState().messages),
        };
      }
      case "run": {
        const agent = this.requireAgent();
        this.running = true;
        let run;
        try {
          run = await agent.runExternal(createExternalReply(request.markdown, agentLabel), agentLabel);
        } finally {
          this.running = false;
        }
        if (run.kind === "busy")
          throw new Error(
            "The session is busy: a reply is running. Run again when it has finished (the person can press Stop).",
          );
        await this.options.mountsApplied?.();
        const reply = agent.getState().messages.filter((message) => message.id === run.replyId);
        return { state: run.state, feedback: run.feedback, mounts: this.mountsOf(reply) };
      }
      case "report": {
        const agent = this.requireAgent();
        agent.record({
          id: this.newId(),
          role: "agent",
          kind: request.kind,
          text: request.text,
          commandId: request.commandId,
          agent: agentLabel,
          ...(request.summary ? { summary: request.summary } : {}),
          createdAt: this.now(),
        });
        return { shown: true };
      }
      case "read-session": {
        const messages = this.requireAgent().getState().messages;
        const from = Math.min(request.from ?? 0, messages.length);
        const to = Math.max(from, Math.min(request.to ?? messages.length, messages.length, from + 500));
        const slice = messages.slice(from, to);
        return {
          total: messages.length,
          messages: slice.map((message, offset) => ({
            index: from + offset,
            id: message.id,
            role: message.role === "agent" ? `agent ${message.kind}` : message.role,
            text: (message.role === "feedback" ? message.body : message.text).slice(0, MAX_MESSAGE_CHARS),
          })),
          mounts: this.mountsOf(slice).map((mount) => ({
            ...mount,
            snapshot: snapshotText(this.options.mountSnapshot?.(mount.mountId)),
          })),
        };
      }
      default: {
        const never: never = request;
        return never;
      }
    }
  }

  /** The person's message, sent to the agent; the selection goes along as untrusted context. */
  sendCommand(text: string, selection?: Selection): void {
    const trimmed = text.trim();
    const sessionId = this.sessionId;
    if (!trimmed || !sessionId || this.state.code === undefined) return;
    const commandId = this.newId();
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
        ...(selection ? { selection } : {}),
      },
    });
  }

  /** The person answers the agent's question inline: the answer is the agent's next command. */
  answer(questionId: string, text: string): void {
    const trimmed = text.trim();
    const agent = this.options.agent();
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
      },
    });
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

  newCode(): void {
    this.post({ type: "new-code" });
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
    this.set({ connection: "ended", code: undefined, expiresAt: undefined, agents: 0, admissions: [] });
  }

  /** The session the channel belongs to (undefined before it connected). */
  get session(): string | undefined {
    return this.sessionId;
  }

  get active(): boolean {
    return !this.ended;
  }
}

function snapshotText(snapshot: unknown): string {
  if (snapshot === undefined) return "";
  const text = JSON.stringify(snapshot) ?? "";
  return text.length > MAX_SNAPSHOT_CHARS
    ? `${text.slice(0, MAX_SNAPSHOT_CHARS)}… [cut at ${MAX_SNAPSHOT_CHARS} characters]`
    : text;
}
