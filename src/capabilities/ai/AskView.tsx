/**
 * The ask for a model call from code: the prompt's first 200 characters,
 * the token limit and the model, and exactly **Allow once** / **Always
 * allow for this session** / **Deny** (AskActions.tsx: armed after 500 ms
 * still, Always confirmed).
 */
import type { AskViewProps } from "../Capability";
import type { AiAsk } from "./createAiBroker";
import { AskActions } from "../../ui/AskActions";

export function AiAskView({ ask, controller }: AskViewProps<AiAsk>) {
  return (
    <div className="lm-ask" role="group" aria-label="Permission request" data-ask-id={ask.id}>
      <p className="lm-ask__what">
        The code wants to call the model ({ask.model}), up to{" "}
        <strong>{ask.maxTokens.toLocaleString("en-US")} tokens</strong> of answer
        {ask.chars > 200 ? ` · prompt of ${ask.chars.toLocaleString("en-US")} characters` : ""}:
      </p>
      <blockquote className="lm-ask__prompt">{ask.excerpt}</blockquote>
      <AskActions
        askId={ask.id}
        controller={controller}
        always={{
          answer: "session",
          label: "Always allow for this session",
          title: "Allow model calls from code for the rest of this session",
          question:
            "Always allow model calls for this session? Code in this session may then call the model with your key without asking, within the session's token budget, until you change it in Session settings.",
        }}
      />
    </div>
  );
}
