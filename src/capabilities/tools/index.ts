/**
 * The person's MCP tools as the realm's `tools` (DESIGN.md §2, §4): the page
 * holds the connections and tokens (createMcpServers.ts, mcpClient.ts,
 * mcpOAuth.ts; loaded on first use, never in the initial JavaScript), the
 * rules per session (toolPolicy.ts), the broker that asks and calls
 * (createToolBroker.ts), the session's rules loaded and saved, the servers
 * and its sections of Session settings (installTools.ts, Settings.tsx,
 * ToolSections.tsx), the ask (ask.ts, AskView.tsx), and the tool list after
 * the system prompt (src/llm/toolsPrompt.ts, from the loaded module), MCP
 * App views of tools that declare one (mcpApps/). Realm half:
 * workers/realm/runtime/capabilities/tools.ts.
 */
import { TOOL_CALL } from "../../wire/capabilities";
import type { Capability } from "../Capability";
import { installLazily } from "../installLazily";
import { plural } from "../plural";
import { toolAsk } from "./ask";
import { isSignInReturn } from "./signInReturn";

export { toolAudit } from "./audit";

/**
 * The lines after the system prompt (the connected tools, what MCP App views added to the model's context),
 * from the loaded module (installTools.ts `promptAfter`), by the host the capability was installed with.
 * Nothing before it has loaded: no server can be connected then.
 */
const promptAfter = new WeakMap<object, () => string>();

export const tools: Capability = {
  name: "tools",
  realmGlobals: ["tools"],
  // The broker, its rules and its Settings section load by dynamic import (installLazily.ts).
  install: (host) =>
    installLazily(
      host,
      {
        services: [TOOL_CALL],
        asks: [toolAsk],
        settings: true,
        timeline: true,
        pageOpened: isSignInReturn,
        started: true,
        prepareDemo: true,
      },
      () =>
        import("./installTools").then(({ installTools }) => (lazyHost: Parameters<typeof installTools>[0]) => {
          const installed = installTools(lazyHost);
          promptAfter.set(host, installed.promptAfter);
          return installed;
        }),
    ),
  summary(used) {
    const calls = used.filter((entry) => entry.capability === "tool");
    if (calls.length === 0) return undefined;
    const denied = calls.filter((entry) => entry.decision === "denied").length;
    return `tools: ${plural(calls.length, "call")}${denied ? ` (${denied} denied)` : ""}`;
  },
  // Read at each model call: the connected tools are listed after the whole prompt.
  prompt: { after: (host) => promptAfter.get(host)?.() ?? "" },
  ask: toolAsk,
};
