/**
 * `fetch` in the realm, brokered by the host (DESIGN.md §4): the person's
 * rules per session (networkPolicy.ts), the broker that asks and fetches
 * (createNetworkBroker.ts), the session's rules loaded and saved and its
 * section of Session settings (installNetwork.ts, Settings.tsx), remote
 * images (remoteImages.ts), the ask (ask.ts, AskView.tsx), its lines in the
 * system prompt (prompt.ts). Realm half:
 * workers/realm/runtime/capabilities/network.ts.
 */
import { NET_FETCH } from "../../wire/capabilities";
import type { Capability } from "../Capability";
import { installLazily } from "../installLazily";
import { plural } from "../plural";
import { networkAsk } from "./ask";
import { networkPrompt } from "./prompt";

export { networkAudit } from "./audit";

export const network: Capability = {
  name: "network",
  realmGlobals: ["fetch"],
  // The broker, its rules and its Settings section load by dynamic import (installLazily.ts).
  install: (host) =>
    installLazily(host, { services: [NET_FETCH], asks: [networkAsk], settings: true, remoteImages: true }, () =>
      import("./installNetwork").then((module) => module.installNetwork),
    ),
  summary(used) {
    const requests = used.filter((entry) => entry.capability === "network");
    if (requests.length === 0) return undefined;
    const denied = requests.filter((entry) => entry.decision === "denied").length;
    return `network: ${plural(requests.length, "request")}${denied ? ` (${denied} denied)` : ""}`;
  },
  prompt: networkPrompt,
  ask: networkAsk,
};
