/**
 * `fetch` in the realm, brokered by the host (DESIGN.md §4): the person's
 * rules per session (networkPolicy.ts), the broker that asks and fetches
 * (createNetworkBroker.ts), the ask (ask.ts, AskView.tsx), its lines in the system
 * prompt (prompt.ts). Realm half:
 * workers/realm/runtime/capabilities/network.ts.
 */
import { NET_FETCH } from "../../wire/capabilities";
import type { Capability, PersonSide } from "../Capability";
import { plural } from "../plural";
import { networkAsk } from "./ask";
import { createNetworkBroker, type NetworkAuditRecord } from "./createNetworkBroker";
import { networkPrompt } from "./prompt";

/** The broker's audit records as the session's audit lines; a response that came back is outside content. */
export const networkAudit =
  (person: Pick<PersonSide, "record" | "noteUntrusted">) =>
  (record: NetworkAuditRecord): void => {
    if (record.result === "ok" || record.result === "http-error")
      person.noteUntrusted(`a network response: ${record.method} ${record.url}`);
    person.record({
      at: record.at,
      capability: "network",
      method: record.method,
      url: record.url,
      decision: record.decision,
      bytesOut: record.bytesOut,
      ...(record.bytes !== undefined ? { bytes: record.bytes } : {}),
      ...(record.status !== undefined ? { status: record.status } : {}),
      result: record.result,
    });
  };

export const network: Capability = {
  name: "network",
  realmGlobals: ["fetch"],
  install({ person }) {
    const broker = createNetworkBroker({
      ask: person.asker(networkAsk),
      audit: networkAudit(person),
      onChange: () => void person.policyChanged(),
    });
    person.attach(broker);
    return { services: { [NET_FETCH]: broker.service } };
  },
  summary(used) {
    const requests = used.filter((entry) => entry.capability === "network");
    if (requests.length === 0) return undefined;
    const denied = requests.filter((entry) => entry.decision === "denied").length;
    return `network: ${plural(requests.length, "request")}${denied ? ` (${denied} denied)` : ""}`;
  },
  prompt: networkPrompt,
  ask: networkAsk,
};
