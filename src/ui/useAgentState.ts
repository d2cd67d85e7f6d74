import { useEffect, useState } from "react";
import type { Agent, AgentState } from "../agent/agent";

/**
 * Subscribes to the agent and re-renders at most once per animation frame,
 * however many chunks arrive in between (DESIGN.md §5: no long tasks while
 * streaming).
 */
export function useAgentState(agent: Agent): AgentState {
  const [state, setState] = useState(() => agent.getState());
  useEffect(() => {
    let frame = 0;
    let latest = agent.getState();
    setState(latest);
    const unsubscribe = agent.subscribe((next) => {
      latest = next;
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        setState(latest);
      });
    });
    return () => {
      unsubscribe();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [agent]);
  return state;
}
