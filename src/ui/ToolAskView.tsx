/**
 * The inline ask for a tool call (DESIGN.md §4): the tool, its server, the
 * arguments, and exactly **Allow once** / **Always allow this tool** / **Deny**
 * (AskActions.tsx: armed after 500 ms still, Always confirmed).
 */
import type { CapabilityController, PendingAsk } from "./capabilityController";
import type { ToolPermissionAsk } from "../sandbox/capabilities/createToolBroker";
import { AskActions } from "./AskActions";

export function ToolAskView({ ask, controller }: { ask: PendingAsk & ToolPermissionAsk; controller: CapabilityController }) {
  return (
    <div className="lm-ask" role="group" aria-label="Permission request">
      <p className="lm-ask__what">
        The code wants to call a tool: <strong>{ask.tool}</strong> on the MCP server <code>{ask.server}</code>
        {ask.readOnly ? <span> · marked read-only by its server</span> : <span> · may change things</span>}
      </p>
      <pre className="lm-ask__arguments" aria-label="Arguments">{ask.arguments}</pre>
      <AskActions
        askId={ask.id}
        controller={controller}
        always={{
          answer: "tool",
          label: "Always allow this tool",
          title: `Allow ${ask.server}/${ask.tool} for the rest of this session`,
          question: `Always allow ${ask.server}/${ask.tool} for this session? Its later calls, with any arguments, will run without asking until you revoke it in Session settings.`,
        }}
      />
    </div>
  );
}
