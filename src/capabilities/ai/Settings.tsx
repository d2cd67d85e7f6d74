/**
 * The module's section of **Session settings**: **Model calls from code** —
 * the mode (off / ask / allowed), the token budget and what was used.
 */
import { useState, useSyncExternalStore, type ComponentType } from "react";
import type { AiMode } from "./aiPolicy";
import type { AiBroker } from "./createAiBroker";

const MODES: { value: AiMode; label: string; hint: string }[] = [
  { value: "off", label: "Off", hint: "code cannot call the model" },
  { value: "ask", label: "Ask", hint: "ask before each call" },
  { value: "allowed", label: "Allowed", hint: "without asking, within the budget" },
];

function AiSettings({ broker }: { broker: AiBroker }) {
  const state = useSyncExternalStore(broker.subscribe, broker.state, broker.state);
  const [draft, setDraft] = useState<string | undefined>(undefined);
  const commit = () => {
    if (draft === undefined) return;
    const value = Number(draft);
    if (draft.trim() !== "" && Number.isFinite(value) && value >= 0) broker.setBudget(value);
    setDraft(undefined);
  };
  return (
    <section className="lm-field" aria-label="Model calls from code">
      <h3 className="lm-dialog__subtitle">Model calls from code</h3>
      <p className="lm-dialog__hint">
        Code and generated UIs may call the model with your key (<code>ai.complete</code>); these calls are not chat
        turns, and their tokens count here and in the summary.
      </p>
      {MODES.map((mode) => (
        <label key={mode.value}>
          <input
            type="radio"
            name="lm-ai-mode"
            checked={state.mode === mode.value}
            onChange={() => broker.setMode(mode.value)}
          />
          {mode.label} <small>({mode.hint})</small>
        </label>
      ))}
      {state.session && state.mode === "ask" && (
        <p className="lm-dialog__hint">
          Always allowed for this session.{" "}
          <button type="button" className="lm-button" onClick={() => broker.revokeSession()}>
            Revoke
          </button>
        </p>
      )}
      <label>
        Token budget for this session{" "}
        <input
          type="number"
          min={0}
          step={1000}
          value={draft ?? String(state.budget)}
          onChange={(event) => setDraft(event.target.value)}
          onBlur={commit}
          onKeyDown={(event) => {
            if (event.key === "Enter") commit();
          }}
        />
      </label>
      <p className="lm-dialog__hint" data-testid="ai-usage">
        Used: {state.used.toLocaleString("en-US")} of {state.budget.toLocaleString("en-US")} tokens.
      </p>
    </section>
  );
}

/** The section bound to the page's broker. */
export function settingsFor(broker: AiBroker): ComponentType {
  return function ModelCallsSettings() {
    return <AiSettings broker={broker} />;
  };
}
