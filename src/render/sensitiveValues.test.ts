import { afterEach, describe, expect, it } from "vitest";
import { isSensitiveText, payloadHasSensitiveValue, setSensitiveValues } from "./sensitiveValues";

afterEach(() => setSensitiveValues([]));

describe("sensitive values in generated UIs", () => {
  it("recognises the stored key, pasted whole, inside other text, or typed a character at a time", () => {
    const key = "local-key-7Hq2pZ9xW4";
    setSensitiveValues([key]);
    expect(isSensitiveText(key)).toBe(true);
    expect(isSensitiveText(`my key is ${key}`)).toBe(true);
    const typed = Array.from({ length: key.length }, (_, index) => key.slice(0, index + 1));
    expect(typed.filter((value) => isSensitiveText(value)).length).toBe(key.length - 5);
    expect(isSensitiveText("hello world")).toBe(false);
  });

  it("recognises provider key shapes even when no key is stored", () => {
    expect(isSensitiveText("sk-proj-abcdefghijklmnopqrstuvwx")).toBe(true);
    expect(isSensitiveText("sk-or-v1-0123456789abcdef0123")).toBe(true);
    expect(isSensitiveText("task-list")).toBe(false);
  });

  it("looks into form values and nested payloads", () => {
    setSensitiveValues(["local-key-7Hq2pZ9xW4"]);
    expect(payloadHasSensitiveValue({ values: { name: "Ada", token: ["x", "local-key-7Hq2pZ9xW4"] } })).toBe(true);
    expect(payloadHasSensitiveValue({ value: "Ada Lovelace" })).toBe(false);
    expect(payloadHasSensitiveValue({ checked: true })).toBe(false);
  });
});
