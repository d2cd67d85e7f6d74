import { DEFAULT_BASE_URL, DEFAULT_MODEL } from "../llm/settings";

/**
 * The person's LLM settings. They live in the app origin only (the sandbox is
 * an opaque origin and cannot read them) and are never exported.
 */
export interface Settings {
  provider: "demo" | "openai";
  apiKey: string;
  baseURL: string;
  model: string;
  maxTurns: number;
}

export const DEFAULT_SETTINGS: Settings = {
  provider: "demo",
  apiKey: "",
  baseURL: DEFAULT_BASE_URL,
  model: DEFAULT_MODEL,
  maxTurns: 10,
};

const STORAGE_KEY = "livemark.settings.v1";

export function loadSettings(storage: Pick<Storage, "getItem"> | undefined = globalThis.localStorage): Settings {
  try {
    const raw = storage?.getItem(STORAGE_KEY);
    if (!raw) return { ...DEFAULT_SETTINGS };
    const parsed = JSON.parse(raw) as Partial<Settings>;
    return {
      provider: parsed.provider === "openai" ? "openai" : "demo",
      apiKey: typeof parsed.apiKey === "string" ? parsed.apiKey : "",
      baseURL: typeof parsed.baseURL === "string" && parsed.baseURL ? parsed.baseURL : DEFAULT_SETTINGS.baseURL,
      model: typeof parsed.model === "string" && parsed.model ? parsed.model : DEFAULT_SETTINGS.model,
      maxTurns:
        typeof parsed.maxTurns === "number" && parsed.maxTurns >= 1 && parsed.maxTurns <= 50
          ? Math.floor(parsed.maxTurns)
          : DEFAULT_SETTINGS.maxTurns,
    };
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

export function saveSettings(settings: Settings, storage: Pick<Storage, "setItem"> | undefined = globalThis.localStorage): void {
  storage?.setItem(STORAGE_KEY, JSON.stringify(settings));
}
