import { createHighlighterCore, type HighlighterCore } from "shiki/core";
import { createJavaScriptRegexEngine } from "shiki/engine/javascript";
import { GRAMMAR_NAMES, grammarFor } from "./codeLanguages";
import { CODE_BACKGROUND, readableOn } from "./contrast";

/**
 * Syntax highlighting with shiki, loaded only when a reply first shows code
 * (this module is imported dynamically). The fine-grained core with the
 * JavaScript regex engine: no WASM (the app's CSP allows no
 * 'wasm-unsafe-eval'), and each grammar is its own chunk, fetched the first
 * time a block in that language appears.
 *
 * A line comes back as runs: adjacent tokens drawn alike are one run,
 * whitespace joins the run before it (an indent is plain text), and text in
 * the theme's own foreground is plain (the page's text colour), so a line is
 * a few elements rather than a styled span per token (highlighting was a
 * quarter of a fast stream's main-thread CPU, those spans over half of it:
 * bench/README.md, issue 34, thirteenth round). Each run's tone carries both
 * themes' colours; tones.ts turns a tone into a class whose rule picks the
 * colour by the page's theme, so switching theme never re-highlights.
 */

/** How a run of code is drawn: its colour in each theme (AA on the code background), and its font style where the theme gives one. */
export interface Tone {
  light: string;
  dark: string;
  fontStyle?: string;
}

/** One highlighted line: its text as runs, each with its tone (none: the code's own colour). */
export type HighlightedLine = Array<{ content: string; tone?: Tone }>;

const GRAMMARS: Record<(typeof GRAMMAR_NAMES)[number], () => Promise<unknown>> = {
  typescript: () => import("shiki/langs/typescript.mjs"),
  tsx: () => import("shiki/langs/tsx.mjs"),
  javascript: () => import("shiki/langs/javascript.mjs"),
  jsx: () => import("shiki/langs/jsx.mjs"),
  json: () => import("shiki/langs/json.mjs"),
  bash: () => import("shiki/langs/bash.mjs"),
  python: () => import("shiki/langs/python.mjs"),
  css: () => import("shiki/langs/css.mjs"),
  html: () => import("shiki/langs/html.mjs"),
  markdown: () => import("shiki/langs/markdown.mjs"),
  diff: () => import("shiki/langs/diff.mjs"),
  yaml: () => import("shiki/langs/yaml.mjs"),
  sql: () => import("shiki/langs/sql.mjs"),
  rust: () => import("shiki/langs/rust.mjs"),
  go: () => import("shiki/langs/go.mjs"),
  java: () => import("shiki/langs/java.mjs"),
  c: () => import("shiki/langs/c.mjs"),
  cpp: () => import("shiki/langs/cpp.mjs"),
  toml: () => import("shiki/langs/toml.mjs"),
};

let highlighter: Promise<HighlighterCore> | undefined;
const loaded = new Map<string, Promise<void>>();

function core(): Promise<HighlighterCore> {
  highlighter ??= createHighlighterCore({
    themes: [import("shiki/themes/github-light.mjs"), import("shiki/themes/github-dark.mjs")],
    langs: [],
    engine: createJavaScriptRegexEngine(),
  });
  return highlighter;
}

/**
 * Highlight `code` as `lang`; undefined when the language has no bundled
 * grammar. Resolves to one entry per line of `code` (split on "\n").
 */
export async function highlight(code: string, lang: string | undefined): Promise<HighlightedLine[] | undefined> {
  const name = grammarFor(lang);
  if (!name) return undefined;
  const instance = await core();
  let grammar = loaded.get(name);
  if (!grammar) {
    grammar = GRAMMARS[name]().then((module) =>
      instance.loadLanguage((module as { default: Parameters<HighlighterCore["loadLanguage"]>[0] }).default),
    );
    loaded.set(name, grammar);
  }
  await grammar;
  const { tokens } = instance.codeToTokens(code, {
    lang: name,
    themes: { light: "github-light", dark: "github-dark" },
    defaultColor: false,
  });
  // The themes' own foreground is the code's plain text: drawn in the page's text colour, with no tone.
  const plain = { light: instance.getTheme("github-light").fg, dark: instance.getTheme("github-dark").fg };
  return tokens.map((line) => {
    const runs: HighlightedLine = [];
    for (const token of line) {
      const blank = token.content.trim() === "";
      // Whitespace takes no colour: it joins the run before it, or (a line's indent) is plain.
      const tone = blank ? undefined : toneOf((token.htmlStyle ?? {}) as Record<string, string>, plain);
      const last = runs.at(-1);
      if (last && (blank || sameTone(last.tone, tone))) last.content += token.content;
      else runs.push(tone ? { content: token.content, tone } : { content: token.content });
    }
    return runs;
  });
}

/** A token's tone from shiki's two-theme style: both colours at AA contrast on the code background (contrast.ts). */
function toneOf(style: Record<string, string>, plain: { light: string; dark: string }): Tone | undefined {
  const light = style["--shiki-light"];
  const fontStyle = style["--shiki-light-font-style"];
  if (!light) return undefined;
  const isPlain = (color: string | undefined, theirs: string) => color?.toLowerCase() === theirs.toLowerCase();
  if (!fontStyle && isPlain(light, plain.light) && isPlain(style["--shiki-dark"], plain.dark)) return undefined;
  const tone: Tone = {
    light: readableOn(light, CODE_BACKGROUND.light, "black"),
    dark: readableOn(style["--shiki-dark"] ?? light, CODE_BACKGROUND.dark, "white"),
  };
  if (fontStyle) tone.fontStyle = fontStyle;
  return tone;
}

function sameTone(a: Tone | undefined, b: Tone | undefined): boolean {
  return a === b || (!!a && !!b && a.light === b.light && a.dark === b.dark && a.fontStyle === b.fontStyle);
}
