import { useRef } from "react";
import { useModalDialog } from "./useModalDialog";

/**
 * Asked before leaving a session whose reply runs or whose form waits:
 * leaving stops it (the session records "Interrupted: you switched
 * sessions"). **Switch anyway** leaves, **Stay** (or Escape) keeps it running.
 */
export function LeaveRunningDialog({ onAnswer }: { onAnswer: (leave: boolean) => void }) {
  const dialog = useModalDialog();
  const answer = useRef(false);
  return (
    <dialog
      ref={dialog}
      className="lm-dialog"
      aria-labelledby="lm-leave-title"
      aria-describedby="lm-leave-text"
      onClose={() => onAnswer(answer.current)}
    >
      <h2 id="lm-leave-title">A reply is still running</h2>
      <p id="lm-leave-text">
        Switching sessions stops it, and any form in it that waits for you. The session keeps what came so far.
      </p>
      <div className="lm-dialog__actions">
        <button
          type="button"
          className="lm-button"
          onClick={() => {
            answer.current = true;
            dialog.current?.close();
          }}
        >
          Switch anyway
        </button>
        <button
          type="button"
          className="lm-button lm-button--primary"
          autoFocus
          onClick={() => dialog.current?.close()}
        >
          Stay
        </button>
      </div>
    </dialog>
  );
}
