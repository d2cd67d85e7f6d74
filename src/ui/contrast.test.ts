import { describe, expect, it } from "vitest";
import { CODE_BACKGROUND, contrastRatio, readableOn } from "./contrast";

describe("readableOn", () => {
  it("keeps colours that already meet AA and darkens or lightens the others until they do", () => {
    expect(readableOn("#24292e", CODE_BACKGROUND.light, "black")).toBe("#24292e");
    // github-light's orange and red are below 4.5:1 on the code background.
    for (const color of ["#e36209", "#d73a49", "#22863a"]) {
      expect(contrastRatio(color, CODE_BACKGROUND.light)).toBeLessThan(4.5);
      expect(
        contrastRatio(readableOn(color, CODE_BACKGROUND.light, "black"), CODE_BACKGROUND.light),
      ).toBeGreaterThanOrEqual(4.5);
    }
    expect(
      contrastRatio(readableOn("#6a737d", CODE_BACKGROUND.dark, "white"), CODE_BACKGROUND.dark),
    ).toBeGreaterThanOrEqual(4.5);
  });
});
