import { describe, expect, it } from "vitest";
import { FeedbackCollector } from "./feedback";
import { blockLabel, forPerson, placeForPerson } from "./blockPlaces";

// A reply: text (lines 1–3), code whose first line is reply line 4, text, code from line 20, data from line 30.
const blocks = [
  { index: 0, kind: "text", line: 1 },
  { index: 1, kind: "code", line: 4 },
  { index: 2, kind: "text", line: 15 },
  { index: 3, kind: "code", line: 20 },
  { index: 4, kind: "data", line: 30 },
] as const;

describe("where a person is pointed in a reply", () => {
  it("counts only code blocks, from 1, and each block's own lines as its gutter does", () => {
    expect(blockLabel(blocks, 1)).toBe("code block 1");
    expect(blockLabel(blocks, 3)).toBe("code block 2");
    expect(blockLabel(blocks, 4)).toBe("data block 1");
    expect(blockLabel(blocks, 0)).toBeUndefined();
    // Reply line 31 is line 12 of the second code block's gutter.
    expect(placeForPerson(blocks, 3, 31)).toBe("code block 2, line 12");
    expect(placeForPerson(blocks, 1, 4)).toBe("code block 1, line 1");
  });

  it("renumbers what the model reads (the error, the console prefix, skips) and leaves the model's text alone", () => {
    const collector = new FeedbackCollector();
    collector.add({ type: "statement-start", block: 3, statement: 0, line: 31, endLine: 31, source: "log()" });
    collector.add({ type: "console", block: 3, statement: 0, level: "log", text: "hello" });
    collector.add({
      type: "statement-end",
      block: 3,
      statement: 0,
      status: "error",
      durationMs: 1,
      error: { code: "runtime", name: "TypeError", message: "x is undefined", block: 3, line: 31, column: 5 },
    });
    collector.add({ type: "skipped", block: 3, fromStatement: 1, count: 2, fromLine: 32, reason: "error" });
    const model = collector.text();
    // The model keeps the reply-level numbers it needs.
    expect(model).toContain("[block 3 line 31] hello");
    expect(model).toContain("(block 3, line 31, column 5)");
    expect(forPerson(model, blocks).split("\n")).toEqual([
      "[code block 2, line 12] hello",
      "TypeError: x is undefined (code block 2, line 12, column 5)",
      "Skipped: code block 2 from line 13 did not run because of the error above.",
    ]);
  });

  it("renumbers the cut note's ranges and leaves unknown blocks and lines as they are", () => {
    expect(forPerson("in block 1 (code), at line 7", blocks)).toBe("in code block 1, at line 4");
    expect(forPerson("block 1 from line 5 to 7", blocks)).toBe("code block 1 from line 2 to 4");
    expect(forPerson("block 1: lines 4–5 (2 statements)", blocks)).toBe("code block 1: lines 1–2 (2 statements)");
    expect(forPerson('block 4 (the data block for "t"), at line 31', blocks)).toBe(
      'data block 1 (the data block for "t"), at line 2',
    );
    expect(forPerson("block 9, line 3", blocks)).toBe("block 9, line 3");
    expect(forPerson("the text block 0", blocks)).toBe("the text block 0");
  });
});
