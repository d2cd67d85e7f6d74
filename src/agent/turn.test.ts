import { describe, expect, it } from "vitest";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { createProtocolParser } from "../protocol/parser";
import type { BlockEvent } from "../wire/types";
import { InteractionLifecycle } from "./interactionLifecycle";
import { INITIAL_PHASE, nextPhase, type PhaseEvent } from "./nextPhase";
import { Turn, type TurnContext } from "./turn";
import type { AgentState, ChatMessage, RealmPort } from "./types";

/** A Turn alone: a scripted model, a realm that records blocks, and a plain timeline. */

const usage = {
  inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 4, text: 4, reasoning: 0 },
};

function model(text: string, finish: "stop" | "length" = "stop", throwsFirst?: unknown) {
  let calls = 0;
  const mock = new MockLanguageModelV3({
    doStream: async () => {
      calls += 1;
      if (throwsFirst !== undefined && calls === 1) throw throwsFirst;
      const chunks: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
      ];
      for (let at = 0; at < text.length; at += 4)
        chunks.push({ type: "text-delta", id: "t", delta: text.slice(at, at + 4) });
      chunks.push(
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: finish, raw: finish }, usage },
      );
      return { stream: simulateReadableStream({ chunks, chunkDelayInMs: 0, initialDelayInMs: 0 }) };
    },
  });
  return { mock, calls: () => calls };
}

function setup(language: MockLanguageModelV3, options: { describeError?: TurnContext["describeError"] } = {}) {
  const blocks: BlockEvent[] = [];
  const realm: RealmPort = {
    beginReply: () => undefined,
    sendBlock: (event) => void blocks.push(event),
    flush: async () => undefined,
    abort: () => undefined,
    subscribe: () => () => undefined,
  };
  let state: AgentState = { messages: [], phase: "idle", turn: 1, maxTurns: 10, canContinue: false };
  let phase = INITIAL_PHASE;
  const moves: PhaseEvent["type"][] = [];
  const sleeps: number[] = [];
  let clock = 0;
  const context: TurnContext = {
    realm,
    model: () => language,
    system: () => "SYSTEM",
    callSettings: () => ({}),
    history: () => [{ role: "user", content: "hello" }],
    createParser: createProtocolParser,
    describeError:
      options.describeError ?? ((error) => ({ code: "unknown", message: String(error), retryable: false })),
    wrapFeedback: (body) => body,
    maxRetries: 2,
    now: () => clock++,
    newId: () => "r1",
    sleep: async (ms) => void sleeps.push(ms),
    stall: { headersMs: 20_000, dataMs: 60_000 },
    lifecycle: new InteractionLifecycle(0, () => clock),
    timeline: {
      state: () => state,
      push: (message) => void (state = { ...state, messages: [...state.messages, message] }),
      update: (id, update) =>
        void (state = {
          ...state,
          messages: state.messages.map((message) => (message.id === id ? update(message) : message)),
        }),
      move: (event, patch) => {
        moves.push(event.type);
        phase = nextPhase(phase, event);
        state = { ...state, ...patch, phase: phase.phase };
      },
      setDetail: (detail) => void (state = { ...state, detail }),
      setStalled: (stalled) => void (state = { ...state, stalled }),
      checkWaiting: () => undefined,
    },
  };
  const reply = () =>
    state.messages.find((message) => message.id === "r1") as Extract<ChatMessage, { role: "assistant" }>;
  return { context, blocks, moves, sleeps, reply, state: () => state };
}

const FENCE = "```";

describe("Turn", () => {
  it("streams one reply: code to the realm in protocol order, the message patched, then done", async () => {
    const { mock } = model(`Hi.\n${FENCE}tsx agent.run\nconsole.log(1)\n${FENCE}\nBye.`);
    const { context, blocks, moves, reply } = setup(mock);
    const turn = new Turn(context);
    expect(turn.listening).toBe(true);
    const outcome = await turn.run(new AbortController().signal, "");
    expect(outcome).toEqual({ kind: "ok", feedback: "" });
    expect(turn.listening).toBe(false);
    expect(blocks.map((event) => event.type)).toEqual([
      "block-start",
      ...blocks.slice(1, -1).map(() => "block-delta"),
      "block-end",
    ]);
    expect(
      blocks
        .filter((event) => event.type === "block-delta")
        .map((event) => (event as { text: string }).text)
        .join(""),
    ).toBe("console.log(1)\n");
    expect(reply()).toMatchObject({
      state: "done",
      text: `Hi.\n${FENCE}tsx agent.run\nconsole.log(1)\n${FENCE}\nBye.`,
      usage: { inputTokens: 3, outputTokens: 4 },
    });
    expect(moves).toEqual(["reply-start", "reply-streamed"]);
  });

  it("a reply cut at the token limit closes its open block as cut and is interrupted", async () => {
    const { mock } = model(`${FENCE}tsx agent.run\nconsole.log(1)\nconsole.lo`, "length");
    const { context, blocks, reply } = setup(mock);
    const outcome = await new Turn(context).run(new AbortController().signal, "");
    expect(outcome.kind).toBe("interrupted");
    expect(blocks.at(-1)).toMatchObject({ type: "block-end", cut: true });
    expect(reply()).toMatchObject({ state: "interrupted", error: { code: expect.any(String) } });
  });

  it("retries a rate limit that came before any text, after the advised wait", async () => {
    const { mock, calls } = model("Fine now.", "stop", new Error("429"));
    const { context, sleeps, reply } = setup(mock, {
      describeError: () => ({ code: "rate-limit", message: "Rate limited", retryable: true, retryAfterMs: 1500 }),
    });
    const outcome = await new Turn(context).run(new AbortController().signal, "");
    expect(outcome).toEqual({ kind: "ok", feedback: "" });
    expect(calls()).toBe(2);
    // Counted down on the status line: 2 s, then 1 s, then the retry.
    expect(sleeps).toEqual([500, 1000]);
    expect(reply().text).toBe("Fine now.");
  });

  it("counts a retry-after wait down on the status line, second by second", async () => {
    const { mock } = model("Fine now.", "stop", new Error("429"));
    const details: (string | undefined)[] = [];
    const { context } = setup(mock, {
      describeError: () => ({ code: "rate-limit", message: "Rate limited", retryable: true, retryAfterMs: 3000 }),
    });
    const sleep = context.sleep;
    context.sleep = async (ms, signal) => {
      details.push(context.timeline.state().detail);
      await sleep(ms, signal);
    };
    await new Turn(context).run(new AbortController().signal, "");
    expect(details).toEqual([
      "rate limited, retrying in 3 s",
      "rate limited, retrying in 2 s",
      "rate limited, retrying in 1 s",
    ]);
  });

  it("stopped before it streams: the reply is stopped and nothing more runs", async () => {
    const { mock } = model("never");
    const { context, reply } = setup(mock);
    const controller = new AbortController();
    controller.abort(new DOMException("Stopped by the person", "AbortError"));
    expect(await new Turn(context).run(controller.signal, "")).toEqual({ kind: "stopped" });
    expect(reply().state).toBe("stopped");
  });
});

/** A stall clock the test moves by hand: `advance` moves time, running each timer that falls due on the way. */
function manualClock() {
  let time = 0;
  const timers = new Set<{ at: number; run: () => void }>();
  return {
    clock: {
      now: () => time,
      after: (ms: number, run: () => void) => {
        const timer = { at: time + ms, run };
        timers.add(timer);
        return () => void timers.delete(timer);
      },
    },
    advance(ms: number) {
      const until = time + ms;
      for (;;) {
        const due = [...timers].filter((timer) => timer.at <= until).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers.delete(due);
        time = due.at;
        due.run();
      }
      time = until;
    },
    get watching() {
      return timers.size;
    },
  };
}

/** A model whose headers and chunks the test releases: `respond()`, then `send(text)` and `finish()`. */
function heldModel() {
  let respond!: () => void;
  const headers = new Promise<void>((resolve) => (respond = resolve));
  let stream!: ReadableStreamDefaultController<LanguageModelV3StreamPart>;
  const mock = new MockLanguageModelV3({
    doStream: async ({ abortSignal }) => {
      const aborted = new Promise<never>((_, reject) =>
        abortSignal?.addEventListener("abort", () => reject(abortSignal.reason), { once: true }),
      );
      await Promise.race([headers, aborted]);
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            stream = controller;
            controller.enqueue({ type: "stream-start", warnings: [] });
            controller.enqueue({ type: "text-start", id: "t" });
            abortSignal?.addEventListener("abort", () => controller.error(abortSignal.reason), { once: true });
          },
        }),
      };
    },
  });
  return {
    mock,
    respond: () => respond(),
    send: (text: string) => stream.enqueue({ type: "text-delta", id: "t", delta: text }),
    finish: () => {
      stream.enqueue({ type: "text-end", id: "t" });
      stream.enqueue({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage });
      stream.close();
    },
  };
}

/** Let the stream's promises and pipes run. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("Turn: a stalled request", () => {
  it("says nothing before 20 s without headers, then counts; Keep waiting restarts; Stop clears it", async () => {
    const held = heldModel();
    const time = manualClock();
    const { context, state, reply } = setup(held.mock);
    context.stallClock = time.clock;
    const turn = new Turn(context);
    const controller = new AbortController();
    const run = turn.run(controller.signal, "");
    await settle();
    time.advance(19_000);
    expect(state().stalled).toBeUndefined();
    time.advance(1_000);
    expect(state().stalled).toBe(20);
    expect(state().phase).toBe("streaming");
    time.advance(2_000);
    expect(state().stalled).toBe(22);
    turn.keepWaiting();
    expect(state().stalled).toBeUndefined();
    time.advance(19_000);
    expect(state().stalled).toBeUndefined();
    time.advance(1_000);
    expect(state().stalled).toBe(20);
    controller.abort(new DOMException("Stopped by the person", "AbortError"));
    expect(await run).toEqual({ kind: "stopped" });
    expect(state().stalled).toBeUndefined();
    expect(reply().state).toBe("stopped");
    expect(time.watching).toBe(0);
  });

  it("after the headers, waits 60 s of silence; data clears the notice; the end leaves none", async () => {
    const held = heldModel();
    const time = manualClock();
    const { context, state, reply } = setup(held.mock);
    context.stallClock = time.clock;
    const run = new Turn(context).run(new AbortController().signal, "");
    await settle();
    time.advance(15_000);
    held.respond();
    await settle();
    time.advance(30_000);
    expect(state().stalled).toBeUndefined();
    held.send("Hel");
    await settle();
    time.advance(59_000);
    expect(state().stalled).toBeUndefined();
    time.advance(3_000);
    expect(state().stalled).toBe(62);
    held.send("lo.");
    await settle();
    expect(state().stalled).toBeUndefined();
    time.advance(61_000);
    expect(state().stalled).toBe(61);
    held.finish();
    expect(await run).toEqual({ kind: "ok", feedback: "" });
    expect(state().stalled).toBeUndefined();
    expect(reply().text).toBe("Hello.");
    expect(time.watching).toBe(0);
  });
});
