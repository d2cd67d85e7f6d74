import { memo } from "react";
import { Collapsible } from "./Collapsible";
import { useHighlight } from "./useHighlight";
import { HighlightedLineView } from "./HighlightedLineView";
import { looksRunnable, SHOWN_ONLY_HINT } from "../agent/shownOnly";

/**
 * An ordinary fenced code block in a reply (shown, never run): highlighted
 * once its fence is closed (while it streams, at most every 200 ms, the
 * newest lines plain until then), collapsed when long. A jsx/tsx fence that
 * looks like code meant to run says, quietly, that it was shown only.
 */
export const CodeFence = memo(function CodeFence({
  code,
  lang,
  settled,
}: {
  code: string;
  lang?: string;
  settled: boolean;
}) {
  const text = code.replace(/\n$/, "");
  const lines = text.split("\n");
  const highlighted = useHighlight(text, lang, settled);
  return (
    <div className="lm-fence" data-lang={lang || undefined}>
      {lang && <span className="lm-fence__lang">{lang}</span>}
      <Collapsible lineCount={lines.length} className="lm-fence__scroll">
        {(shown) => (
          <pre
            className="lm-hl"
            tabIndex={0}
            data-highlighted={highlighted ? (highlighted.validLines >= lines.length ? "all" : "partial") : "none"}
          >
            <code>
              {lines.slice(0, shown).map((line, index) => (
                <span key={index} className="lm-hl__line">
                  {highlighted && index < highlighted.validLines && highlighted.lines[index] ? (
                    <HighlightedLineView line={highlighted.lines[index]} />
                  ) : (
                    line
                  )}
                  {index < lines.length - 1 ? "\n" : ""}
                </span>
              ))}
            </code>
          </pre>
        )}
      </Collapsible>
      {/* A jsx/tsx fence that looks meant to run, without agent.run: the model forgot the marker (the model is told too). */}
      {settled && looksRunnable(lang, text) && <p className="lm-fence__hint">{SHOWN_ONLY_HINT}</p>}
    </div>
  );
});
