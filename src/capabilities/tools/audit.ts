import type { PersonSide } from "../Capability";
import type { ToolAuditRecord } from "./createToolBroker";

/** The broker's audit records as the session's audit lines; a tool's result is outside content. */
export const toolAudit =
  (person: Pick<PersonSide, "record" | "noteUntrusted">) =>
  (record: ToolAuditRecord): void => {
    if (record.result === "ok" || record.result === "tool-error") person.noteUntrusted(`a tool result: ${record.url}`);
    person.record({
      at: record.at,
      capability: "tool",
      method: record.method,
      url: record.url,
      server: record.server,
      decision: record.decision,
      bytesOut: record.bytesOut,
      ...(record.bytes !== undefined ? { bytes: record.bytes } : {}),
      result: record.result,
    });
  };
