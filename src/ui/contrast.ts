/**
 * WCAG contrast for highlighted code: a theme's token colours are nudged
 * towards black (light theme) or white (dark theme) until they reach AA
 * (4.5:1) on the code background of styles.css (`--lm-code-bg`). Pure.
 */
export const CODE_BACKGROUND = { light: "#f3f3f0", dark: "#1a1a1d" } as const;
const TARGET = 4.6;

function channels(hex: string): [number, number, number] | undefined {
  const match = /^#([0-9a-f]{3}|[0-9a-f]{6})(?:[0-9a-f]{2})?$/i.exec(hex.trim());
  if (!match) return undefined;
  const digits = match[1].length === 3 ? [...match[1]].map((digit) => digit + digit).join("") : match[1];
  return [0, 2, 4].map((index) => parseInt(digits.slice(index, index + 2), 16)) as [number, number, number];
}

function luminance([red, green, blue]: [number, number, number]): number {
  const linear = (value: number) => {
    const channel = value / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue);
}

export function contrastRatio(foreground: string, background: string): number {
  const a = channels(foreground);
  const b = channels(background);
  if (!a || !b) return 1;
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

const cache = new Map<string, string>();

/** `color` itself when it meets AA on `background`, else the nearest mix towards black or white that does. */
export function readableOn(color: string, background: string, towards: "black" | "white"): string {
  const key = `${color}|${background}|${towards}`;
  const known = cache.get(key);
  if (known) return known;
  const rgb = channels(color);
  let result = color;
  if (rgb && contrastRatio(color, background) < TARGET) {
    const end = towards === "black" ? 0 : 255;
    for (let step = 1; step <= 20; step++) {
      const mixed = rgb.map((value) => Math.round(value + (end - value) * (step / 20)));
      result = `#${mixed.map((value) => value.toString(16).padStart(2, "0")).join("")}`;
      if (contrastRatio(result, background) >= TARGET) break;
    }
  }
  cache.set(key, result);
  return result;
}
