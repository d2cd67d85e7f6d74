import { memo } from "react";
import type { ThinkingView as Thinking } from "../agent/reply";
import { thinkingSeconds } from "../agent/thinking";

/**
 * A reasoning model's thinking, shown apart from the answer: collapsed under
 * "Thinking…" while it streams, then "Thought for N s", which expands. Plain
 * text (a fence in it is a draft, shown as written and never run).
 */
export const ThinkingView = memo(function ThinkingView({ thinking }: { thinking: Thinking }) {
  const seconds = thinkingSeconds(thinking);
  const label = !thinking.closed ? "Thinking…" : seconds === undefined ? "Thought" : `Thought for ${seconds} s`;
  return (
    <details className="lm-thinking" data-state={thinking.closed ? "done" : "streaming"}>
      <summary>
        {label}
        {thinking.unterminated && <span className="lm-thinking__warning"> · the reply ended inside its thinking</span>}
      </summary>
      <div className="lm-thinking__text" aria-label="Thinking">
        {thinking.text.replace(/^\n+/, "")}
      </div>
    </details>
  );
});
