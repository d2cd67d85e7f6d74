import type { Agent, AgentState, ChatMessage } from "../agent/agent";

/**
 * For the session controller's tests: just what the controller asks of an
 * agent (an idle state with `messages`, no-op subscribe, close and dispose,
 * and the older-messages hooks a long session's open calls). One argument, so
 * it can be the controller's `makeAgent` as it is; a test that records what
 * the agent is sent adds its own members (`Object.assign`).
 */
export function idleAgent(messages: ChatMessage[]): Agent {
  const state: AgentState = { messages, phase: "idle", turn: 0, maxTurns: 10, canContinue: false };
  return {
    getState: () => state,
    subscribe: () => () => undefined,
    close: () => undefined,
    dispose: () => undefined,
    busy: false,
    prependOlder: () => undefined,
    loadingOlder: () => undefined,
  } as unknown as Agent;
}
