import { useCallback, useContext, useEffect, useRef, useState, useSyncExternalStore, type MouseEvent } from "react";
import type { AgentChannel, AgentChannelState } from "../agent/agentChannel";
import type { ChatMessage } from "../agent/types";
import type { Selection } from "../wire/bridge";
import { MountsContext } from "./mounts";
import "./agent.css";

/**
 * The session view's side of an invited agent: whether the composer sends
 * to it, what the person selected in the timeline (sent along as untrusted
 * context, apart from the instruction), and the bar above the composer.
 */

const noSubscribe = () => () => undefined;
const noState = () => undefined;

export function useChannelState(channel: AgentChannel | undefined): AgentChannelState | undefined {
  return useSyncExternalStore(channel?.subscribe ?? noSubscribe, channel?.getState ?? noState);
}

const MAX_SELECTION_CHARS = 50_000;
const INTERACTIVE =
  "button, input, select, textarea, a, label, summary, [role=button], [role=checkbox], [role=switch], [role=tab], [role=slider]";

function messageLabel(message: ChatMessage): string {
  switch (message.role) {
    case "user":
      return "your message";
    case "assistant":
      return "a reply";
    case "feedback":
      return "runtime output";
    case "notice":
      return "a notice";
    case "agent":
      return `the agent's ${message.kind}`;
  }
}

/** Click a message or a mount (not its controls) to select it; click again to clear. */
export function useTimelineSelection(enabled: boolean, messages: readonly ChatMessage[]) {
  const mounts = useContext(MountsContext);
  const [selected, setSelected] = useState<{ kind: "message" | "mount"; id: string } | undefined>();
  const messagesRef = useRef(messages);
  messagesRef.current = messages;
  useEffect(() => {
    if (!enabled) setSelected(undefined);
  }, [enabled]);
  // Mark the selected element (the timeline's items are memoised; no re-render needed).
  useEffect(() => {
    if (!selected) return;
    const attribute = selected.kind === "mount" ? "data-mount-id" : "data-message-id";
    const element = document.querySelector(`[${attribute}="${CSS.escape(selected.id)}"]`);
    element?.classList.add("lm-selected");
    element?.setAttribute("aria-current", "true");
    return () => {
      element?.classList.remove("lm-selected");
      element?.removeAttribute("aria-current");
    };
  }, [selected]);
  const onClick = useCallback(
    (event: MouseEvent) => {
      if (!enabled) return;
      const target = event.target as Element;
      if (target.closest(INTERACTIVE)) return;
      const mount = target.closest("[data-mount-id]");
      const message = target.closest("[data-message-id]");
      const next = mount
        ? { kind: "mount" as const, id: mount.getAttribute("data-mount-id")! }
        : message
          ? { kind: "message" as const, id: message.getAttribute("data-message-id")! }
          : undefined;
      if (!next) return;
      setSelected((current) => (current && current.kind === next.kind && current.id === next.id ? undefined : next));
    },
    [enabled],
  );
  const describe = useCallback((): Selection | undefined => {
    if (!selected) return undefined;
    if (selected.kind === "mount") {
      const title = messagesRef.current
        .flatMap((message) => (message.role === "assistant" ? (message.reply.mounts ?? []) : []))
        .find((mount) => mount.mountId === selected.id)?.title;
      const snapshot = mounts?.registry.get(selected.id)?.toSnapshot();
      const content = JSON.stringify({ title, tree: snapshot }) ?? "";
      return {
        kind: "mount",
        id: selected.id,
        label: title ? `mount “${title}”` : "a mount",
        content: content.slice(0, MAX_SELECTION_CHARS),
      };
    }
    const message = messagesRef.current.find((item) => item.id === selected.id);
    if (!message) return undefined;
    const text = message.role === "feedback" ? message.body : message.text;
    return {
      kind: "message",
      id: message.id,
      label: messageLabel(message),
      content: text.slice(0, MAX_SELECTION_CHARS),
    };
  }, [selected, mounts]);
  return { selected, describe, onClick, clear: () => setSelected(undefined) };
}

/**
 * Agents asking to join after the code's one agent: the person answers each
 * with **Admit** or **Refuse** (the page enforces it; the bridge cannot).
 */
export function AgentAdmissions({ channel, state }: { channel: AgentChannel; state: AgentChannelState }) {
  if (state.admissions.length === 0) return null;
  return (
    <div className="lm-agent-admissions" role="group" aria-label="Agents asking to join">
      {state.admissions.map((admission) => (
        <p key={admission.id} className="lm-agent-admission">
          <span>
            Another agent asks to join this session: <strong>{admission.agent}</strong>. It would receive your messages
            and run code here.
          </span>
          <button type="button" className="lm-button" onClick={() => channel.admit(admission.id)}>
            Admit
          </button>
          <button type="button" className="lm-button lm-button--stop" onClick={() => channel.refuse(admission.id)}>
            Refuse
          </button>
        </p>
      ))}
    </div>
  );
}

export function AgentComposerBar({
  channel,
  state,
  selectionLabel,
  onClearSelection,
}: {
  channel: AgentChannel;
  state: AgentChannelState;
  selectionLabel: string | undefined;
  onClearSelection: () => void;
}) {
  return (
    <div className="lm-agent-bar">
      <label className="lm-agent-target">
        <input
          type="checkbox"
          checked={state.sendToAgent}
          onChange={(event) => channel.setSendToAgent(event.target.checked)}
        />
        Send to the agent{" "}
        {!state.sendToAgent
          ? "(messages go to the model)"
          : state.agents === 0
            ? "(it is away: messages wait for it)"
            : ""}
      </label>
      {state.sendToAgent && (
        <p className="lm-agent-context">
          {selectionLabel ? (
            <>
              <span>Context: {selectionLabel}, sent as untrusted content apart from your instruction.</span>
              <button type="button" className="lm-button lm-button--quiet" onClick={onClearSelection}>
                Clear selection
              </button>
            </>
          ) : (
            <span>Click a message or a mounted UI to send it along as context.</span>
          )}
        </p>
      )}
    </div>
  );
}
