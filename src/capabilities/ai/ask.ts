/**
 * The kind of ask of a model call from code (src/session/capabilityController.ts
 * queues it with every other kind): named by the prompt's first words;
 * "always" is the session ("Always allow for this session"), which the
 * module saves with its own settings.
 */
import type { AskKind } from "../Capability";
import type { AiAsk } from "./createAiBroker";
import { lazyView } from "../lazyView";

const short = (ask: AiAsk) => {
  const line = ask.excerpt.replace(/\s+/g, " ").trim();
  return line.length > 60 ? `${line.slice(0, 60)}…` : line;
};

export const aiAsk: AskKind<AiAsk, "session"> = {
  capability: "ai",
  always: "session",
  action: (ask) => `model call “${short(ask)}”`,
  refused: (ask) => `the model call “${short(ask)}”`,
  covers: () => "model calls from code in this session",
  grant: () => "session",
  View: lazyView(() => import("./AskView").then((module) => module.AiAskView)),
};
