import { useId, useState, type ReactNode } from "react";

/** Code longer than this many lines starts collapsed. */
export const COLLAPSE_ABOVE_LINES = 30;
/** The lines a collapsed block shows (styles.css `.lm-collapsible--collapsed` is as tall as these). */
export const COLLAPSED_LINES = 20;

/**
 * Long code starts collapsed to its first lines with an **Expand** button
 * under it (then **Collapse**). `open` forces it open (a block whose error
 * would otherwise be hidden). `children` gets how many lines to draw: a
 * collapsed block draws only the lines it shows, the rest once expanded
 * (a long session's collapsed blocks cost no rows).
 */
export function Collapsible({
  lineCount,
  open = false,
  className,
  children,
}: {
  lineCount: number;
  open?: boolean;
  className?: string;
  children: (shownLines: number) => ReactNode;
}) {
  const id = useId();
  const [expanded, setExpanded] = useState(false);
  const long = lineCount > COLLAPSE_ABOVE_LINES && !open;
  const collapsed = long && !expanded;
  return (
    <>
      <div id={id} className={`${className ?? ""} lm-collapsible${collapsed ? " lm-collapsible--collapsed" : ""}`}>
        {children(collapsed ? COLLAPSED_LINES : lineCount)}
      </div>
      {long && (
        <div className="lm-collapsible__bar">
          <button
            type="button"
            className="lm-button lm-button--quiet"
            aria-expanded={expanded}
            aria-controls={id}
            onClick={() => setExpanded(!expanded)}
          >
            {expanded ? "Collapse" : "Expand"}
          </button>
          <span className="lm-collapsible__count">{lineCount} lines</span>
        </div>
      )}
    </>
  );
}
