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
      const css = sanitizeGeneratedCss(`${preflights}\n${rest}`);
      return { css, matched: result.matched };
    },
  };
}
