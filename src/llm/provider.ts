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
import type { LanguageModelV3 } from "@ai-sdk/provider";
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
 * otherwise `createOpenAI({ apiKey, baseURL }).chat(model)` — chat
 * completions, which every OpenAI-compatible server speaks.
 */
export function createLanguageModel(settings: LlmSettings, options: CreateLanguageModelOptions = {}): LanguageModelV3 {
  if (isDemo(settings)) return createDemoModel(options.demo);
  const apiKey = settings.apiKey.trim();
  const baseFetch = options.fetch;
  const provider = createOpenAI({
    apiKey,
    baseURL: normalizeBaseURL(settings.baseURL),
    // A keyless local server gets no `Authorization: Bearer ` header at all:
    // some servers reject an empty bearer, and it widens the CORS preflight.
    fetch:
      apiKey === ""
        ? (input, init) => {
            const headers = new Headers(init?.headers);
            headers.delete("authorization");
            return (baseFetch ?? globalThis.fetch)(input, { ...init, headers });
          }
        : baseFetch,
  });
  return provider.chat(settings.model.trim() || DEFAULT_MODEL);
}

