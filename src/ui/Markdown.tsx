import { memo, useMemo } from "react";
import ReactMarkdown from "react-markdown";
import remarkGfm from "remark-gfm";
import { marked } from "marked";
import { RemoteImage, remoteImageUrl } from "../render/RemoteImage";
import { CopyButton } from "./CopyButton";

/** The text of a hast node (a fenced code block's source). */
function hastText(node: unknown): string {
  if (typeof node !== "object" || node === null) return "";
  const { value, children } = node as { value?: unknown; children?: unknown };
  if (typeof value === "string") return value;
  return Array.isArray(children) ? children.map(hastText).join("") : "";
}

/**
 * Streaming Markdown: the text is cut into top-level blocks with marked's
 * lexer (GFM, so a table is one block) and each block is rendered by
 * react-markdown with remark-gfm (tables, task lists, ~~strikethrough~~,
 * autolinks) behind `memo`, so while a reply streams only the growing last
 * block re-renders. A table being streamed is a paragraph until its
 * delimiter row arrives, then a table that gains rows. react-markdown never
 * renders raw HTML (it is shown as text), and links get safe attributes.
 */
// One tilde is too common in prose ("~5 min") to mean strikethrough.
const REMARK_PLUGINS = [[remarkGfm, { singleTilde: false }]] as Parameters<typeof ReactMarkdown>[0]["remarkPlugins"];

const MarkdownBlock = memo(function MarkdownBlock({ source }: { source: string }) {
  return (
    <ReactMarkdown
      skipHtml
      remarkPlugins={REMARK_PLUGINS}
      urlTransform={safeUrl}
      components={{
        a: ({ href, children }) => (
          <a href={href} target="_blank" rel="noopener noreferrer nofollow">
            {children}
          </a>
        ),
        // Every code block can be copied as written.
        pre: ({ children, node }) => (
          <div className="lm-pre">
            <CopyButton text={() => hastText(node)} title="Copy this code block" />
            <pre>{children}</pre>
          </div>
        ),
        // Wide tables scroll inside the reply instead of widening the page.
        table: ({ children }) => (
          <div className="lm-table-wrap">
            <table>{children}</table>
          </div>
        ),
        // Remote images load only once the network capability covers their host (a placeholder with Load until then).
        img: ({ alt, src }) => {
          const remote = remoteImageUrl(src);
          return remote ? <RemoteImage url={remote} alt={alt} /> : <span className="lm-image-placeholder">[image: {alt || "untitled"}]</span>;
        },
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
