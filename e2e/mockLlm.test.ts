/**
 * The mock OpenAI-compatible server, driven by the real AI SDK client the app
 * uses (`streamText` + `createOpenAI(...).chat`), and its failures mapped by
 * the app's own `describeLlmError`.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { streamText } from "ai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { describeLlmError } from "../src/llm/errors";
import { createLanguageModel } from "../src/llm/provider";
import { browserLikeFetch, createGate, startMockLlm, type MockLlm } from "./mockLlm";

let mock: MockLlm;

beforeAll(async () => {
  mock = await startMockLlm();
});
afterAll(() => mock.close());
afterEach(() => {
  expect(mock.pending).toBe(0);
  mock.clearRequests();
});

function stream(
  options: { baseURL?: string; fetch?: typeof fetch; abortSignal?: AbortSignal; maxRetries?: number } = {},
) {
  const provider = createOpenAI({ apiKey: "test", baseURL: options.baseURL ?? mock.url, fetch: options.fetch });
  let error: unknown;
  const result = streamText({
    model: provider.chat("m"),
    system: "You are a test.",
    prompt: "Say hello",
    maxRetries: options.maxRetries ?? 0,
    abortSignal: options.abortSignal,
    onError: ({ error: reported }) => void (error = reported),
  });
  return {
    result,
    /** Collect the text and the error, the way the agent loop reads the stream. */
    async drain(): Promise<{ text: string; pieces: string[]; error: unknown; aborted: boolean }> {
      const pieces: string[] = [];
      let aborted = false;
      try {
        for await (const part of result.fullStream) {
          if (part.type === "text-delta") pieces.push(part.text);
          if (part.type === "error") error = part.error;
          if (part.type === "abort") aborted = true;
        }
      } catch (thrown) {
        error = thrown;
      }
      return { text: pieces.join(""), pieces, error, aborted };
    },
  };
}

describe("startMockLlm", () => {
  it("streams a queued turn as chat-completions SSE and records the request", async () => {
    mock.enqueue({ chunks: ["Hel", "lo, ", { pauseMs: 30 }, "world", "!"] });
    const { text, pieces, error } = await stream().drain();
    expect(error).toBeUndefined();
    expect(text).toBe("Hello, world!");
    expect(pieces).toEqual(["Hel", "lo, ", "world", "!"]);

    expect(mock.requests).toHaveLength(1);
    const [request] = mock.requests;
    expect(request).toMatchObject({ method: "POST", path: "/v1/chat/completions", unqueued: false });
    expect(request.headers.authorization).toBe("Bearer test");
    expect(request.body).toMatchObject({
      model: "m",
      stream: true,
      messages: [
        { role: "system", content: "You are a test." },
        { role: "user", content: "Say hello" },
      ],
    });
  });

  it("reports usage and the finish reason", async () => {
    mock.enqueue({ chunks: ["a", "b"] });
    const { result } = stream();
    expect(await result.text).toBe("ab");
    expect(await result.finishReason).toBe("stop");
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  it("streams reasoning deltas in either field and a length finish, which the app's provider reads as reasoning and a cut", async () => {
    mock.enqueue({
      chunks: [{ reasoning: "Drafting " }, { reasoning: "a plan.", field: "reasoning" }, "The ", "answer"],
      finishReason: "length",
    });
    const model = createLanguageModel({ provider: "openai", apiKey: "test", baseURL: mock.url, model: "m" });
    const result = streamText({ model, prompt: "Think", maxRetries: 0 });
    let reasoning = "";
    let text = "";
    for await (const part of result.fullStream) {
      if (part.type === "reasoning-delta") reasoning += part.text;
      if (part.type === "text-delta") text += part.text;
    }
    expect(reasoning).toBe("Drafting a plan.");
    expect(text).toBe("The answer");
    expect(await result.finishReason).toBe("length");
  });

  it("answers an empty stop turn when nothing is queued, and records that", async () => {
    const { text, error } = await stream().drain();
    expect(error).toBeUndefined();
    expect(text).toBe("");
    expect(mock.requests[0].unqueued).toBe(true);
  });

  it("holds a gate open until the test opens it", async () => {
    const gate = createGate();
    mock.enqueue({ chunks: ["before ", { waitFor: gate.promise }, "after"] });
    const { result } = stream();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const piece of result.textStream) seen.push(piece);
    })();
    await mock.waitForRequests(1);
    // The part before the gate arrives; nothing after it while the gate is shut.
    await expect.poll(() => seen.join(""), { timeout: 10_000 }).toBe("before ");
    gate.open();
    await reading;
    expect(seen.join("")).toBe("before after");
  });

  it("stops streaming when the client aborts", async () => {
    const gate = createGate();
    mock.enqueue({ chunks: ["one ", { waitFor: gate.promise }, "two"] });
    const controller = new AbortController();
    const { result } = stream({ abortSignal: controller.signal });
    let text = "";
    let aborted = false;
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") {
        text += part.text;
        controller.abort();
      }
      if (part.type === "abort") aborted = true;
    }
    gate.open();
    expect(aborted).toBe(true);
    expect(text).toBe("one ");
    expect(describeLlmError(controller.signal.reason).code).toBe("aborted");
  });

  it("answers CORS preflights with the origin and the requested headers", async () => {
    const response = await fetch(`${mock.url}/chat/completions`, {
      method: "OPTIONS",
      headers: {
        origin: "http://127.0.0.1:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type",
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("http://127.0.0.1:5173");
    expect(response.headers.get("access-control-allow-headers")).toBe("authorization,content-type");
    expect(response.headers.get("access-control-allow-methods")).toContain("POST");
    expect(mock.preflights).toHaveLength(1);
    expect(mock.requests).toHaveLength(0);
  });

  it("passes a browser's CORS checks (emulated) when CORS is on", async () => {
    mock.enqueue({ chunks: ["cross-origin ok"] });
    const { text, error } = await stream({ fetch: browserLikeFetch("http://127.0.0.1:5173") }).drain();
    expect(error).toBeUndefined();
    expect(text).toBe("cross-origin ok");
    expect(mock.preflights[0].headers["access-control-request-headers"]).toContain("authorization");
  });

  it("lists a model", async () => {
    const response = await fetch(`${mock.url}/models`);
    expect((await response.json()).data[0].id).toBe("mock-model");
  });
});

describe("errors from the mock, as describeLlmError maps them", () => {
  it("401 → auth", async () => {
    mock.enqueue({ status: 401 });
    const { error } = await stream().drain();
    expect(describeLlmError(error)).toMatchObject({ code: "auth", status: 401, retryable: false });
    expect(describeLlmError(error).message).toContain("127.0.0.1");
  });

  it("404 → not-found, naming the model and the base URL", async () => {
    mock.enqueue({ status: 404 });
    const described = describeLlmError((await stream().drain()).error);
    expect(described.code).toBe("not-found");
    expect(described.message).toContain('"m"');
    expect(described.message).toContain(mock.url);
  });

  it("429 with retry-after → rate-limit with retryAfterMs, and the SDK honours it when retrying", async () => {
    mock.enqueue({ status: 429, headers: { "retry-after": "2" } });
    const described = describeLlmError((await stream().drain()).error);
    expect(described).toMatchObject({ code: "rate-limit", retryable: true, retryAfterMs: 2000 });
    expect(described.message).toContain("2 seconds");

    mock.clearRequests();
    mock.enqueue({ status: 429, headers: { "retry-after-ms": "300" } });
    mock.enqueue({ chunks: ["after the wait"] });
    const started = Date.now();
    const { text } = await stream({ maxRetries: 1 }).drain();
    expect(text).toBe("after the wait");
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(mock.requests).toHaveLength(2);
  });

  it("500 → server, retryable", async () => {
    mock.enqueue({ status: 500 });
    expect(describeLlmError((await stream().drain()).error)).toMatchObject({
      code: "server",
      status: 500,
      retryable: true,
    });
  });

  it("a connection dropped mid-stream → disconnected, with the partial text received", async () => {
    mock.enqueue({ chunks: ["partial ", "reply"], dropAfter: true });
    const { text, error } = await stream().drain();
    expect(text).toBe("partial reply");
    const described = describeLlmError(error, { partialReply: text.length > 0 });
    expect(described).toMatchObject({ code: "disconnected", retryable: true });
    expect(described.message).toContain("Continue");
    // Also without the hint: the SDK's own error says the successful response broke off.
    expect(describeLlmError(error).code).toBe("disconnected");
  });

  it("an endpoint that refuses browser requests ({ cors: false }) → network, with a CORS hint", async () => {
    const refusing = await startMockLlm({ cors: false });
    try {
      refusing.enqueue({ chunks: ["never seen"] });
      const { error } = await stream({ baseURL: refusing.url, fetch: browserLikeFetch() }).drain();
      expect(error).toBeInstanceOf(TypeError);
      const described = describeLlmError(error, { baseURL: refusing.url });
      expect(described).toMatchObject({ code: "network", retryable: true });
      expect(described.message).toContain("does not accept browser requests");
      expect(described.message).toContain("OLLAMA_ORIGINS");
      // The browser stops at the preflight: the real request never arrives.
      expect(refusing.preflights).toHaveLength(1);
      expect(refusing.requests).toHaveLength(0);
    } finally {
      await refusing.close();
    }
  });

  it("a server that is gone → network", async () => {
    const gone = await startMockLlm();
    const url = gone.url;
    await gone.close();
    const described = describeLlmError((await stream({ baseURL: url }).drain()).error, { baseURL: url });
    expect(described).toMatchObject({ code: "network", retryable: true });
  });
});

describe("modes for the chat basics (e2e/chat.test.ts)", () => {
  it("lists the given models, refuses a wrong key with 401, answers an unknown model with 404, reports the given usage", async () => {
    const strict = await startMockLlm({
      models: ["a-model", "b-model"],
      knownModels: ["a-model"],
      requireKey: "right-key",
    });
    try {
      const listed = await (
        await fetch(`${strict.url}/models`, { headers: { authorization: "Bearer right-key" } })
      ).json();
      expect(listed.data.map((item: { id: string }) => item.id)).toEqual(["a-model", "b-model"]);
      const refused = await fetch(`${strict.url}/models`, { headers: { authorization: "Bearer wrong-key" } });
      expect(refused.status).toBe(401);
      expect((await refused.json()).error.code).toBe("invalid_api_key");
      const chat = (model: string) =>
        fetch(`${strict.url}/chat/completions`, {
          method: "POST",
          headers: { authorization: "Bearer right-key", "content-type": "application/json" },
          body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
        });
      const unknown = await chat("b-model");
      expect(unknown.status).toBe(404);
      expect((await unknown.json()).error.code).toBe("model_not_found");
      strict.enqueue({ chunks: ["Hello"], usage: { prompt: 1234, completion: 56 } });
      const answered = await (await chat("a-model")).json();
      expect(answered.usage).toEqual({ prompt_tokens: 1234, completion_tokens: 56, total_tokens: 1290 });
      expect(strict.requests.at(-1)?.body.messages).toEqual([{ role: "user", content: "hi" }]);
    } finally {
      await strict.close();
    }
  });
});
