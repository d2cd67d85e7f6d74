import type { SessionExport } from "../store/exportSchema";

/**
 * A share link's session before import (src/session/sessionController.ts
 * `preview`): with the preview, the banner with **Import** and **Dismiss**;
 * without, the note that stands where the composer would be. Their own chunk: only a share link
 * shows them.
 */
export function SharePreview(
  props: { preview: SessionExport; onImport: () => void; onDismiss: () => void } | { preview?: undefined },
) {
  if (!props.preview) return <SharePreviewNote />;
  const { preview, onImport, onDismiss } = props;
  return (
    <div className="lm-banner lm-banner--info" role="dialog" aria-label="Shared session preview">
      <span>
        A shared session: “{preview.session.title}” with {preview.messages.length} messages, shown read-only. Import
        keeps it in your sessions; its code does not run until you Revive it.
      </span>
      <button type="button" className="lm-button lm-button--primary" onClick={onImport}>
        Import
      </button>
      <button type="button" className="lm-button" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}

function SharePreviewNote() {
  return (
    <p className="lm-readonly">
      A shared session, shown read-only: nothing is saved and its code does not run. Import keeps a copy in your
      sessions.
    </p>
  );
}
