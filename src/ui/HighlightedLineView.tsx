import type { HighlightedLine } from "./highlight";

/** One highlighted line: a span per run of one tone (its classes from highlight.ts), bare text for the rest. */
export function HighlightedLineView({ line }: { line: HighlightedLine }) {
  return (
    <>
      {line.map((run, index) =>
        run.className ? (
          <span key={index} className={run.className}>
            {run.content}
          </span>
        ) : (
          run.content
        ),
      )}
    </>
  );
}
