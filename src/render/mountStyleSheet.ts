/**
 * The one style sheet the host owns for all mounts: the kit's own CSS plus
 * the utilities generated from class tokens seen in mount props.
 *
 * A constructed sheet (`document.adoptedStyleSheets`) where supported, so no
 * `<style>` element and no `style-src 'unsafe-inline'` is needed; otherwise
 * one `<style data-livemark-mounts>` element in <head>.
 *
 * Generation is incremental: a token is generated once; new tokens trigger
 * one regeneration of the accepted set (the generator caches per token, and
 * rule order across tokens must follow Tailwind's, not arrival order), at
 * most one at a time, coalescing tokens that arrive meanwhile.
 */
import { KIT_CSS } from "./kitStyles";
import type { UtilityCssGenerator } from "./utilityCss";

/** Distinct tokens kept per document; later ones are ignored (a mount printing random class names cannot grow the sheet forever). */
export const MAX_TOKENS = 5000;

export interface MountStyleSheet {
  /** Add class tokens (already checked by sanitizeClassName). */
  addTokens(tokens: readonly string[]): void;
  /** Resolves when every token added so far has CSS (tests, benchmarks). */
  settled(): Promise<void>;
  /** Start loading the generator now (e.g. when a reply starts running code), so the first mount paints styled. */
  warm(): void;
  /** The utilities CSS currently applied. */
  readonly utilityCss: string;
}

interface SheetTarget {
  set(css: string): void;
}

function createTarget(doc: Document): SheetTarget {
  const view = doc.defaultView as (Window & typeof globalThis) | null;
  if (view && "adoptedStyleSheets" in doc && typeof view.CSSStyleSheet?.prototype.replaceSync === "function") {
    try {
      const sheet = new view.CSSStyleSheet();
      doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
      return { set: (css) => sheet.replaceSync(css) };
    } catch {
      // Fall through to a <style> element.
    }
  }
  const element = doc.createElement("style");
  element.setAttribute("data-livemark-mounts", "");
  doc.head.appendChild(element);
  return { set: (css) => void (element.textContent = css) };
}

const sheets = new WeakMap<Document, MountStyleSheet>();

const NO_SHEET: MountStyleSheet = { addTokens: () => {}, settled: async () => {}, warm: () => {}, utilityCss: "" };

/** The document's mount style sheet, created (with the kit CSS) on first use. */
export function mountStyleSheet(doc: Document | undefined = globalThis.document): MountStyleSheet {
  // Server rendering (tests, a static export): nothing to style.
  if (!doc) return NO_SHEET;
  let sheet = sheets.get(doc);
  if (!sheet) {
    sheet = createMountStyleSheet(createTarget(doc), () =>
      import("./utilityCss").then((module) => module.createUtilityCssGenerator()),
    );
    sheets.set(doc, sheet);
  }
  return sheet;
}

/** The logic without the DOM (tests pass a fake target and generator). */
export function createMountStyleSheet(
  target: SheetTarget,
  loadGenerator: () => Promise<UtilityCssGenerator>,
): MountStyleSheet {
  const tokens = new Set<string>();
  let generator: Promise<UtilityCssGenerator> | undefined;
  let utilityCss = "";
  let running: Promise<void> | undefined;
  let dirty = false;

  target.set(KIT_CSS);

  async function run(): Promise<void> {
    while (dirty) {
      dirty = false;
      try {
        generator ??= loadGenerator();
        const { css } = await (await generator).generate(tokens);
        utilityCss = css;
        target.set(`${KIT_CSS}\n${css}`);
      } catch (error) {
        // A failed chunk load or generator bug leaves the kit CSS in place;
        // utilities are cosmetic. Retry the load next time.
        generator = undefined;
        console.warn("livemark: utility CSS generation failed", error);
        return;
      }
    }
  }

  function schedule(): void {
    if (running) return;
    running = run().finally(() => {
      running = undefined;
      // Tokens added between the loop's last check and here.
      if (dirty) schedule();
    });
  }

  return {
    addTokens(list) {
      let added = false;
      for (const token of list) {
        if (tokens.has(token) || tokens.size >= MAX_TOKENS) continue;
        tokens.add(token);
        added = true;
      }
      if (!added) return;
      dirty = true;
      schedule();
    },
    async settled() {
      while (running) await running;
    },
    warm() {
      generator ??= loadGenerator();
      generator.catch(() => {
        generator = undefined;
      });
    },
    get utilityCss() {
      return utilityCss;
    },
  };
}
