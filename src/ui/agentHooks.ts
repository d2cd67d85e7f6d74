import { useCallback, useContext, useEffect, useRef, useState, useSyncExternalStore, type MouseEvent } from "react";
import type { SessionChannel, SessionChannelState } from "../agent/agentChannel";
import type { ChatMessage } from "../agent/types";
import type { Selection } from "../wire/bridge";
import { MountsContext } from "./mounts";
// The agent views' styles stay with the first screen's (only their code loads later).
import "./agent.css";

/**
 * What the session view needs of an invited agent on every page (small: the
 * views are agentLink.tsx, loaded once there is a channel): the channel's
 * state, and what the person selected in the timeline (sent along as
 * untrusted context, apart from the instruction).
 */

const noSubscribe = () => () => undefined;
const noState = () => undefined;

export function useChannelState<S = SessionChannelState>(
  channel: (Pick<SessionChannel, "subscribe"> & { getState(): S }) | undefined,
): S | undefined {
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
export function useTimelineSelection(enabled: boolean, messages: () => readonly ChatMessage[]) {
  const mounts = useContext(MountsContext);
  const [selected, setSelected] = useState<{ kind: "message" | "mount"; id: string } | undefined>();
  // Read when the selection is described, not rendered: a streamed chunk does not re-render the page for it.
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
      const title = messagesRef
        .current()
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
    const message = messagesRef.current().find((item) => item.id === selected.id);
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
