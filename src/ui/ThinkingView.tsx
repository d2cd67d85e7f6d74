import { memo } from "react";
import type { ThinkingView as Thinking } from "../agent/reply";
import { thinkingSeconds } from "../agent/thinking";

/**
 * A reasoning model's thinking, shown apart from the answer: collapsed under
 * "Thinking…" while it streams, then "Thought for N s", which expands. Plain
 * text (a fence in it is a draft, shown as written and never run).
 */
export const ThinkingView = memo(function ThinkingView({
  thinking,
  streaming,
}: {
  thinking: Thinking;
  streaming: boolean;
}) {
  const seconds = thinkingSeconds(thinking);
  // Saved mid-stream and reopened (tab closed, crash): it will not close any more.
  const endedInside = thinking.unterminated || (!thinking.closed && !streaming);
  const label =
    !thinking.closed && streaming ? "Thinking…" : seconds === undefined ? "Thought" : `Thought for ${seconds} s`;
  return (
    <details className="lm-thinking" data-state={thinking.closed || !streaming ? "done" : "streaming"}>
      <summary>
        {label}
        {endedInside && <span className="lm-thinking__warning"> · the reply ended inside its thinking</span>}
      </summary>
      <div className="lm-thinking__text" aria-label="Thinking">
        {thinking.text.replace(/^\n+/, "")}
      </div>
    </details>
  );
});
