/**
 * The person's MCP tools as the realm's `tools` (DESIGN.md §2, §4): the page
 * holds the connections and tokens (createMcpServers.ts, mcpClient.ts,
 * mcpOAuth.ts; loaded on first use, never in the initial JavaScript), the
 * rules per session (toolPolicy.ts), the broker that asks and calls
 * (createToolBroker.ts), the ask (ask.ts, AskView.tsx), and the tool list after the
 * system prompt (src/llm/toolsPrompt.ts). Realm half:
 * workers/realm/runtime/capabilities/tools.ts.
 */
import { toolsPrompt } from "../../llm/toolsPrompt";
import { TOOL_CALL } from "../../wire/capabilities";
import type { Capability, PersonSide } from "../Capability";
import { plural } from "../plural";
import { toolAsk } from "./ask";
import { createToolBroker, type ToolAuditRecord } from "./createToolBroker";

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

export const tools: Capability = {
  name: "tools",
  realmGlobals: ["tools"],
  install({ person, setTools }) {
    const broker = createToolBroker({
      ask: person.asker(toolAsk),
      audit: toolAudit(person),
      onChange: () => void person.policyChanged(),
    });
    person.attachTools(
      broker,
      () =>
        import("./createMcpServers").then(({ createMcpServers }) =>
          createMcpServers({
            demoServer: () => import("./demoMcpServer").then((module) => module.createDemoMcpServer()),
          }),
        ),
      setTools,
    );
    return { services: { [TOOL_CALL]: broker.service } };
  },
  summary(used) {
    const calls = used.filter((entry) => entry.capability === "tool");
    if (calls.length === 0) return undefined;
    const denied = calls.filter((entry) => entry.decision === "denied").length;
    return `tools: ${plural(calls.length, "call")}${denied ? ` (${denied} denied)` : ""}`;
  },
  // Read at each model call: the connected tools are listed after the whole prompt.
  prompt: { after: ({ person }) => toolsPrompt(person.toolDescriptors()) },
  ask: toolAsk,
};
