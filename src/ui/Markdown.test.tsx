import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import remarkGfm from "remark-gfm";
import ReactMarkdown, { type Components } from "react-markdown";
import { Markdown, loadMath, renderMarkdown, warmUp } from "./Markdown";
import { validHighlightedLines } from "./useHighlight";

const html = (text: string) => renderToStaticMarkup(<Markdown text={text} />);

const TABLE = "Sales:\n\n| region | total |\n| :--- | ---: |\n| North | 12 |\n| South | 7 |\n\nDone.\n";

describe("Markdown (GFM)", () => {
  it("renders tables (with alignment), not raw pipes", () => {
    const out = html(TABLE);
    expect(out).toContain("<table>");
    expect(out).toMatch(/<th[^>]*>region<\/th>/);
    expect(out).toMatch(/<td style="text-align:right"[^>]*>12<\/td>|<td align="right"[^>]*>12<\/td>/);
    expect(out).not.toContain("| region |");
    expect(out).toContain("<p>Done.</p>");
  });

  it("renders task lists, strikethrough, autolinks and blockquotes", () => {
    const out = html(
      "- [x] shipped\n- [ ] tested\n\n~~old~~ new, ~5 min\n\nSee https://example.com/docs now.\n\n> quoted *words*\n",
    );
    const boxes = out.match(/<input[^>]*>/g) ?? [];
    expect(boxes[0]).toMatch(/type="checkbox"/);
    expect(boxes[0]).toMatch(/checked=""/);
    expect(boxes[0]).toMatch(/disabled=""/);
    expect(boxes[1]).not.toMatch(/checked/);
    expect((out.match(/type="checkbox"/g) ?? []).length).toBe(2);
    expect(out).toContain("<del>old</del>");
    expect(out).toContain("~5 min"); // one tilde is prose
    expect(out).toMatch(
      /<a href="https:\/\/example.com\/docs"[^>]*rel="noopener noreferrer nofollow"[^>]*>https:\/\/example.com\/docs<\/a>/,
    );
    expect(out).toContain("<blockquote>");
    expect(out).toContain("<em>words</em>");
  });

  it("is streaming-safe: every prefix of a table reply renders, and the rows appear in order", () => {
    let rowsSeen = 0;
    for (let end = 1; end <= TABLE.length; end++) {
      const out = html(TABLE.slice(0, end));
      const rows = (out.match(/<tr>/g) ?? []).length;
      expect(rows).toBeGreaterThanOrEqual(rowsSeen > 0 ? rowsSeen : 0);
      rowsSeen = Math.max(rowsSeen, rows);
    }
    expect(rowsSeen).toBe(3);
  });

  it("drops links that would open a shared session (#share=…), keeping their text", () => {
    const payload = "eJyrVkrLz1eyUkpKLFKqBQAkAQTm";
    const out = html(
      [
        `[Open the fixed session](#share=${payload})`,
        `[here](http://127.0.0.1:4173/#share=${payload}) and [there](https://livemark.example/app/#SHARE=${payload})`,
        `[nested](https://livemark.example/#top#share=${payload}) <https://livemark.example/#share=${payload}>`,
        `bare https://livemark.example/#share=${payload} and [ref][s]`,
        `[s]: https://livemark.example/?x=1#share=${payload}`,
        "",
        "Still links: [docs](https://example.com/docs#share-this) and [section](#results).",
      ].join("\n"),
    );
    // Text, not links (an autolink's text is its URL: shown, never clickable).
    expect(out).not.toMatch(/href="[^"]*share=/i);
    expect((out.match(/<a /g) ?? []).length).toBe(2);
    expect((out.match(/class="lm-link-dropped"/g) ?? []).length).toBe(7);
    for (const text of ["Open the fixed session", "here", "there", "nested", "ref"]) expect(out).toContain(text);
    expect(out).toMatch(/<a href="https:\/\/example.com\/docs#share-this"/);
    expect(out).toMatch(/<a href="#results"/);
  });

  it("still never renders raw HTML or unsafe links", () => {
    const out = html("<img src=x onerror=alert(1)> [x](javascript:alert(1)) | a |\n| - |\n| <b>b</b> |\n");
    expect(out).not.toContain("<img");
    expect(out).not.toContain("<b>");
    expect(out).not.toContain("javascript:");
  });
});

describe("Markdown math (KaTeX)", () => {
  const MATH = "Inline $x^2$ costs $5 and $10.\n\n$$\n\\frac{a}{b} + \\sqrt{2}\n$$\n\nEnd.\n";

  it("renders inline and display math, and leaves prices in prose as text", async () => {
    await loadMath();
    const out = html(MATH);
    expect(out).toContain('class="katex"');
    expect(out).toContain("katex-display");
    expect(out).toContain("mfrac");
    expect(out).toContain("costs $5 and $10.");
    expect(out).not.toContain("katex-error");
  });

  it("keeps Markdown around amounts in dollars: bold prices, links, and formulas that start with a digit", async () => {
    await loadMath();
    const out = html(
      "The dashboard: **$12,930** from **277 orders**, about $46.68 per order; [$5 off](https://example.com).\n\nAnd $2x + 1$ and `$5 in code`.\n",
    );
    expect(out).toContain("<strong>$12,930</strong>");
    expect(out).toContain("<strong>277 orders</strong>");
    expect(out).toContain("about $46.68 per order");
    expect(out).toMatch(/<a href="https:\/\/example.com"[^>]*>\$5 off<\/a>/);
    expect(out).toContain("<code>$5 in code</code>");
    expect((out.match(/class="katex"/g) ?? []).length).toBe(1);
  });

  it("is streaming-safe: no prefix renders a KaTeX error, and display math appears only once its $$ closed", async () => {
    await loadMath();
    const closedAt = MATH.lastIndexOf("$$") + 2;
    for (let end = 1; end <= MATH.length; end++) {
      const out = html(MATH.slice(0, end));
      expect(out, MATH.slice(0, end)).not.toContain("katex-error");
      if (end < closedAt) expect(out, MATH.slice(0, end)).not.toContain("katex-display");
    }
    expect(html(MATH.slice(0, closedAt))).toContain("katex-display");
  });
});

describe("the pipeline built once", () => {
  // react-markdown with the options Markdown.tsx used to give it: the reference the processor built once must match.
  const CORPUS = [
    "# Title\n\nSome *emphasis*, **strong**, `code`, ~~gone~~ and ~5 min.\n",
    TABLE,
    "- [x] shipped\n- [ ] tested\n  1. nested\n  2. list\n",
    'See https://example.com/docs, <https://example.org>, [ref][r] and [bad](javascript:alert(1)) or [mail](mailto:a@b.c).\n\n[r]: https://example.net/x "T"\n',
    "<img src=x onerror=alert(1)> inline <b>html</b> <!-- comment -->\n\n<div>block html</div>\n\n![alt](https://example.com/i.png) ![local](data:image/png;base64,AAAA)\n",
    "> quoted\n> > nested *words*\n\n---\n\nA footnote[^1].\n\n[^1]: The note.\n",
    "```ts\nconst x: number = 1\n```\n\n    indented code\n\n```\nno language\n",
    "Inline $x^2$ costs $5 and $10.\n\n$$\n\\frac{a}{b}\n$$\n",
  ];
  const components: Components = {
    a: ({ href, children }) => (
      <a href={href} data-link="">
        {children}
      </a>
    ),
    pre: ({ node, children }) => <pre data-children={String(node?.children.length)}>{children}</pre>,
  };
  const reference = (source: string, math?: Awaited<ReturnType<typeof loadMath>>) =>
    renderToStaticMarkup(
      <ReactMarkdown
        skipHtml
        remarkPlugins={math ? math.remark : [[remarkGfm, { singleTilde: false }]]}
        rehypePlugins={math?.rehype}
        urlTransform={(url) => (/^(https?:|mailto:|#)/i.test(url) ? url : "")}
        components={components}
      >
        {math ? math.prepare(source) : source}
      </ReactMarkdown>,
    );
  const ours = (source: string, math?: Awaited<ReturnType<typeof loadMath>>) =>
    renderToStaticMarkup(<>{renderMarkdown(source, components, math)}</>);

  it("renders every block, and every prefix of it, as react-markdown does", () => {
    for (const block of CORPUS) {
      const ends = [...Array.from({ length: Math.ceil(block.length / 3) }, (_, step) => step * 3 + 1), block.length];
      for (const end of ends)
        expect(ours(block.slice(0, end)), block.slice(0, end)).toBe(reference(block.slice(0, end)));
    }
  });

  it("after the idle warm-up (its run on a sample), renders every block as before", () => {
    const before = CORPUS.map((block) => ours(block));
    warmUp();
    expect(CORPUS.map((block) => ours(block))).toEqual(before);
    expect(html(TABLE)).toContain("<table>");
  });

  it("renders the same with the math plugins", async () => {
    const math = await loadMath();
    for (const block of CORPUS) expect(ours(block, math), block).toBe(reference(block, math));
  });
});

describe("highlighting while a block grows", () => {
  it("keeps the colours of complete lines of an older text and nothing of a different one", () => {
    expect(validHighlightedLines("a\nb", "a\nb")).toBe(Number.POSITIVE_INFINITY);
    // The old last line ("b" of "bc") may have been cut mid-token.
    expect(validHighlightedLines("a\nbc\nd", "a\nb")).toBe(1);
    expect(validHighlightedLines("a\nb\nc", "a\nb\n")).toBe(2);
    expect(validHighlightedLines("x\nb", "a\nb")).toBe(0);
  });
});

describe("Markdown: bounded work for huge messages", () => {
  it("a block longer than the parse limit is shown as written, not parsed", () => {
    const out = html("word_ *em* ".repeat(1_200));
    expect(out).toContain('class="lm-markdown-plain"');
    expect(out).not.toContain("<em>");
  });

  it("a long message draws only its first segment in the first render (the rest follow one per task)", () => {
    const text = Array.from({ length: 400 }, (_, index) => `Paragraph ${index} with *emphasis* and more words.`).join(
      "\n\n",
    );
    const out = html(text);
    expect(out).toContain("Paragraph 0 with <em>emphasis</em>");
    expect(out).not.toContain("Paragraph 399");
    // Short messages are drawn whole at once, as before.
    expect(html(text.slice(0, 2_000))).toContain("Paragraph 30 with <em>emphasis</em>");
  });
});
