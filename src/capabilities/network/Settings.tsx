/**
 * The network's section of **Session settings**: the mode (**Off**, **Ask**,
 * **Allowed**) and the **Granted hosts**, each with **Revoke**.
 */
import { useSyncExternalStore } from "react";
import type { NetworkSettingsHandle } from "./installNetwork";
import type { NetworkMode } from "./networkPolicy";

const MODES: { value: NetworkMode; label: string; hint: string }[] = [
  { value: "off", label: "Off", hint: "no request leaves" },
  { value: "ask", label: "Ask", hint: "ask before each request to a host not allowed below" },
  { value: "allowed", label: "Allowed", hint: "any host, without asking" },
];

export function NetworkSettings({ network }: { network: NetworkSettingsHandle }) {
  const policy = useSyncExternalStore(network.subscribe, network.state, network.state);
  return (
    <>
      <fieldset className="lm-field">
        <legend>Network</legend>
        {MODES.map((mode) => (
          <label key={mode.value}>
            <input
              type="radio"
              name="lm-network-mode"
              checked={policy.mode === mode.value}
              onChange={() => network.setMode(mode.value)}
            />
            {mode.label} <small>({mode.hint})</small>
          </label>
        ))}
      </fieldset>
      <section className="lm-field" aria-label="Granted hosts">
        <h3 className="lm-dialog__subtitle">Granted hosts</h3>
        {policy.hosts.length === 0 ? (
          <p className="lm-dialog__hint">None yet.</p>
        ) : (
          <ul className="lm-hosts">
            {policy.hosts.map((host) => (
              <li key={host}>
                <code>{host}</code>
                <button type="button" className="lm-button" onClick={() => void network.revoke(host)}>
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
