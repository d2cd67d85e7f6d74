import { describe, expect, it } from "vitest";
import { KIT_CSS } from "./kitStyles";
import { createMountStyleSheet } from "./mountStyleSheet";
import type { UtilityCssGenerator } from "./utilityCss";

function fakeGenerator(calls: string[][]): UtilityCssGenerator {
  return {
    async generate(tokens) {
      calls.push([...tokens]);
      // Generation is asynchronous: tokens added meanwhile wait for the next run.
      await Promise.resolve();
      return { css: [...tokens].map((token) => `.lm-mount .${token}{}`).join("\n"), matched: new Set(tokens) };
    },
  };
}

describe("createMountStyleSheet", () => {
  it("starts with the kit CSS, then regenerates the whole token set, coalescing tokens that arrive meanwhile", async () => {
    const written: string[] = [];
    const calls: string[][] = [];
    let loads = 0;
    const sheet = createMountStyleSheet(
      { set: (css) => void written.push(css) },
      async () => (loads++, fakeGenerator(calls)),
    );
    expect(written).toEqual([KIT_CSS]);
    sheet.addTokens(["p-4"]);
    sheet.addTokens(["p-4", "m-2"]);
    sheet.addTokens(["flex"]);
    await sheet.settled();
    expect(loads).toBe(1);
    expect(calls.at(-1)).toEqual(["p-4", "m-2", "flex"]);
    expect(calls.length).toBeLessThanOrEqual(2);
    expect(written.at(-1)).toBe(`${KIT_CSS}\n.lm-mount .p-4{}\n.lm-mount .m-2{}\n.lm-mount .flex{}`);
    const before = calls.length;
    sheet.addTokens(["p-4", "flex"]);
    await sheet.settled();
    expect(calls.length).toBe(before);
  });

  it("keeps the kit CSS when the generator fails to load, and retries later", async () => {
    const written: string[] = [];
    let attempt = 0;
    const sheet = createMountStyleSheet({ set: (css) => void written.push(css) }, async () => {
      if (attempt++ === 0) throw new Error("chunk failed");
      return fakeGenerator([]);
    });
    const warn = console.warn;
    console.warn = () => {};
    try {
      sheet.addTokens(["p-4"]);
      await sheet.settled();
      expect(written).toEqual([KIT_CSS]);
      sheet.addTokens(["m-1"]);
      await sheet.settled();
      expect(written.at(-1)).toContain(".lm-mount .m-1{}");
    } finally {
      console.warn = warn;
    }
  });
});
