import { useCallback, useState } from "react";
import type { Agent, AgentState, Phase } from "../agent/agent";
import { useAgentState } from "./useAgentState";
import { Timeline } from "./Timeline";
import { Composer } from "./Composer";
import { SettingsDialog } from "./SettingsDialog";
import type { Settings } from "./settings";
import { DEMO_SUGGESTIONS } from "../llm/demoScripts";

const PHASE_WORD: Record<Phase, string> = {
  idle: "Ready",
  streaming: "Streaming",
  running: "Running",
  "waiting-input": "Waiting for input",
  done: "Done",
  error: "Error",
  stopped: "Stopped",
};

function statusText(state: AgentState): string {
  const word = PHASE_WORD[state.phase];
  const parts = [word];
  if (state.detail) parts.push(`(${state.detail})`);
  if ((state.phase === "streaming" || state.phase === "running") && state.turn > 0) {
    parts.push(`· turn ${state.turn} of at most ${state.maxTurns}`);
  }
  return parts.join(" ");
}

export function App({
  agent,
  settings,
  onSaveSettings,
  realmStatus,
  usingDemo,
}: {
  agent: Agent;
  usingDemo: boolean;
  settings: Settings;
  onSaveSettings: (settings: Settings) => void;
  realmStatus: "starting" | "ready" | "failed";
}) {
  const state = useAgentState(agent);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const busy = state.phase === "streaming" || state.phase === "running" || state.phase === "waiting-input";
  const onSend = useCallback((text: string) => void agent.send(text), [agent]);
  const onStop = useCallback(() => agent.stop(), [agent]);
  return (
    <div className="lm-app">
      <header className="lm-header">
        <h1 className="lm-title">Livemark</h1>
        <span className="lm-model" title={usingDemo ? "Scripted offline model" : settings.baseURL}>
          {usingDemo ? "Demo model (offline)" : settings.model}
        </span>
        <span className={`lm-realm lm-realm--${realmStatus}`} title="The sandbox where code runs">
          {realmStatus === "ready" ? "Sandbox ready" : realmStatus === "starting" ? "Sandbox starting…" : "Sandbox failed"}
        </span>
        <button type="button" className="lm-button" onClick={() => setSettingsOpen(true)}>
          Settings
        </button>
      </header>
      <main className="lm-main">
        <Timeline messages={state.messages} suggestions={usingDemo ? DEMO_SUGGESTIONS : []} onSuggestion={onSend} />
      </main>
      <footer className="lm-footer">
        <div className="lm-statusbar">
          <span role="status" aria-live="polite" className={`lm-status lm-status--${state.phase}`}>
            {statusText(state)}
          </span>
          {state.canContinue && !busy && (
            <button type="button" className="lm-button" onClick={() => void agent.continue()}>
              Continue
            </button>
          )}
        </div>
        <Composer busy={busy} onSend={onSend} onStop={onStop} />
      </footer>
      {settingsOpen && (
        <SettingsDialog
          settings={settings}
          onClose={() => setSettingsOpen(false)}
          onSave={(next) => {
            onSaveSettings(next);
            setSettingsOpen(false);
          }}
        />
      )}
    </div>
  );
}
