import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ChannelRegistry, makeCode, type Channel } from "../bridge/channels";
import type { CommandInput } from "../src/wire/bridge";

let codes = 0;
function registry(now: { t: number }, ttlMs = 600_000) {
  return new ChannelRegistry({ now: () => now.t, ttlMs, newCode: () => `CODE-${String(++codes).padStart(4, "0")}` });
}
const command = (commandId: string, extra: Partial<CommandInput> = {}): CommandInput => ({
  commandId,
  sessionId: "s1",
  kind: "message",
  text: `do ${commandId}`,
  capturedAt: 1,
  ...extra,
});
const never = new AbortController().signal;
/** The next command for `agent`, or "timeout" when none comes within the wait's 10 ms (fake time: the channel's own timer). */
async function next(channel: Channel, agent: string, cursor: number) {
  const waiting = channel.wait(agent, cursor, 10, never);
  await vi.advanceTimersByTimeAsync(10);
  const outcome = await waiting;
  return outcome.kind === "command" ? outcome.command.commandId : outcome.kind;
}
beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe("channel codes", () => {
  it("an unused code expires after its time to live; a used one does not; a renewed code replaces the old one", () => {
    const clock = { t: 1_000 };
    const channels = registry(clock, 10 * 60_000);
    const channel = channels.open("s1");
    expect(channels.lookup(channel.code)).toMatchObject({ ok: true });
    expect(channels.lookup(channel.code.toLowerCase())).toMatchObject({ ok: true });
    expect(channels.lookup("NOPE-NOPE")).toEqual({ ok: false, problem: "unknown-code" });
    clock.t += 10 * 60_000;
    expect(channels.lookup(channel.code)).toEqual({ ok: false, problem: "expired" });

    const old = channel.code;
    channels.renew(channel);
    expect(channels.lookup(old)).toEqual({ ok: false, problem: "unknown-code" });
    expect(channels.lookup(channel.code)).toMatchObject({ ok: true });
    channel.join("a");
    clock.t += 60 * 60_000;
    expect(channels.lookup(channel.code)).toMatchObject({ ok: true });
  });

  it("a closed channel's code stops working at once and its waits answer closed", async () => {
    const channels = registry({ t: 0 });
    const channel = channels.open("s1");
    channel.join("a");
    const waiting = channel.wait("a", 0, 60_000, never);
    channels.close(channel);
    await expect(waiting).resolves.toEqual({ kind: "closed" });
    expect(channels.lookup(channel.code).ok).toBe(false);
    await expect(channel.wait("a", 0, 10, never)).resolves.toEqual({ kind: "closed" });
    expect(() => channel.add(command("c1"))).toThrow(/channel closed/);
  });

  it("makeCode uses only unambiguous symbols, uniformly", () => {
    let state = 7;
    const random = (count: number) =>
      Uint8Array.from({ length: count }, () => (state = (state * 1103515245 + 12345) % 256));
    for (let index = 0; index < 200; index += 1)
      expect(makeCode(random)).toMatch(/^[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}$/);
  });
});

describe("mailbox: claims and cursors", () => {
  it("a command waited for is delivered once, with a growing sequence number", async () => {
    const channel = registry({ t: 0 }).open("s1");
    channel.join("a");
    const waiting = channel.wait("a", 0, 60_000, never);
    channel.add(command("c1"));
    const outcome = await waiting;
    expect(outcome).toMatchObject({ kind: "command", command: { commandId: "c1", seq: 1, claimedBy: "a" } });
    expect(channel.add(command("c2")).seq).toBe(2);
  });

  it("two agents: exactly one claims each command, the other gets the next", async () => {
    const channel = registry({ t: 0 }).open("s1");
    channel.join("a");
    channel.join("b");
    const first = channel.wait("a", 0, 60_000, never);
    const second = channel.wait("b", 0, 60_000, never);
    channel.add(command("c1"));
    expect(await first).toMatchObject({ command: { commandId: "c1", claimedBy: "a" } });
    // b still waits: c1 is a's.
    channel.add(command("c2"));
    expect(await second).toMatchObject({ command: { commandId: "c2", claimedBy: "b" } });
    // b, asking again from cursor 0, never gets a's command.
    expect(await next(channel, "b", 0)).toBe("c2");
    expect(channel.holds("b", "c1")).toBeUndefined();
    expect(channel.holds("a", "c1")).toBeDefined();
  });

  it("after a timeout or a reconnect the cursor loses and repeats nothing", async () => {
    const channel = registry({ t: 0 }).open("s1");
    channel.join("a");
    expect(await next(channel, "a", 0)).toBe("timeout");
    channel.add(command("c1"));
    expect(await next(channel, "a", 0)).toBe("c1");
    channel.complete("c1");
    // The agent went away; commands arrive meanwhile.
    channel.leave("a");
    channel.add(command("c2"));
    channel.add(command("c3"));
    // It comes back as a new connection with its cursor.
    channel.join("a2");
    expect(channel.joinCursor()).toBe(1);
    const seen: string[] = [];
    let cursor = 1;
    for (;;) {
      const waiting = channel.wait("a2", cursor, 10, never);
      await vi.advanceTimersByTimeAsync(10);
      const outcome = await waiting;
      if (outcome.kind !== "command") break;
      seen.push(outcome.command.commandId);
      cursor = outcome.command.seq;
    }
    expect(seen).toEqual(["c2", "c3"]);
  });

  it("an aborted wait claims nothing", async () => {
    const channel = registry({ t: 0 }).open("s1");
    channel.join("a");
    channel.join("b");
    const abort = new AbortController();
    const waiting = channel.wait("a", 0, 60_000, abort.signal);
    abort.abort();
    expect(await waiting).toMatchObject({ kind: "timeout" });
    channel.add(command("c1"));
    expect(await next(channel, "b", 0)).toBe("c1");
  });

  it("what a departed agent held and did not finish goes to another agent", async () => {
    const channel = registry({ t: 0 }).open("s1");
    channel.join("a");
    channel.join("b");
    channel.add(command("c1"));
    expect(await next(channel, "a", 0)).toBe("c1");
    const waiting = channel.wait("b", 0, 60_000, never);
    channel.leave("a");
    expect(await waiting).toMatchObject({ command: { commandId: "c1", claimedBy: "b" } });
  });

  it("an answer goes to the agent that asked while it is joined", async () => {
    const channel = registry({ t: 0 }).open("s1");
    channel.join("a");
    channel.join("b");
    channel.add(command("c1"));
    expect(await next(channel, "a", 0)).toBe("c1");
    channel.add(command("c2", { kind: "answer", answerTo: { commandId: "c1", question: "Which city?" } }), "a");
    expect(await next(channel, "b", 0)).toBe("timeout");
    expect(await next(channel, "a", 1)).toBe("c2");
  });

  it("a new agent's cursor starts before the oldest command nobody holds", async () => {
    const channel = registry({ t: 0 }).open("s1");
    channel.join("a");
    channel.add(command("c1"));
    channel.add(command("c2"));
    expect(await next(channel, "a", 0)).toBe("c1");
    expect(channel.joinCursor()).toBe(1);
    channel.join("b");
    expect(await next(channel, "b", channel.joinCursor())).toBe("c2");
    expect(channel.joinCursor()).toBe(2);
  });
});
