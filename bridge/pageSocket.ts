import type { WebSocket } from "ws";
import type { z } from "zod";
import type { Channel, ChannelRegistry } from "./channels";
import {
  CHANNEL_CLOSED,
  PAGE_AWAY,
  RESUME_GRACE_MS,
  pageMessageSchema,
  pageResultSchemas,
  parseFrame,
  type BridgeMessage,
  type PageRequest,
  type PageResult,
} from "../src/wire/bridge";

/**
 * The bridge's end of each page's WebSocket: one link per page, at most one
 * channel per link. It validates every frame (`parseFrame`; a bad frame is
 * refused, never thrown), opens and renews the channel's code, queues the
 * person's commands, and carries the requests the bridge makes of the page
 * on an agent's behalf (`request`), checking each answer against its
 * method's schema. Closing the socket ends the channel and fails every
 * request still waiting with "channel closed".
 */

/** A failure an agent's tool call reports as its result (not a crash). */
export class ToolError extends Error {}

/** The socket as the link uses it (`ws`'s WebSocket; a stand-in in tests). */
export type PageSocketLike = Pick<WebSocket, "readyState" | "OPEN" | "send">;

export interface PageLink {
  socket: PageSocketLike;
  channel?: Channel;
  expiryTimer?: ReturnType<typeof setTimeout>;
  nextRequest: number;
  pending: Map<
    number,
    { method: PageRequest["method"]; resolve: (value: unknown) => void; reject: (error: Error) => void }
  >;
}

export interface PageSocketsOptions {
  registry: ChannelRegistry;
  /** An agent's label as the page shows it. */
  labelOf: (agent: string) => string;
  log: (line: string) => void;
  /** How long a channel whose page went away waits for it to resume (default RESUME_GRACE_MS). */
  graceMs?: number;
}

export class PageSockets {
  private readonly links = new Map<Channel, PageLink>();
  /** Channels whose page went away (a reload, a closed tab), each ending when its grace runs out. */
  private readonly away = new Map<Channel, ReturnType<typeof setTimeout>>();

  constructor(private readonly options: PageSocketsOptions) {}

  /** A page connected: its link, with the socket's frames and close wired to it. */
  accept(socket: WebSocket): PageLink {
    const link = this.open(socket);
    socket.on("message", (data, isBinary) => {
      if (isBinary) return this.send(link, { type: "refused", message: "Text frames only." });
      this.receive(link, data.toString());
    });
    // A reload or a closed tab: the channel waits out the grace for the page to resume it.
    socket.on("close", () => this.detach(link));
    socket.on("error", () => undefined);
    return link;
  }

  open(socket: PageSocketLike): PageLink {
    return { socket, nextRequest: 1, pending: new Map() };
  }

  /** One text frame from the page; a failure is logged, never thrown to the socket. */
  receive(link: PageLink, data: string): void {
    try {
      this.onMessage(link, data);
    } catch (error) {
      this.options.log(`page message failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  linkOf(channel: Channel): PageLink | undefined {
    return this.links.get(channel);
  }

  send(link: PageLink, message: BridgeMessage): void {
    if (link.socket.readyState === link.socket.OPEN) link.socket.send(JSON.stringify(message));
  }

  /** Tell the channel's page (if still linked). */
  tell(channel: Channel, message: BridgeMessage): void {
    const link = this.links.get(channel);
    if (link) this.send(link, message);
  }

  announceAgents(channel: Channel): void {
    this.tell(channel, { type: "agents", joined: channel.agents.size });
  }

  /** The channel's code changed (spent or renewed): the page shows the next one, and hears when it expires. */
  showCode(channel: Channel): void {
    const link = this.links.get(channel);
    if (!link) return;
    this.send(link, { type: "channel", code: channel.code, expiresAt: channel.expiresAt(), channelId: channel.id });
    this.armExpiry(link);
  }

  /** End every channel (the bridge stops). */
  endAll(why: string): void {
    for (const link of [...this.links.values()]) this.end(link, why);
    for (const channel of [...this.away.keys()]) this.endAway(channel, why);
  }

  /**
   * The page's socket closed: what the page was asked fails (the page that
   * comes back does not know it), the channel stays open — agents keep their
   * claims and waits — for the grace, then ends unless the page resumed it.
   */
  detach(link: PageLink): void {
    if (link.expiryTimer) clearTimeout(link.expiryTimer);
    for (const pending of link.pending.values()) pending.reject(new ToolError(PAGE_AWAY));
    link.pending.clear();
    const channel = link.channel;
    link.channel = undefined;
    if (!channel || this.links.get(channel) !== link || channel.closed) return;
    this.links.delete(channel);
    // A code nobody used ends with its page: a page that comes back asks for a new one.
    if (!channel.used) {
      this.options.registry.close(channel);
      this.options.log(`channel ${channel.code} closed (page closed before an agent joined)`);
      return;
    }
    this.away.set(
      channel,
      setTimeout(() => this.endAway(channel, "page closed"), this.options.graceMs ?? RESUME_GRACE_MS),
    );
    this.options.log(`channel ${channel.code}: page away, waiting for it to resume`);
  }

  private endAway(channel: Channel, why: string): void {
    const timer = this.away.get(channel);
    if (timer) clearTimeout(timer);
    this.away.delete(channel);
    if (channel.closed) return;
    this.options.registry.close(channel);
    this.options.log(`channel ${channel.code} closed (${why})`);
  }

  /** Channels whose page is away (tests wait on this). */
  get awayCount(): number {
    return this.away.size;
  }

  /** Ask the page, on an agent's behalf; the answer is checked against the method's schema. */
  async request<M extends PageRequest["method"]>(
    channel: Channel,
    agent: string,
    pageRequest: PageRequest & { method: M },
    signal?: AbortSignal,
  ): Promise<PageResult<M>> {
    if (channel.closed) throw new ToolError(CHANNEL_CLOSED);
    const link = this.links.get(channel);
    if (!link) throw new ToolError(this.away.has(channel) ? PAGE_AWAY : CHANNEL_CLOSED);
    const requestId = link.nextRequest++;
    const answer = new Promise<unknown>((resolve, reject) => {
      link.pending.set(requestId, { method: pageRequest.method, resolve, reject });
      signal?.addEventListener(
        "abort",
        () => {
          link.pending.delete(requestId);
          reject(new ToolError("The request was cancelled."));
        },
        { once: true },
      );
    });
    this.send(link, { type: "request", requestId, agent: this.options.labelOf(agent), request: pageRequest });
    const value = await answer;
    const parsed = (pageResultSchemas[pageRequest.method] as z.ZodType).safeParse(value);
    if (!parsed.success) throw new ToolError(`The page answered ${pageRequest.method} with something malformed.`);
    return parsed.data as PageResult<M>;
  }

  private armExpiry(link: PageLink): void {
    const { registry } = this.options;
    if (link.expiryTimer) clearTimeout(link.expiryTimer);
    const channel = link.channel;
    if (!channel) return;
    link.expiryTimer = setTimeout(
      () => {
        if (channel.closed || !channel.isExpired(registry.now())) return;
        // A code that expired before anyone joined ends its channel.
        this.send(link, { type: "code-expired" });
        this.end(link, "code expired");
      },
      Math.max(0, channel.expiresAt() - registry.now()) + 5,
    );
  }

  private end(link: PageLink, why: string): void {
    if (link.expiryTimer) clearTimeout(link.expiryTimer);
    const channel = link.channel;
    for (const pending of link.pending.values()) pending.reject(new ToolError(CHANNEL_CLOSED));
    link.pending.clear();
    if (!channel) return;
    link.channel = undefined;
    this.links.delete(channel);
    this.options.registry.close(channel);
    this.options.log(`channel ${channel.code} closed (${why})`);
  }

  /** A page back from a reload takes up its channel: agents, cursors, claims and waits are as they were. */
  private resume(link: PageLink, channelId: string, code: string): void {
    const channel = this.options.registry.resumable(channelId, code);
    if (!channel) return this.send(link, { type: "resume-failed" });
    // The tab's previous socket may not have closed yet (a reload races it): the new page takes over.
    const previous = this.links.get(channel);
    if (previous) {
      previous.channel = undefined;
      for (const pending of previous.pending.values()) pending.reject(new ToolError(PAGE_AWAY));
      previous.pending.clear();
      if (previous.expiryTimer) clearTimeout(previous.expiryTimer);
    }
    const timer = this.away.get(channel);
    if (timer) clearTimeout(timer);
    this.away.delete(channel);
    link.channel = channel;
    this.links.set(channel, link);
    this.send(link, {
      type: "channel",
      code: channel.code,
      expiresAt: channel.expiresAt(),
      channelId: channel.id,
      resumed: true,
    });
    this.announceAgents(channel);
    this.armExpiry(link);
    this.options.log(`channel ${channel.code} resumed`);
  }

  private onMessage(link: PageLink, data: string): void {
    const { registry, log } = this.options;
    const parsed = parseFrame(pageMessageSchema, data);
    if (!parsed.ok) {
      this.send(link, { type: "refused", message: `Malformed message: ${parsed.problem}` });
      return;
    }
    const message = parsed.message;
    switch (message.type) {
      case "hello": {
        if (link.channel)
          return this.send(link, { type: "refused", message: "This connection already has a channel." });
        if (message.resume) return this.resume(link, message.resume.channelId, message.resume.code);
        const channel = registry.open(message.sessionId);
        link.channel = channel;
        this.links.set(channel, link);
        this.send(link, { type: "channel", code: channel.code, expiresAt: channel.expiresAt(), channelId: channel.id });
        this.armExpiry(link);
        log(`channel ${channel.code} opened`);
        return;
      }
      case "new-code": {
        if (!link.channel) return this.send(link, { type: "refused", message: "No channel yet: say hello first." });
        registry.renew(link.channel);
        this.send(link, {
          type: "channel",
          code: link.channel.code,
          expiresAt: link.channel.expiresAt(),
          channelId: link.channel.id,
        });
        this.armExpiry(link);
        return;
      }
      case "command": {
        const channel = link.channel;
        if (!channel || channel.closed) return this.send(link, { type: "refused", message: "No open channel." });
        if (channel.find(message.command.commandId))
          return this.send(link, {
            type: "refused",
            message: `Command ${message.command.commandId} was already sent.`,
          });
        const asker = message.command.answerTo
          ? channel.find(message.command.answerTo.commandId)?.claimedBy
          : undefined;
        const command = channel.add(message.command, asker);
        this.send(link, { type: "queued", commandId: command.commandId, seq: command.seq });
        return;
      }
      case "response":
      case "failure": {
        const pending = link.pending.get(message.requestId);
        if (!pending) return;
        link.pending.delete(message.requestId);
        if (message.type === "response") pending.resolve(message.result);
        else pending.reject(new ToolError(message.error));
        return;
      }
      case "end":
        this.end(link, "ended by the person");
        return;
      default: {
        const never: never = message;
        return never;
      }
    }
  }
}
