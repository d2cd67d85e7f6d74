/**
 * The person's MCP tools as the realm's `tools` (DESIGN.md §2, §4): the page
 * holds the connections and tokens (createMcpServers.ts, mcpClient.ts,
 * mcpOAuth.ts; loaded on first use, never in the initial JavaScript), the
 * rules per session (toolPolicy.ts), the broker that asks and calls
 * (createToolBroker.ts), the ask (AskView.tsx), and the tool list after the
 * system prompt (src/llm/toolsPrompt.ts). Realm half:
 * workers/realm/runtime/capabilities/tools.ts.
 */
import { toolsPrompt } from "../../llm/toolsPrompt";
import { TOOL_CALL } from "../../wire/capabilities";
import type { Capability } from "../Capability";
import { ToolAskView } from "./AskView";
import { createToolBroker } from "./createToolBroker";

export const tools: Capability = {
  name: "tools",
  realmGlobals: ["tools"],
  install({ person, setTools }) {
    const broker = createToolBroker({
      ask: person.askTool,
      audit: person.recordTool,
      onChange: () => void person.policyChanged(),
    });
    person.attachTools(
      broker,
      () =>
        import("./createMcpServers").then(({ createMcpServers }) =>
          createMcpServers({ demoServer: () => import("./demoMcpServer").then((module) => module.createDemoMcpServer()) }),
        ),
      setTools,
    );
    return { [TOOL_CALL]: broker.service };
  },
  // Read at each model call: the connected tools are listed after the whole prompt.
  prompt: { after: ({ person }) => toolsPrompt(person.toolDescriptors()) },
  ask: { capability: "tool", View: ToolAskView },
};
