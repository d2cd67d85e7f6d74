import { CHANNEL_CLOSED, CODE_TTL_MS, type CommandInput } from "../src/wire/bridge";

/**
 * The bridge's only state: open channels, each with its mailbox of commands
 * (DESIGN.md §4b). Pure: the clock and the code generator are passed in, no
 * sockets, no timers except the caller's wait timeout.
 *
 * Invariants:
 * - sequence numbers grow by one per command in a channel, from 1;
 * - a command is delivered to one agent only: the first wait that returns it
 *   claims it, in the same synchronous step (no await between the check and
 *   the claim), so two agents never both take it;
 * - a wait with cursor c returns the first command with seq > c that no other
 *   agent holds; the agent's next cursor is that seq, so a wait after a
 *   timeout or a reconnect loses and repeats nothing;
 * - closing a channel drops every claim and answers every pending wait with
 *   "channel closed"; the code stops working at once.
 */

export interface Command extends CommandInput {
  seq: number;
  /** The agent that received it. */
  claimedBy?: string;
  /** Replied to or failed: no longer delivered. */
  done: boolean;
  /** An answer to a question goes to the agent that asked, while it is joined. */
  forAgent?: string;
}

export type WaitOutcome =
  { kind: "command"; command: Command } | { kind: "timeout"; cursor: number } | { kind: "closed" };

export type JoinProblem = "unknown-code" | "expired" | "closed" | "used";

interface Waiter {
  agent: string;
  cursor: number;
  resolve: (outcome: WaitOutcome) => void;
}

export class Channel {
  readonly commands: Command[] = [];
  readonly agents = new Set<string>();
  private readonly waiters = new Set<Waiter>();
  closed = false;
  /** Someone joined with the code: it no longer expires. */
  used = false;

  constructor(
    public code: string,
    public issuedAt: number,
    readonly sessionId: string,
    private readonly ttlMs: number,
    private readonly onClaim: (command: Command, agent: string) => void = () => undefined,
    /** The channel's secret id: the page keeps it (with the code) to resume the channel after a reload. */
    readonly id: string = code,
  ) {}

  expiresAt(): number {
    return this.issuedAt + this.ttlMs;
  }

  isExpired(now: number): boolean {
    return !this.used && now >= this.expiresAt();
  }

  /** A new command from the person: wakes the first waiting agent that may take it. */
  add(input: CommandInput, forAgent?: string): Command {
    if (this.closed) throw new Error(CHANNEL_CLOSED);
    const command: Command = {
      ...input,
      seq: this.commands.length + 1,
      done: false,
      ...(forAgent ? { forAgent } : {}),
    };
    this.commands.push(command);
    for (const waiter of this.waiters) {
      const next = this.take(waiter.agent, waiter.cursor);
      if (!next) continue;
      this.waiters.delete(waiter);
      waiter.resolve({ kind: "command", command: next });
      break;
    }
    return command;
  }

  /** The cursor a newly joined agent starts from: just before the oldest command nobody holds. */
  joinCursor(): number {
    const pending = this.commands.find((command) => !command.done && command.claimedBy === undefined);
    return pending ? pending.seq - 1 : this.commands.length;
  }

  private deliverable(command: Command, agent: string, cursor: number): boolean {
    if (command.seq <= cursor || command.done) return false;
    if (command.claimedBy !== undefined && command.claimedBy !== agent) return false;
    if (command.forAgent !== undefined && command.forAgent !== agent && this.agents.has(command.forAgent)) return false;
    return true;
  }

  /** Find and claim, in one synchronous step. */
  private take(agent: string, cursor: number): Command | undefined {
    const command = this.commands.find((candidate) => this.deliverable(candidate, agent, cursor));
    if (!command) return undefined;
    if (command.claimedBy === undefined) {
      command.claimedBy = agent;
      this.onClaim(command, agent);
    }
    return command;
  }

  /**
   * The next command after `cursor` for `agent`, waiting up to `timeoutMs`.
   * An aborted wait (the client gave up) claims nothing.
   */
  wait(agent: string, cursor: number, timeoutMs: number, signal?: AbortSignal): Promise<WaitOutcome> {
    if (this.closed || !this.agents.has(agent)) return Promise.resolve({ kind: "closed" });
    const ready = this.take(agent, cursor);
    if (ready) return Promise.resolve({ kind: "command", command: ready });
    return new Promise<WaitOutcome>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (outcome: WaitOutcome) => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.waiters.delete(waiter);
        resolve(outcome);
      };
      const waiter: Waiter = { agent, cursor, resolve: finish };
      const onAbort = () => finish({ kind: "timeout", cursor });
      this.waiters.add(waiter);
      timer = setTimeout(() => finish({ kind: "timeout", cursor }), timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Agents' waits still open (a test waits on this before sending a command). */
  get waiting(): number {
    return this.waiters.size;
  }

  holds(agent: string, commandId: string): Command | undefined {
    return this.commands.find((command) => command.commandId === commandId && command.claimedBy === agent);
  }

  find(commandId: string): Command | undefined {
    return this.commands.find((command) => command.commandId === commandId);
  }

  complete(commandId: string): void {
    const command = this.find(commandId);
    if (command) command.done = true;
  }

  join(agent: string): void {
    this.used = true;
    this.agents.add(agent);
  }

  /** The agent went away: what it held and did not finish can go to another agent. */
  leave(agent: string): void {
    this.agents.delete(agent);
    for (const command of this.commands) if (command.claimedBy === agent && !command.done) delete command.claimedBy;
    for (const waiter of [...this.waiters]) if (waiter.agent === agent) waiter.resolve({ kind: "closed" });
    // Commands it released may be taken by agents already waiting.
    for (const waiter of [...this.waiters]) {
      const next = this.take(waiter.agent, waiter.cursor);
      if (next) waiter.resolve({ kind: "command", command: next });
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const command of this.commands) delete command.claimedBy;
    for (const waiter of [...this.waiters]) waiter.resolve({ kind: "closed" });
    this.waiters.clear();
    this.agents.clear();
  }
}

/** Unambiguous letters and digits (no 0/O, 1/I/L): read aloud or typed, not mistaken. */
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/** `XXXX-XXXX` from `random` bytes: 8 symbols of 31, about 40 bits. */
export function makeCode(randomBytes: (count: number) => Uint8Array): string {
  let code = "";
  while (code.length < 8) {
    for (const byte of randomBytes(16)) {
      // Rejection sampling keeps every symbol equally likely.
      if (byte >= CODE_ALPHABET.length * 8) continue;
      code += CODE_ALPHABET[byte % CODE_ALPHABET.length];
      if (code.length === 8) break;
    }
  }
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

export interface ChannelRegistryOptions {
  now?: () => number;
  ttlMs?: number;
  newCode: () => string;
  onClaim?: (channel: Channel, command: Command, agent: string) => void;
  /** A channel's secret id (unguessable: with the code it resumes the channel). */
  newChannelId?: () => string;
}

export class ChannelRegistry {
  private readonly byCode = new Map<string, Channel>();
  /** Codes an agent already joined with (each admits one agent), while their channel is open. */
  private readonly spent = new Map<string, Channel>();
  /** Codes that expired before anyone joined (their channel ended): a late join hears "expired". */
  private readonly expired = new Set<string>();
  private readonly byId = new Map<string, Channel>();
  readonly now: () => number;
  private readonly ttlMs: number;

  constructor(private readonly options: ChannelRegistryOptions) {
    this.now = options.now ?? Date.now;
    this.ttlMs = options.ttlMs ?? CODE_TTL_MS;
  }

  private freshCode(): string {
    for (;;) {
      const code = this.options.newCode();
      if (!this.byCode.has(code)) return code;
    }
  }

  /** Agents' waits still open, over every open channel. */
  waiting(): number {
    let count = 0;
    for (const channel of new Set([...this.byCode.values(), ...this.spent.values()])) count += channel.waiting;
    return count;
  }

  open(sessionId: string): Channel {
    const code = this.freshCode();
    const channel: Channel = new Channel(
      code,
      this.now(),
      sessionId,
      this.ttlMs,
      (command, agent) => this.options.onClaim?.(channel, command, agent),
      this.options.newChannelId?.() ?? `channel-${code}`,
    );
    this.byCode.set(channel.code, channel);
    this.byId.set(channel.id, channel);
    return channel;
  }

  /** A new code for the same channel (the old one stops working); its ten minutes start again. */
  renew(channel: Channel): void {
    if (channel.closed) return;
    this.byCode.delete(channel.code);
    channel.code = this.freshCode();
    channel.issuedAt = this.now();
    this.byCode.set(channel.code, channel);
  }

  /**
   * An agent presented the channel's code: the code is spent (it admits one
   * agent) and the channel gets a new one, shown in the page. Done in the
   * same synchronous step as the lookup, so two agents racing with one code
   * cannot both pass as its holder.
   */
  spend(channel: Channel): void {
    if (channel.closed) return;
    this.spent.set(channel.code, channel);
    this.renew(channel);
  }

  /** Codes are compared as typed: case and surrounding spaces do not matter. */
  lookup(code: string): { ok: true; channel: Channel } | { ok: false; problem: JoinProblem } {
    const typed = code.trim().toUpperCase();
    const channel = this.byCode.get(typed);
    if (!channel) {
      const spentBy = this.spent.get(typed);
      return { ok: false, problem: spentBy ? "used" : this.expired.has(typed) ? "expired" : "unknown-code" };
    }
    if (channel.closed) return { ok: false, problem: "closed" };
    if (channel.isExpired(this.now())) return { ok: false, problem: "expired" };
    return { ok: true, channel };
  }

  /** The open channel with this id whose current code is `code` (a page resuming after a reload). */
  resumable(channelId: string, code: string): Channel | undefined {
    const channel = this.byId.get(channelId);
    return channel && !channel.closed && channel.code === code.trim().toUpperCase() ? channel : undefined;
  }

  close(channel: Channel): void {
    if (!channel.used && channel.isExpired(this.now())) this.expired.add(channel.code);
    channel.close();
    this.byId.delete(channel.id);
    if (this.byCode.get(channel.code) === channel) this.byCode.delete(channel.code);
    for (const [code, owner] of this.spent) if (owner === channel) this.spent.delete(code);
  }

  get size(): number {
    return this.byCode.size;
  }
}
