/**
 * The host end of the protocol over a real MessageChannel, against a
 * scripted realm on the other port.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ABORT, BLOCK, CALL, CANCEL, EXEC_EVENT, FLUSH, HEARTBEAT, PING, READY, RESULT } from "../wire/constants";
import type { HostMessage } from "../wire/types";
import { createRealmConnection, type RealmConnectionHandlers } from "./createRealmConnection";
import { RealmHostError } from "./RealmHostError";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  vi.useRealTimers();
});

/** A connection plus the realm's end of the port, which records what the host sent. */
function connect(options: { answerPings?: boolean; held?: unknown[] } = {}) {
  const channel = new MessageChannel();
  const realm = channel.port2;
  const received: HostMessage[] = [];
  let onHostMessage: (message: HostMessage) => void = () => {};
  realm.onmessage = (event: MessageEvent<HostMessage>) => {
    received.push(event.data);
    if (event.data.type === PING && options.answerPings !== false)
      realm.postMessage({ type: HEARTBEAT, seq: event.data.seq });
    onHostMessage(event.data);
  };
  const handlers = {
    onReady: vi.fn(),
    onEvent: vi.fn(),
    onMount: vi.fn(),
    onInvalid: vi.fn(),
    onUnresponsive: vi.fn(),
    onClosed: vi.fn(),
  } satisfies RealmConnectionHandlers;
  let id = 0;
  // Date.now, so the heartbeat tests' fake clock drives the connection's judgement too.
  const connection = createRealmConnection({
    port: channel.port1,
    held: options.held,
    handlers,
    nextId: () => ++id,
    now: () => Date.now(),
  });
  cleanups.push(() => {
    connection.close(new RealmHostError("disposed", "test over"));
    realm.close();
  });
  return {
    connection,
    realm,
    received,
    handlers,
    onHost: (listener: typeof onHostMessage) => (onHostMessage = listener),
  };
}

const tick = (ms = 0) => new Promise((done) => setTimeout(done, ms));

/** Retry an expectation until it holds (messages take a turn of the event loop or more on a busy machine). */
async function eventually(check: () => void, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await tick(5);
    }
  }
}

/**
 * The heartbeat judges silence by the clock. On a loaded machine real timers
 * fire late and a healthy realm's answer can look late, so these tests run on
 * a fake clock: ticks, pings and pulses happen when the test moves time. The
 * messages still cross the real channel; between steps the test waits turns
 * of the event loop (which deliver them), never wall-clock time.
 */
function useFakeClock() {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
}

/** Let posted messages arrive: a port delivers within a turn or two of the event loop, however loaded the machine. */
async function deliver(): Promise<void> {
  for (let turn = 0; turn < 6; turn += 1) await new Promise((done) => setImmediate(done));
}

/** Move the fake clock `ms` forward in steps, delivering messages after each step. */
async function advance(ms: number, stepMs = 5): Promise<void> {
  for (let moved = 0; moved < ms; moved += stepMs) {
    vi.advanceTimersByTime(stepMs);
    await deliver();
  }
}

/** Move the fake clock until the expectation holds (at most `maxMs`). */
async function advanceUntil(check: () => void, maxMs = 2_000, stepMs = 5): Promise<void> {
  for (let moved = 0; ; moved += stepMs) {
    try {
      return check();
    } catch (error) {
      if (moved >= maxMs) throw error;
    }
    vi.advanceTimersByTime(stepMs);
    await deliver();
  }
}

describe("createRealmConnection", () => {
  it("delivers validated events and READY", async () => {
    const { realm, handlers } = connect();
    realm.postMessage({ type: READY, version: 1, loadMs: 50, setupMs: 5 });
    realm.postMessage({ type: EXEC_EVENT, event: { type: "block-done", block: 0 } });
    await eventually(() => expect(handlers.onEvent).toHaveBeenCalled());
    expect(handlers.onReady).toHaveBeenCalledWith(1, { loadMs: 50, setupMs: 5 });
    expect(handlers.onEvent).toHaveBeenCalledWith({ type: "block-done", block: 0 });
    expect(handlers.onInvalid).not.toHaveBeenCalled();
  });

  it("handles what the realm sent before it connected (an early realm's READY) first, validated, once the caller has the connection", async () => {
    const order: string[] = [];
    const held = [
      { type: READY, version: 1, loadMs: 50, setupMs: 5, smuggled: "dropped" },
      { type: READY, version: "1" },
      { type: EXEC_EVENT, event: { type: "block-done", block: 0 } },
    ];
    const connected = connect({ held });
    connected.handlers.onReady.mockImplementation(() => order.push("ready"));
    connected.handlers.onInvalid.mockImplementation(() => order.push("invalid"));
    connected.handlers.onEvent.mockImplementation((event) => order.push(`event ${event.block}`));
    // Nothing is handled inside createRealmConnection itself: its caller has not stored the connection yet.
    expect(order).toEqual([]);
    connected.realm.postMessage({ type: EXEC_EVENT, event: { type: "block-done", block: 1 } });
    await eventually(() => expect(order).toEqual(["ready", "invalid", "event 0", "event 1"]));
    expect(connected.handlers.onReady).toHaveBeenCalledWith(1, { loadMs: 50, setupMs: 5 });
  });

  it("delivers validated mount messages to onMount", async () => {
    const { realm, handlers } = connect();
    realm.postMessage({ type: "mount", kind: "close", mountId: "m1", extra: "dropped" });
    realm.postMessage({ type: "mount", kind: "ops", mountId: "m1", ops: "not ops" });
    await eventually(() => expect(handlers.onInvalid).toHaveBeenCalledTimes(1));
    expect(handlers.onMount).toHaveBeenCalledWith({ type: "mount", kind: "close", mountId: "m1" });
    expect(handlers.onEvent).not.toHaveBeenCalled();
  });

  it("drops and reports malformed messages and answers nobody asked for", async () => {
    const { realm, handlers } = connect();
    realm.postMessage({ type: EXEC_EVENT, event: { type: "console", level: "log" } });
    realm.postMessage("hello");
    realm.postMessage({ type: RESULT, id: 99, ok: true, value: null });
    await eventually(() => expect(handlers.onInvalid).toHaveBeenCalledTimes(3));
    expect(handlers.onEvent).not.toHaveBeenCalled();
  });

  it("resolves a flush when the realm answers it, after the messages sent before it", async () => {
    const { connection, received, realm, onHost } = connect();
    onHost((message) => {
      if (message.type === CALL && message.method === FLUSH)
        realm.postMessage({ type: RESULT, id: message.id, ok: true, value: null });
    });
    connection.send({ type: BLOCK, event: { type: "block-delta", index: 0, text: "a;" } });
    await connection.request(FLUSH, { timeoutMs: 1_000 });
    expect(received.map((message) => message.type)).toEqual([BLOCK, CALL]);
    expect(received[1]).toMatchObject({ type: CALL, method: FLUSH, payload: null, timeoutMs: 1_000 });
  });

  it("times a request out, cancels it in the realm and ignores a late answer", async () => {
    const { connection, received, realm, handlers } = connect();
    const error = await connection.request(FLUSH, { timeoutMs: 30 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RealmHostError);
    expect((error as RealmHostError).code).toBe("timeout");
    await eventually(() => expect(received.some((message) => message.type === CANCEL)).toBe(true));
    const flush = received.find((message) => message.type === CALL && message.method === FLUSH)!;
    expect(received).toContainEqual({ type: CANCEL, id: (flush as { id: number }).id });
    realm.postMessage({ type: RESULT, id: (flush as { id: number }).id, ok: true, value: null });
    // Late answers are reported, never resolve anything.
    await eventually(() => expect(handlers.onInvalid).toHaveBeenCalledTimes(1));
  });

  it("cancels a request through its AbortSignal", async () => {
    const { connection, received } = connect();
    const controller = new AbortController();
    const pending = connection.request(FLUSH, { timeoutMs: null, signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: "cancelled" });
    await eventually(() => expect(received.at(-1)).toMatchObject({ type: CANCEL }));
    expect(received.find((message) => message.type === CALL)).toMatchObject({ method: FLUSH, timeoutMs: null });
  });

  it("rejects pending requests with the close reason", async () => {
    const { connection } = connect();
    const pending = connection.request(ABORT, { timeoutMs: null });
    connection.close(new RealmHostError("realm-reset", "gone"));
    await expect(pending).rejects.toMatchObject({ code: "realm-reset" });
    await expect(connection.request(FLUSH)).rejects.toMatchObject({ code: "realm-reset" });
  });

  it("resolves an abort when the realm says it stopped", async () => {
    const { connection, realm, onHost } = connect();
    onHost((message) => {
      if (message.type === CALL && message.method === ABORT)
        realm.postMessage({ type: RESULT, id: message.id, ok: true, value: null });
    });
    await expect(connection.request(ABORT, { timeoutMs: 500 })).resolves.toBeUndefined();
  });

  it("keeps a realm that answers its heartbeat", async () => {
    useFakeClock();
    const { connection, handlers, received } = connect();
    connection.startHeartbeat({ intervalMs: 10, timeoutMs: 500 });
    await advance(300);
    expect(handlers.onUnresponsive).not.toHaveBeenCalled();
    expect(received.filter((message) => message.type === PING).length).toBeGreaterThan(5);
  });

  it("reports a realm that stops answering, once", async () => {
    useFakeClock();
    const { connection, handlers } = connect({ answerPings: false });
    connection.startHeartbeat({ intervalMs: 10, timeoutMs: 60 });
    await advanceUntil(() => expect(handlers.onUnresponsive).toHaveBeenCalled(), 200);
    await advance(100);
    expect(handlers.onUnresponsive).toHaveBeenCalledTimes(1);
  });

  it("does not count a heartbeat with the wrong sequence number", async () => {
    useFakeClock();
    const { connection, handlers, realm } = connect({ answerPings: false });
    connection.startHeartbeat({ intervalMs: 10, timeoutMs: 60 });
    const forger = setInterval(() => realm.postMessage({ type: HEARTBEAT, seq: 12345 }), 5);
    await advanceUntil(() => expect(handlers.onUnresponsive).toHaveBeenCalledTimes(1));
    clearInterval(forger);
  });

  it("while a statement runs, reports a silent realm at the busy limit, long before the overall timeout", async () => {
    useFakeClock();
    const { connection, handlers, realm, onHost } = connect({ answerPings: false });
    let answered = false;
    onHost((message) => {
      // Answers the first ping only, then goes silent: stuck where nothing can pulse.
      if (message.type === PING && !answered) {
        answered = true;
        realm.postMessage({ type: HEARTBEAT, seq: message.seq });
      }
    });
    connection.startHeartbeat({ intervalMs: 10, timeoutMs: 60_000, busy: { timeoutMs: 60, isBusy: () => true } });
    await advanceUntil(() => expect(handlers.onUnresponsive).toHaveBeenCalledTimes(1), 200);
  });

  it("keeps a running realm that pulses busy (repeats its last answered heartbeat) though it answers no new ping", async () => {
    useFakeClock();
    const { connection, handlers, realm, onHost } = connect({ answerPings: false });
    let answeredSeq = 0;
    onHost((message) => {
      if (message.type === PING && answeredSeq === 0) {
        answeredSeq = message.seq;
        realm.postMessage({ type: HEARTBEAT, seq: message.seq });
      }
    });
    // Guarded code that keeps progressing: the loop guard pulses from inside it.
    const pulses = setInterval(() => answeredSeq > 0 && realm.postMessage({ type: HEARTBEAT, seq: answeredSeq }), 5);
    cleanups.push(() => clearInterval(pulses));
    connection.startHeartbeat({ intervalMs: 10, timeoutMs: 200, busy: { timeoutMs: 60, isBusy: () => true } });
    await advance(500);
    expect(handlers.onUnresponsive).not.toHaveBeenCalled();
    clearInterval(pulses);
    // Once the pulses stop, the silence counts.
    await advanceUntil(() => expect(handlers.onUnresponsive).toHaveBeenCalledTimes(1));
  });

  it("does not take a pulse with any other sequence number for a busy realm", async () => {
    useFakeClock();
    const { connection, handlers, realm } = connect({ answerPings: false });
    const forger = setInterval(() => realm.postMessage({ type: HEARTBEAT, seq: 0 }), 5);
    cleanups.push(() => clearInterval(forger));
    connection.startHeartbeat({ intervalMs: 10, timeoutMs: 60_000, busy: { timeoutMs: 60, isBusy: () => true } });
    await advanceUntil(() => expect(handlers.onUnresponsive).toHaveBeenCalledTimes(1), 200);
  });

  it("does not apply the busy limit while no statement runs", async () => {
    useFakeClock();
    const { connection, handlers } = connect({ answerPings: false });
    connection.startHeartbeat({ intervalMs: 10, timeoutMs: 60_000, busy: { timeoutMs: 30, isBusy: () => false } });
    await advance(400);
    expect(handlers.onUnresponsive).not.toHaveBeenCalled();
  });

  it("probes an idle realm at the idle cadence and a running one at the busy cadence", async () => {
    useFakeClock();
    const { connection, handlers, received } = connect();
    let busy = false;
    const pings = () => received.filter((message) => message.type === PING).length;
    connection.startHeartbeat({
      intervalMs: 10,
      idleIntervalMs: 100,
      timeoutMs: 500,
      busy: { timeoutMs: 60, isBusy: () => busy },
    });
    await advance(1_000);
    // The first ping at the start, then one per idle round (not one per 10 ms).
    expect(pings()).toBeGreaterThanOrEqual(9);
    expect(pings()).toBeLessThanOrEqual(12);
    busy = true;
    connection.busyNow();
    await deliver();
    const atStart = pings();
    await advance(200);
    expect(pings() - atStart).toBeGreaterThanOrEqual(15);
    busy = false;
    await advance(50);
    const idleAgain = pings();
    await advance(500);
    expect(pings() - idleAgain).toBeLessThanOrEqual(6);
    expect(handlers.onUnresponsive).not.toHaveBeenCalled();
  });

  it("a statement silent from its start is reported at the busy limit, not an idle round later", async () => {
    useFakeClock();
    let answering = true;
    const { connection, handlers, realm, onHost } = connect({ answerPings: false });
    onHost((message) => {
      if (message.type === PING && answering) realm.postMessage({ type: HEARTBEAT, seq: message.seq });
    });
    let busy = false;
    connection.startHeartbeat({
      intervalMs: 10,
      idleIntervalMs: 1_000,
      timeoutMs: 60_000,
      busy: { timeoutMs: 60, isBusy: () => busy },
    });
    // An idle round has just passed: the next is ~1 s away.
    await advance(1_005);
    answering = false;
    busy = true;
    connection.busyNow();
    await advance(60);
    expect(handlers.onUnresponsive).not.toHaveBeenCalled();
    // Judged at the busy cadence: within a couple of rounds past the limit, far before the idle round.
    await advanceUntil(() => expect(handlers.onUnresponsive).toHaveBeenCalledTimes(1), 40);
  });

  it("probe() reports silence quickly", async () => {
    useFakeClock();
    const { connection, handlers } = connect({ answerPings: false });
    connection.probe(40);
    await advance(30);
    expect(handlers.onUnresponsive).not.toHaveBeenCalled();
    await advanceUntil(() => expect(handlers.onUnresponsive).toHaveBeenCalledTimes(1), 20);
  });
});
