/**
 * Session settings → **App data**: the open session's keys, their size and
 * **Erase app data** (issue 28 §1). Bound to the page's app data by
 * `appDataSettings` (index.ts).
 */
import { useState, useSyncExternalStore, type ComponentType } from "react";
import { formatBytes } from "../../agent/attachments";
import { MAX_STORAGE_SESSION_BYTES } from "../../wire/capabilities";
import type { AppData } from "./createAppData";

/** The most keys listed; the count says how many there are. */
const SHOWN_KEYS = 50;

export function appDataSettings(data: AppData): ComponentType {
  return function AppDataSettings() {
    const state = useSyncExternalStore(data.subscribe, data.getState, data.getState);
    const [erasing, setErasing] = useState(false);
    const [failed, setFailed] = useState<string | undefined>();
    if (state.sessionId === undefined) return null;
    const count = state.keys.length;
    return (
      <section className="lm-field" aria-label="App data">
        <h3 className="lm-dialog__subtitle">App data</h3>
        <p className="lm-dialog__hint">
          What this session&apos;s code keeps with <code>storage</code> and <code>useStored</code>: kept across reloads
          and resets, exported with the session. Up to {formatBytes(MAX_STORAGE_SESSION_BYTES)}.
        </p>
        {count === 0 ? (
          <p className="lm-dialog__hint" data-testid="app-data-summary">
            None yet.
          </p>
        ) : (
          <>
            <p data-testid="app-data-summary">
              {count} {count === 1 ? "key" : "keys"}, {formatBytes(state.bytes)}
            </p>
            <ul className="lm-hosts" aria-label="App data keys">
              {state.keys.slice(0, SHOWN_KEYS).map(({ key, bytes }) => (
                <li key={key}>
                  <code>{key}</code> <small>{formatBytes(bytes)}</small>
                </li>
              ))}
              {count > SHOWN_KEYS && <li>… and {count - SHOWN_KEYS} more</li>}
            </ul>
            <button
              type="button"
              className="lm-button"
              disabled={erasing}
              onClick={() => {
                setErasing(true);
                setFailed(undefined);
                data
                  .erase()
                  .catch((error: unknown) => setFailed(error instanceof Error ? error.message : String(error)))
                  .finally(() => setErasing(false));
              }}
            >
              Erase app data
            </button>
          </>
        )}
        {(failed ?? state.error) && (
          <p role="alert" className="lm-dialog__hint">
            {failed ?? state.error}
          </p>
        )}
      </section>
    );
  };
}
