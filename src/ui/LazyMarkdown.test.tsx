import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { Markdown } from "./LazyMarkdown";
import { PROGRESSIVE_FROM_CHARS } from "./markdownSegments";

/** The text shown while Markdown.tsx's chunk loads (a server render cannot wait for it: it shows the fallback). */
const loadingText = (text: string) => {
  const markup = renderToStaticMarkup(<Markdown text={text} />);
  expect(markup).toContain("lm-markdown--loading");
  return /<div class="lm-markdown lm-markdown--loading">([^<]*)<\/div>/.exec(markup)![1];
};

describe("Markdown before its chunk has loaded", () => {
  it("shows a short text as it is", () => {
    expect(loadingText("Some *text*.")).toBe("Some *text*.");
  });

  it("shows only the start of a huge text (one text node of megabytes took seconds of layout)", () => {
    const text = `${"word ".repeat(200_000)}The end.`;
    const shown = loadingText(text);
    expect(shown.length).toBe(PROGRESSIVE_FROM_CHARS);
    expect(text.startsWith(shown)).toBe(true);
  });
});
