import { DEFAULT_BASE_URL, DEFAULT_MODEL, MAX_OUTPUT_TOKENS_RANGE } from "../llm/settings";
import { readTokenPrice, type TokenPrice } from "./cost";

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
  /** Max tokens per reply; absent: the provider's default. */
  maxOutputTokens?: number;
  /** The model's price per million tokens, for the cost under each interaction; absent: no cost shown. */
  price?: TokenPrice;
  /**
   * Where the key is kept: `browser` — this browser profile's localStorage
   * for this site (survives restarts); `tab` — this tab's memory only, never
   * written to disk (gone when the tab closes or reloads).
   */
  keyStorage: KeyStorage;
}

export type KeyStorage = "browser" | "tab";

/** A max-tokens value from the form or storage: a whole number in range, or absent (provider default). */
export function readMaxOutputTokens(value: unknown): number | undefined {
  const number = typeof value === "string" ? (value.trim() === "" ? NaN : Number(value)) : value;
  if (typeof number !== "number" || !Number.isFinite(number)) return undefined;
  return Math.min(MAX_OUTPUT_TOKENS_RANGE.max, Math.max(MAX_OUTPUT_TOKENS_RANGE.min, Math.floor(number)));
}

export const DEFAULT_SETTINGS: Settings = {
  provider: "demo",
  apiKey: "",
  baseURL: DEFAULT_BASE_URL,
  model: DEFAULT_MODEL,
  maxTurns: 10,
  keyStorage: "browser",
};

/**
 * The key kept for this tab only: a module variable, so it lives exactly as
 * long as this page and never reaches localStorage, IndexedDB or
 * sessionStorage (which browsers may write to disk to restore tabs).
 */
let tabOnlyKey = "";

const STORAGE_KEY = "livemark.settings.v1";

export function loadSettings(storage: Pick<Storage, "getItem"> | undefined = globalThis.localStorage): Settings {
  try {
    const raw = storage?.getItem(STORAGE_KEY);
    if (!raw) return { ...DEFAULT_SETTINGS };
    const parsed = JSON.parse(raw) as Partial<Settings>;
    const keyStorage: KeyStorage = parsed.keyStorage === "tab" ? "tab" : "browser";
    return {
      provider: parsed.provider === "openai" ? "openai" : "demo",
      apiKey: keyStorage === "tab" ? tabOnlyKey : typeof parsed.apiKey === "string" ? parsed.apiKey : "",
      keyStorage,
      baseURL: typeof parsed.baseURL === "string" && parsed.baseURL ? parsed.baseURL : DEFAULT_SETTINGS.baseURL,
      model: typeof parsed.model === "string" && parsed.model ? parsed.model : DEFAULT_SETTINGS.model,
      maxTurns:
        typeof parsed.maxTurns === "number" && parsed.maxTurns >= 1 && parsed.maxTurns <= 50
          ? Math.floor(parsed.maxTurns)
          : DEFAULT_SETTINGS.maxTurns,
      ...(readMaxOutputTokens(parsed.maxOutputTokens) !== undefined
        ? { maxOutputTokens: readMaxOutputTokens(parsed.maxOutputTokens) }
        : {}),
      ...(parsed.price && readTokenPrice(parsed.price.inputPerMillion, parsed.price.outputPerMillion)
        ? { price: readTokenPrice(parsed.price.inputPerMillion, parsed.price.outputPerMillion) }
        : {}),
    };
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

export function saveSettings(
  settings: Settings,
  storage: Pick<Storage, "setItem"> | undefined = globalThis.localStorage,
): void {
  if (settings.keyStorage === "tab") {
    tabOnlyKey = settings.apiKey;
    storage?.setItem(STORAGE_KEY, JSON.stringify({ ...settings, apiKey: "" }));
    return;
  }
  tabOnlyKey = "";
  storage?.setItem(STORAGE_KEY, JSON.stringify(settings));
}

/** Forget key: the key is removed from storage and memory; everything else stays. */
export function forgetKey(
  settings: Settings,
  storage: Pick<Storage, "setItem"> | undefined = globalThis.localStorage,
): Settings {
  const next = { ...settings, apiKey: "" };
  saveSettings(next, storage);
  return next;
}

/** Where the key is, who can see it: the note under the key field. */
export function keyStorageNote(keyStorage: KeyStorage): string {
  return keyStorage === "tab"
    ? "Kept in this tab's memory only, never written to disk: closing or reloading the tab forgets it. It is sent only to the base URL below; generated code, exports, share links and error reports never contain it."
    : "Stored in this browser's local storage for this site, on this device only: anyone using this browser profile (and extensions allowed on this site) can read it. It is sent only to the base URL below; generated code, exports, share links and error reports never contain it.";
}
