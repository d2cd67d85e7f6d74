import { describe, expect, it } from "vitest";
import { toneRule } from "./tones";

describe("toneRule", () => {
  it("draws a tone's two colours by the page's theme, and its font style", () => {
    expect(toneRule("lm-tone-0", { light: "#d73a49", dark: "#f97583" })).toBe(
      ".lm-hl .lm-tone-0{color:light-dark(#d73a49,#f97583)}",
    );
    expect(toneRule("lm-tone-1", { light: "#111", dark: "#eee", fontStyle: "italic" })).toBe(
      ".lm-hl .lm-tone-1{color:light-dark(#111,#eee);font-style:italic}",
    );
  });

  it("refuses a value that is not a tone's, so no text can add CSS of its own", () => {
    expect(toneRule("lm-tone-2", { light: "red}body{display:none", dark: "#000" })).toBeUndefined();
    expect(toneRule("lm-tone-2", { light: "#000", dark: "url(https://evil.example/x)" })).toBeUndefined();
    expect(toneRule("lm-tone-2", { light: "#000", dark: "#fff", fontStyle: "italic}*{x:y" })).toBeUndefined();
  });
});
