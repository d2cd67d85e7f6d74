import { useContext } from "react";
import type { ReplyView } from "../agent/reply";
import { CodeFence } from "./CodeFence";
import { MessageActionsContext } from "./MessageActions";

type CodeBlock = Extract<ReplyView["blocks"][number], { kind: "code" }>;

/**
 * Edit code (issue 29 §2), beside a code block: "edited" with **Show
 * original** on a block the person edited and ran; "stale" with **Run
 * again** and **Run all stale** on a block that reads a name an edited
 * block declares. Its own chunk (Timeline loads it only for such blocks).
 */
export default function CodeBlockMarks({
  block,
  replyId,
  editing,
  showOriginal,
  onShowOriginal,
}: {
  block: CodeBlock;
  replyId: string;
  editing: boolean;
  showOriginal: boolean;
  onShowOriginal(shown: boolean): void;
}) {
  const actions = useContext(MessageActionsContext);
  const disabled = !actions || actions.disabled;
  return (
    <>
      {block.original !== undefined && (
        <>
          <span className="lm-code-mark" data-mark="edited" title="The person edited this code and ran it">
            edited
          </span>
          <button
            type="button"
            className="lm-button lm-button--quiet"
            aria-expanded={showOriginal}
            onClick={() => onShowOriginal(!showOriginal)}
          >
            {showOriginal ? "Hide original" : "Show original"}
          </button>
        </>
      )}
      {block.stale && !editing && (
        <>
          <span className="lm-code-mark" data-mark="stale" title="A block it reads from was edited and run again">
            stale
          </span>
          <button
            type="button"
            className="lm-button lm-button--quiet"
            disabled={disabled}
            onClick={() => actions?.runBlocks([{ ref: { replyId, index: block.index }, code: block.source }])}
          >
            Run again
          </button>
          <button
            type="button"
            className="lm-button lm-button--quiet"
            disabled={disabled}
            onClick={() => actions?.runAllStale()}
          >
            Run all stale
          </button>
        </>
      )}
    </>
  );
}

/** The model's code of an edited block (Show original). */
export function OriginalCode({ index, code, lang }: { index: number; code: string; lang: string }) {
  return (
    <div className="lm-code-original" role="group" aria-label={`Original code of block ${index}`}>
      <CodeFence code={code} lang={lang} settled />
    </div>
  );
}
