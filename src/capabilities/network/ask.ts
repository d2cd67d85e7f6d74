/**
 * The network's kind of ask (src/session/capabilityController.ts queues it
 * with every other kind): a request, named by method and URL; "always"
 * is the host, saved as the session's grant.
 */
import type { AskKind } from "../Capability";
import type { PermissionAsk } from "./createNetworkBroker";
import { lazyView } from "../lazyView";

export const networkAsk: AskKind<PermissionAsk, "host"> = {
  capability: "network",
  always: "host",
  action: (ask) => `${ask.method} ${ask.url}`,
  refused: (ask) => `${ask.method} ${ask.url}`,
  covers: (ask) => ask.host,
  grant: (ask) => ask.host,
  View: lazyView(() => import("./AskView").then((module) => module.NetworkAskView)),
};
