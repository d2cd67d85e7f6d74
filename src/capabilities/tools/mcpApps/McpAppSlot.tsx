/**
 * The MCP App panels of one place in the timeline (a reply, after a code
 * block), drawn by the tools capability's `Timeline` (Capability.ts). The
 * view itself, with the extension's host side (`AppBridge`), is its own
 * chunk (McpAppView.tsx), loaded when the first panel appears: none of
 * `@modelcontextprotocol/ext-apps` is in the initial JavaScript.
 */
import { lazy, Suspense, useSyncExternalStore, type CSSProperties } from "react";
import type { TimelinePlaceProps } from "../../Capability";
import type { ConnectedTool, McpToolResult } from "../createToolBroker";
import type { McpAppServer } from "../createMcpServers";
import type { McpResourceContent } from "../mcpClient";
import type { McpAppPanel, McpAppPanels } from "./createMcpAppPanels";

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

const HEADER_STYLE: CSSProperties = Object.freeze({
  display: "flex",
  flexWrap: "wrap",
  gap: "4px 12px",
  alignItems: "baseline",
  fontSize: "11px",
  lineHeight: "16px",
  color: "var(--lm-muted, #6b7280)",
  margin: "0 0 2px",
});
const TITLE_STYLE: CSSProperties = Object.freeze({
  margin: 0,
  fontSize: "14px",
  lineHeight: "20px",
  fontWeight: 600,
  color: "var(--lm-text, #111827)",
  overflowWrap: "anywhere",
});

export function McpAppSlot({ host, replyId, afterBlock, rest }: TimelinePlaceProps & { host: McpAppsHost }) {
  const panels = useSyncExternalStore(host.panels.subscribe, host.panels.list);
  const here = panels.filter(
    (panel) => panel.replyId === replyId && (rest ? !rest.includes(panel.afterBlock) : panel.afterBlock === afterBlock),
  );
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
      <div className="lm-mount-origin" style={HEADER_STYLE}>
        <h3 style={TITLE_STYLE}>{panel.tool}</h3>
        <span>App from {panel.server}</span>
        <span>· not made by Livemark</span>
      </div>
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
