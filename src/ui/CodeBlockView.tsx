import { memo } from "react";
import { omittedLinesText, type BlockView, type StatementView } from "../agent/reply";
import { forPersonInBlock } from "../agent/blockPlaces";
import { formatExecError } from "../wire/events";
import { Collapsible } from "./Collapsible";
import { HighlightedLineView } from "./HighlightedLineView";
import { useHighlight } from "./useHighlight";

type CodeBlock = Extract<BlockView, { kind: "code" }>;
type DataBlock = Extract<BlockView, { kind: "data" }>;

const STATUS_LABEL: Record<string, string> = {
  streaming: "streaming",
  queued: "queued",
  running: "running",
  done: "done",
  error: "error",
  skipped: "skipped",
};

/**
 * A code block with each statement's state in the gutter: pending (not yet
 * complete or not yet run), running, done, error (with the message under its
 * line) or skipped; console output sits under the statement that printed it.
 */
export const CodeBlockView = memo(function CodeBlockView({
  block,
  cut = false,
  settled = false,
  ordinal,
}: {
  block: CodeBlock;
  cut?: boolean;
  settled?: boolean;
  /** Its number among the reply's code blocks, from 1: its error names it so ("code block 1, line 28", as the gutter counts). */
  ordinal?: number;
}) {
  // The reply is over but its code never started: the sandbox was not
  // running (it could not start). "queued" would promise it still will.
  const notRun = !cut && settled && (block.status === "queued" || block.status === "streaming");
  const code = block.source.replace(/\n$/, "");
  const lines = code.split("\n");
  // Highlighted once the fence closed; while it streams, at most every 200 ms.
  const highlighted = useHighlight(code, block.lang, block.status !== "streaming");
  const byEndLine = new Map<number, StatementView>();
  const statusOf = (replyLine: number): string => {
    for (const statement of block.statements) {
      if (replyLine >= statement.line && replyLine <= statement.endLine) return statement.status;
    }
    if (block.skippedFromLine !== undefined && replyLine >= block.skippedFromLine) return "skipped";
    return "pending";
  };
  for (const statement of block.statements) byEndLine.set(statement.endLine, statement);
  const errorLine = block.error?.line;
  // The reply was cut inside this block (token limit, content filter, dropped
  // connection; the reply's note says which): its incomplete last statement's
  // syntax error is the cut, and is shown as such.
  const errorText = !block.error
    ? ""
    : cut && block.error.code === "syntax"
      ? "The reply was cut here: this statement is incomplete and did not run."
      : ordinal === undefined
        ? formatExecError(block.error)
        : forPersonInBlock(formatExecError(block.error), block, ordinal);
  // A cut block's unfinished tail is never run (the executor drops it), so
  // it has no syntax error to carry the note: say it under the tail.
  const lastEnd = block.statements.reduce((end, statement) => Math.max(end, statement.endLine), block.line - 1);
  const cutTail =
    cut && !block.error && lines.some((text, offset) => block.line + offset > lastEnd && text.trim() !== "");
  return (
    <figure className={`lm-code lm-code--${block.status}`} aria-label={`Code block ${block.index}`}>
      <figcaption className="lm-code__header">
        <span className="lm-code__lang">{block.lang}</span>
        <span className="lm-code__status" data-status={notRun ? "not-run" : block.status}>
          {cut ? "cut" : notRun ? "not run (the sandbox is not running)" : STATUS_LABEL[block.status]}
          {!cut && block.unterminated ? " (fence not closed)" : ""}
        </span>
      </figcaption>
      <Collapsible lineCount={lines.length} open={!!block.error}>
        {(shown) => (
          /* Focusable: a long line scrolls sideways, and keyboard users scroll it too. */
          <div
            className="lm-code__body lm-hl"
            tabIndex={0}
            data-highlighted={highlighted ? (highlighted.validLines >= lines.length ? "all" : "partial") : "none"}
          >
            {lines.slice(0, shown).map((text, offset) => {
              const replyLine = block.line + offset;
              const status = statusOf(replyLine);
              const statement = byEndLine.get(replyLine);
              return (
                <div key={offset} className="lm-code__row">
                  <div className="lm-code__line" data-status={status} title={status}>
                    <span className="lm-code__gutter" aria-hidden="true" />
                    {/* Numbered per block; errors and the model speak in reply lines (the title). */}
                    <span className="lm-code__number" title={`line ${replyLine} of the reply`}>
                      {offset + 1}
                    </span>
                    <code>
                      {highlighted && offset < highlighted.validLines && highlighted.lines[offset]?.length ? (
                        <HighlightedLineView line={highlighted.lines[offset]} />
                      ) : (
                        text || " "
                      )}
                    </code>
                  </div>
                  {statement && (statement.logs.length > 0 || (statement.omitted ?? 0) > 0) && (
                    <div className="lm-code__logs">
                      {statement.logs.map((log, index) => (
                        <pre key={index} className={`lm-log lm-log--${log.level}`}>
                          {log.text}
                        </pre>
                      ))}
                      {(statement.omitted ?? 0) > 0 && (
                        <p className="lm-log lm-log--omitted">{omittedLinesText(statement.omitted!)}</p>
                      )}
                    </div>
                  )}
                  {block.error && errorLine === replyLine && (
                    <div className="lm-code__error" role="note">
                      {errorText}
                    </div>
                  )}
                </div>
              );
            })}
            {block.error &&
              (errorLine === undefined || errorLine < block.line || errorLine >= block.line + lines.length) && (
                <div className="lm-code__error" role="note">
                  {errorText}
                </div>
              )}
            {cutTail && (
              <div className="lm-code__error" role="note">
                The reply was cut here: this statement is incomplete and did not run.
              </div>
            )}
          </div>
        )}
      </Collapsible>
    </figure>
  );
});

export const DataBlockView = memo(function DataBlockView({ block, ordinal }: { block: DataBlock; ordinal?: number }) {
  const bytes = new TextEncoder().encode(block.source).length;
  return (
    <figure className={`lm-data lm-code--${block.status}`} aria-label={`Data block ${block.index} for ${block.id}`}>
      <figcaption className="lm-code__header">
        <span className="lm-code__lang">json → {block.id}</span>
        <span className="lm-code__status" data-status={block.status}>
          {STATUS_LABEL[block.status]} · {bytes.toLocaleString()} bytes
          {block.unterminated ? " (truncated)" : ""}
        </span>
      </figcaption>
      {block.error && (
        <div className="lm-code__error">
          {ordinal === undefined
            ? formatExecError(block.error)
            : forPersonInBlock(formatExecError(block.error), block, ordinal)}
        </div>
      )}
    </figure>
  );
});
