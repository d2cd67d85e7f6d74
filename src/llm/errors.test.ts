import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, JSONParseError, LoadAPIKeyError } from "@ai-sdk/provider";
import { RetryError, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { describeLlmError, parseRetryAfter, redact } from "./errors";
import { DEFAULT_SETTINGS, createLanguageModel } from "./provider";

const URL_ = "https://api.openai.com/v1/chat/completions";

function apiError(
  statusCode: number | undefined,
  options: { headers?: Record<string, string>; body?: unknown; cause?: unknown; message?: string } = {},
) {
  return new APICallError({
    message: options.message ?? `HTTP ${statusCode}`,
    url: URL_,
    requestBodyValues: { model: "gpt-test", messages: [] },
    statusCode,
    responseHeaders: options.headers,
    responseBody:
      options.body === undefined
        ? undefined
        : typeof options.body === "string"
          ? options.body
          : JSON.stringify(options.body),
    cause: options.cause,
  });
}

const openAiBody = (message: string, code: string | null = null, type = "invalid_request_error") => ({
  error: { message, type, param: null, code },
});

/** Run a real `streamText` call against a fetch that answers with `response`, and return the error it reports. */
async function errorFromSdk(respond: () => Response | Promise<Response>, maxRetries = 0): Promise<unknown> {
  const provider = createOpenAI({
    apiKey: "sk-test-secret-key-123456",
    baseURL: "https://llm.example/v1",
    fetch: async () => respond(),
  });
  let reported: unknown;
  const result = streamText({ model: provider.chat("gpt-test"), prompt: "hi", maxRetries, onError: () => undefined });
  try {
    for await (const part of result.fullStream) if (part.type === "error") reported = part.error;
  } catch (error) {
    reported = error;
  }
  return reported;
}

const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

describe("describeLlmError with errors the AI SDK produced", () => {
  it("401 → auth, names the host, not retryable, never echoes the key", async () => {
    const error = await errorFromSdk(() =>
      jsonResponse(401, openAiBody("Incorrect API key provided: sk-test-secret-key-123456.", "invalid_api_key")),
    );
    expect(APICallError.isInstance(error)).toBe(true);
    const described = describeLlmError(error);
    expect(described).toMatchObject({ code: "auth", status: 401, retryable: false });
    expect(described.message).toContain("llm.example");
    expect(described.message).toContain("Settings");
    expect(JSON.stringify(described)).not.toContain("secret-key");
  });

  it("403 → auth", async () => {
    const described = describeLlmError(
      await errorFromSdk(() => jsonResponse(403, openAiBody("Country not supported"))),
    );
    expect(described).toMatchObject({ code: "auth", status: 403, retryable: false, details: "Country not supported" });
    expect(described.message).toContain('"gpt-test"');
  });

  it("404 → not-found, naming the model and the base URL", async () => {
    const described = describeLlmError(
      await errorFromSdk(() => jsonResponse(404, openAiBody("The model `gpt-test` does not exist", "model_not_found"))),
    );
    expect(described).toMatchObject({ code: "not-found", status: 404, retryable: false });
    expect(described.message).toContain('"gpt-test"');
    expect(described.message).toContain("https://llm.example/v1");
  });

  it("404 from a server without that path → not-found, naming both", async () => {
    const described = describeLlmError(await errorFromSdk(() => new Response("404 page not found", { status: 404 })), {
      baseURL: "http://localhost:11434",
      model: "llama3.2",
    });
    expect(described.code).toBe("not-found");
    expect(described.message).toContain("http://localhost:11434");
    expect(described.message).toContain('"llama3.2"');
    expect(described.message).toContain("/v1");
  });

  it("429 with retry-after → rate-limit, retryAfterMs from the header, says when", async () => {
    const described = describeLlmError(
      await errorFromSdk(() =>
        jsonResponse(429, openAiBody("Slow down", "rate_limit_exceeded", "requests"), { "retry-after": "20" }),
      ),
    );
    expect(described).toMatchObject({ code: "rate-limit", status: 429, retryable: true, retryAfterMs: 20_000 });
    expect(described.message).toContain("20 seconds");
  });

  it("429 with retry-after-ms takes precedence", async () => {
    const described = describeLlmError(
      await errorFromSdk(() =>
        jsonResponse(429, openAiBody("Slow down"), { "retry-after-ms": "1500", "retry-after": "9" }),
      ),
    );
    expect(described.retryAfterMs).toBe(1500);
  });

  it("429 insufficient_quota → rate-limit that retrying cannot fix", async () => {
    const described = describeLlmError(
      await errorFromSdk(() =>
        jsonResponse(429, openAiBody("You exceeded your current quota", "insufficient_quota", "insufficient_quota")),
      ),
    );
    expect(described).toMatchObject({ code: "rate-limit", retryable: false });
    expect(described.message).toMatch(/quota/);
  });

  it("RetryError after several 429s → rate-limit from the last attempt", async () => {
    let calls = 0;
    const error = await errorFromSdk(() => {
      calls += 1;
      return jsonResponse(429, openAiBody("Slow down"), { "retry-after-ms": "0" });
    }, 2);
    expect(calls).toBe(3);
    expect(RetryError.isInstance(error)).toBe(true);
    const described = describeLlmError(error);
    expect(described).toMatchObject({ code: "rate-limit", retryable: true, retryAfterMs: 0 });
    expect(described.message).toContain("3 attempts");
  });

  it("5xx → server, retryable", async () => {
    const described = describeLlmError(
      await errorFromSdk(() => jsonResponse(503, openAiBody("overloaded", null, "server_error"))),
    );
    expect(described).toMatchObject({ code: "server", status: 503, retryable: true });
  });

  it("400 → bad-request with the server's words; context overflow gets its own advice", async () => {
    const plain = describeLlmError(
      await errorFromSdk(() => jsonResponse(400, openAiBody("Unrecognized request argument supplied: foo"))),
    );
    expect(plain).toMatchObject({ code: "bad-request", status: 400, retryable: false });
    expect(plain.message).toContain("Unrecognized request argument supplied: foo");
    const long = describeLlmError(
      await errorFromSdk(() =>
        jsonResponse(400, openAiBody("This model's maximum context length is 8192 tokens.", "context_length_exceeded")),
      ),
    );
    expect(long.code).toBe("bad-request");
    expect(long.message).toMatch(/too long/);
  });

  it("a browser's `TypeError: Failed to fetch` (CORS or unreachable) → network with a CORS hint", async () => {
    const error = await errorFromSdk(() => {
      throw new TypeError("Failed to fetch");
    });
    expect(error).toBeInstanceOf(TypeError);
    const described = describeLlmError(error, { baseURL: "http://localhost:11434/v1" });
    expect(described).toMatchObject({ code: "network", retryable: true });
    expect(described.message).toContain("does not accept browser requests or is unreachable");
    expect(described.message).toContain("OLLAMA_ORIGINS");
    expect(described.message).toContain("http://localhost:11434/v1");
  });

  it("Node's `fetch failed` with a cause → network", async () => {
    const error = await errorFromSdk(() => {
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }),
      });
    });
    expect(APICallError.isInstance(error)).toBe(true);
    expect(describeLlmError(error)).toMatchObject({ code: "network", retryable: true });
  });

  it("mixed content is called out on an https page", () => {
    const described = describeLlmError(new TypeError("Failed to fetch"), {
      baseURL: "http://192.168.1.20:1234/v1",
      pageProtocol: "https:",
    });
    expect(described.message).toMatch(/https/);
    const local = describeLlmError(new TypeError("Failed to fetch"), {
      baseURL: "http://localhost:1234/v1",
      pageProtocol: "https:",
    });
    expect(local.message).not.toMatch(/served over https/);
  });

  it("a body cut mid-reply → disconnected (the SDK reports it with status 200)", async () => {
    const encoder = new TextEncoder();
    const error = await errorFromSdk(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(
                encoder.encode(
                  'data: {"id":"1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n',
                ),
              );
              controller.error(new TypeError("network error"));
            },
          }),
          { status: 200, headers: { "content-type": "text/event-stream" } },
        ),
    );
    const described = describeLlmError(error);
    expect(described).toMatchObject({ code: "disconnected", retryable: true });
    expect(described.message).toContain("Continue");
  });

  it("a reply that is not a chat-completions stream → server", async () => {
    const error = await errorFromSdk(
      () => new Response("data: {not json}\n\n", { status: 200, headers: { "content-type": "text/event-stream" } }),
    );
    expect(describeLlmError(error).code).toBe("server");
  });

  it("abort → aborted", async () => {
    expect(describeLlmError(new DOMException("The operation was aborted.", "AbortError"))).toMatchObject({
      code: "aborted",
      retryable: false,
    });
    expect(describeLlmError(new RetryError({ message: "x", reason: "abort", errors: [] })).code).toBe("aborted");
  });
});

describe("describeLlmError with hand-made and odd shapes", () => {
  it("walks cause chains", () => {
    const wrapped = new Error("outer", { cause: apiError(401) });
    expect(describeLlmError(wrapped).code).toBe("auth");
  });

  it("recognises structured-cloned errors by name", () => {
    const cloned = { name: "AI_APICallError", message: "x", statusCode: 404, url: URL_, responseHeaders: {} };
    expect(describeLlmError(cloned).code).toBe("not-found");
  });

  it("a stream cut with the browser's body errors → disconnected", () => {
    for (const message of ["network error", "Error in input stream", "terminated"]) {
      expect(describeLlmError(new TypeError(message)).code).toBe("disconnected");
    }
    expect(describeLlmError(new TypeError("Failed to fetch"), { partialReply: true }).code).toBe("disconnected");
  });

  it("a 2xx response whose body could not be parsed → server, not disconnected", () => {
    const error = apiError(200, {
      message: "Failed to process successful response",
      cause: new JSONParseError({ text: "<html>", cause: new SyntaxError("bad") }),
    });
    expect(describeLlmError(error).code).toBe("server");
  });

  it("LoadAPIKeyError → auth", () => {
    expect(describeLlmError(new LoadAPIKeyError({ message: "missing" })).code).toBe("auth");
  });

  it("one chunk that cannot be read after part of the reply came → disconnected with its own words, never the base URL advice", () => {
    const described = describeLlmError(
      new JSONParseError({ text: '{"choices":[{"del', cause: new SyntaxError("bad") }),
      {
        partialReply: true,
        baseURL: "https://api.example.com/v1",
      },
    );
    expect(described.code).toBe("disconnected");
    expect(described.retryable).toBe(true);
    expect(described.message).toMatch(/broke mid-reply: a chunk it sent could not be read\. The partial reply is kept/);
    expect(described.message).not.toMatch(/base URL/);
  });

  it("a stream that stopped without its last chunk or [DONE] says so, never the base URL advice", async () => {
    const chunk = (content: string) =>
      `data: {"id":"c1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}]}\n\n`;
    // The app's own provider setup, over a stream that ends after two chunks.
    const model = createLanguageModel(
      { ...DEFAULT_SETTINGS, apiKey: "sk-x", baseURL: "https://api.example.com/v1" },
      {
        fetch: async () =>
          new Response(chunk("a") + chunk("b"), { status: 200, headers: { "content-type": "text/event-stream" } }),
      },
    );
    let error: unknown;
    for await (const part of streamText({ model, prompt: "hi" }).fullStream)
      if (part.type === "error") error = part.error;
    const described = describeLlmError(error, { partialReply: true, baseURL: "https://api.example.com/v1" });
    expect(described.code).toBe("disconnected");
    expect(described.message).toMatch(/stopped without saying the reply was finished \(no last chunk, no \[DONE\]\)/);
    expect(described.message).not.toMatch(/base URL|could not be read/);
    expect(describeLlmError(error, { partialReply: false }).message).toMatch(/stopped before the reply began/);
  });

  it("one corrupt chat-completions chunk before any text is its own fault, never the base URL advice", () => {
    const described = describeLlmError(new JSONParseError({ text: '{"id":"c1","obj', cause: new SyntaxError("bad") }), {
      partialReply: false,
      baseURL: "https://api.example.com/v1",
    });
    expect(described.code).toBe("server");
    expect(described.retryable).toBe(true);
    expect(described.message).toMatch(/sent a chunk that could not be read \(cut or corrupted\)/);
    expect(described.message).not.toMatch(/base URL/);
  });

  it("JSONParseError → server", () => {
    expect(describeLlmError(new JSONParseError({ text: "{", cause: new SyntaxError("bad") })).code).toBe("server");
  });

  it("an error part streamed by the provider (plain object)", () => {
    expect(describeLlmError({ message: "Rate limit exceeded", type: "rate_limit_error" }).code).toBe("rate-limit");
    expect(describeLlmError({ message: "boom", type: "server_error" }).code).toBe("server");
  });

  it("anything else → unknown, with its message", () => {
    const described = describeLlmError(new Error("weird"));
    expect(described).toMatchObject({ code: "unknown", retryable: false });
    expect(described.message).toContain("weird");
    expect(describeLlmError(undefined).code).toBe("unknown");
  });

  it("TimeoutError → network", () => {
    expect(describeLlmError(new DOMException("timed out", "TimeoutError")).code).toBe("network");
  });

  it("reads the wait from OpenAI's words when no header came", () => {
    const described = describeLlmError(
      apiError(429, { body: openAiBody("Rate limit reached. Please try again in 350ms.") }),
    );
    expect(described.retryAfterMs).toBe(350);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  it("reads every form", () => {
    expect(parseRetryAfter({ "retry-after-ms": "250.5" }, now)).toBe(251);
    expect(parseRetryAfter({ "Retry-After": "3" }, now)).toBe(3000);
    expect(parseRetryAfter({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }, now)).toBe(30_000);
    expect(parseRetryAfter({ "retry-after": "Wed, 31 Dec 2025 00:00:30 GMT" }, now)).toBe(0);
    expect(parseRetryAfter({ "x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s" }, now)).toBe(
      360_000,
    );
    expect(parseRetryAfter({ "x-ratelimit-reset-tokens": "120ms" }, now)).toBe(120);
    expect(parseRetryAfter({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(parseRetryAfter({}, now)).toBeUndefined();
  });
});

describe("redact", () => {
  it("removes keys and bearer tokens", () => {
    expect(redact("Incorrect API key provided: sk-proj-abcdef123456.")).not.toContain("abcdef");
    expect(redact("Authorization: Bearer abc.def")).toBe("Authorization: Bearer [redacted]");
    expect(redact("gsk_1234567890abcdef")).toBe("[redacted key]");
  });
});
