import { readFileSync } from "node:fs";
import githubDark from "shiki/themes/github-dark.mjs";
import githubLight from "shiki/themes/github-light.mjs";
import { describe, expect, it } from "vitest";
import { CODE_BACKGROUND, readableOn } from "./contrast";
import { highlight, toneClass } from "./highlight";

describe("highlight (runs of one tone)", () => {
  const code = 'const greeting: string = "hello";\nfunction add(a: number, b: number) {\n  return a + b;\n}';

  it("gives each line back whole, as runs in which neighbours differ in tone and whitespace is never a run of its own", async () => {
    const lines = (await highlight(code, "ts"))!;
    expect(lines.map((line) => line.map((run) => run.content).join(""))).toEqual(code.split("\n"));
    for (const line of lines) {
      line.forEach((run, index) => {
        // Only a line's indent is whitespace alone, and then it is bare text.
        if (run.content.trim() === "") expect([index, run.className]).toEqual([0, undefined]);
        if (index > 0) expect(run.className).not.toBe(line[index - 1].className);
      });
    }
    // Fewer runs than shiki's tokens (a keyword, its space, the name, ... would be one each), and still several tones.
    const first = lines[0];
    expect(first.length).toBeLessThan(10);
    expect(new Set(first.map((run) => run.className)).size).toBeGreaterThanOrEqual(3);
    expect(first[0]).toEqual({ content: "const ", className: "lm-tone lm-l-d73a49 lm-d-f97583" });
    // The themes' own foreground is bare text (its `;`).
    expect(first.at(-1)).toEqual({ content: ";" });
  });

  it("draws font styles as classes, and never runs an underline under the gap after it", async () => {
    const [line] = (await highlight("*it* **bold** [a](http://x)", "markdown"))!;
    expect(line.find((run) => run.content.startsWith("*it*"))?.className).toContain("lm-i");
    expect(line.find((run) => run.content.startsWith("**bold**"))?.className).toContain("lm-b");
    const link = line.find((run) => run.content.startsWith("http://x"));
    expect(link).toEqual({ content: "http://x", className: "lm-tone lm-l-24292e lm-d-e1e4e8 lm-u" });
  });

  it("gives no class for a colour that is not a hex colour, so no text becomes a class name of its own", () => {
    expect(toneClass({ "--shiki-light": "red lm-x", "--shiki-dark": "#ffffff" })).toBeUndefined();
    expect(toneClass({ "--shiki-light": "#000000", "--shiki-dark": "var(--x)" })).toBeUndefined();
    expect(toneClass({ "--shiki-light": "#24292E", "--shiki-dark": "#E1E4E8" })).toBeUndefined();
    expect(toneClass({ "--shiki-light": "#6A737D", "--shiki-dark": "#6A737D" })).toBe(
      "lm-tone lm-l-6a737d lm-d-6a737d",
    );
  });

  it("styles.css holds every colour of both themes, at AA contrast on the code background, before any code is drawn", () => {
    const css = readFileSync(new URL("./styles.css", import.meta.url), "utf8");
    const themes = [
      { theme: githubLight, prefix: "l", background: CODE_BACKGROUND.light, towards: "black" as const },
      { theme: githubDark, prefix: "d", background: CODE_BACKGROUND.dark, towards: "white" as const },
    ];
    for (const { theme, prefix, background, towards } of themes) {
      const colours = new Set<string>();
      for (const rule of theme.tokenColors ?? [])
        if (rule.settings.foreground) colours.add(rule.settings.foreground.toLowerCase());
      expect(colours.size).toBeGreaterThan(5);
      for (const colour of colours) {
        const rule = `.lm-${prefix}-${colour.slice(1)} {\n  --lm-${prefix}: ${readableOn(colour, background, towards)};\n}`;
        expect(css, `styles.css draws ${theme.name}'s ${colour}`).toContain(rule);
      }
    }
  });
});
