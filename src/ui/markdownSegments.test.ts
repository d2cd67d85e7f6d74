import { describe, expect, it } from "vitest";
import { MAX_SEGMENT_CHARS, SEGMENT_CHARS, segmentText } from "./markdownSegments";

const paragraphs = (count: number, words = 40) =>
  Array.from({ length: count }, (_, index) => `Paragraph ${index}: ${"some *words* here ".repeat(words / 3)}`).join(
    "\n\n",
  );

describe("segmentText", () => {
  it("cuts long prose at blank lines into Markdown segments of about SEGMENT_CHARS, losing nothing", () => {
    const text = paragraphs(600);
    const segments = segmentText(text);
    expect(segments.map((segment) => segment.text).join("")).toBe(text);
    expect(segments.length).toBeGreaterThan(text.length / MAX_SEGMENT_CHARS);
    for (const segment of segments) {
      expect(segment.plain).toBe(false);
      expect(segment.text.length).toBeLessThanOrEqual(MAX_SEGMENT_CHARS);
    }
    // Each cut is right after a blank line: the next segment starts a paragraph.
    for (const segment of segments.slice(1)) expect(segment.text).toMatch(/^Paragraph \d+:/);
  });

  it("never cuts inside a code fence while a blank line outside it comes soon enough", () => {
    const fence =
      "```ts\n" + Array.from({ length: 200 }, (_, index) => `const a${index} = ${index}\n\n`).join("") + "```\n";
    const text = `${paragraphs(100)}\n\n${fence}\n${paragraphs(100)}`;
    expect(fence.length).toBeLessThan(MAX_SEGMENT_CHARS);
    const segments = segmentText(text);
    expect(segments.map((segment) => segment.text).join("")).toBe(text);
    const holding = segments.filter((segment) => segment.text.includes("const a0 ="));
    expect(holding).toHaveLength(1);
    expect(holding[0].text).toContain("const a199 = 199");
    expect(segments.every((segment) => !segment.plain)).toBe(true);
  });

  it("one enormous paragraph (no blank line, no line break) becomes plain pieces no longer than MAX_SEGMENT_CHARS", () => {
    const text = "word_ ".repeat(200_000);
    const segments = segmentText(text);
    expect(segments.map((segment) => segment.text).join("")).toBe(text);
    expect(segments.every((segment) => segment.plain && segment.text.length <= MAX_SEGMENT_CHARS)).toBe(true);
  });

  it("a paragraph of many lines with no blank line is cut at line breaks, and only the pieces around a hard cut are plain", () => {
    const long = Array.from({ length: 2_000 }, (_, index) => `line ${index} of one paragraph`).join("\n");
    const text = `${paragraphs(40)}\n\n${long}\n\n${paragraphs(40)}`;
    const segments = segmentText(text);
    expect(segments.map((segment) => segment.text).join("")).toBe(text);
    expect(segments[0].plain).toBe(false);
    expect(segments.at(-1)!.plain).toBe(false);
    expect(segments.some((segment) => segment.plain)).toBe(true);
    for (const segment of segments.filter((item) => item.plain))
      expect(segment.text.length).toBeLessThanOrEqual(MAX_SEGMENT_CHARS);
  });

  it("a short message is one segment", () => {
    expect(segmentText("Hello **there**")).toEqual([{ text: "Hello **there**", plain: false }]);
    expect(SEGMENT_CHARS).toBeLessThan(MAX_SEGMENT_CHARS);
  });
});
