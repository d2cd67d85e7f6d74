import { memo, useMemo } from "react";
import ReactMarkdown from "react-markdown";
import { marked } from "marked";

/**
 * Streaming Markdown: the text is cut into top-level blocks with marked's
 * lexer and each block is rendered by react-markdown behind `memo`, so while a
 * reply streams only the growing last block re-renders. react-markdown never
 * renders raw HTML (it is shown as text), and links get safe attributes.
 */
const MarkdownBlock = memo(function MarkdownBlock({ source }: { source: string }) {
  return (
    <ReactMarkdown
      skipHtml
      urlTransform={safeUrl}
      components={{
        a: ({ href, children }) => (
          <a href={href} target="_blank" rel="noopener noreferrer nofollow">
            {children}
          </a>
        ),
        img: ({ alt }) => <span className="lm-image-placeholder">[image: {alt || "untitled"}]</span>,
      }}
    >
      {source}
    </ReactMarkdown>
  );
});

function safeUrl(url: string): string {
  return /^(https?:|mailto:|#)/i.test(url) ? url : "";
}

export function Markdown({ text }: { text: string }) {
  const blocks = useMemo(() => {
    try {
      return marked.lexer(text).map((token) => token.raw);
    } catch {
      return [text];
    }
  }, [text]);
  return (
    <div className="lm-markdown">
      {blocks.map((raw, index) => (
        <MarkdownBlock key={index} source={raw} />
      ))}
    </div>
  );
}
