import { createContext, useContext } from "react";

/**
 * What the timeline may do with the invited agent's channel: answer its
 * questions inline. Provided by App while a channel is open.
 */
export interface AgentChannelActions {
  answer(questionId: string, text: string): void;
  /** A channel is open: questions can be answered. */
  open: boolean;
}

export const AgentChannelContext = createContext<AgentChannelActions>({ answer: () => undefined, open: false });

export const useAgentChannelActions = () => useContext(AgentChannelContext);
