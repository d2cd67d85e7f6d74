import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_SEGMENT_CHARS, SEGMENT_CHARS, segmentGrowingText, segmentText } from "./markdownSegments";

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

describe("segmentGrowingText (a streaming reply)", () => {
  /** Text of the shapes that decide the cuts: paragraphs, blank lines, fences, long lines, lines with no break. */
  const piece = fc.oneof(
    fc.integer({ min: 1, max: 3_000 }).map((words) => `${"word *em* ".repeat(words / 10 + 1)}\n`),
    fc.constant("\n"),
    fc.constant("\n\n"),
    fc.constantFrom("```ts\n", "```\n", "~~~\n", "    ```\n"),
    fc.integer({ min: 1, max: 30_000 }).map((length) => "x_".repeat(length / 2)),
    fc.integer({ min: 1, max: 2_500 }).map((count) => "a line\n".repeat(count)),
    fc.constantFrom(" ", "  \n", "text"),
  );
  const texts = fc.array(piece, { minLength: 1, maxLength: 40 }).map((pieces) => pieces.join(""));

  it("cuts a grown text as segmentText cuts it whole, wherever the earlier text ended", () => {
    fc.assert(
      fc.property(texts, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 }), (text, ends) => {
        let previous: ReturnType<typeof segmentGrowingText> | undefined;
        for (const end of [...ends].sort())
          previous = segmentGrowingText(text.slice(0, Math.floor(end * text.length)), previous);
        const grown = segmentGrowingText(text, previous);
        expect(grown.segments).toEqual(segmentText(text));
        expect(grown.segments.map((segment) => segment.text).join("")).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it("does not resume after a hard cut (what follows one is plain) or after a blank line still being written", () => {
    const afterHardCut = `${"a line\n".repeat(2_000)}${"b\n".repeat(3_100)}\nend`;
    expect(segmentGrowingText(afterHardCut, segmentGrowingText(afterHardCut.slice(0, 13_000))).segments).toEqual(
      segmentText(afterHardCut),
    );
    const blankLineGrows = `${"a line\n".repeat(1_000)}  more of the same line\n\nend`;
    const cutAt = blankLineGrows.indexOf("  more") + 2;
    expect(segmentGrowingText(blankLineGrows, segmentGrowingText(blankLineGrows.slice(0, cutAt))).segments).toEqual(
      segmentText(blankLineGrows),
    );
  });

  it("keeps the segments before the last cut at a blank line as the same objects, and starts over for another text", () => {
    const text = paragraphs(600);
    const earlier = segmentGrowingText(text.slice(0, 100_000));
    const grown = segmentGrowingText(text, earlier);
    expect(earlier.resume.count).toBeGreaterThan(5);
    for (let index = 0; index < earlier.resume.count; index += 1)
      expect(grown.segments[index]).toBe(earlier.segments[index]);
    const other = segmentGrowingText(`Other. ${text}`, earlier);
    expect(other.segments[0]).not.toBe(earlier.segments[0]);
    expect(other.segments).toEqual(segmentText(`Other. ${text}`));
  });
});
