import { createContext, lazy, memo, Suspense, useContext, useState } from "react";
import type { ChatMessage } from "../agent/types";
import type { BlockRef } from "../agent/editBlock";
import { formatBytes, isImageAttachment, type Attachment } from "../agent/attachments";
import { answerForModel } from "../agent/thinking";
import { costOf, formatCost, TokenPriceContext } from "./cost";
import { CopyButton } from "./CopyButton";
import { InteractionSummaryView } from "./capabilities";

export { CopyButton };

/**
 * What the person can do with a message (copy, edit and resend, regenerate,
 * branch) and what each reply says about itself (model, time, tokens, cost).
 * The timeline gets the actions through this context, so its memoised
 * messages re-render only when the actions change (busy, read-only).
 */
export interface MessageActions {
  /** An interaction runs, or the session is read-only: nothing that sends is offered. */
  disabled: boolean;
  editAndResend(messageId: string, text: string): void;
  regenerate(replyId: string, freshRealm: boolean): void;
  branch(messageId: string): void;
  /** The ‹ › switch: show version `at` (0-based) of the timeline from `messageId` on. */
  showVersion?(messageId: string, at: number): void;
  /** The ‹ › switch is off (a reply runs); absent: as `disabled`. A shared session's preview can switch. */
  versionsDisabled?: boolean;
  /** **Open as app**: the reply's UIs on a page of their own, in a new tab (src/ui/appView.tsx). */
  openAsApp?(replyId: string): void;
  /** Edit code and re-run: run these code blocks with this code, in order, in the current realm (never the model). */
  runBlocks(runs: readonly { ref: BlockRef; code: string }[]): void;
  /** Run every stale block of the session again, in order. */
  runAllStale(): void;
}

export const MessageActionsContext = createContext<MessageActions | undefined>(undefined);

// One formatter for every message: toLocaleTimeString builds a new one per call (~1 ms each), per message, per frame.
let timeFormat: Intl.DateTimeFormat | undefined;
function timeOf(at: number): string {
  timeFormat ??= new Intl.DateTimeFormat([], { hour: "2-digit", minute: "2-digit" });
  return timeFormat.format(new Date(at));
}

/**
 * Build the formatter ahead (main.tsx, when the page is first idle): the
 * first one loads the locale's data, ~20 ms here, which would otherwise land
 * in the task that shows the person's first message.
 */
export function prepareTimeFormat(): void {
  timeOf(0);
}

/** `gpt-4.1-mini · 14:03 · 1,234 in / 56 out · $0.0012`: what the API reported, the cost only with a price. */
export function replyMetaText(
  message: Extract<ChatMessage, { role: "assistant" }>,
  price: Parameters<typeof costOf>[2],
): string {
  const parts = [message.model ?? "model unknown", timeOf(message.createdAt)];
  const usage = message.usage;
  if (usage) {
    parts.push(
      `${(usage.inputTokens ?? 0).toLocaleString("en-US")} in / ${(usage.outputTokens ?? 0).toLocaleString("en-US")} out`,
    );
    const cost = costOf(usage.inputTokens, usage.outputTokens, price);
    if (cost !== undefined) parts.push(formatCost(cost));
  }
  return parts.join(" · ");
}

// The ‹ › switch loads only when a message has versions (its own chunk: the initial JavaScript budget, bench/).
const LazyVersionNav = lazy(() => import("./VersionNav"));

/** `‹ 1/2 ›` where a message starts versions (VersionNav.tsx); nothing otherwise. */
export function VersionNav({ message }: { message: ChatMessage }) {
  if (!message.versions) return null;
  return (
    <Suspense fallback={null}>
      <LazyVersionNav message={message} />
    </Suspense>
  );
}

export function ReplyFooter({
  message,
  lastOfInteraction,
}: {
  message: Extract<ChatMessage, { role: "assistant" }>;
  lastOfInteraction: boolean;
}) {
  const actions = useContext(MessageActionsContext);
  const price = useContext(TokenPriceContext);
  if (message.state === "streaming") return null;
  const meta = replyMetaText(message, price);
  return (
    <footer className="lm-reply-footer">
      {message.summary ? (
        <InteractionSummaryView summary={message.summary} meta={meta} />
      ) : (
        <span className="lm-message-meta" aria-label="Reply details">
          {meta}
        </span>
      )}
      <ReplyActions message={message} lastOfInteraction={lastOfInteraction} actions={actions} />
    </footer>
  );
}

/** Copy, Regenerate, Open as app, Branch: shown on hover and focus (always on touch screens, styles.css). */
function ReplyActions({
  message,
  lastOfInteraction,
  actions,
}: {
  message: Extract<ChatMessage, { role: "assistant" }>;
  lastOfInteraction: boolean;
  actions: MessageActions | undefined;
}) {
  return (
    <div className="lm-message-actions" role="group" aria-label="Reply actions">
      <VersionNav message={message} />
      <CopyButton text={() => answerForModel(message.text)} title="Copy this reply's Markdown" />
      {actions && lastOfInteraction && (
        <>
          <button
            type="button"
            className="lm-button lm-button--quiet"
            disabled={actions.disabled}
            title="Ask the model again. It runs in the current realm, whose state (variables, data, mounts) the earlier run already changed."
            onClick={() => actions.regenerate(message.id, false)}
          >
            Regenerate
          </button>
          <button
            type="button"
            className="lm-button lm-button--quiet"
            disabled={actions.disabled}
            title="Reset the realm, re-run the session's code up to this interaction (Revive), then ask the model again"
            onClick={() => actions.regenerate(message.id, true)}
          >
            Regenerate in a fresh realm
          </button>
        </>
      )}
      {actions?.openAsApp && (message.reply.mounts?.length ?? 0) > 0 && (
        <button type="button" className="lm-button lm-button--quiet" onClick={() => actions.openAsApp?.(message.id)}>
          Open as app
        </button>
      )}
      {actions && (
        <button
          type="button"
          className="lm-button lm-button--quiet"
          title="A new session with this session's messages up to here"
          disabled={actions.disabled}
          onClick={() => actions.branch(message.id)}
        >
          Branch
        </button>
      )}
    </div>
  );
}

function AttachmentList({ attachments }: { attachments: readonly Attachment[] }) {
  return (
    <ul className="lm-attachments" aria-label="Attachments">
      {attachments.map((attachment, index) =>
        isImageAttachment(attachment) ? (
          <li key={index}>
            <img
              className="lm-attachment__image"
              src={`data:${attachment.mediaType};base64,${attachment.data}`}
              alt={attachment.name}
            />
          </li>
        ) : (
          <li key={index} className="lm-attachment__file">
            {attachment.name} ({formatBytes(attachment.size)})
          </li>
        ),
      )}
    </ul>
  );
}

/** The person's message: text, attachments, Copy, Edit (→ Resend), Branch. */
// Memoised: a streaming reply re-renders the timeline each frame; the person's messages do not change.
export const UserMessage = memo(function UserMessage({ message }: { message: Extract<ChatMessage, { role: "user" }> }) {
  const actions = useContext(MessageActionsContext);
  const [editing, setEditing] = useState<string | undefined>();
  if (editing !== undefined && actions) {
    return (
      <article className="lm-message lm-message--user lm-message--editing" aria-label="Your message">
        <label htmlFor={`lm-edit-${message.id}`} className="lm-visually-hidden">
          Edit message
        </label>
        <textarea
          id={`lm-edit-${message.id}`}
          value={editing}
          rows={3}
          autoFocus
          onChange={(event) => setEditing(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              event.preventDefault();
              setEditing(undefined);
            } else if (
              event.key === "Enter" &&
              (event.ctrlKey || event.metaKey) &&
              !actions.disabled &&
              (editing.trim() || message.attachments?.length)
            ) {
              event.preventDefault();
              actions.editAndResend(message.id, editing);
              setEditing(undefined);
            }
          }}
        />
        <p className="lm-edit-note">
          Resending makes a new version from here; this one stays (‹ ›). Ctrl+Enter resends, Escape cancels.
        </p>
        <div className="lm-message-actions">
          <button
            type="button"
            className="lm-button lm-button--primary"
            disabled={actions.disabled || (!editing.trim() && !message.attachments?.length)}
            onClick={() => {
              actions.editAndResend(message.id, editing);
              setEditing(undefined);
            }}
          >
            Resend
          </button>
          <button type="button" className="lm-button" onClick={() => setEditing(undefined)}>
            Cancel
          </button>
        </div>
      </article>
    );
  }
  return (
    <article className="lm-message lm-message--user" aria-label="Your message" data-message-id={message.id}>
      {message.to === "agent" && (
        <p className="lm-message__to">
          {message.answers ? "Answer to the agent" : "To the agent"}
          {message.selection ? ` · with ${message.selection.label} (untrusted context)` : ""}
          {message.receivedBy ? ` · received by ${message.receivedBy}` : ""}
        </p>
      )}
      {message.text && <p>{message.text}</p>}
      {message.attachments && message.attachments.length > 0 && <AttachmentList attachments={message.attachments} />}
      <div className="lm-message-actions" role="group" aria-label="Message actions">
        <span className="lm-message-meta">{timeOf(message.createdAt)}</span>
        <VersionNav message={message} />
        <CopyButton text={message.text} title="Copy this message" />
        {actions && (
          <>
            <button
              type="button"
              className="lm-button lm-button--quiet"
              disabled={actions.disabled}
              onClick={() => setEditing(message.text)}
            >
              Edit
            </button>
            <button
              type="button"
              className="lm-button lm-button--quiet"
              disabled={actions.disabled}
              title="A new session with this session's messages up to here"
              onClick={() => actions.branch(message.id)}
            >
              Branch
            </button>
          </>
        )}
      </div>
    </article>
  );
});
