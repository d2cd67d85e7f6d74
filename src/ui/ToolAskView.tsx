/**
 * The inline ask for a tool call (DESIGN.md §4): the tool, its server, the
 * arguments, and exactly **Allow once** / **Always allow this tool** / **Deny**.
 */
import type { CapabilityController, PendingAsk } from "./capabilityController";
import type { ToolPermissionAsk } from "../sandbox/capabilities/createToolBroker";

export function ToolAskView({ ask, controller }: { ask: PendingAsk & ToolPermissionAsk; controller: CapabilityController }) {
  return (
    <div className="lm-ask" role="group" aria-label="Permission request">
      <p className="lm-ask__what">
        The code wants to call a tool: <strong>{ask.tool}</strong> on the MCP server <code>{ask.server}</code>
        {ask.readOnly ? <span> · marked read-only by its server</span> : <span> · may change things</span>}
      </p>
      <pre className="lm-ask__arguments" aria-label="Arguments">{ask.arguments}</pre>
      <div className="lm-ask__actions">
        <button type="button" className="lm-button lm-button--primary" onClick={() => controller.answer(ask.id, "once")}>
          Allow once
        </button>
        <button type="button" className="lm-button" title={`Allow ${ask.server}/${ask.tool} for the rest of this session`} onClick={() => controller.answer(ask.id, "tool")}>
          Always allow this tool
        </button>
        <button type="button" className="lm-button" onClick={() => controller.answer(ask.id, "deny")}>
          Deny
        </button>
      </div>
    </div>
  );
}
