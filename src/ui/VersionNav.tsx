import { useContext } from "react";
import { versionOf } from "../agent/messageActions";
import type { ChatMessage } from "../agent/types";
import { MessageActionsContext } from "./MessageActions";

/**
 * `‹ 1/2 ›` on the first message of a version (Edit and resend, Regenerate
 * keep what they replaced). Switching shows that version's messages; the
 * realm is not touched, so an earlier version shown says its state is the
 * current one.
 */
export default function VersionNav({ message }: { message: ChatMessage }) {
  const actions = useContext(MessageActionsContext);
  const version = versionOf(message);
  if (!version) return null;
  const { at, total } = version;
  const disabled = !actions?.showVersion || (actions.versionsDisabled ?? actions.disabled);
  const realmNote =
    "Switching versions changes only what is shown and what the model reads next: the realm keeps its current state (variables, data and mounts from the runs so far).";
  return (
    <span className="lm-versions" role="group" aria-label="Versions" title={realmNote}>
      <button
        type="button"
        className="lm-button lm-button--quiet"
        aria-label="Previous version"
        title="Previous version"
        disabled={disabled || at === 0}
        onClick={() => actions?.showVersion?.(message.id, at - 1)}
      >
        ‹
      </button>
      <span className="lm-versions__count">
        {at + 1}/{total}
      </span>
      <button
        type="button"
        className="lm-button lm-button--quiet"
        aria-label="Next version"
        title="Next version"
        disabled={disabled || at === total - 1}
        onClick={() => actions?.showVersion?.(message.id, at + 1)}
      >
        ›
      </button>
      {at < total - 1 && (
        <span className="lm-versions__note">An earlier version: the realm keeps its current state.</span>
      )}
    </span>
  );
}
