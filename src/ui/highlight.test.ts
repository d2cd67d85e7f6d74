import { describe, expect, it } from "vitest";
import { highlight } from "./highlight";

describe("highlight (runs of one tone)", () => {
  const code = 'const greeting: string = "hello";\nfunction add(a: number, b: number) {\n  return a + b;\n}';

  it("gives each line back whole, as runs in which neighbours differ in tone and whitespace is never a tone's run", async () => {
    const lines = (await highlight(code, "ts"))!;
    expect(lines.map((line) => line.map((run) => run.content).join(""))).toEqual(code.split("\n"));
    for (const line of lines) {
      line.forEach((run, index) => {
        // Only a line's indent is whitespace alone, and then it has no tone.
        if (run.content.trim() === "") expect([index, run.tone]).toEqual([0, undefined]);
        if (index > 0) expect(JSON.stringify(run.tone)).not.toBe(JSON.stringify(line[index - 1].tone));
      });
    }
    // Fewer runs than shiki's tokens (a keyword, its space, the name, ... would be one each), and still several tones.
    const first = lines[0];
    expect(first.length).toBeLessThan(10);
    expect(new Set(first.map((run) => run.tone?.light)).size).toBeGreaterThanOrEqual(3);
    // The theme's own foreground is plain text, with no tone (its `;`).
    expect(first.at(-1)).toEqual({ content: ";" });
  });

  it("tones are readable hex colours in both themes", async () => {
    const lines = (await highlight(code, "ts"))!;
    for (const run of lines.flat()) {
      if (!run.tone) continue;
      expect(run.tone.light).toMatch(/^#[0-9a-f]{6}$/i);
      expect(run.tone.dark).toMatch(/^#[0-9a-f]{6}$/i);
    }
  });
});
