/**
 * The dark theme for model UIs written without `dark:` variants: neutral
 * text classes follow the kit's text colours in the dark theme, which meet
 * AA on the dark panel where Tailwind's grays do not.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { contrastRatio } from "../ui/contrast";
import { createUtilityCssGenerator, darkThemeDefaults } from "./utilityCss";

/** The dark side of a `light-dark()` theme variable of the app (src/ui/styles.css). */
function darkValue(name: string): string {
  const styles = readFileSync(new URL("../ui/styles.css", import.meta.url), "utf8");
  const match = new RegExp(`${name}:\\s*light-dark\\(#[0-9a-f]{6},\\s*(#[0-9a-f]{6})\\)`, "i").exec(styles);
  if (!match) throw new Error(`no ${name} in styles.css`);
  return match[1];
}

/** The declaration the dark-theme rule gives `token`, or undefined when there is none. */
function darkRule(css: string, token: string): string | undefined {
  const escaped = token.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // (The sanitizer, which every rule passes, ends each declaration with `;`.)
  return new RegExp(`^\\.dark \\.lm-mount \\.${escaped}:where\\([^\\n]*\\)\\{([^}]*?);?\\}$`, "m").exec(css)?.[1];
}

describe("dark theme defaults for neutral text and surfaces", () => {
  it("turns gray text light in the dark theme: body text to the kit's text colour, secondary to its muted one, both AA on the panel", async () => {
    const generator = await createUtilityCssGenerator();
    const tokens = [
      "text-gray-900",
      "text-slate-700",
      "text-gray-500",
      "text-zinc-600",
      "text-neutral-400",
      "text-black",
      "bg-white",
      "bg-gray-100",
    ];
    const { css } = await generator.generate(new Set(tokens));
    for (const token of ["text-gray-900", "text-slate-700", "text-black"])
      expect(darkRule(css, token)).toBe("color:var(--lmk-fg)");
    for (const token of ["text-gray-500", "text-zinc-600", "text-neutral-400"])
      expect(darkRule(css, token)).toBe("color:var(--lmk-muted)");
    expect(darkRule(css, "bg-white")).toBe("background-color:var(--lmk-bg)");
    expect(darkRule(css, "bg-gray-100")).toMatch(/^background-color:color-mix\(/);

    const panel = darkValue("--lm-surface");
    // The bug: Tailwind's gray-500 and gray-600 are below AA on the dark panel.
    expect(contrastRatio("#6b7280", panel)).toBeLessThan(4.5);
    expect(contrastRatio("#4b5563", panel)).toBeLessThan(4.5);
    expect(contrastRatio(darkValue("--lm-muted"), panel)).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(darkValue("--lm-text"), panel)).toBeGreaterThanOrEqual(4.5);
  });

  it("leaves alone what is readable or chosen: light grays, hues, and the element's own dark: or hover: colour and text on a tinted background", () => {
    const css = darkThemeDefaults([
      "text-gray-300",
      "text-gray-100",
      "text-blue-600",
      "bg-gray-800",
      "bg-blue-50",
      "dark:text-gray-300",
      "text-gray-500",
    ]);
    for (const token of [
      "text-gray-300",
      "text-gray-100",
      "text-blue-600",
      "bg-gray-800",
      "bg-blue-50",
      "dark:text-gray-300",
    ])
      expect(darkRule(css, token)).toBeUndefined();
    const rule = css.split("\n").find((line) => line.startsWith(".dark .lm-mount .text-gray-500:"))!;
    expect(rule).toContain(':not([class*="dark:text-"])');
    expect(rule).toContain(':not([class*="hover:text-"])');
    expect(rule).toContain(':not([class*="bg-red-"] *):not([class*="bg-red-"])');
  });

  it("is scoped inside the panel: every rule starts with `.dark .lm-mount `", async () => {
    const css = darkThemeDefaults(["text-gray-500", "bg-white", "text-stone-800", "bg-slate-50"]);
    const lines = css.split("\n");
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line.startsWith(".dark .lm-mount .")).toBe(true);
  });
});
