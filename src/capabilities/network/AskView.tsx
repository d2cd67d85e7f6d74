/**
 * The ask for a network request (DESIGN.md §4): the method, the URL, the
 * body's size, and exactly **Allow once** / **Always allow this host** /
 * **Deny** (AskActions.tsx: armed after 500 ms still, Always confirmed).
 */
import type { AskViewProps } from "../Capability";
import type { PermissionAsk } from "./createNetworkBroker";
import { AskActions } from "../../ui/AskActions";
import { formatBytes } from "../../ui/capabilities";

export function NetworkAskView({ ask, controller }: AskViewProps<PermissionAsk>) {
  return (
    <div className="lm-ask" role="group" aria-label="Permission request" data-ask-id={ask.id}>
      <p className="lm-ask__what">
        The code wants to use the network: <strong>{ask.method}</strong> <code className="lm-ask__url">{ask.url}</code>
        {ask.bodySize > 0 ? <span> · body {formatBytes(ask.bodySize)}</span> : <span> · no body</span>}
      </p>
      <AskActions
        askId={ask.id}
        controller={controller}
        always={{
          answer: "host",
          label: "Always allow this host",
          title: `Allow ${ask.host} for the rest of this session`,
          question: `Always allow ${ask.host} for this session? Code in this session may then send any request to ${ask.host} without asking, until you revoke it in Session settings.`,
        }}
      />
    </div>
  );
}
