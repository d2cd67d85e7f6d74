import type { Tone } from "./highlight";

/**
 * Highlighted code's tones as classes (highlight.ts): one rule per tone in a
 * stylesheet of the page's own (a constructed sheet, adopted by the document
 * when this module loads: the CSSOM, which `style-src 'self'` allows), added
 * the first time the tone is drawn. A class shared by every run of a tone, rather than each run's own
 * style, lets the browser share their computed style.
 *
 * The rule is built from the tone's values, so each is checked first: a
 * colour is a hex colour, a font style one of CSS's keywords. A tone that
 * fails has no class and its run is drawn in the code's own colour.
 */

const HEX_COLOR = /^#[0-9a-f]{3,8}$/i;
const FONT_STYLES = new Set(["normal", "italic", "oblique"]);

/** The rule that draws `tone` as class `name`, or undefined when a value is not what a tone holds. */
export function toneRule(name: string, tone: Tone): string | undefined {
  if (!HEX_COLOR.test(tone.light) || !HEX_COLOR.test(tone.dark)) return undefined;
  if (tone.fontStyle !== undefined && !FONT_STYLES.has(tone.fontStyle)) return undefined;
  const fontStyle = tone.fontStyle ? `;font-style:${tone.fontStyle}` : "";
  return `.lm-hl .${name}{color:light-dark(${tone.light},${tone.dark})${fontStyle}}`;
}

const classes = new Map<string, string | undefined>();
let sheet: CSSStyleSheet | undefined;
// Adopted with this module (it loads with the first code block), while the page is small: adopted later, into
// a page of 100,000 mounted nodes, it went with a ~500 ms long task (e2e/hostile.test.ts under load).
if (typeof CSSStyleSheet === "function" && typeof document !== "undefined") {
  sheet = new CSSStyleSheet();
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

/** The class drawing `tone` (its rule added on first use); undefined where it cannot be drawn. */
export function toneClass(tone: Tone): string | undefined {
  const key = `${tone.light} ${tone.dark} ${tone.fontStyle ?? ""}`;
  if (classes.has(key)) return classes.get(key);
  const name = `lm-tone-${classes.size}`;
  const rule = toneRule(name, tone);
  let drawn: string | undefined;
  if (rule && sheet) {
    sheet.insertRule(rule, sheet.cssRules.length);
    drawn = name;
  }
  classes.set(key, drawn);
  return drawn;
}
