import type { HighlightedLine } from "./highlight";

/** One highlighted line as spans; the token colours come from CSS custom properties (see highlight.ts). */
export function HighlightedLineView({ line }: { line: HighlightedLine }) {
  return (
    <>
      {line.map((token, index) => (
        <span key={index} style={token.style}>
          {token.content}
        </span>
      ))}
    </>
  );
}
