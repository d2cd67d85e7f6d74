import { useEffect, useRef, useState } from "react";
import type { Agent, AgentState } from "../agent/agent";

/**
 * Tells of the agent's changes at most once per animation frame, however
 * many chunks arrive in between (DESIGN.md §5: no long tasks while
 * streaming). One per agent, shared by every component that reads it, so
 * they all hear of a frame in the same callback (one render).
 */
class AgentFrames {
  private frame = 0;
  private readonly listeners = new Set<() => void>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly agent: Agent) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    if (!this.unsubscribe) {
      this.unsubscribe = this.agent.subscribe(() => {
        if (this.frame) return;
        this.frame = requestAnimationFrame(() => {
          this.frame = 0;
          for (const each of this.listeners) each();
        });
      });
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0) return;
      this.unsubscribe?.();
      this.unsubscribe = undefined;
      if (this.frame) cancelAnimationFrame(this.frame);
      this.frame = 0;
    };
  }
}

const framesOf = new WeakMap<Agent, AgentFrames>();

function agentFrames(agent: Agent): AgentFrames {
  let frames = framesOf.get(agent);
  if (!frames) framesOf.set(agent, (frames = new AgentFrames(agent)));
  return frames;
}

/**
 * What `select` takes from the agent's state, read once per animation frame:
 * the component re-renders only when that value changes (`equal`, `Object.is`
 * by default). So a streamed chunk re-renders what reads the streaming
 * message and the status line, not the composer or the page around them
 * (e2e/rerender.test.ts). `select` returns a primitive or a part of the
 * state, never a new object each call (unless `equal` compares its contents).
 */
export function useAgentSelector<T>(
  agent: Agent,
  select: (state: AgentState) => T,
  equal: (before: T, after: T) => boolean = Object.is,
): T {
  const [value, setValue] = useState(() => select(agent.getState()));
  const latest = useRef({ select, equal, value });
  latest.current.select = select;
  latest.current.equal = equal;
  latest.current.value = value;
  useEffect(() => {
    const update = () => {
      const next = latest.current.select(agent.getState());
      if (latest.current.equal(latest.current.value, next)) return;
      latest.current.value = next;
      setValue(() => next);
    };
    const unsubscribe = agentFrames(agent).subscribe(update);
    // The state may have moved between the render and this effect (or this is another agent).
    update();
    return unsubscribe;
  }, [agent]);
  return value;
}

const whole = (state: AgentState) => state;

/** The agent's whole state, at most once per animation frame: re-renders on every change. */
export function useAgentState(agent: Agent): AgentState {
  return useAgentSelector(agent, whole);
}
