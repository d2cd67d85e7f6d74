/**
 * A plain ```` ```jsx ```` or ```` ```tsx ```` fence (no `agent.run`) that
 * looks like code meant to run: it is shown, never run, and models that
 * forgot the marker expect it to. The person gets a quiet hint under it, the
 * model one line (issue 33 §3). Pure.
 */

const RUNNABLE_LANGS: ReadonlySet<string> = new Set(["jsx", "tsx"]);

/** A JSX element, or a call that only makes sense when the code runs. */
const RUNNABLE_SIGNS = [
  /<[A-Za-z][\w.]*[\s/>]/,
  /\bmount\s*\(/,
  /\bconsole\.\w+\s*\(/,
  /\bexport\s+default\b/,
  /\.render\s*\(/,
  /\bawait\s/,
];

/** Whether a fence of this language and code looks like code meant to run. */
export function looksRunnable(lang: string | undefined, code: string): boolean {
  if (!lang || !RUNNABLE_LANGS.has(lang.toLowerCase())) return false;
  const body = code.trim();
  if (body === "") return false;
  return RUNNABLE_SIGNS.some((sign) => sign.test(body));
}

export const SHOWN_ONLY_HINT = "Shown only, not run: this fence has no agent.run";

/**
 * The runnable-looking plain jsx/tsx fences of a reply's text: `line` is the
 * reply line of the opening fence (`textLine` is the text block's first).
 */
export function shownOnlyFences(text: string, textLine: number): { lang: string; line: number }[] {
  const found: { lang: string; line: number }[] = [];
  const lines = text.split("\n");
  let open: { marker: string; lang: string; line: number; body: string[] } | undefined;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index];
    if (open) {
      const closing = line.trim();
      if (closing.startsWith(open.marker) && closing.replace(/[`~]/g, "") === "") {
        if (looksRunnable(open.lang, open.body.join("\n"))) found.push({ lang: open.lang, line: open.line });
        open = undefined;
      } else open.body.push(line);
      continue;
    }
    const start = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)\s*$/.exec(line);
    if (start) open = { marker: start[1], lang: start[2], line: textLine + index, body: [] };
  }
  return found;
}

/** The one line the model reads for such a fence. */
export function shownOnlyNote(fence: { lang: string; line: number }): string {
  return `Note: the \`\`\`${fence.lang} fence at line ${fence.line} has no agent.run, so it was only shown, not run. To run code, open the fence with \`\`\`${fence.lang} agent.run.`;
}
