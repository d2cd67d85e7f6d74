/**
 * The language model for a session's settings: any OpenAI-compatible chat
 * completions endpoint (OpenAI, OpenRouter, Groq, Together, Ollama, LM Studio,
 * vLLM, llama.cpp), or the offline demo model.
 *
 * The API key goes to the configured base URL and nowhere else: it is handed
 * only to the AI SDK provider, which sends it as the `Authorization` header of
 * requests to `baseURL`. Nothing here logs settings or puts the key in an
 * error message.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { defaultSettingsMiddleware, wrapLanguageModel } from "ai";
import { createDemoModel, type DemoModelOptions } from "./demoModel";
import { DEFAULT_MODEL, isDemo, normalizeBaseURL, type LlmSettings } from "./settings";

export * from "./settings";

export interface CreateLanguageModelOptions {
  /** Replaces `fetch` for the HTTP provider (tests, instrumentation). */
  fetch?: typeof fetch;
  /** Pace and scripts of the demo model. */
  demo?: DemoModelOptions;
}

/**
 * The model to pass to `streamText`. The demo model when `isDemo(settings)`;
 * otherwise a chat-completions model, which every OpenAI-compatible server
 * speaks:
 * - OpenAI itself: `createOpenAI({ apiKey, baseURL }).chat(model)`, which
 *   knows OpenAI's own parameters (`max_completion_tokens` for its reasoning
 *   models).
 * - Any other server: `createOpenAICompatible(...)`, which turns the
 *   reasoning fields those servers stream (`reasoning_content`: DeepSeek,
 *   vLLM, llama.cpp; `reasoning`: OpenRouter, Ollama, LM Studio) into
 *   `reasoning-delta` parts. `@ai-sdk/openai`'s chat model drops both fields.
 *
 * `maxOutputTokens` (Settings → Max tokens per reply) applies to every call.
 */
export function createLanguageModel(settings: LlmSettings, options: CreateLanguageModelOptions = {}): LanguageModelV3 {
  if (isDemo(settings)) return createDemoModel(options.demo);
  const apiKey = settings.apiKey.trim();
  const baseFetch = options.fetch;
  const baseURL = normalizeBaseURL(settings.baseURL);
  // A keyless local server gets no `Authorization: Bearer ` header at all:
  // some servers reject an empty bearer, and it widens the CORS preflight.
  const fetch: typeof globalThis.fetch | undefined =
    apiKey === ""
      ? (input, init) => {
          const headers = new Headers(init?.headers);
          headers.delete("authorization");
          return (baseFetch ?? globalThis.fetch)(input, { ...init, headers });
        }
      : baseFetch;
  const modelId = settings.model.trim() || DEFAULT_MODEL;
  const model = isOpenAIBaseURL(baseURL)
    ? createOpenAI({ apiKey, baseURL, fetch }).chat(modelId)
    : createOpenAICompatible({
        name: "openai-compatible",
        apiKey: apiKey || undefined,
        baseURL,
        fetch,
        includeUsage: true,
      }).chatModel(modelId);
  const maxOutputTokens = settings.maxOutputTokens;
  if (maxOutputTokens === undefined) return model;
  return wrapLanguageModel({ model, middleware: defaultSettingsMiddleware({ settings: { maxOutputTokens } }) });
}

/** OpenAI's own API (its chat model knows OpenAI's parameters). */
function isOpenAIBaseURL(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === "api.openai.com";
  } catch {
    return false;
  }
}
