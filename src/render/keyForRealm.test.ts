import { describe, expect, it } from "vitest";
import { UNIDENTIFIED_KEY, keyForRealm } from "./keyForRealm";

describe("keyForRealm", () => {
  it("passes the keys UIs steer by", () => {
    const keys = [
      "Enter",
      "Escape",
      "Tab",
      "ArrowUp",
      "ArrowDown",
      "ArrowLeft",
      "ArrowRight",
      "Home",
      "End",
      "PageUp",
      "PageDown",
      "Backspace",
      "Delete",
      "Shift",
      "Control",
      "Alt",
      "AltGraph",
      "Meta",
      "F1",
      "F12",
      "F24",
    ];
    for (const key of keys) expect(keyForRealm(key)).toBe(key);
  });

  it("never names a printable key: typing an API key into a key handler yields no character of it", () => {
    const typed = "sk-or-v1-Zq81LmPw0v";
    const seen = [...typed].map(keyForRealm);
    expect(seen.every((key) => key === UNIDENTIFIED_KEY)).toBe(true);
    expect(seen.join("")).not.toMatch(/[0-9-]/);
  });

  it("hides Space, non-Latin text, dead and IME keys, look-alike names and anything not a string", () => {
    for (const key of [
      " ",
      "é",
      "ß",
      "日",
      "😀",
      "Dead",
      "Process",
      "Compose",
      "Unidentified",
      "F25",
      "F0",
      "enter",
      "Enterx",
      "ArrowUpA",
      "KeyA",
      "",
      undefined,
      null,
      7,
    ]) {
      expect(keyForRealm(key)).toBe(UNIDENTIFIED_KEY);
    }
  });
});
