/**
 * `fetch` in the realm, brokered by the host (DESIGN.md §4): the person's
 * rules per session (networkPolicy.ts), the broker that asks and fetches
 * (createNetworkBroker.ts), the ask (AskView.tsx), its lines in the system
 * prompt (prompt.ts). Realm half:
 * workers/realm/runtime/capabilities/network.ts.
 */
import { NET_FETCH } from "../../wire/capabilities";
import type { Capability } from "../Capability";
import { NetworkAskView } from "./AskView";
import { createNetworkBroker } from "./createNetworkBroker";
import { networkPrompt } from "./prompt";

export const network: Capability = {
  name: "network",
  realmGlobals: ["fetch"],
  install({ person }) {
    const broker = createNetworkBroker({
      ask: person.ask,
      audit: person.recordNetwork,
      onChange: () => void person.policyChanged(),
    });
    person.attach(broker);
    return { [NET_FETCH]: broker.service };
  },
  prompt: networkPrompt,
  ask: { capability: "network", View: NetworkAskView },
};
