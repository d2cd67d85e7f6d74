import { describe, expect, it } from "vitest";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { createProtocolParser } from "../protocol/parser";
import { resolveOptions } from "./agentOptions";
import { emptyReply } from "./reply";
import type { ReviveTarget } from "./revive";
import { Runner } from "./runner";
import { StateStore } from "./stateStore";
import type { AgentState, ChatMessage, RealmPort } from "./types";

/** One run at a time, alone: a scripted model, a realm whose flush the test controls, a real StateStore. */

const FENCE = "```";
const usage = {
  inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 4, text: 4, reasoning: 0 },
};

function scripted(replies: { text: string; finish?: "stop" | "length" }[]) {
  const prompts: string[] = [];
  let call = 0;
  const model = new MockLanguageModelV3({
    doStream: async (options) => {
      prompts.push(JSON.stringify(options.prompt));
      const { text, finish = "stop" } = replies[Math.min(call++, replies.length - 1)];
      const chunks: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: text },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: finish, raw: finish }, usage },
      ];
      return { stream: simulateReadableStream({ chunks, chunkDelayInMs: 0, initialDelayInMs: 0 }) };
    },
  });
  return { model, prompts };
}

function setup(
  model: MockLanguageModelV3,
  options: { messages?: ChatMessage[]; carried?: string; hangFlush?: boolean; printed?: string } = {},
) {
  const realmCalls: string[] = [];
  const realm: RealmPort = {
    beginReply: () => void realmCalls.push("begin"),
    sendBlock: (event) => void realmCalls.push(event.type),
    flush: (_timeout, flushOptions) => {
      // What the code printed, handed to the listening turn as RealmOutput would.
      if (options.printed)
        runner?.interaction?.turn?.collector.add({
          type: "console",
          block: 0,
          statement: 0,
          level: "log",
          text: options.printed,
        });
      return options.hangFlush
        ? new Promise<void>((_resolve, reject) =>
            flushOptions?.signal?.addEventListener("abort", () => reject(flushOptions.signal?.reason)),
          )
        : Promise.resolve();
    },
    abort: () => void realmCalls.push("abort"),
    subscribe: () => () => undefined,
  };
  let id = 0;
  const resolved = resolveOptions({
    model: () => model,
    system: "SYSTEM",
    realm,
    createParser: createProtocolParser,
    describeError: (error) => ({ code: "unknown", message: String(error), retryable: false }),
    wrapFeedback: (body) => body,
    now: () => 0,
    newId: () => `id${++id}`,
  });
  let runner: Runner | undefined;
  const entered: string[] = [];
  const store = new StateStore(
    { ...resolved, busy: () => runner!.busy, entered: (phase) => void entered.push(phase) },
    options.messages ?? [],
  );
  const reviving: (ReviveTarget | undefined)[] = [];
  const output = {
    taken: 0,
    ended: 0,
    takeIdle: () => {
      output.taken += 1;
      return output.taken === 1 ? (options.carried ?? "") : "";
    },
    reviveStarted: () => (target: ReviveTarget | undefined) => void reviving.push(target && { ...target }),
    reviveEnded: () => void (output.ended += 1),
    deferred: [] as string[],
    defer: (notes: string) => void output.deferred.push(notes),
  };
  runner = new Runner({ options: resolved, store, output: () => output });
  const seen: { phase: AgentState["phase"]; busy: boolean }[] = [];
  store.subscribe((state) => seen.push({ phase: state.phase, busy: runner!.busy }));
  return { runner, store, realmCalls, output, reviving, seen, entered };
}

const user = (text: string): ChatMessage => ({ id: "u", role: "user", text, createdAt: 0 });

/** A saved reply with one code block (as the store keeps it). */
const savedReply = (id: string, source: string): ChatMessage => ({
  id,
  role: "assistant",
  text: "",
  reply: {
    ...emptyReply(),
    blocks: [
      {
        index: 0,
        kind: "code",
        lang: "tsx",
        line: 1,
        source,
        closed: true,
        unterminated: false,
        status: "done",
        statements: [],
      },
    ],
  },
  state: "done",
  createdAt: 0,
});

describe("Runner", () => {
  it("runs one interaction: busy while it runs, output kept while idle goes with the first call, the summary on its last reply", async () => {
    const { model, prompts } = scripted([{ text: "Hello." }]);
    const { runner, store, seen, entered, output } = setup(model, { messages: [user("hi")], carried: "timer fired" });
    await runner.interact();
    expect(runner.busy).toBe(false);
    expect(output.taken).toBe(1);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain("timer fired");
    expect(seen[0]).toEqual({ phase: "streaming", busy: true });
    expect(seen.at(-1)).toEqual({ phase: "done", busy: false });
    expect(entered[0]).toBe("streaming");
    const last = store.state().messages.at(-1);
    expect(last).toMatchObject({ role: "assistant", text: "Hello.", summary: { outcome: "done" } });
  });

  it("a reply cut at the token limit ends the interaction in error and offers Continue with what it left", async () => {
    const { model } = scripted([{ text: `${FENCE}tsx agent.run\nconsole.log(1)\nconsole.lo`, finish: "length" }]);
    const { runner, store } = setup(model, { messages: [user("go")], printed: "printed 1" });
    await runner.interact();
    expect(store.state()).toMatchObject({ phase: "error", canContinue: true });
    expect(runner.interruptedFeedback).toContain("printed 1");
  });

  it("Revive re-runs the session's code blocks, tells the person how it went, and is busy meanwhile", async () => {
    const { model, prompts } = scripted([{ text: "unused" }]);
    const saved = savedReply("a1", "console.log(1)\n");
    const { runner, store, realmCalls, output, reviving, seen } = setup(model, { messages: [user("hi"), saved] });
    const result = await runner.revive();
    expect(result).toEqual({ blocks: 1, failures: [] });
    expect(prompts).toHaveLength(0);
    expect(realmCalls[0]).toBe("begin");
    expect(realmCalls).toContain("block-start");
    expect(reviving.map((target) => target?.replyId)).toEqual(["a1", undefined]);
    expect(output.ended).toBe(1);
    expect(seen[0]).toMatchObject({ phase: "running", busy: true });
    expect(store.state()).toMatchObject({ phase: "done", detail: undefined });
    expect(store.state().messages.at(-1)).toMatchObject({
      role: "notice",
      level: "info",
      text: "Revived: re-ran 1 block in a fresh realm.",
    });
  });

  it("Stop ends a Revive waiting for the realm: the realm is told to abort, and the notice says it stopped", async () => {
    const { model } = scripted([{ text: "unused" }]);
    const saved = savedReply("a1", "while (true) {}\n");
    const { runner, store, realmCalls } = setup(model, { messages: [saved], hangFlush: true });
    const running = runner.revive();
    expect(runner.busy).toBe(true);
    runner.stop();
    await running;
    expect(realmCalls).toContain("abort");
    expect(runner.busy).toBe(false);
    expect(store.state().phase).toBe("stopped");
    expect(store.state().messages.at(-1)).toMatchObject({ role: "notice", text: "Revive stopped." });
  });

  it("Stop with nothing running does nothing", () => {
    const { model } = scripted([{ text: "unused" }]);
    const { runner, realmCalls } = setup(model);
    runner.stop();
    expect(realmCalls).toEqual([]);
  });
});
