import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, loadSettings, readMaxOutputTokens, saveSettings } from "./settings";

function memoryStorage(initial?: string) {
  let value = initial ?? null;
  return {
    getItem: () => value,
    setItem: (_key: string, next: string) => void (value = next),
  };
}

describe("max tokens per reply", () => {
  it("reads a whole number within bounds, and nothing (provider default) otherwise", () => {
    expect(readMaxOutputTokens("8192")).toBe(8192);
    expect(readMaxOutputTokens(" 1000.7 ")).toBe(1000);
    expect(readMaxOutputTokens("10")).toBe(256);
    expect(readMaxOutputTokens(5e9)).toBe(1_000_000);
    for (const value of ["", "  ", "lots", NaN, Infinity, null, undefined, {}])
      expect(readMaxOutputTokens(value)).toBeUndefined();
  });

  it("survives a save and a reload, and a bad stored value falls back to the provider default", () => {
    const storage = memoryStorage();
    saveSettings({ ...DEFAULT_SETTINGS, maxOutputTokens: 16_000 }, storage);
    expect(loadSettings(storage).maxOutputTokens).toBe(16_000);
    expect(loadSettings(memoryStorage(JSON.stringify({ maxOutputTokens: "many" })))).not.toHaveProperty(
      "maxOutputTokens",
    );
    expect(loadSettings(memoryStorage(JSON.stringify({})))).toEqual(DEFAULT_SETTINGS);
  });

  it("keeps the token price across a reload and drops a malformed one", () => {
    const storage = memoryStorage();
    saveSettings({ ...DEFAULT_SETTINGS, price: { inputPerMillion: 2.5, outputPerMillion: 10 } }, storage);
    expect(loadSettings(storage).price).toEqual({ inputPerMillion: 2.5, outputPerMillion: 10 });
    expect(
      loadSettings(memoryStorage(JSON.stringify({ price: { inputPerMillion: -1, outputPerMillion: 10 } }))),
    ).not.toHaveProperty("price");
    expect(loadSettings(memoryStorage(JSON.stringify({ price: "cheap" })))).not.toHaveProperty("price");
  });
});

describe("the key", () => {
  it("for this tab only: kept in memory, never written to storage, and forgotten on request", async () => {
    const { forgetKey } = await import("./settings");
    const storage = memoryStorage();
    saveSettings({ ...DEFAULT_SETTINGS, provider: "openai", apiKey: "tab-secret-123456", keyStorage: "tab" }, storage);
    expect(storage.getItem()).not.toContain("tab-secret-123456");
    expect(loadSettings(storage)).toMatchObject({ apiKey: "tab-secret-123456", keyStorage: "tab" });
    const forgotten = forgetKey(loadSettings(storage), storage);
    expect(forgotten.apiKey).toBe("");
    expect(loadSettings(storage).apiKey).toBe("");
  });

  it("stored in the browser by default, and Forget key removes it from there", async () => {
    const { forgetKey } = await import("./settings");
    const storage = memoryStorage();
    saveSettings({ ...DEFAULT_SETTINGS, provider: "openai", apiKey: "browser-secret-123456" }, storage);
    expect(storage.getItem()).toContain("browser-secret-123456");
    forgetKey(loadSettings(storage), storage);
    expect(storage.getItem()).not.toContain("browser-secret-123456");
    expect(loadSettings(storage)).toMatchObject({ provider: "openai", apiKey: "", keyStorage: "browser" });
  });
});
