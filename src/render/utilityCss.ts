/**
 * Tailwind-compatible CSS for class tokens, generated in the browser by
 * UnoCSS (preset-wind3), scoped under the mount panel class and checked by
 * sanitizeGeneratedCss. Loaded lazily: the generator is ~100 KB and only
 * mounts need it. No network: presets are bundled, no web fonts, no icons
 * preset.
 */
import { createGenerator, type UnoGenerator } from "@unocss/core";
import presetWind3 from "@unocss/preset-wind3";
import { MOUNT_SCOPE_CLASS, sanitizeGeneratedCss } from "./sanitizeCss";

export interface UtilityCssGenerator {
  /** CSS for every token in `tokens` (the whole accepted set: rule order matters across tokens). */
  generate(tokens: ReadonlySet<string>): Promise<{ css: string; matched: Set<string> }>;
}

const SCOPE = `.${MOUNT_SCOPE_CLASS}`;

/**
 * Preflights set `--un-*` defaults on `*`; unscoped they would touch every
 * element of the app. Re-aim them at the panel and its descendants.
 */
function scopePreflights(css: string): string {
  return css
    .replace(/\/\*[^*]*\*\//g, "")
    .replace(/\*,::before,::after\s*\{/g, `${SCOPE} *,${SCOPE} ::before,${SCOPE} ::after{`)
    .replace(/(^|[}\s])::backdrop\s*\{/g, `$1${SCOPE} ::backdrop{`);
}

/** Tailwind's neutral palettes: what models reach for as "gray" text and light surfaces. */
const NEUTRALS = "(?:gray|slate|zinc|neutral|stone)";
/** Dark text: unreadable on the dark panel. 700 and darker read as body text, 400–600 as secondary. */
const DARK_TEXT = new RegExp(`^text-(?:black|${NEUTRALS}-(?:[4-9]00|950))$`);
/** Light surfaces that would sit light under text the rule above made light. */
const LIGHT_SURFACE = new RegExp(`^bg-(?:white|${NEUTRALS}-(?:50|100|200))$`);
/**
 * Backgrounds with a hue: text on them (or in them) keeps the model's colour
 * (a light badge, a tinted box). Comma-free, like every selector the
 * sanitizer lets through.
 */
const NOT_TINTED = [
  "red",
  "orange",
  "amber",
  "yellow",
  "lime",
  "green",
  "emerald",
  "teal",
  "cyan",
  "sky",
  "blue",
  "indigo",
  "violet",
  "purple",
  "fuchsia",
  "pink",
  "rose",
]
  .map((hue) => `:not([class*="bg-${hue}-"] *):not([class*="bg-${hue}-"])`)
  .join("");

/**
 * The dark theme for UIs written without `dark:` variants (most models'
 * habit): in the dark theme, neutral text classes follow the kit's text
 * colours (`text-gray-900` the text, `text-gray-500` the muted one, both AA
 * on the panel) and white or near-white backgrounds the kit's surfaces, so a
 * `bg-white` card keeps its text readable too. An element that says what it
 * wants in the dark (`dark:text-…`, `dark:bg-…`) or on hover keeps it, and
 * text on a tinted background keeps its colour. Same specificity as a
 * `dark:` utility (0,3,0), above a plain one; only for tokens in use.
 */
export function darkThemeDefaults(tokens: Iterable<string>): string {
  const rules: string[] = [];
  for (const token of tokens) {
    if (DARK_TEXT.test(token)) {
      const strong = /^text-(?:black|[a-z]+-(?:[7-9]00|950))$/.test(token);
      rules.push(
        `.dark ${SCOPE} .${token}:where(:not([class*="dark:text-"]):not([class*="hover:text-"])${NOT_TINTED}){color:var(${strong ? "--lmk-fg" : "--lmk-muted"})}`,
      );
    } else if (LIGHT_SURFACE.test(token)) {
      const subtle = /-(?:100|200)$/.test(token);
      rules.push(
        `.dark ${SCOPE} .${token}:where(:not([class*="dark:bg-"]):not([class*="hover:bg-"])){background-color:${subtle ? "color-mix(in srgb,var(--lmk-fg) 7%,var(--lmk-bg))" : "var(--lmk-bg)"}}`,
      );
    }
  }
  return rules.join("\n");
}

export async function createUtilityCssGenerator(): Promise<UtilityCssGenerator> {
  const uno: UnoGenerator = await createGenerator({
    // `dark:` follows the app's theme choice (the root's `dark` class, src/ui/theme.ts), not only the system.
    presets: [presetWind3({ preflight: "on-demand", dark: "class" })],
  });
  return {
    async generate(tokens) {
      const result = await uno.generate(new Set(tokens), { preflights: true, scope: SCOPE, minify: false });
      const preflights = scopePreflights(result.getLayer("preflights") ?? "");
      const rest = result.getLayers(undefined, ["preflights"]);
      // Preflight selectors are scoped by hand above: check them with the
      // same rules as everything else.
      // The dark-theme defaults go after the utilities they override.
      const css = sanitizeGeneratedCss(`${preflights}\n${rest}\n${darkThemeDefaults(result.matched)}`);
      return { css, matched: result.matched };
    },
  };
}
