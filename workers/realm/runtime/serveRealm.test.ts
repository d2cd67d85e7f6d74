/**
 * The realm end of the protocol over a real MessageChannel, with a scripted
 * executor and the test as the host.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  ABORT,
  BLOCK,
  CALL,
  CANCEL,
  EXEC_EVENT,
  FLUSH,
  HEARTBEAT,
  PING,
  READY,
  RESULT,
  TOOLS,
  WIRE_VERSION,
} from "../../../src/wire/constants";
import type { ToolDescriptor } from "../../../src/wire/capabilities";
import type { ExecEvent } from "../../../src/wire/events";
import type { HostMessage, RealmMessage } from "../../../src/wire/types";
import { serveRealm, type RealmExecutor } from "./serveRealm";

const ports: MessagePort[] = [];
afterEach(() => {
  for (const port of ports.splice(0)) port.close();
});

function start(
  options: {
    throwOn?: string;
    onUiEvent?: (message: unknown) => void;
    onTools?: (tools: ToolDescriptor[]) => void;
    /** What the realm did in order: "ready" (posted), "warm-up", then the executor's calls. */
    order?: string[];
  } = {},
) {
  const channel = new MessageChannel();
  ports.push(channel.port1, channel.port2);
  const host = channel.port1;
  const fromRealm: RealmMessage[] = [];
  host.onmessage = (event: MessageEvent<RealmMessage>) => void fromRealm.push(event.data);
  const calls: string[] = options.order ?? [];
  let emit!: (event: ExecEvent) => void;
  let release!: () => void;
  let idle = Promise.resolve();
  const executor: RealmExecutor = {
    beginReply: () => void calls.push("begin"),
    handleBlock: (event) => {
      if (event.type === "block-start") {
        calls.push(
          event.kind === "code" ? `open ${event.index}@${event.line}` : `data ${event.index} ${event.id}@${event.line}`,
        );
      } else if (event.type === "block-delta") {
        if (options.throwOn === event.text) throw new Error("executor bug");
        calls.push(`push ${event.index} ${event.text}`);
      } else {
        calls.push(`end ${event.index}${event.unterminated ? " unterminated" : ""}`);
      }
    },
    idle: () => idle,
    abort: () => {
      calls.push("abort");
      release?.();
    },
  };
  const busy = () => {
    idle = new Promise((done) => (release = done));
  };
  let warmed = false;
  let pulse: () => void = () => {};
  const channel2 = serveRealm({
    port: channel.port2,
    createExecutor: (onEvent, onBusy) => {
      emit = onEvent;
      pulse = onBusy;
      return executor;
    },
    warmUp: () => {
      warmed = true;
      options.order?.push("warm-up");
    },
    onUiEvent: options.onUiEvent,
    onTools: options.onTools,
  });
  const send = (message: HostMessage) => host.postMessage(message);
  return {
    send,
    fromRealm,
    calls,
    emit: (event: ExecEvent) => emit(event),
    busy,
    warmed: () => warmed,
    channel: channel2,
    pulse: () => pulse(),
  };
}

const tick = (ms = 10) => new Promise((done) => setTimeout(done, ms));

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

describe("serveRealm", () => {
  it("announces READY with its wire version, then warms up before it handles anything the host sent", async () => {
    const order: string[] = [];
    const postMessage = MessagePort.prototype.postMessage;
    // Note the moment READY leaves, in the order of the realm's own steps.
    MessagePort.prototype.postMessage = function (this: MessagePort, message: unknown, ...rest: never[]) {
      if ((message as { type?: string } | null)?.type === READY) order.push("ready");
      return postMessage.call(this, message, ...rest);
    } as typeof postMessage;
    let realm: ReturnType<typeof start>;
    try {
      realm = start({ order });
    } finally {
      MessagePort.prototype.postMessage = postMessage;
    }
    expect(order).toEqual(["ready", "warm-up"]);
    realm.send({ type: BLOCK, event: { type: "begin-reply" } });
    await eventually(() => expect(order).toEqual(["ready", "warm-up", "begin"]));
    await eventually(() =>
      expect(realm.fromRealm[0]).toMatchObject({ type: READY, version: WIRE_VERSION, loadMs: 0, setupMs: 0 }),
    );
    expect(realm.warmed()).toBe(true);
  });

  it("maps host messages onto the executor in order and answers pings", async () => {
    const realm = start();
    realm.send({ type: BLOCK, event: { type: "begin-reply" } });
    realm.send({ type: BLOCK, event: { type: "block-start", index: 1, kind: "code", line: 4 } });
    realm.send({ type: BLOCK, event: { type: "block-delta", index: 1, text: "a();" } });
    realm.send({ type: BLOCK, event: { type: "block-end", index: 1, unterminated: true } });
    realm.send({ type: PING, seq: 3 });
    await eventually(() => expect(realm.fromRealm).toContainEqual({ type: HEARTBEAT, seq: 3 }));
    expect(realm.calls).toEqual(["begin", "open 1@4", "push 1 a();", "end 1 unterminated"]);
  });

  it("says it is busy by repeating the last heartbeat it answered, and not before it answered one", async () => {
    const realm = start();
    realm.pulse();
    realm.send({ type: PING, seq: 7 });
    await eventually(() => expect(realm.fromRealm).toContainEqual({ type: HEARTBEAT, seq: 7 }));
    realm.pulse();
    await eventually(() =>
      expect(realm.fromRealm.filter((message) => message.type === HEARTBEAT)).toEqual([
        { type: HEARTBEAT, seq: 7 },
        { type: HEARTBEAT, seq: 7 },
      ]),
    );
  });

  it("forwards executor events", async () => {
    const realm = start();
    realm.emit({ type: "block-done", block: 2 });
    await eventually(() =>
      expect(realm.fromRealm).toContainEqual({ type: EXEC_EVENT, event: { type: "block-done", block: 2 } }),
    );
  });

  it("answers FLUSH when the executor is idle, and not at all once cancelled", async () => {
    const realm = start();
    realm.busy();
    realm.send({ type: CALL, id: 1, method: FLUSH, payload: null, timeoutMs: null });
    realm.send({ type: CALL, id: 2, method: FLUSH, payload: null, timeoutMs: null });
    realm.send({ type: CANCEL, id: 2 });
    realm.send({ type: PING, seq: 1 });
    await eventually(() => expect(realm.fromRealm).toContainEqual({ type: HEARTBEAT, seq: 1 }));
    expect(realm.fromRealm.filter((message) => message.type === RESULT)).toEqual([]);
    realm.send({ type: CALL, id: 3, method: ABORT, payload: null, timeoutMs: 1_000 });
    await eventually(() =>
      expect(realm.fromRealm.filter((message) => message.type === RESULT)).toEqual([
        { type: RESULT, id: 1, ok: true, value: null },
        { type: RESULT, id: 3, ok: true, value: null },
      ]),
    );
    expect(realm.calls).toContain("abort");
  });

  it("takes the host's TOOLS call: hands the list over whole, in port order, and answers null", async () => {
    const heard: string[][] = [];
    const realm = start({ onTools: (tools) => void heard.push(tools.map((tool) => tool.name)) });
    const tool: ToolDescriptor = {
      name: "search",
      server: "films",
      tool: "search",
      description: "Find films",
      inputSchema: { type: "object" },
      readOnly: true,
    };
    realm.send({ type: CALL, id: 7, method: TOOLS, payload: { tools: [tool] }, timeoutMs: null });
    realm.send({ type: CALL, id: 8, method: TOOLS, payload: { tools: [] }, timeoutMs: null });
    await eventually(() =>
      expect(realm.fromRealm.filter((message) => message.type === RESULT)).toEqual([
        { type: RESULT, id: 7, ok: true, value: null },
        { type: RESULT, id: 8, ok: true, value: null },
      ]),
    );
    expect(heard).toEqual([["search"], []]);
  });

  it("reports an executor that throws instead of dying", async () => {
    const realm = start({ throwOn: "boom" });
    realm.send({ type: BLOCK, event: { type: "block-delta", index: 4, text: "boom" } });
    realm.send({ type: PING, seq: 1 });
    await eventually(() => expect(realm.fromRealm).toContainEqual({ type: HEARTBEAT, seq: 1 }));
    expect(realm.fromRealm).toContainEqual({
      type: EXEC_EVENT,
      event: {
        type: "error",
        error: { code: "runtime", name: "RealmInternalError", message: "Error: executor bug", block: 4 },
      },
    });
  });

  it("carries mount messages out and UI events in", async () => {
    const uiEvents: unknown[] = [];
    const realm = start({ onUiEvent: (message) => void uiEvents.push(message) });
    realm.channel.post({ type: "mount", kind: "close", mountId: "m1" });
    realm.send({ type: "ui-event", mountId: "m1", nodeId: 3, handler: "onClick", payload: {} });
    await eventually(() => expect(uiEvents).toHaveLength(1));
    expect(uiEvents[0]).toEqual({ type: "ui-event", mountId: "m1", nodeId: 3, handler: "onClick", payload: {} });
    expect(realm.fromRealm).toContainEqual({ type: "mount", kind: "close", mountId: "m1" });
  });
});
