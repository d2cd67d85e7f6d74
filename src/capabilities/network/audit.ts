import type { PersonSide } from "../Capability";
import type { NetworkAuditRecord } from "./createNetworkBroker";

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
