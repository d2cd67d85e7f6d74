/**
 * Which fence languages get syntax highlighting. Kept apart from
 * highlight.ts (shiki, loaded lazily) so a block can tell whether to load
 * the highlighter at all without loading it.
 */
export const GRAMMAR_NAMES = [
  "typescript",
  "tsx",
  "javascript",
  "jsx",
  "json",
  "bash",
  "python",
  "css",
  "html",
  "markdown",
  "diff",
  "yaml",
  "sql",
  "rust",
  "go",
  "java",
  "c",
  "cpp",
  "toml",
] as const;

const ALIASES: Record<string, (typeof GRAMMAR_NAMES)[number]> = {
  ts: "typescript",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  sh: "bash",
  shell: "bash",
  zsh: "bash",
  console: "bash",
  py: "python",
  yml: "yaml",
  md: "markdown",
  rs: "rust",
  golang: "go",
  "c++": "cpp",
  jsonc: "json",
};

/** The grammar for a fence's language word, or undefined when none is bundled. */
export function grammarFor(lang: string | undefined): (typeof GRAMMAR_NAMES)[number] | undefined {
  if (!lang) return undefined;
  const word = lang.trim().split(/\s+/)[0].toLowerCase();
  const name = ALIASES[word] ?? word;
  return (GRAMMAR_NAMES as readonly string[]).includes(name) ? (name as (typeof GRAMMAR_NAMES)[number]) : undefined;
}
