import { IS_MAC, SHORTCUTS } from "./shortcuts";
import { useModalDialog } from "./useModalDialog";

/** **Keyboard shortcuts**: the list from shortcuts.ts, opened by `?`. A modal dialog: focus stays inside and returns on close. */
export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  const dialog = useModalDialog();
  return (
    <dialog ref={dialog} className="lm-dialog" aria-labelledby="lm-shortcuts-title" onClose={onClose}>
      <h2 id="lm-shortcuts-title">Keyboard shortcuts</h2>
      <table className="lm-shortcuts">
        <tbody>
          {SHORTCUTS.map((shortcut) => (
            <tr key={shortcut.id}>
              <td>{shortcut.description}</td>
              <td className="lm-shortcuts__keys">
                {shortcut.keys(IS_MAC).map((key, index) => (
                  <span key={index}>
                    {index > 0 && " + "}
                    <kbd>{key}</kbd>
                  </span>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="lm-dialog__actions">
        <button
          type="button"
          className="lm-button lm-button--primary"
          autoFocus
          onClick={() => dialog.current?.close()}
        >
          Close
        </button>
      </div>
    </dialog>
  );
}
