import { abortableSleep } from "./abortableSleep";
import { toModelMessages } from "./modelMessages";
import type { TurnContext, TurnTimeline } from "./turn";
import type { AgentOptions } from "./types";

/**
 * The agent's options with their defaults filled in, and what a turn reads
 * from them (`turnContext`): the system prompt and call settings read at
 * each call, the timeline as the model reads it.
 */

export type ResolvedOptions = Required<
  Omit<AgentOptions, "maxTurns" | "maxRetries" | "isImported" | "callSettings" | "stall" | "stallClock">
> &
  Pick<AgentOptions, "isImported" | "callSettings" | "stall" | "stallClock"> & { maxTurns: number; maxRetries: number };

let counter = 0;
const defaultId = () => `m${Date.now().toString(36)}${(counter++).toString(36)}`;

export function resolveOptions(options: AgentOptions): ResolvedOptions {
  return {
    maxTurns: 10,
    maxRetries: 2,
    now: () => Date.now(),
    newId: defaultId,
    sleep: abortableSleep,
    ...options,
  };
}

/** Everything a turn needs but its interaction's lifecycle. */
export function turnContext(options: ResolvedOptions, timeline: TurnTimeline): Omit<TurnContext, "lifecycle"> {
  return {
    realm: options.realm,
    model: options.model,
    system: () => (typeof options.system === "function" ? options.system() : options.system),
    callSettings: () => options.callSettings?.() ?? {},
    history: (importedInstruction) =>
      toModelMessages(
        timeline.state().messages,
        options.isImported ?? ((message) => message.imported === true),
        importedInstruction,
      ),
    createParser: options.createParser,
    describeError: options.describeError,
    wrapFeedback: options.wrapFeedback,
    maxRetries: options.maxRetries,
    now: options.now,
    newId: options.newId,
    sleep: options.sleep,
    ...(options.stall ? { stall: options.stall } : {}),
    ...(options.stallClock ? { stallClock: options.stallClock } : {}),
    timeline,
  };
}
