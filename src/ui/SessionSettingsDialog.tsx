/**
 * The **Session settings** dialog (DESIGN.md §4): the session's own fields
 * (`children`), each capability's section in the list's order, **Strict
 * mode**, the audit list. Loaded on first use (src/ui/App.tsx).
 */
import { useContext, type ReactNode } from "react";
import { CapabilityViewsContext, formatBytes, useCapabilities } from "./capabilities";
import { useModalDialog } from "./useModalDialog";

export function SessionSettingsDialog({ onClose, children }: { onClose: () => void; children?: ReactNode }) {
  const { controller, state } = useCapabilities();
  // Modal: focus stays inside and returns to the opener on close (useModalDialog.ts).
  const dialog = useModalDialog();
  const { strict, audit } = state;
  const { sections } = useContext(CapabilityViewsContext);
  return (
    <dialog
      ref={dialog}
      className="lm-dialog lm-dialog--wide"
      aria-labelledby="lm-session-settings-title"
      onClose={onClose}
    >
      <h2 id="lm-session-settings-title">Session settings</h2>
      <p className="lm-dialog__hint">
        Rights belong to this session: what its code may reach. Generated code never sees your API key.
      </p>
      {children}
      {sections.map(({ name, Settings }) => (
        <Settings key={name} />
      ))}
      <div className="lm-field">
        <label>
          <input type="checkbox" checked={strict} onChange={(event) => controller?.setStrict(event.target.checked)} />{" "}
          Strict mode
        </label>
        <small>Ask for every request and every tool call, even to allowed hosts and tools.</small>
      </div>
      <section className="lm-field" aria-label="Audit list">
        <h3 className="lm-dialog__subtitle">Audit list</h3>
        {audit.some((entry) => entry.fromFile === true) && (
          <p className="lm-dialog__hint">
            Lines marked “from the file” came with the imported file: what the browser that exported it recorded, not
            what this session did here.
          </p>
        )}
        {audit.length === 0 ? (
          <p className="lm-dialog__hint">Nothing yet: no code of this session has used a capability.</p>
        ) : (
          <div className="lm-audit">
            <table>
              <thead>
                <tr>
                  <th>Time</th>
                  <th>Capability</th>
                  <th>Action</th>
                  <th>Decision</th>
                  <th>Bytes</th>
                  <th>Result</th>
                </tr>
              </thead>
              <tbody>
                {audit.map((entry, index) => (
                  <tr key={entry.id ?? `a${index}`}>
                    <td>{new Date(entry.at).toLocaleTimeString()}</td>
                    <td>{entry.capability}</td>
                    <td className="lm-audit__action">
                      {entry.method} {entry.url}
                      {entry.fromFile === true && (
                        <>
                          {" "}
                          <span
                            className="lm-audit__from-file"
                            title="Recorded in the browser that exported the file, not by this session here"
                          >
                            from the file
                          </span>
                        </>
                      )}
                    </td>
                    <td>{entry.decision}</td>
                    <td>{typeof entry.bytes === "number" ? formatBytes(entry.bytes) : ""}</td>
                    <td>
                      {[
                        entry.status,
                        entry.result,
                        typeof entry.tokensIn === "number" || typeof entry.tokensOut === "number"
                          ? `· tokens ${Number(entry.tokensIn ?? 0).toLocaleString("en-US")} in / ${Number(entry.tokensOut ?? 0).toLocaleString("en-US")} out`
                          : undefined,
                      ]
                        .filter((part) => part !== undefined && part !== "")
                        .join(" ")}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <div className="lm-dialog__actions">
        <button type="button" className="lm-button lm-button--primary" onClick={onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}
