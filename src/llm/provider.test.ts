import { streamText } from "ai";
import { describe, expect, it } from "vitest";
import { DEMO_MODEL_ID } from "./demoModel";
import { describeLlmError } from "./errors";
import {
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  DEFAULT_SETTINGS,
  createLanguageModel,
  describeSettingsProblem,
  isDemo,
  isLocalBaseURL,
  normalizeBaseURL,
  type LlmSettings,
} from "./provider";

const settings = (overrides: Partial<LlmSettings> = {}): LlmSettings => ({ ...DEFAULT_SETTINGS, ...overrides });

interface Captured {
  url: string;
  headers: Headers;
  body: any;
}

/** A fetch that records the request and answers with a one-word chat-completions stream. */
function recordingFetch(captured: Captured[], status = 200): typeof fetch {
  return async (input, init) => {
    captured.push({ url: String(input), headers: new Headers(init?.headers), body: JSON.parse(String(init?.body)) });
    if (status !== 200) {
      // Like OpenAI, echo the key that was refused.
      const message = `Incorrect API key provided: ${new Headers(init?.headers).get("authorization")?.slice("Bearer ".length)}.`;
      return new Response(
        JSON.stringify({ error: { message, type: "invalid_request_error", code: "invalid_api_key" } }),
        { status },
      );
    }
    const sse =
      'data: {"id":"c1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"pong"},"finish_reason":null}]}\n\n' +
      'data: {"id":"c1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
    return new Response(sse, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
}

describe("isDemo", () => {
  it("is the demo when chosen, or when a remote endpoint has no key", () => {
    expect(isDemo(settings({ provider: "demo", apiKey: "sk-x" }))).toBe(true);
    expect(isDemo(settings())).toBe(true);
    expect(isDemo(settings({ apiKey: "   " }))).toBe(true);
    expect(isDemo(settings({ apiKey: "sk-x" }))).toBe(false);
    expect(isDemo(settings({ baseURL: "https://openrouter.ai/api/v1" }))).toBe(true);
  });

  it("a local server without a key is used as is", () => {
    for (const baseURL of [
      "http://localhost:11434/v1",
      "http://127.0.0.1:1234/v1",
      "http://[::1]:8080/v1",
      "http://192.168.1.20:8000/v1",
      "http://10.0.0.5/v1",
      "http://gpu-box.local:8000/v1",
    ]) {
      expect(isDemo(settings({ baseURL })), baseURL).toBe(false);
    }
  });
});

describe("isLocalBaseURL / normalizeBaseURL", () => {
  it("knows local and private hosts", () => {
    expect(isLocalBaseURL("http://172.20.0.1/v1")).toBe(true);
    expect(isLocalBaseURL("http://172.32.0.1/v1")).toBe(false);
    expect(isLocalBaseURL("https://api.groq.com/openai/v1")).toBe(false);
    expect(isLocalBaseURL("not a url")).toBe(false);
  });

  it("trims, defaults and drops trailing slashes", () => {
    expect(normalizeBaseURL(" http://localhost:11434/v1/ ")).toBe("http://localhost:11434/v1");
    expect(normalizeBaseURL("")).toBe(DEFAULT_BASE_URL);
  });
});

describe("createLanguageModel", () => {
  it("gives the demo model when there is no key", () => {
    expect(createLanguageModel(settings()).modelId).toBe(DEMO_MODEL_ID);
    expect(createLanguageModel(settings({ provider: "demo", apiKey: "sk-x" })).modelId).toBe(DEMO_MODEL_ID);
  });

  it("calls chat completions at the base URL with the key as a bearer token", async () => {
    const captured: Captured[] = [];
    const model = createLanguageModel(
      settings({ apiKey: "sk-test", baseURL: "https://llm.example/v1/", model: "my-model" }),
      { fetch: recordingFetch(captured) },
    );
    expect(model.modelId).toBe("my-model");
    const result = streamText({ model, prompt: "ping" });
    expect(await result.text).toBe("pong");
    expect(captured).toHaveLength(1);
    expect(captured[0].url).toBe("https://llm.example/v1/chat/completions");
    expect(captured[0].headers.get("authorization")).toBe("Bearer sk-test");
    expect(captured[0].body).toMatchObject({
      model: "my-model",
      stream: true,
      messages: [{ role: "user", content: "ping" }],
    });
  });

  it("sends no Authorization header to a keyless local server", async () => {
    const captured: Captured[] = [];
    const model = createLanguageModel(settings({ baseURL: "http://localhost:11434/v1", model: "llama3.2" }), {
      fetch: recordingFetch(captured),
    });
    expect(await streamText({ model, prompt: "ping" }).text).toBe("pong");
    expect(captured[0].url).toBe("http://localhost:11434/v1/chat/completions");
    expect(captured[0].headers.has("authorization")).toBe(false);
  });

  it("falls back to the default model name when it is blank", () => {
    expect(createLanguageModel(settings({ apiKey: "sk-x", model: "  " })).modelId).toBe(DEFAULT_MODEL);
  });

  it("keeps the key out of error descriptions, even when the server echoes it", async () => {
    const captured: Captured[] = [];
    const model = createLanguageModel(settings({ apiKey: "sk-live-very-secret-0001" }), {
      fetch: recordingFetch(captured, 401),
    });
    let error: unknown;
    const result = streamText({
      model,
      prompt: "ping",
      maxRetries: 0,
      onError: ({ error: reported }) => void (error = reported),
    });
    await result.consumeStream();
    expect(String((error as Error).message)).toContain("very-secret");
    const described = describeLlmError(error);
    expect(described.code).toBe("auth");
    expect(JSON.stringify(described)).not.toContain("very-secret");
  });
});

/** A chat-completions stream whose first chunks carry reasoning the way servers send it. */
function reasoningFetch(captured: Captured[], finishReason = "stop"): typeof fetch {
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  return async (input, init) => {
    captured.push({ url: String(input), headers: new Headers(init?.headers), body: JSON.parse(String(init?.body)) });
    const sse =
      chunk({ role: "assistant", reasoning_content: "From reasoning_content. " }) +
      chunk({ reasoning: "From reasoning." }) +
      chunk({ content: "Answer." }) +
      chunk({}, finishReason) +
      "data: [DONE]\n\n";
    return new Response(sse, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
}

describe("createLanguageModel: reasoning and output limits", () => {
  it("turns both reasoning_content and reasoning deltas into reasoning parts, apart from the text", async () => {
    for (const baseURL of ["http://localhost:11434/v1", "https://openrouter.ai/api/v1"]) {
      const captured: Captured[] = [];
      const model = createLanguageModel(settings({ apiKey: "sk-x", baseURL, model: "deepseek-r1" }), {
        fetch: reasoningFetch(captured),
      });
      const result = streamText({ model, prompt: "think" });
      let reasoning = "";
      let text = "";
      for await (const part of result.fullStream) {
        if (part.type === "reasoning-delta") reasoning += part.text;
        if (part.type === "text-delta") text += part.text;
      }
      expect(reasoning, baseURL).toBe("From reasoning_content. From reasoning.");
      expect(text, baseURL).toBe("Answer.");
    }
  });

  it("reports a length finish as such", async () => {
    const model = createLanguageModel(settings({ apiKey: "sk-x", baseURL: "https://llm.example/v1" }), {
      fetch: reasoningFetch([], "length"),
    });
    expect(await streamText({ model, prompt: "long" }).finishReason).toBe("length");
  });

  it("sends the max tokens setting with every call, and nothing when it is not set", async () => {
    for (const baseURL of ["https://llm.example/v1", DEFAULT_BASE_URL]) {
      const captured: Captured[] = [];
      const limited = createLanguageModel(settings({ apiKey: "sk-x", baseURL, maxOutputTokens: 8192 }), {
        fetch: recordingFetch(captured),
      });
      await streamText({ model: limited, prompt: "ping" }).consumeStream();
      const unlimited = createLanguageModel(settings({ apiKey: "sk-x", baseURL }), { fetch: recordingFetch(captured) });
      await streamText({ model: unlimited, prompt: "ping" }).consumeStream();
      const limit = (body: Record<string, unknown>) => body.max_tokens ?? body.max_completion_tokens;
      expect(limit(captured[0].body), baseURL).toBe(8192);
      expect(limit(captured[1].body), baseURL).toBeUndefined();
    }
  });
});

describe("describeSettingsProblem", () => {
  it("explains what to fix, and accepts good settings", () => {
    expect(describeSettingsProblem(settings({ apiKey: "sk-x" }))).toBeUndefined();
    expect(describeSettingsProblem(settings({ provider: "demo", baseURL: "???" }))).toBeUndefined();
    expect(describeSettingsProblem(settings({ baseURL: "localhost 11434" }))).toMatch(/not a valid URL/);
    expect(describeSettingsProblem(settings({ baseURL: "ftp://x/v1" }))).toMatch(/https/);
    expect(describeSettingsProblem(settings({ baseURL: "https://user:pw@x/v1" }))).toMatch(/key field/);
    expect(describeSettingsProblem(settings({ model: "" }))).toMatch(/model name/);
    expect(describeSettingsProblem(settings({ baseURL: "http://192.168.1.2:8000/v1" }), "https:")).toMatch(/https/);
    expect(describeSettingsProblem(settings({ baseURL: "http://localhost:11434/v1" }), "https:")).toBeUndefined();
  });
});
