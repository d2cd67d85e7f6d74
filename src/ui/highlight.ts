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
 * Tokens carry both themes as CSS custom properties (`--shiki-light`,
 * `--shiki-dark`); styles.css picks one by the page's theme, so switching
 * theme never re-highlights. They are applied through React's style prop
 * (the CSSOM), which `style-src 'self'` allows, never as style attributes
 * in HTML.
 */

/** One highlighted line: its tokens' text and style. */
export type HighlightedLine = Array<{ content: string; style: Record<string, string> }>;

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
  return tokens.map((line) =>
    line.map((token) => ({
      content: token.content,
      style: readableStyle((token.htmlStyle ?? {}) as Record<string, string>),
    })),
  );
}

/** Both themes' colours at AA contrast on the code background (contrast.ts). */
function readableStyle(style: Record<string, string>): Record<string, string> {
  const out = { ...style };
  if (out["--shiki-light"]) out["--shiki-light"] = readableOn(out["--shiki-light"], CODE_BACKGROUND.light, "black");
  if (out["--shiki-dark"]) out["--shiki-dark"] = readableOn(out["--shiki-dark"], CODE_BACKGROUND.dark, "white");
  return out;
}
