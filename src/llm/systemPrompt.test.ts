import { describe, expect, it } from "vitest";
import { createProtocolParser } from "../protocol/parser";
import { KIT_COMPONENTS, KIT_ICON_NAMES } from "../wire/mount";
import type { ProtocolEvent } from "../protocol/types";
import { readFileSync } from "node:fs";
import { CAPABILITIES } from "../capabilities";
import { PROMPT_EXAMPLES, SYSTEM_PROMPT } from "../capabilities/prompt";
import {
  BASE_PROMPT_EXAMPLES,
  RUNTIME_OUTPUT_MARKER,
  UI_EVENT_MARKER,
  buildSystemPrompt,
  estimateTokens,
} from "./systemPrompt";

function parse(text: string): ProtocolEvent[] {
  const parser = createProtocolParser();
  return [...parser.push(text), ...parser.end()];
}

describe("SYSTEM_PROMPT", () => {
  // The prompt as one string in src/llm before the capabilities brought their own lines
  // (network's fetch, files' attachment and download): assembled, it is the same text, byte for byte;
  // since then app data's lines (storage, useStored) joined it, updated here on purpose.
  it("is the text it was before the capabilities held their lines", () => {
    const before = readFileSync(new URL("./__fixtures__/systemPrompt.txt", import.meta.url), "utf8");
    expect(SYSTEM_PROMPT).toBe(before);
    expect(PROMPT_EXAMPLES.length).toBe(12);
  });

  it("places each capability's lines at its named places, in the list's order", () => {
    const base = buildSystemPrompt([]);
    expect(base).not.toContain("Reaching outside");
    expect(base).not.toContain("fetch(");
    for (const example of BASE_PROMPT_EXAMPLES) expect(base).toContain(example);
    const [network, files] = CAPABILITIES.map((capability) => capability.prompt ?? {});
    const swapped = buildSystemPrompt([files, network]);
    expect(swapped).toContain("# Reaching outside: files and network");
    expect(swapped).toContain("- Output that follows a chosen file or fetched data comes back");
    expect(swapped.indexOf("Offering a file")).toBeLessThan(swapped.indexOf("Fetching ("));
    expect(buildSystemPrompt([network])).toContain(
      '- `fetch(url, init?)` (standard Response): see "Reaching outside".',
    );
  });

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
      "await comp.result",
      "name",
      "Functions never cross",
      "callbacks",
      "sales.value ?? []",
      "BEFORE its data fence",
      "mountSlot(",
      "<Slot",
      "Tailwind",
      "lucide",
      "block b, line l",
      "persist",
      "shadow",
    ]) {
      expect(SYSTEM_PROMPT, phrase).toContain(phrase);
    }
  });

  it("its examples are agent code the real parser reads, one per data flow", () => {
    for (const example of PROMPT_EXAMPLES) {
      const events = parse(example);
      expect(events.filter((event) => event.type === "protocol-error")).toEqual([]);
      expect(events.some((event) => event.type === "block-start" && event.kind === "code")).toBe(true);
    }
    const all = PROMPT_EXAMPLES.join("\n");
    for (const usage of [
      "outputSchema",
      "await tripForm.result",
      "new Data(",
      "new StreamedData(",
      'json agent.data => "sales"',
      "callbacks",
      "<Slot",
      ".mountSlot(",
    ]) {
      expect(all, usage).toContain(usage);
    }
    // Mount before stream: the StreamedData and its chart come before the data fence.
    const stream = PROMPT_EXAMPLES.find((example) => example.includes("new StreamedData("))!;
    expect(stream.indexOf("mount(")).toBeLessThan(stream.indexOf("agent.data"));
  });

  it("names every kit component, and its examples use no other component", () => {
    for (const name of KIT_COMPONENTS) expect(SYSTEM_PROMPT, name).toMatch(new RegExp(`\\b${name}\\b`));
    const known = new Set<string>([...KIT_COMPONENTS, "Slot", ...KIT_ICON_NAMES.map((icon) => `${icon}Icon`)]);
    for (const example of PROMPT_EXAMPLES) {
      for (const [, tag] of example.matchAll(/<([A-Z]\w*)/g)) expect(known.has(tag), tag).toBe(true);
    }
  });

  it("examples declare distinct names, so they can run one after another in one realm", () => {
    const names = PROMPT_EXAMPLES.flatMap((example) =>
      [...example.matchAll(/^(?:const|let|var|function|async function|class)\s+(\w+)/gm)].map((match) => match[1]),
    );
    expect(new Set(names).size).toBe(names.length);
  });

  it("stays a modest size", () => {
    const tokens = estimateTokens(SYSTEM_PROMPT);
    expect(tokens).toBeGreaterThan(500);
    // Was 3,000; the network and file capabilities (their rules and three examples) need ~570 more,
    // app data (its rule and one example) ~220,
    // and model calls from code (`ai`: a rule and an example) ~215 more.
    expect(tokens).toBeLessThan(4100);
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
