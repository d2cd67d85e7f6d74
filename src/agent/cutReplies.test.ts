import { describe, expect, it } from "vitest";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { createProtocolParser } from "../protocol/parser";
import { createInProcessRealm } from "../../test/inProcessRealm";
import { Agent, type ChatMessage } from "./agent";
import { cutFeedback } from "./cutFeedback";
import { UNCLOSED_THINKING_FEEDBACK, cutFromFinishReason } from "./finishReason";
import { emptyReply, type ReplyView } from "./reply";

/**
 * Reasoning models and cut replies through the whole loop: the AI SDK's mock
 * model → parser → agent → the real executor (in process) → feedback.
 */

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

type Script = { reasoning?: string; text: string; finish?: "stop" | "length" | "content-filter"; error?: unknown };

function partsOf({ reasoning, text, finish = "stop", error }: Script): LanguageModelV3StreamPart[] {
  const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
  if (reasoning) {
    parts.push({ type: "reasoning-start", id: "r" });
    for (let at = 0; at < reasoning.length; at += 7)
      parts.push({ type: "reasoning-delta", id: "r", delta: reasoning.slice(at, at + 7) });
    parts.push({ type: "reasoning-end", id: "r" });
  }
  parts.push({ type: "text-start", id: "t" });
  for (let at = 0; at < text.length; at += 5)
    parts.push({ type: "text-delta", id: "t", delta: text.slice(at, at + 5) });
  if (error !== undefined) return [...parts, { type: "error", error }];
  parts.push({ type: "text-end", id: "t" });
  parts.push({
    type: "finish",
    finishReason: { unified: finish, raw: finish === "content-filter" ? "content_filter" : finish },
    usage,
  });
  return parts;
}

function setup(scripts: Script[]) {
  const prompts: unknown[] = [];
  let call = 0;
  const model = new MockLanguageModelV3({
    doStream: async (options) => {
      prompts.push(options.prompt);
      const script = scripts[Math.min(call, scripts.length - 1)];
      call += 1;
      return { stream: simulateReadableStream({ chunks: partsOf(script), chunkDelayInMs: 0, initialDelayInMs: 0 }) };
    },
  });
  const realm = createInProcessRealm();
  const logs: string[] = [];
  realm.subscribe((event) => {
    if (event.type === "console") logs.push(event.text);
  });
  let clock = 0;
  const agent = new Agent({
    model: () => model,
    system: "SYSTEM",
    realm,
    createParser: createProtocolParser,
    // Like describeLlmError: an error object the provider streamed is a server error; anything else unknown.
    describeError: (error) =>
      typeof error === "object" && error !== null && "type" in error
        ? { code: "server", message: "the endpoint had a server error mid-reply", retryable: true }
        : { code: "unknown", message: String(error), retryable: false },
    wrapFeedback: (body) => `[runtime output]\n${body}`,
    // Each reading of the clock is a second later, so thinking has a duration.
    now: () => (clock += 1000),
    sleep: async () => undefined,
  });
  return { agent, prompts, logs, calls: () => call };
}

const assistants = (messages: ChatMessage[]) => messages.filter((message) => message.role === "assistant");
const feedbacks = (messages: ChatMessage[]) => messages.filter((message) => message.role === "feedback");

describe("thinking", () => {
  it("never runs a fence inside <think>, runs the answer's fence, and keeps the thinking out of later prompts", async () => {
    const { agent, logs, prompts } = setup([
      {
        text: '<think>\nDraft:\n```tsx agent.run\nconsole.log("DRAFT RAN")\n```\n</think>\n\n```tsx agent.run\nconsole.log("answer ran")\n```\n',
      },
      { text: "Done." },
    ]);
    await agent.send("go");
    expect(logs).toEqual(["answer ran"]);
    const [reply] = assistants(agent.getState().messages);
    expect(reply.role === "assistant" && reply.reply.thinking).toMatchObject({
      source: "think",
      closed: true,
      unterminated: false,
      text: '\nDraft:\n```tsx agent.run\nconsole.log("DRAFT RAN")\n```\n',
    });
    // Lines count from the answer: what the model sees of its reply.
    expect(feedbacks(agent.getState().messages)[0].body).toBe("[block 0 line 2] answer ran");
    const later = JSON.stringify(prompts[1]);
    expect(later).not.toContain("DRAFT RAN");
    expect(later).not.toContain("<think>");
    expect(later).toContain('console.log(\\"answer ran\\")');
  });

  it("shows provider reasoning deltas as thinking, never runs them, and measures how long it took", async () => {
    const { agent, logs, prompts } = setup([
      { reasoning: 'Maybe:\n```tsx agent.run\nconsole.log("REASONING RAN")\n```\n', text: "Plain answer." },
    ]);
    await agent.send("go");
    expect(logs).toEqual([]);
    const [reply] = assistants(agent.getState().messages);
    if (reply.role !== "assistant") throw new Error("no reply");
    expect(reply.text).toBe("Plain answer.");
    expect(reply.reply.blocks.map((block) => block.kind)).toEqual(["text"]);
    expect(reply.reply.thinking).toMatchObject({ source: "provider", closed: true, unterminated: false });
    expect(reply.reply.thinking!.text).toContain("REASONING RAN");
    expect(reply.reply.thinking!.endedAt! - reply.reply.thinking!.startedAt!).toBeGreaterThan(0);
    expect(prompts).toHaveLength(1);
  });

  it("tells the model and marks the thinking when the reply ends inside it", async () => {
    const { agent, logs, prompts } = setup([
      { text: '<thinking>plan:\n```tsx agent.run\nconsole.log("x")\n```\n' },
      { text: "Answer." },
    ]);
    await agent.send("go");
    expect(logs).toEqual([]);
    const [reply] = assistants(agent.getState().messages);
    expect(reply.role === "assistant" && reply.reply.thinking?.unterminated).toBe(true);
    expect(feedbacks(agent.getState().messages)[0].body).toBe(UNCLOSED_THINKING_FEEDBACK);
    // The all-thinking reply is not sent back; the feedback is.
    expect(JSON.stringify(prompts[1])).not.toContain("plan:");
  });
});

describe("cut replies", () => {
  const cutMidFence = [
    "Setting up.",
    "```tsx agent.run",
    'console.log("one");',
    "const items = [1, 2, 3];",
    'console.log("two", items.length);',
    "const table = items.map((item) => ({",
    "  id: item,",
    "  label: `Item ${",
  ].join("\n");

  it("names a length cut, where it happened and what ran, and offers Continue", async () => {
    const { agent, logs, prompts, calls } = setup([{ text: cutMidFence, finish: "length" }, { text: "Continued." }]);
    await agent.send("go");
    expect(logs).toEqual(["one", "two 3"]);
    let state = agent.getState();
    expect(calls()).toBe(1);
    expect(state.canContinue).toBe(true);
    const [reply] = assistants(state.messages);
    expect(reply.role === "assistant" && reply.state).toBe("interrupted");
    expect(reply.role === "assistant" && reply.error?.code).toBe("length");
    expect(reply.role === "assistant" && reply.error?.message).toContain("cut at the token limit");
    expect(reply.role === "assistant" && reply.error?.message).toContain("raise max tokens in Settings");

    await agent.continue();
    state = agent.getState();
    const [note] = feedbacks(state.messages);
    expect(note.body).toBe(
      [
        "[block 1 line 3] one",
        "[block 1 line 5] two 3",
        "Your previous reply was cut at the token limit (the provider stopped it at the maximum output length), in block 1 (code), at line 8.",
        "What ran: block 1: lines 3–5 (3 statements).",
        "What did not run: block 1 from line 6 to 8, where the reply was cut: that statement is incomplete.",
        "Continue from where it stopped, without repeating what already ran: its variables and mounts still exist. Start a new code block for the rest. Keep it shorter: split long code or data over several blocks or replies.",
      ].join("\n"),
    );
    expect(note.body).not.toContain("SyntaxError");
    expect(JSON.stringify(prompts[1])).toContain("cut at the token limit");
    expect(state.canContinue).toBe(false);
  });

  it("names a content-filter stop in its own words", async () => {
    const { agent } = setup([
      { text: "Here is the text you asked for, and", finish: "content-filter" },
      { text: "ok" },
    ]);
    await agent.send("go");
    const [reply] = assistants(agent.getState().messages);
    expect(reply.role === "assistant" && reply.error?.code).toBe("content-filter");
    expect(agent.getState().canContinue).toBe(true);
    await agent.continue();
    expect(feedbacks(agent.getState().messages)[0].body).toMatch(
      /^Your previous reply was stopped by the provider's content filter, in the text at line 1\./,
    );
  });

  it("names an error the provider sent mid-stream as such, not as a dropped connection", async () => {
    const { agent, logs } = setup([
      {
        text: '```tsx agent.run\nconsole.log("before");\nconsole.log("aft',
        error: { type: "server_error", message: "Provider overloaded" },
      },
      { text: "ok" },
    ]);
    await agent.send("go");
    expect(logs).toEqual(["before"]);
    const [reply] = assistants(agent.getState().messages);
    expect(reply.role === "assistant" && reply.error?.code).toBe("server");
    expect(agent.getState().canContinue).toBe(true);
    await agent.continue();
    const body = feedbacks(agent.getState().messages)[0].body;
    expect(body).toContain(
      "Your previous reply was cut off mid-stream because the provider reported an error, in block 0 (code), at line 3.",
    );
    expect(body).toContain("What ran: block 0: line 2 (1 statement).");
    expect(body).toContain("What did not run: block 0 at line 3, where the reply was cut");
  });

  // The statement the stream stopped in never runs, even when its text happens
  // to parse: only statements whose end the splitter saw before the cut run.
  it.each([
    ["length", { finish: "length" as const }],
    ["content-filter", { finish: "content-filter" as const }],
    ["a provider error", { error: { type: "server_error", message: "Provider overloaded" } }],
    ["a dropped connection", { error: new TypeError("network connection lost") }],
  ])("a cut (%s) never runs the statement it stopped in, even a tail that parses", async (_, how) => {
    const { agent, logs } = setup([
      { text: '```tsx agent.run\nconsole.log("before");\nconsole.log("tail")', ...how },
      { text: "ok" },
    ]);
    await agent.send("go");
    expect(logs).toEqual(["before"]);
    await agent.continue();
    const body = feedbacks(agent.getState().messages)[0].body;
    expect(body).toContain("What ran: block 0: line 2 (1 statement).");
    expect(body).toContain(
      "What did not run: block 0 at line 3, where the reply was cut: that statement is incomplete.",
    );
  });

  it("a reply that ends normally without its closing fence still runs its last statement", async () => {
    const { agent, logs } = setup([
      { text: '```tsx agent.run\nconsole.log("before");\nconsole.log("last")' },
      { text: "ok" },
    ]);
    await agent.send("go");
    expect(logs).toEqual(["before", "last"]);
  });

  it("says a length cut inside the thinking happened before any answer", async () => {
    const { agent, logs } = setup([
      { text: '<think>\nlong\n```tsx agent.run\nconsole.log("no")\n', finish: "length" },
      { text: "ok" },
    ]);
    await agent.send("go");
    expect(logs).toEqual([]);
    expect(agent.getState().canContinue).toBe(true);
    await agent.continue();
    const body = feedbacks(agent.getState().messages)[0].body;
    expect(body).toContain("was cut at the token limit");
    expect(body).toContain("inside your thinking section, before any of the answer was written");
  });
});

describe("cutFeedback / cutFromFinishReason", () => {
  it("treats only length and content-filter as cuts", () => {
    expect(cutFromFinishReason("length")).toBe("length");
    expect(cutFromFinishReason("content-filter")).toBe("content-filter");
    for (const reason of ["stop", "tool-calls", "other", "error", undefined])
      expect(cutFromFinishReason(reason)).toBeUndefined();
  });

  it("describes a cut in a data block and a dropped connection in plain words", () => {
    const reply: ReplyView = {
      ...emptyReply(),
      blocks: [
        { index: 0, kind: "text", line: 1, text: "Data:\n" },
        {
          index: 1,
          kind: "data",
          id: "rows",
          line: 3,
          source: '[{"a": 1},\n{"a": 2},\n{"a"',
          closed: true,
          unterminated: true,
          status: "done",
        },
      ],
    };
    expect(cutFeedback(reply, "disconnected")).toBe(
      [
        'Your previous reply was cut off mid-stream because the connection dropped, in block 1 (the data block for "rows"), at line 5.',
        'What did not run: block 1: the data for "rows" was cut; its target keeps the last complete value.',
        "Continue from where it stopped, without repeating what already ran: its variables and mounts still exist. Start a new code block for the rest.",
      ].join("\n"),
    );
    expect(cutFeedback(reply, "provider-error", "overloaded")).toContain(
      "cut off mid-stream because the provider reported an error (overloaded)",
    );
  });
});
