import { useState } from "react";
import type { SessionController, SessionsState } from "../session/sessionController";
import { KEEP_DELETED_MS } from "../store/sessions";
import { useModalDialog } from "./useModalDialog";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * **Recently deleted**: deleted sessions, kept 30 days after their delete,
 * each with **Restore** and **Delete forever** (which frees its space at
 * once, also when storage is full; it asks first). A modal dialog, opened from the session
 * list and from the storage-full banner.
 */
export function RecentlyDeletedDialog({
  controller,
  state,
  onClose,
}: {
  controller: SessionController;
  state: SessionsState;
  onClose: () => void;
}) {
  const dialog = useModalDialog();
  /** The session whose Delete forever waits for its confirmation. */
  const [confirming, setConfirming] = useState<string | undefined>();
  const now = Date.now();
  return (
    <dialog ref={dialog} className="lm-dialog" aria-labelledby="lm-deleted-title" onClose={onClose}>
      <h2 id="lm-deleted-title">Recently deleted</h2>
      <p>
        Deleted sessions are kept here for {Math.round(KEEP_DELETED_MS / DAY_MS)} days, then removed for good. Delete
        forever frees their space now.
      </p>
      {state.deleted.length === 0 ? (
        <p className="lm-sidebar__empty">Nothing was deleted in the last 30 days.</p>
      ) : (
        <ul className="lm-deleted" aria-label="Deleted sessions">
          {state.deleted.map((session) => {
            const left = Math.max(0, Math.ceil(((session.deletedAt ?? now) + KEEP_DELETED_MS - now) / DAY_MS));
            return (
              <li key={session.id} className="lm-deleted__item">
                <span className="lm-deleted__title">{session.title}</span>
                <span className="lm-deleted__when">
                  {left <= 1 ? "removed for good within a day" : `removed for good in ${left} days`}
                </span>
                {confirming === session.id ? (
                  // Nothing brings it back: asked once more, in place.
                  <span className="lm-deleted__actions" role="group" aria-label={`Delete ${session.title} forever?`}>
                    <span className="lm-deleted__confirm">Delete it forever? This cannot be undone.</span>
                    <button
                      type="button"
                      className="lm-button lm-button--primary"
                      onClick={() => {
                        setConfirming(undefined);
                        void controller.deleteForever(session.id);
                      }}
                    >
                      Delete forever
                    </button>
                    <button type="button" className="lm-button" autoFocus onClick={() => setConfirming(undefined)}>
                      Cancel
                    </button>
                  </span>
                ) : (
                  <span className="lm-deleted__actions">
                    <button type="button" className="lm-button" onClick={() => void controller.restore(session.id)}>
                      Restore
                    </button>
                    <button type="button" className="lm-button" onClick={() => setConfirming(session.id)}>
                      Delete forever
                    </button>
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <div className="lm-dialog__actions">
        <button type="button" className="lm-button lm-button--primary" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </div>
    </dialog>
  );
}
