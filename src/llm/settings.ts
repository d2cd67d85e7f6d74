/**
 * LLM settings and the facts about them that the app needs before any model
 * is created (kept apart from provider.ts so the AI SDK stays out of the
 * app's initial JavaScript).
 */
export type LlmProviderKind = "openai" | "demo";

export interface LlmSettings {
  apiKey: string;
  baseURL: string;
  model: string;
  provider: LlmProviderKind;
  /** Most tokens one reply may have (Settings → Max tokens per reply); the provider's default when absent. */
  maxOutputTokens?: number;
}

/** Bounds of the max-tokens setting. */
export const MAX_OUTPUT_TOKENS_RANGE = { min: 256, max: 1_000_000 } as const;

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";
/** Fast, inexpensive, good at code, and served on chat completions. */
export const DEFAULT_MODEL = "gpt-4.1-mini";

export const DEFAULT_SETTINGS: Readonly<LlmSettings> = Object.freeze({
  apiKey: "",
  baseURL: DEFAULT_BASE_URL,
  model: DEFAULT_MODEL,
  provider: "openai",
});

/**
 * True when the settings select the offline demo model: the demo provider was
 * chosen, or there is no key for an endpoint that needs one. Servers on this
 * machine or the local network (Ollama, LM Studio, llama.cpp, vLLM) usually
 * need no key, so an empty key there still means "use that server".
 */
export function isDemo(settings: Pick<LlmSettings, "provider" | "apiKey" | "baseURL">): boolean {
  if (settings.provider === "demo") return true;
  if (settings.apiKey.trim() !== "") return false;
  return !isLocalBaseURL(settings.baseURL);
}

/** Trim, default when empty, drop trailing slashes: `http://localhost:11434/v1/` → `http://localhost:11434/v1`. */
export function normalizeBaseURL(baseURL: string): string {
  const trimmed = baseURL.trim();
  return trimmed === "" ? DEFAULT_BASE_URL : trimmed.replace(/\/+$/, "");
}

/** A base URL on this machine or a private network, where servers commonly run without a key. */
export function isLocalBaseURL(baseURL: string): boolean {
  let host: string;
  try {
    host = new URL(normalizeBaseURL(baseURL)).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local")) return true;
  if (host === "[::1]" || host === "0.0.0.0") return true;
  const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!ipv4) return false;
  const [a, b] = [Number(ipv4[1]), Number(ipv4[2])];
  return a === 127 || a === 10 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31);
}

/**
 * What is wrong with the settings, as a sentence for the Settings form, or
 * `undefined` when they can be used. The demo provider needs nothing.
 */
export function describeSettingsProblem(settings: LlmSettings, pageProtocol?: string): string | undefined {
  if (settings.provider === "demo") return undefined;
  let url: URL;
  try {
    url = new URL(normalizeBaseURL(settings.baseURL));
  } catch {
    return "The base URL is not a valid URL. It looks like https://api.openai.com/v1 or http://localhost:11434/v1.";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return "The base URL must start with https:// (or http:// for a server on your network).";
  if (url.username || url.password) return "Put the API key in the key field, not in the base URL.";
  if (settings.model.trim() === "") return "Enter a model name, e.g. gpt-4.1-mini, or llama3.2 for Ollama.";
  if (pageProtocol === "https:" && url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    return "This page is served over https, and browsers block plain-http calls to hosts other than localhost. Use an https URL for this server.";
  }
  return undefined;
}

function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127\./.test(host);
}
