/**
 * The MCP App panels of one place in the timeline (a reply, after a code
 * block), drawn by the tools capability's `Timeline` (Capability.ts). The
 * view itself, with the extension's host side (`AppBridge`), is its own
 * chunk (McpAppView.tsx), loaded when the first panel appears: none of
 * `@modelcontextprotocol/ext-apps` is in the initial JavaScript.
 */
import { lazy, Suspense, useSyncExternalStore } from "react";
import { PanelOrigin } from "../../../render/PanelOrigin";
import type { TimelinePlaceProps } from "../../Capability";
import type { ConnectedTool, McpToolResult } from "../createToolBroker";
import type { McpAppServer } from "../createMcpServers";
import type { McpResourceContent } from "../mcpClient";
import { panelsAt, type McpAppPanel, type McpAppPanels } from "./createMcpAppPanels";

/** What a view reaches of the page: its panel's record, its own server, and the person's consent for tool calls. */
export interface McpAppsHost {
  readonly panels: McpAppPanels;
  /** The connected server at this address (undefined: not connected in this tab). */
  appServer(address: string): Promise<McpAppServer | undefined>;
  /**
   * The panel's view (its `ui://` resource) as its server reads it. Read once per server and resource in this
   * page (fetched as soon as the call goes ahead, alongside the tool); `fresh` reads it again (Reopen).
   */
  readView(panel: Pick<McpAppPanel, "address" | "resourceUri">, fresh?: boolean): Promise<McpResourceContent>;
  /** A view's `tools/call`, under the code's rules and asks (createToolBroker.ts `callFromView`). */
  callTool(tool: ConnectedTool, args: Record<string, unknown>, signal: AbortSignal): Promise<McpToolResult>;
}

const McpAppView = lazy(() => import("./McpAppView").then((module) => ({ default: module.McpAppView })));

export function McpAppSlot({ host, replyId, afterBlock, rest }: TimelinePlaceProps & { host: McpAppsHost }) {
  const panels = useSyncExternalStore(host.panels.subscribe, host.panels.list);
  const here = panelsAt(panels, { replyId, afterBlock, rest });
  if (here.length === 0) return null;
  return (
    <>
      {here.map((panel) => (
        <McpAppPanelView key={panel.id} panel={panel} host={host} />
      ))}
    </>
  );
}

function McpAppPanelView({ panel, host }: { panel: McpAppPanel; host: McpAppsHost }) {
  return (
    <section
      className="lm-mount lm-mcp-app"
      aria-label={`MCP App ${panel.tool}`}
      data-mcp-app={panel.id}
      data-state={panel.live ? "live" : "saved"}
    >
      <PanelOrigin title={panel.tool}>
        <span>App from {panel.server}</span>
        <span>· not made by Livemark</span>
      </PanelOrigin>
      {panel.live ? (
        <Suspense fallback={<div style={{ height: panel.height }} aria-busy="true" />}>
          <McpAppView key={panel.generation} panel={panel} host={host} />
        </Suspense>
      ) : (
        <div
          style={{
            height: panel.height,
            display: "flex",
            alignItems: "center",
            justifyContent: "center",
            border: "1px dashed var(--lm-border, #d1d5db)",
            borderRadius: 6,
          }}
        >
          <button type="button" className="lm-button" onClick={() => host.panels.reopen(panel.id)}>
            Reopen
          </button>
        </div>
      )}
    </section>
  );
}
