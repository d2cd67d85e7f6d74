import { useSyncExternalStore } from "react";
import type { Agent } from "../agent/agent";
import { isBusy, type AgentState } from "../agent/types";
import { appUpdate } from "./appUpdate";
import { useAgentSelector } from "./useAgentState";

/**
 * "A new version is ready" with **Reload**, in a polite live region (screen
 * readers hear it once). While a reply streams or its code runs, Reload
 * waits: switching versions would cut the reply.
 */
export function UpdateBanner({ agent }: { agent?: Agent }) {
  const update = useSyncExternalStore(appUpdate.subscribe, appUpdate.getState);
  return (
    <div className="lm-update" aria-live="polite">
      {update.waiting && (agent ? <WithAgent agent={agent} /> : <Body busy={false} />)}
    </div>
  );
}

const busyOf = (state: AgentState) => isBusy(state.phase);

function WithAgent({ agent }: { agent: Agent }) {
  const busy = useAgentSelector(agent, busyOf);
  return <Body busy={busy} />;
}

function Body({ busy }: { busy: boolean }) {
  return (
    <div className="lm-banner lm-banner--info">
      <span>A new version is ready.{busy ? " Reload once this reply has finished." : ""}</span>
      <button type="button" className="lm-button" disabled={busy} onClick={() => appUpdate.apply()}>
        Reload
      </button>
    </div>
  );
}
