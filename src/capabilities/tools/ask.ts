/**
 * The tools' kind of ask (src/session/capabilityController.ts queues it
 * with every other kind): a call, named by server and tool; "always" is
 * the tool at its server's address (toolKey), saved as the session's grant.
 */
import type { AskKind } from "../Capability";
import type { ToolPermissionAsk } from "./createToolBroker";
import { lazyView } from "../lazyView";
import { toolKey } from "./toolKey";

export const toolAsk: AskKind<ToolPermissionAsk, "tool"> = {
  capability: "tool",
  always: "tool",
  action: (ask) => `tool ${ask.server}/${ask.tool}`,
  refused: (ask) => `the call of ${ask.server}/${ask.tool}`,
  covers: (ask) => `${ask.server}/${ask.tool}`,
  grant: (ask) => toolKey(ask.serverUrl, ask.tool),
  View: lazyView(() => import("./AskView").then((module) => module.ToolAskView)),
};
