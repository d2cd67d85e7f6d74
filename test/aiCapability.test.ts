/**
 * Model calls from code end to end in Node: `ai` in the realm (its real
 * realm-side implementation) → a real MessageChannel → the host's connection
 * → the model-call broker → a recording model (or the demo's responder). The
 * person is a script answering the broker's asks. The browser (the inline
 * ask, the summary, the key) is in e2e/aiCalls.test.ts.
 */
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_AI_POLICY, type AiAnswer, type AiPolicyState } from "../src/capabilities/ai/aiPolicy";
import {
  createAiBroker,
  type AiAsk,
  type AiAuditRecord,
  type AiBrokerOptions,
} from "../src/capabilities/ai/createAiBroker";
import { createDemoResponder } from "../src/capabilities/ai/demoResponder";
import { createRealmConnection } from "../src/sandbox/createRealmConnection";
import { RealmHostError } from "../src/sandbox/RealmHostError";
import { AI_CALL, AI_NEXT } from "../src/wire/capabilities";
import { createRealm } from "../workers/realm/createRealm";

/** A model that records each call and streams its answer in pieces; `hold` keeps the stream open until released. */
function recordingModel(answer = "Bonjour le monde", options: { hold?: boolean; usage?: boolean } = {}) {
  const calls: LanguageModelV3CallOptions[] = [];
  const releases: (() => void)[] = [];
  const aborted: boolean[] = [];
  const model: LanguageModelV3 = {
    specificationVersion: "v3",
    provider: "test",
    modelId: "recording",
    supportedUrls: {},
    async doGenerate() {
      throw new Error("not used");
    },
    async doStream(call) {
      calls.push(call);
      const index = calls.length - 1;
      call.abortSignal?.addEventListener("abort", () => (aborted[index] = true), { once: true });
      const pieces = answer.match(/.{1,4}/g) ?? [];
      const parts: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "0" },
        ...pieces.map((delta): LanguageModelV3StreamPart => ({ type: "text-delta", id: "0", delta })),
        { type: "text-end", id: "0" },
        {
          type: "finish",
          finishReason: { unified: "stop", raw: "stop" },
          usage:
            options.usage === false
              ? {
                  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
                  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
                }
              : {
                  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
                  outputTokens: { total: 7, text: 7, reasoning: undefined },
                },
        },
      ];
      let next = 0;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          // Held after the first piece of text, until released (or aborted).
          if (options.hold && next === 3)
            await new Promise<void>((resolve) => {
              releases.push(resolve);
              call.abortSignal?.addEventListener("abort", () => resolve(), { once: true });
            });
          if (call.abortSignal?.aborted) return controller.error(call.abortSignal.reason);
          controller.enqueue(parts[next]);
          next += 1;
          if (next === parts.length) controller.close();
        },
      });
      return { stream };
    },
  };
  return { model, calls, releases, aborted };
}

/** A person who answers asks in order from a script; asks are recorded, unanswered ones wait. */
function person(answers: AiAnswer[] = []) {
  const asks: AiAsk[] = [];
  const waiting: { ask: AiAsk; answer(value: AiAnswer): void }[] = [];
  const ask: AiBrokerOptions["ask"] = (request, signal) =>
    new Promise((resolve, reject) => {
      asks.push(request);
      const next = answers.shift();
      if (next) return resolve(next);
      const entry = { ask: request, answer: resolve };
      waiting.push(entry);
      signal.addEventListener(
        "abort",
        () => {
          waiting.splice(waiting.indexOf(entry), 1);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  return { asks, waiting, ask };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function setup(
  answers: AiAnswer[] = [],
  options: { model?: LanguageModelV3; initial?: Partial<AiPolicyState>; broker?: Partial<AiBrokerOptions> } = {},
) {
  const who = person(answers);
  const audit: AiAuditRecord[] = [];
  const saved: AiPolicyState[] = [];
  const recording = recordingModel();
  const model = options.model ?? recording.model;
  const broker = createAiBroker({
    initial: { ...DEFAULT_AI_POLICY, ...options.initial },
    ask: who.ask,
    audit: (record) => void audit.push(record),
    onChange: (state) => void saved.push(state),
    model: async () => ({ model, name: "test-model", failure: () => "server" }),
    ...options.broker,
  });
  const channel = new MessageChannel();
  let id = 0;
  const services: string[] = [];
  const connection = createRealmConnection({
    port: channel.port1,
    nextId: () => ++id,
    service: (name) => {
      services.push(name);
      return name === AI_CALL ? broker.call : name === AI_NEXT ? broker.next : undefined;
    },
    handlers: {
      onReady() {},
      onEvent() {},
      onMount() {},
      onUnresponsive() {},
      onClosed() {},
      onInvalid() {},
    },
  });
  const served = createRealm();
  served.serve(channel.port2);
  cleanups.push(() => {
    connection.close(new RealmHostError("disposed", "test over"));
    channel.port2.close();
  });
  const ai = served.globals.ai as {
    complete(input: unknown, options?: Record<string, unknown>): Promise<string>;
    stream(input: unknown, options?: Record<string, unknown>): AsyncIterable<string>;
  };
  return { ai, broker, who, audit, saved, recording, services, served };
}

async function eventually(check: () => void, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/** The prompt a model call received, as role and text. */
const promptOf = (call: LanguageModelV3CallOptions) =>
  call.prompt.map((message) => ({
    role: message.role,
    text:
      typeof message.content === "string"
        ? message.content
        : message.content.map((part) => ("text" in part ? part.text : "")).join(""),
  }));

describe("ai in the realm through the model-call broker", () => {
  it("Allow once: asks with the prompt and the token limit, the model gets exactly the prompt, the next call asks again", async () => {
    const { ai, who, audit, recording, broker } = setup(["once", "deny"]);
    const text = await ai.complete("Translate to French: hello world", {
      system: "You translate.",
      maxTokens: 50,
      temperature: 0.2,
    });
    expect(text).toBe("Bonjour le monde");
    expect(who.asks).toMatchObject([
      { capability: "ai", excerpt: "Translate to French: hello world", maxTokens: 50, model: "test-model" },
    ]);
    expect(recording.calls).toHaveLength(1);
    expect(promptOf(recording.calls[0])).toEqual([
      { role: "system", text: "You translate." },
      { role: "user", text: "Translate to French: hello world" },
    ]);
    expect(recording.calls[0].maxOutputTokens).toBe(50);
    expect(recording.calls[0].temperature).toBe(0.2);

    await expect(ai.complete("Translate to French: hello world")).rejects.toMatchObject({
      name: "CapabilityError",
      message: expect.stringMatching(/The person denied this model call/),
    });
    expect(who.asks).toHaveLength(2);
    expect(recording.calls).toHaveLength(1);
    // Every call in the audit, with the tokens the model reported; they count against the budget.
    expect(audit.map((entry) => [entry.method, entry.decision, entry.result, entry.tokensIn, entry.tokensOut])).toEqual(
      [
        ["complete", "allowed-once", "ok", 12, 7],
        ["complete", "denied", "denied", undefined, undefined],
      ],
    );
    expect(broker.state().used).toBe(19);
    expect(broker.state().reserved).toBe(0);
  });

  it("messages: roles and contents reach the model as given, a system message joins the system text", async () => {
    const { ai, recording } = setup(["session"]);
    await ai.complete([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello!" },
      { role: "user", content: "A colour?" },
    ]);
    expect(promptOf(recording.calls[0])).toEqual([
      { role: "system", text: "Be brief." },
      { role: "user", text: "Hi" },
      { role: "assistant", text: "Hello!" },
      { role: "user", text: "A colour?" },
    ]);
  });

  it("Always allow for this session: later calls pass without asking, and the choice is saved", async () => {
    const { ai, who, saved, recording } = setup(["session"]);
    await ai.complete("one");
    await ai.complete("two");
    expect(who.asks).toHaveLength(1);
    expect(recording.calls).toHaveLength(2);
    expect(saved.at(-1)).toMatchObject({ session: true });
  });

  it("strict mode asks for every call, even when allowed for the session", async () => {
    const { ai, who } = setup(["once", "once"], { initial: { mode: "allowed", strict: true } });
    await ai.complete("one");
    await ai.complete("two");
    expect(who.asks).toHaveLength(2);
  });

  it("off: refused without asking, with a sentence that says so", async () => {
    const { ai, who, recording, audit } = setup([], { initial: { mode: "off" } });
    await expect(ai.complete("hello")).rejects.toMatchObject({
      name: "CapabilityError",
      message: expect.stringMatching(/Model calls from code are off for this session/),
    });
    expect(who.asks).toEqual([]);
    expect(recording.calls).toEqual([]);
    expect(audit).toMatchObject([{ decision: "denied", result: "off" }]);
  });

  it("the budget: a call that could pass it is refused before asking, naming the budget", async () => {
    const { ai, who, recording, broker, audit } = setup([], { initial: { mode: "allowed", budget: 1_020 } });
    // The prompt (about 2 tokens) and 1,000 of answer fit in 1,020; the model used 19.
    await ai.complete("first", { maxTokens: 1_000 });
    expect(broker.state().used).toBe(19);
    // 19 used + the prompt + 1,000 of answer would pass 1,020.
    const refused = ai.complete("second", { maxTokens: 1_000 });
    await expect(refused).rejects.toMatchObject({
      name: "CapabilityError",
      code: "over-budget",
      message: expect.stringContaining("budget for model calls from code is 1,020 tokens"),
    });
    await expect(refused).rejects.toThrow(/Session settings → Model calls from code/);
    // A smaller call still fits.
    await expect(ai.complete("third", { maxTokens: 500 })).resolves.toBe("Bonjour le monde");
    expect(who.asks).toEqual([]);
    expect(recording.calls).toHaveLength(2);
    expect(audit.map((entry) => entry.result)).toEqual(["ok", "budget", "ok"]);
  });

  it("at most 4 calls in flight: a fifth is refused at once, without asking (by the realm, and by the host)", async () => {
    const { ai, who, audit, broker } = setup([]);
    const pending = [1, 2, 3, 4].map((index) => ai.complete(`call ${index}`));
    for (const call of pending) call.catch(() => undefined);
    await eventually(() => expect(who.asks).toHaveLength(1));
    await expect(ai.complete("call 5")).rejects.toMatchObject({ name: "AiError", code: "too-many-calls" });
    expect(who.asks).toHaveLength(1);
    // The host refuses it too, for a realm that would not count.
    await expect(
      Promise.resolve(
        broker.call(
          { messages: [{ role: "user", content: "call 6" }], stream: false },
          { signal: new AbortController().signal, service: AI_CALL },
        ),
      ),
    ).rejects.toMatchObject({ code: "too-many-calls" });
    expect(audit.at(-1)).toMatchObject({ decision: "denied", result: "too-many-calls" });
    // Deny: the calls waiting behind the ask take the same answer.
    who.waiting[0].answer("deny");
    for (const call of pending) await expect(call).rejects.toMatchObject({ name: "CapabilityError" });
  });

  it("a prompt over 100,000 characters is refused in the realm; nothing is sent", async () => {
    const { ai, who, services } = setup([]);
    await expect(ai.complete("x".repeat(100_001))).rejects.toMatchObject({ name: "AiError", code: "too-large" });
    await expect(
      ai.complete([{ role: "user", content: "x".repeat(60_000) }], { system: "y".repeat(40_001) }),
    ).rejects.toThrow(/100,000/);
    expect(services).toEqual([]);
    expect(who.asks).toEqual([]);
  });

  it("the broker refuses an oversized prompt itself (a realm that skips its own check)", async () => {
    const { broker } = setup([]);
    const controller = new AbortController();
    await expect(
      Promise.resolve(
        broker.call(
          { messages: [{ role: "user", content: "x".repeat(100_001) }], stream: false },
          { signal: controller.signal, service: AI_CALL },
        ),
      ),
    ).rejects.toMatchObject({ code: "too-large" });
  });

  it("ai.stream yields the text in pieces; breaking out cancels the call, whose tokens still count", async () => {
    const { ai, recording, broker } = setup(["session"]);
    const pieces: string[] = [];
    for await (const piece of ai.stream("Say it")) pieces.push(piece);
    expect(pieces.join("")).toBe("Bonjour le monde");
    expect(broker.state().used).toBe(19);

    const held = recordingModel("one two three four five", { hold: true, usage: false });
    const second = setup(["session"], { model: held.model });
    for await (const piece of second.ai.stream("Count")) {
      expect(piece).toBe("one ");
      break;
    }
    await eventually(() => expect(held.aborted[0]).toBe(true));
    await eventually(() => expect(second.broker.inFlight()).toBe(0));
    // Reported no usage: the prompt and what arrived are estimated, and counted.
    expect(second.broker.state().used).toBeGreaterThan(0);
    expect(second.audit.at(-1)).toMatchObject({ method: "stream", result: "aborted" });
  });

  it("ai.stream with an AbortSignal: aborting between two pulls ends the call at the host at once", async () => {
    const held = recordingModel("one two three four five", { hold: true });
    const { ai, broker } = setup(["session"], { model: held.model });
    const controller = new AbortController();
    const iterator = ai.stream("Count", { signal: controller.signal })[Symbol.asyncIterator]();
    await expect(iterator.next()).resolves.toEqual({ done: false, value: "one " });
    controller.abort();
    await eventually(() => expect(held.aborted[0]).toBe(true));
    await expect(iterator.next()).rejects.toMatchObject({ name: "AbortError" });
    await eventually(() => expect(broker.inFlight()).toBe(0));
  });

  it("an AbortSignal cancels the call: the model's request is aborted and the code gets an AbortError", async () => {
    const held = recordingModel("slow answer here", { hold: true });
    const { ai, broker, audit } = setup(["session"], { model: held.model });
    const controller = new AbortController();
    const call = ai.complete("Take your time", { signal: controller.signal });
    await eventually(() => expect(held.calls).toHaveLength(1));
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    await eventually(() => expect(held.aborted[0]).toBe(true));
    await eventually(() => expect(broker.inFlight()).toBe(0));
    expect(audit.at(-1)).toMatchObject({ result: "aborted" });
  });

  it("a provider failure reaches the code as our sentence, never the server's words", async () => {
    const failing: LanguageModelV3 = {
      ...recordingModel().model,
      async doStream() {
        throw new Error("401 Unauthorized: invalid key sk-secret-123 at https://api.example.com/v1");
      },
    };
    const { ai } = setup(["session"], { model: failing });
    const failure = ai.complete("hi");
    await expect(failure).rejects.toMatchObject({ name: "AiError", code: "failed" });
    await expect(failure).rejects.toThrow(/the model's provider had an error/);
    await failure.catch((error: Error) => {
      expect(error.message).not.toContain("sk-secret");
      expect(error.message).not.toContain("api.example.com");
    });
  });

  it("the demo model's responder translates offline", async () => {
    const { ai } = setup(["session"], { model: createDemoResponder({ delayMs: 0 }) });
    await expect(ai.complete("Translate to French: good morning, my friend")).resolves.toBe("bonjour, mon ami");
    await expect(ai.complete("hello world", { system: "Translate the text to Spanish." })).resolves.toBe("hola mundo");
  });

  it("`ai` holds nothing but its two functions", () => {
    const { ai } = setup([]);
    expect(Object.getPrototypeOf(ai)).toBeNull();
    expect(Object.keys(ai).sort()).toEqual(["complete", "stream"]);
    expect(Object.isFrozen(ai)).toBe(true);
  });
});

describe("a render loop calling ai.complete", () => {
  it("is stopped by the limits: a few calls reach the host, the paused UI's calls end and later ones are refused", async () => {
    const { who, served, audit, broker } = setup([]);
    const globals = served.globals as {
      mount(options: { ui: () => unknown }): { id: string };
      useState: typeof import("react").useState;
      useEffect: typeof import("react").useEffect;
      React: typeof import("react");
      ai: { complete(prompt: string): Promise<string> };
    };
    const errors: string[] = [];
    const { useState, useEffect, ai, React } = globals;
    globals.mount({
      ui: () => {
        const [count, setCount] = useState(0);
        // The bug the limits exist for: an effect without dependencies that calls the model and sets state.
        useEffect(() => {
          ai.complete(`render ${count}`).catch((error: { name: string; code?: string }) =>
            errors.push(`${error.name}:${error.code}`),
          );
          const timer = setTimeout(() => setCount((value) => value + 1), 0);
          return () => clearTimeout(timer);
        });
        return React.createElement("span", null, `renders: ${count}`);
      },
    });
    // The commit limit pauses the mount: its calls waiting for the person are withdrawn, later ones refused.
    await eventually(() => expect(errors).toContain("AiError:paused"), 10_000);
    await eventually(() => expect(broker.inFlight()).toBe(0));
    // Each ask was withdrawn (the next call behind it asked in turn, and was withdrawn too): none is left on screen.
    expect(who.asks.length).toBeLessThanOrEqual(4);
    expect(who.waiting).toEqual([]);
    // The host saw 4 calls at most (one asked, three waited behind it); the realm refused the rest itself.
    expect(audit.length).toBeLessThanOrEqual(4);
    expect(errors.filter((error) => error === "AiError:too-many-calls").length).toBeGreaterThan(0);
  });
});
