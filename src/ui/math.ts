import "katex/dist/katex.min.css";
import remarkMath from "remark-math";
import rehypeKatex from "rehype-katex";

/**
 * Math in replies: remark-math finds `$…$` and `$$…$$`, rehype-katex renders
 * them (with KaTeX's CSS and fonts, loaded with this chunk the first time a
 * reply contains a dollar sign). KaTeX's inline sizes reach React as style
 * objects (the CSSOM), which the app's `style-src 'self'` allows. Invalid
 * TeX is shown as its source in the error colour, never thrown.
 */

interface MdastNode {
  type: string;
  value?: string;
  children?: MdastNode[];
  position?: { start: { offset?: number }; end: { offset?: number } };
}

/**
 * Prose is full of dollars ("$5 and $10"): like Pandoc, `$…$` is math only
 * when the opening `$` is followed by a non-space, the closing `$` follows a
 * non-space and is not followed by a digit; otherwise it goes back to text.
 */
export function remarkDollarGuard() {
  return (tree: MdastNode, file: { value: unknown }) => {
    const source = String(file.value ?? "");
    const walk = (node: MdastNode) => {
      if (!node.children) return;
      node.children = node.children.map((child) => {
        if (child.type !== "inlineMath") {
          walk(child);
          return child;
        }
        const start = child.position?.start.offset;
        const end = child.position?.end.offset;
        if (start === undefined || end === undefined || source.slice(start, start + 2) === "$$") return child;
        const value = child.value ?? "";
        const prose = /^\s|\s$/.test(value) || value === "" || /\d/.test(source[end] ?? "");
        return prose ? { type: "text", value: source.slice(start, end) } : child;
      });
    };
    walk(tree);
  };
}

/**
 * A `$` before an amount ("$12,930 from", "**$5**", "$1.5M.") is currency,
 * not math: it is escaped before parsing, so the Markdown around it (bold
 * markers, links) still parses. Math that starts with a digit (`$2x + 1$`,
 * `$10$`) is left alone: there the number runs into more formula or the
 * closing `$`. Code spans are not touched.
 */
export function escapeCurrency(source: string): string {
  if (!source.includes("$")) return source;
  return source
    .split(/(`+[^`]*`+)/)
    .map((part, index) =>
      index % 2 === 1
        ? part
        : part.replace(/(^|[^\\$])\$(?=\d[\d,.]*(?:[kKmMbB]|bn)?(?:[\s*_).,;:!?'"\]]|$))/g, "$1\\$"),
    )
    .join("");
}

export const REMARK_MATH_PLUGINS = [remarkMath, remarkDollarGuard];
export const REHYPE_MATH_PLUGINS = [
  [rehypeKatex, { throwOnError: false, strict: "ignore", errorColor: "var(--lm-err)" }],
];
