import { describe, expect, it } from "vitest";
import { createProtocolParser } from "../protocol/parser";
import type { ProtocolEvent } from "../protocol/types";
import { PROMPT_EXAMPLES, RUNTIME_OUTPUT_MARKER, SYSTEM_PROMPT, UI_EVENT_MARKER, estimateTokens } from "./systemPrompt";

function parse(text: string): ProtocolEvent[] {
  const parser = createProtocolParser();
  return [...parser.push(text), ...parser.end()];
}

describe("SYSTEM_PROMPT", () => {
  it("contains every example, verbatim", () => {
    expect(PROMPT_EXAMPLES.length).toBeGreaterThanOrEqual(2);
    for (const example of PROMPT_EXAMPLES) expect(SYSTEM_PROMPT).toContain(example);
  });

  it("teaches the protocol, the loop and the markers", () => {
    for (const phrase of [
      "tsx agent.run",
      'json agent.data => "id"',
      RUNTIME_OUTPUT_MARKER,
      UI_EVENT_MARKER,
      "WITHOUT logging",
      "console.log",
      "sleep(ms)",
      "fetch(",
      "mount(",
      "new Data(",
      "new StreamedData(",
      "zod",
      "block b, line l",
      "persist",
      "shadow",
    ]) {
      expect(SYSTEM_PROMPT, phrase).toContain(phrase);
    }
  });

  it("its examples are agent code the real parser runs, using only console and sleep", () => {
    for (const example of PROMPT_EXAMPLES) {
      const events = parse(example);
      expect(events.filter((event) => event.type === "protocol-error")).toEqual([]);
      const starts = events.filter((event) => event.type === "block-start");
      expect(starts.some((event) => event.type === "block-start" && event.kind === "code")).toBe(true);
      const code = events
        .filter((event): event is Extract<ProtocolEvent, { type: "block-delta" }> => event.type === "block-delta")
        .filter((event) => starts.find((start) => start.index === event.index)?.kind === "code")
        .map((event) => event.text)
        .join("\n");
      expect(code).not.toMatch(/\b(mount|Data|StreamedData|fetch|z)\s*[.(]/);
    }
  });

  it("examples declare distinct names, so they can run one after another in one realm", () => {
    const names = PROMPT_EXAMPLES.flatMap((example) => [...example.matchAll(/^(?:const|let|var|function|async function|class)\s+(\w+)/gm)].map((match) => match[1]));
    expect(new Set(names).size).toBe(names.length);
  });

  it("stays a modest size", () => {
    const tokens = estimateTokens(SYSTEM_PROMPT);
    expect(tokens).toBeGreaterThan(500);
    expect(tokens).toBeLessThan(2500);
  });
});

describe("estimateTokens", () => {
  it("is close to what GPT-4-class tokenizers give on common text", () => {
    // Reference counts from the cl100k tokenizer.
    expect(estimateTokens("The quick brown fox jumps over the lazy dog.")).toBe(10);
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("hello world")).toBe(2);
  });

  it("grows with the text and counts code densely", () => {
    const prose = "a plain sentence of ordinary words ".repeat(20);
    const code = "const x = [1, 2, 3].map((n) => n * 2);\n".repeat(20);
    expect(estimateTokens(prose + prose)).toBe(2 * estimateTokens(prose));
    expect(estimateTokens(code) / code.length).toBeGreaterThan(estimateTokens(prose) / prose.length);
  });
});
