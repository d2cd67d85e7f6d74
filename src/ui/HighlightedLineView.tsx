import type { HighlightedLine } from "./highlight";
import { toneClass } from "./tones";

/** One highlighted line: a span per run of one tone (its class from tones.ts), bare text for the rest. */
export function HighlightedLineView({ line }: { line: HighlightedLine }) {
  return (
    <>
      {line.map((run, index) => {
        const className = run.tone && toneClass(run.tone);
        return className ? (
          <span key={index} className={className}>
            {run.content}
          </span>
        ) : (
          run.content
        );
      })}
    </>
  );
}
