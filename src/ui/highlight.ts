import { createHighlighterCore, type HighlighterCore } from "shiki/core";
import { createJavaScriptRegexEngine } from "shiki/engine/javascript";
import { GRAMMAR_NAMES, grammarFor } from "./codeLanguages";

/**
 * Syntax highlighting with shiki, loaded only when a reply first shows code
 * (this module is imported dynamically). The fine-grained core with the
 * JavaScript regex engine: no WASM (the app's CSP allows no
 * 'wasm-unsafe-eval'), and each grammar is its own chunk, fetched the first
 * time a block in that language appears.
 *
 * A line comes back as runs: neighbouring tokens drawn alike are one run,
 * whitespace joins the run before it, and text in the themes' own
 * foreground is bare text (the code's own colour), so a line is a few
 * elements rather than a styled span per token (highlighting was a quarter
 * of a fast stream's main-thread CPU, those spans over half of it:
 * bench/README.md, issue 34, thirteenth and fourteenth rounds). A run is drawn by
 * classes only (`toneClass`): one per theme colour, all of them in
 * styles.css before any code is drawn, so no rule is ever added to a page
 * (rules added to a page of 100,000 nodes were long tasks), and every run
 * of a tone shares one computed style. Switching theme never re-highlights:
 * styles.css picks the colour with `light-dark()`.
 */

/** One highlighted line: its text as runs, each with the classes that draw it (none: the code's own colour). */
export type HighlightedLine = Array<{ content: string; className?: string }>;

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
  return tokens.map((line) => {
    const runs: HighlightedLine = [];
    for (const token of line) {
      const last = runs.at(-1);
      const className = toneClass((token.htmlStyle ?? {}) as Record<string, string>);
      // Whitespace takes no colour of its own: it joins the run before it (unless that run is underlined or
      // struck through, which would then run under the gap), and a line's indent is bare text.
      if (token.content.trim() === "" && !(last?.className && /lm-[us]\b/.test(last.className))) {
        if (last) last.content += token.content;
        else runs.push({ content: token.content });
      } else if (last && last.className === className) last.content += token.content;
      else runs.push(className ? { content: token.content, className } : { content: token.content });
    }
    return runs;
  });
}

const HEX = /^#[0-9a-f]{6}$/i;
/** The themes' own foreground: text drawn in it (with no font style) is bare, in the code's own colour. */
const FOREGROUND = { light: "#24292e", dark: "#e1e4e8" };
const FONT_CLASSES: Array<[key: string, value: string, className: string]> = [
  ["font-style", "italic", "lm-i"],
  ["font-weight", "bold", "lm-b"],
  ["text-decoration", "underline", "lm-u"],
  ["text-decoration", "line-through", "lm-s"],
];

/**
 * The classes that draw a token from shiki's two-theme style: `lm-tone`, the
 * light and the dark colour (`lm-l-<hex>`, `lm-d-<hex>`: styles.css holds a
 * rule for every colour of both themes, nudged to AA contrast on the code
 * background, which highlight.test.ts checks against the themes) and its
 * font style. Undefined for the themes' plain text, or a colour that is not
 * a hex colour (drawn plain).
 */
export function toneClass(style: Record<string, string>): string | undefined {
  const light = style["--shiki-light"]?.toLowerCase();
  const dark = (style["--shiki-dark"] ?? style["--shiki-light"])?.toLowerCase();
  if (!light || !dark || !HEX.test(light) || !HEX.test(dark)) return undefined;
  const fonts = FONT_CLASSES.filter(([key, value]) => style[`--shiki-light-${key}`]?.split(" ").includes(value));
  if (fonts.length === 0 && light === FOREGROUND.light && dark === FOREGROUND.dark) return undefined;
  return ["lm-tone", `lm-l-${light.slice(1)}`, `lm-d-${dark.slice(1)}`, ...fonts.map(([, , name]) => name)].join(" ");
}
