/**
 * Output belongs to a UI-event turn by identity, not by timing: the real
 * agent loop, protocol parser, executor and UI runtime in one process (the
 * browser adds only the port, which carries the same ids). A click's UI
 * event carries an id; whatever its handler causes — at once, after an
 * `await`, in a timer it starts — comes back tagged with it.
 */
import { describe, expect, it } from "vitest";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { Agent, type AgentState, type ChatMessage } from "../src/agent/agent";
import { createBlockRouter } from "../src/agent/routeBlocks";
import { createProtocolParser } from "../src/protocol/parser";
import type { ExecEvent } from "../src/wire/events";
import { MOUNT_OPEN, MOUNT_OPS, type MountRealmMessage } from "../src/wire/mount";
import type { RealmTimers } from "../workers/realm/createRealm";
import { createInProcessRealm, type InProcessRealm } from "./inProcessRealm";

const FENCE = "```";
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** Plays `first`, then `rest` for every later call; records each prompt. */
function scriptedModel(first: string, rest = "Noted.") {
  const prompts: string[] = [];
  const model = new MockLanguageModelV3({
    doStream: async (options) => {
      prompts.push(JSON.stringify(options.prompt));
      const text = prompts.length === 1 ? first : rest;
      const chunks: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: text },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
      ];
      return { stream: simulateReadableStream({ chunks, chunkDelayInMs: 0, initialDelayInMs: 0 }) };
    },
  });
  return { model, prompts };
}

function createAgent(firstReply: string, timers?: RealmTimers) {
  const realm = createInProcessRealm({ timers });
  const { model, prompts } = scriptedModel(firstReply);
  const agent = new Agent({
    model: () => model,
    system: "",
    realm,
    createParser: createProtocolParser,
    describeError: (error) => ({ code: "unknown", message: String(error), retryable: false }),
    wrapFeedback: (body, source) => `[${source}]\n${body}`,
    maxTurns: 4,
  });
  return { agent, realm, prompts };
}

function until(agent: Agent, predicate: (state: AgentState) => boolean, timeoutMs = 15_000): Promise<AgentState> {
  return new Promise((resolve, reject) => {
    if (predicate(agent.getState())) return resolve(agent.getState());
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`timed out; phase ${agent.getState().phase}`));
    }, timeoutMs);
    const stop = agent.subscribe((state) => {
      if (!predicate(state)) return;
      clearTimeout(timer);
      stop();
      resolve(state);
    });
  });
}

/** A counter the person clicks (it changes at once and after an await), and a clock an interval ticks on its own. */
const COUNTER_AND_CLOCK =
  'mount({ title: "Counter", ui: () => { const [n, setN] = useState(0)\n' +
  '  return <div><Button onClick={async () => { setN((x) => x + 1); console.log("added"); await sleep(30); setN((x) => x + 10) }}>Add</Button><p>count {n}</p></div> } })\n' +
  'mount({ title: "Clock", ui: () => { const [t, setT] = useState(0)\n' +
  "  useEffect(() => { const id = setInterval(() => setT((x) => x + 1), 60); return () => clearInterval(id) }, [])\n" +
  "  return <p>tick {t}</p> } })\n";

const uiFeedback = (messages: ChatMessage[]) =>
  messages.flatMap((message) => (message.role === "feedback" && message.source === "ui-event" ? [message.body] : []));

/** The person clicks the mount's button: the page notes the action and sends its id along. */
function click(agent: Agent, realm: InProcessRealm, text: string): void {
  const open = realm.host.messages.find((message) => message.kind === MOUNT_OPEN)!;
  const eventId = agent.noteUiEvent();
  expect(realm.sendUiEvent({ ...realm.host.clickEvent(open.mountId, text), eventId })).toBe(true);
}

describe("UI-event turns by identity", () => {
  it("a click whose handler logs after `await sleep(3000)` is still credited to that click's UI-event turn", async () => {
    // The model's clock: a timer of a second or more fires only when the test lets it, so the handler's
    // output comes after the click's own turn had every chance to start, without waiting 3 s of real time.
    const held: (() => void)[] = [];
    const timers: RealmTimers = {
      setTimeout: (run, ms) => (Number(ms) >= 1_000 ? void held.push(run) : setTimeout(run, ms)),
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
      setInterval: (run, ms) => setInterval(run, ms),
      clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
    };
    const { agent, realm, prompts } = createAgent(
      `Here.\n\n${FENCE}tsx agent.run\nmount({ ui: () => <Button onClick={async () => { await sleep(3000); console.log("late result") }}>Go</Button> })\n${FENCE}\n`,
      timers,
    );
    await agent.send("Give me a slow button");
    expect(agent.getState().phase).toBe("done");
    expect(prompts).toHaveLength(1);

    click(agent, realm, "Go");
    // The handler sleeps; the realm has answered a flush since, and no turn started.
    await expect.poll(() => held.length, { timeout: 10_000 }).toBe(1);
    await realm.flush(10_000);
    expect(prompts).toHaveLength(1);
    expect(agent.getState().phase).toBe("done");
    held[0]();
    await expect.poll(() => prompts.length, { timeout: 10_000 }).toBe(2);
    const after = await until(agent, (state) => state.phase === "done");
    expect(uiFeedback(after.messages)).toHaveLength(1);
    expect(uiFeedback(after.messages)[0]).toContain("late result");
    expect(prompts[1]).toContain("late result");
  }, 30_000);

  it("output of a timer started by an earlier reply is never credited to a later click", async () => {
    const { agent, realm } = createAgent(
      `Here.\n\n${FENCE}tsx agent.run\n` +
        // Starts ticking after the turn has ended, and stops by itself.
        "setTimeout(() => { let n = 0; const t = setInterval(() => { n += 1; console.log(`tick ${n}`); if (n >= 40) clearInterval(t) }, 15) }, 50)\n" +
        'mount({ ui: () => <Button onClick={() => console.log("clicked")}>Press</Button> })\n' +
        `${FENCE}\n`,
    );
    const ticks: string[] = [];
    realm.subscribe((event: ExecEvent | { type: string }) => {
      if (event.type === "console" && (event as { text: string }).text.startsWith("tick"))
        ticks.push((event as { text: string }).text);
    });
    await agent.send("Give me a button");
    await expect.poll(() => ticks.length, { timeout: 5_000 }).toBeGreaterThan(2);

    click(agent, realm, "Press");
    await expect.poll(() => ticks.length, { timeout: 10_000 }).toBe(40);
    const after = await until(agent, (state) => uiFeedback(state.messages).length === 1 && state.phase === "done");
    const [event] = uiFeedback(after.messages);
    expect(event).toContain("clicked");
    expect(event).not.toContain("tick");
  }, 30_000);

  it("the realm tags what a handler causes — at once, after an await, in its timers — and nothing else", async () => {
    const realm = createInProcessRealm();
    const events: Extract<ExecEvent, { type: "console" | "error" }>[] = [];
    realm.subscribe((event) => {
      if (event.type === "console" || event.type === "error") events.push(event);
    });
    const parser = createProtocolParser();
    const route = createBlockRouter((event) => realm.sendBlock(event));
    realm.beginReply();
    route(
      parser.push(
        `${FENCE}tsx agent.run\n` +
          'setTimeout(() => console.log("reply timer"), 200)\n' +
          "mount({ ui: () => <Button onClick={async () => {\n" +
          '  console.log("now"); setTimeout(() => console.log("handler timer"), 20)\n' +
          '  await sleep(30); console.log("after await"); throw new Error("handler failed")\n' +
          "}}>Go</Button> })\n" +
          `${FENCE}\n`,
      ),
    );
    route(parser.end());
    await realm.flush(10_000);
    const open = realm.host.messages.find((message) => message.kind === MOUNT_OPEN)!;
    realm.sendUiEvent({ ...realm.host.clickEvent(open.mountId, "Go"), eventId: 41 });
    await expect.poll(() => events.length, { timeout: 5_000 }).toBe(5);
    const summary = events.map((event) => [event.type === "console" ? event.text : event.error.message, event.cause]);
    expect(summary).toEqual(
      expect.arrayContaining([
        ["now", 41],
        ["handler timer", 41],
        ["after await", 41],
        [expect.stringContaining("handler failed"), 41],
        ["reply timer", undefined],
      ]),
    );
  }, 30_000);

  it("output in a `catch` or `finally` after a rejected await inside a handler is credited to the click", async () => {
    const realm = createInProcessRealm();
    const events: Extract<ExecEvent, { type: "console" }>[] = [];
    realm.subscribe((event) => {
      if (event.type === "console") events.push(event);
    });
    const parser = createProtocolParser();
    const route = createBlockRouter((event) => realm.sendBlock(event));
    realm.beginReply();
    route(
      parser.push(
        `${FENCE}tsx agent.run\n` +
          'const fail = async () => { await sleep(10); throw new Error("down") }\n' +
          "mount({ ui: () => <Button onClick={async () => {\n" +
          '  try { await fail() } catch (error) { console.log("caught", error.message) } finally { console.log("finally") }\n' +
          '  try { await Promise.reject(new Error("at once")) } catch { console.log("caught again") }\n' +
          "}}>Go</Button> })\n" +
          `${FENCE}\n`,
      ),
    );
    route(parser.end());
    await realm.flush(10_000);
    const open = realm.host.messages.find((message) => message.kind === MOUNT_OPEN)!;
    realm.sendUiEvent({ ...realm.host.clickEvent(open.mountId, "Go"), eventId: 42 });
    await expect.poll(() => events.length, { timeout: 5_000 }).toBe(3);
    expect(events.map((event) => [event.text, event.cause])).toEqual([
      ["caught down", 42],
      ["finally", 42],
      ["caught again", 42],
    ]);
  }, 30_000);

  it("a mount changed by a click's handler (at once and after an await) carries its id; one an unrelated interval changes does not", async () => {
    const realm = createInProcessRealm();
    const parser = createProtocolParser();
    const route = createBlockRouter((event) => realm.sendBlock(event));
    realm.beginReply();
    route(parser.push(`${FENCE}tsx agent.run\n` + COUNTER_AND_CLOCK + `${FENCE}\n`));
    route(parser.end());
    await realm.flush(10_000);
    const opened = realm.host.messages.filter((message) => message.kind === MOUNT_OPEN);
    const counter = opened.find((message) => message.title === "Counter")!;
    const clock = opened.find((message) => message.title === "Clock")!;
    const ops: Extract<MountRealmMessage, { kind: typeof MOUNT_OPS }>[] = [];
    realm.subscribeMounts((message) => {
      if (message.kind === MOUNT_OPS) ops.push(message);
    });
    expect(realm.sendUiEvent({ ...realm.host.clickEvent(counter.mountId, "Add"), eventId: 7 })).toBe(true);
    // The count reaches 11 only after the handler's await; the clock keeps ticking meanwhile.
    await expect.poll(() => realm.host.html(counter.mountId), { timeout: 5_000 }).toContain("count 11");
    await expect
      .poll(() => ops.filter((message) => message.mountId === clock.mountId).length, { timeout: 5_000 })
      .toBeGreaterThan(2);
    const counterOps = ops.filter((message) => message.mountId === counter.mountId);
    expect(counterOps.length).toBeGreaterThan(0);
    expect(counterOps.map((message) => message.eventId)).toEqual(counterOps.map(() => 7));
    expect(ops.filter((message) => message.mountId === clock.mountId).map((message) => message.eventId)).toEqual(
      ops.filter((message) => message.mountId === clock.mountId).map(() => undefined),
    );
    realm.abort();
  }, 30_000);

  it("the click's UI-event turn names the mount its handler changed, not the one an interval changes", async () => {
    const { agent, realm, prompts } = createAgent(
      `Here.\n\n${FENCE}tsx agent.run\n` + COUNTER_AND_CLOCK + `${FENCE}\n`,
    );
    await agent.send("Give me a counter and a clock");
    expect(agent.getState().phase).toBe("done");
    const opened = realm.host.messages.filter((message) => message.kind === MOUNT_OPEN);
    const counter = opened.find((message) => message.title === "Counter")!;
    const eventId = agent.noteUiEvent();
    expect(realm.sendUiEvent({ ...realm.host.clickEvent(counter.mountId, "Add"), eventId })).toBe(true);
    await expect.poll(() => prompts.length, { timeout: 10_000 }).toBe(2);
    const after = await until(agent, (state) => state.phase === "done");
    const [event] = uiFeedback(after.messages);
    expect(event).toContain("added");
    expect(event).toContain('mount "Counter" updated');
    expect(event).not.toContain("Clock");
    expect(prompts[1]).toContain('mount \\"Counter\\" updated');
    realm.abort();
  }, 30_000);
});
