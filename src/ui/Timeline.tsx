import { memo, useRef, type ReactNode, type Ref } from "react";
import type { ChatMessage } from "../agent/types";
import type { ReplyView } from "../agent/reply";
import { Markdown } from "./LazyMarkdown";
import { MountSlot } from "./mounts";
import { ThinkingView } from "./ThinkingView";
import { isCutReply } from "../agent/finishReason";
import { forPerson } from "../agent/blockPlaces";
import { CapabilitySlot } from "./capabilities";
import { CopyButton, ReplyFooter, UserMessage, VersionNav } from "./MessageActions";
import { lazy, Suspense, useContext, useState } from "react";
import { MessageActionsContext } from "./MessageActions";
import { groupBlocks, sameGroup, type BlockGroup } from "./replyGroups";
import { loadedModule } from "./loadedModule";

/** An invited agent's report (and what really happened) draws from its own chunk: most sessions have none. */
const AgentReportView = lazy(() => import("./AgentReportView").then((module) => ({ default: module.AgentReportView })));

// The code editor (CodeMirror) loads when the person first presses Edit code: its own chunk.
const CodeEditor = lazy(() => import("./CodeEditor"));
// "edited" (Show original) and "stale" (Run again, Run all stale): only on blocks the person edited or that read from one.
const CodeBlockMarks = lazy(() => import("./CodeBlockMarks"));
const OriginalCode = lazy(() => import("./CodeBlockMarks").then((module) => ({ default: module.OriginalCode })));

// Code and data blocks (with highlighting and collapsing): their own chunk, fetched as the page starts (main.tsx).
// Not behind Suspense (loadedModule.ts): a reload draws them as soon as the chunk is in, not up to 300 ms later.
const codeBlocks = loadedModule(() => import("./CodeBlockView"));
/** Fetch the code and data blocks' chunk ahead (main.tsx, once the realm is ready). */
export const preloadCodeBlocks = () => codeBlocks.preload();
type CodeBlockViews = typeof import("./CodeBlockView");
function CodeBlockView(props: Parameters<CodeBlockViews["CodeBlockView"]>[0]) {
  const views = codeBlocks.use();
  return views ? <views.CodeBlockView {...props} /> : null;
}
function DataBlockView(props: Parameters<CodeBlockViews["DataBlockView"]>[0]) {
  const views = codeBlocks.use();
  return views ? <views.DataBlockView {...props} /> : null;
}

// The first-run screen has its own small chunk (the initial JavaScript budget, bench/); it loads at once.
const Welcome = lazy(() => import("./Welcome").then((module) => ({ default: module.Welcome })));
const ExamplePrompts = lazy(() => import("./Welcome").then((module) => ({ default: module.ExamplePrompts })));

/**
 * A code block of a reply with its copy button, the panels it mounted and
 * its permission asks. Memoised: a streaming reply re-renders every frame,
 * and only its growing block changed (the others would otherwise redraw
 * their buttons and slots each frame, `host.cpuMsPer1kTokens` in bench/).
 */
const CodeBlockEntry = memo(function CodeBlockEntry({
  block,
  replyId,
  cut,
  settled,
  mounts,
  ordinal,
}: {
  block: Extract<ReplyView["blocks"][number], { kind: "code" }>;
  /** Its number among the reply's code blocks, from 1 (what its error calls it). */
  ordinal: number;
  replyId: string;
  cut: boolean;
  settled: boolean;
  /** The reply's mounts (one array while they do not change): those opened after this block show under it. */
  mounts: ReplyView["mounts"];
}) {
  const actions = useContext(MessageActionsContext);
  const [editing, setEditing] = useState(false);
  const [showOriginal, setShowOriginal] = useState(false);
  const disabled = !actions || actions.disabled;
  return (
    <>
      <div className="lm-code-actions">
        {(block.original !== undefined || block.stale) && (
          <Suspense fallback={null}>
            <CodeBlockMarks
              block={block}
              replyId={replyId}
              editing={editing}
              showOriginal={showOriginal}
              onShowOriginal={setShowOriginal}
            />
          </Suspense>
        )}
        {!editing && block.status !== "streaming" && actions && (
          <button
            type="button"
            className="lm-button lm-button--quiet"
            disabled={disabled}
            onClick={() => setEditing(true)}
          >
            Edit code
          </button>
        )}
        <CopyButton text={block.source} title="Copy this code block" />
      </div>
      {showOriginal && block.original !== undefined && (
        <Suspense fallback={null}>
          <OriginalCode index={block.index} code={block.original} lang={block.lang} />
        </Suspense>
      )}
      {editing ? (
        <Suspense fallback={<p className="lm-notice">Loading the editor…</p>}>
          <CodeEditor
            code={block.source}
            disabled={disabled}
            onRun={(code) => {
              setEditing(false);
              actions?.runBlocks([{ ref: { replyId, index: block.index }, code }]);
            }}
            onCancel={() => setEditing(false)}
          />
        </Suspense>
      ) : (
        <CodeBlockView block={block} cut={cut} settled={settled} ordinal={ordinal} />
      )}
      {(mounts ?? [])
        .filter((mount) => mount.afterBlock === block.index)
        .map((mount) => (
          <MountSlot key={mount.mountId} mountId={mount.mountId} />
        ))}
      <CapabilitySlot replyId={replyId} afterBlock={block.index} />
    </>
  );
});

/**
 * Some blocks of a reply (replyGroups.ts): memoised, so a frame of a streaming
 * reply re-renders only the open group, the one holding the growing block.
 * The others are settled: each is one `content-visibility: auto` box
 * (`.lm-reply-group--boxed`), laid out and painted only near the view. The open
 * group is a plain box, so its blocks' margins collapse with what follows
 * the reply's blocks as they did without groups.
 */
const ReplyGroup = memo(
  function ReplyGroup({
    group,
    open,
    replyId,
    streaming,
    settled,
    cutBlock,
    mounts,
  }: {
    group: BlockGroup;
    /** The reply's last group. */
    open: boolean;
    replyId: string;
    /** The reply is still streaming and this is its open group (its text may grow). */
    streaming: boolean;
    /** The reply is done and a block here never ran (`neverRan`). */
    settled: boolean;
    /** The reply's last block, when the reply was cut there. */
    cutBlock: number | undefined;
    mounts: ReplyView["mounts"];
  }) {
    let code = group.codeBefore;
    let data = group.dataBefore;
    return (
      <div className={open ? "lm-reply-group" : "lm-reply-group lm-reply-group--boxed"}>
        {group.blocks.map((block) => {
          switch (block.kind) {
            case "text":
              return <Markdown key={block.index} text={block.text} streaming={streaming} />;
            case "code":
              code += 1;
              return (
                <CodeBlockEntry
                  key={block.index}
                  block={block}
                  replyId={replyId}
                  cut={block.index === cutBlock && block.unterminated}
                  settled={settled}
                  mounts={mounts}
                  ordinal={code}
                />
              );
            case "data":
              data += 1;
              return <DataBlockView key={block.index} block={block} ordinal={data} />;
          }
        })}
      </div>
    );
  },
  (before, after) =>
    sameGroup(before.group, after.group) &&
    before.open === after.open &&
    before.replyId === after.replyId &&
    before.streaming === after.streaming &&
    before.settled === after.settled &&
    before.cutBlock === after.cutBlock &&
    before.mounts === after.mounts,
);

/** A code block still waiting to run or streaming: once the reply is done it says it never ran (CodeBlockView). */
const neverRan = (block: ReplyView["blocks"][number]) =>
  block.kind === "code" && (block.status === "queued" || block.status === "streaming");

const AssistantMessage = memo(function AssistantMessage({
  message,
  lastOfInteraction = false,
}: {
  message: Extract<ChatMessage, { role: "assistant" }>;
  /** The interaction's last reply: the one Regenerate is offered on. */
  lastOfInteraction?: boolean;
}) {
  const { reply } = message;
  // The note below the reply names the cut; its last code block only marks where.
  const cut = isCutReply(message);
  const lastBlock = reply.blocks[reply.blocks.length - 1]?.index;
  const mounts = reply.mounts ?? [];
  const groups = groupBlocks(reply.blocks);
  return (
    <article
      className="lm-message lm-message--assistant"
      aria-label="Reply"
      data-state={message.state}
      data-message-id={message.id}
    >
      {message.by && <p className="lm-message__to">From the agent · {message.by}</p>}
      {reply.thinking && <ThinkingView thinking={reply.thinking} streaming={message.state === "streaming"} />}
      {groups.map((group, position) => {
        const open = position === groups.length - 1;
        return (
          <ReplyGroup
            key={position}
            group={group}
            open={open}
            replyId={message.id}
            // Only what these change is passed: the end of a long reply re-renders its open group and any group
            // with a block that never ran, not all of them (~900 blocks at 200k characters, one 28 ms task).
            streaming={open && message.state === "streaming"}
            settled={message.state === "done" && group.blocks.some(neverRan)}
            cutBlock={cut ? lastBlock : undefined}
            mounts={reply.mounts}
          />
        );
      })}
      {mounts
        .filter((mount) => !reply.blocks.some((block) => block.kind === "code" && block.index === mount.afterBlock))
        .map((mount) => (
          <MountSlot key={mount.mountId} mountId={mount.mountId} />
        ))}
      <CapabilitySlot
        replyId={message.id}
        rest={reply.blocks.filter((block) => block.kind === "code").map((block) => block.index)}
      />
      {reply.protocolErrors.map((error, index) => (
        <p key={`p${index}`} className="lm-notice lm-notice--warn">
          Line {error.line}: “{error.info}” is not a valid agent fence ({error.message}); shown as plain code.
        </p>
      ))}
      {message.state === "stopped" && <p className="lm-notice lm-notice--warn">Stopped.</p>}
      {message.state === "interrupted" && !message.error && (
        <p className="lm-notice lm-notice--warn">
          This reply was interrupted before it finished (the page closed while it streamed).
        </p>
      )}
      <ReplyFooter message={message} lastOfInteraction={lastOfInteraction} />
      {message.error && (message.error.code === "length" || message.error.code === "content-filter") ? (
        <p className="lm-notice lm-notice--warn lm-notice--cut" role="status">
          {message.error.message}
        </p>
      ) : (
        message.error && (
          <p className="lm-notice lm-notice--error" role="alert">
            {message.state === "interrupted" ? "The reply was cut off: " : ""}
            {message.error.message}
          </p>
        )
      )}
    </article>
  );
});

const FeedbackMessage = memo(function FeedbackMessage({
  message,
  reply,
}: {
  message: Extract<ChatMessage, { role: "feedback" }>;
  /** The reply this output came from: its block and line numbers are shown as the person's (blockPlaces.ts). */
  reply?: ReplyView;
}) {
  const body = reply ? forPerson(message.body, reply.blocks) : message.body;
  const lines = body.split("\n");
  return (
    <details
      className="lm-feedback"
      aria-label={message.to === "agent" ? "Runtime output sent to the agent" : "Runtime output sent to the model"}
    >
      <summary>
        {message.source === "ui-event" ? "UI event" : "Runtime output"} → {message.to === "agent" ? "agent" : "model"} ·{" "}
        {lines.length} line{lines.length === 1 ? "" : "s"}
        <span className="lm-feedback__preview">{lines[0].slice(0, 90)}</span>
      </summary>
      <pre>{body}</pre>
    </details>
  );
});

const NoticeMessage = memo(function NoticeMessage({ message }: { message: Extract<ChatMessage, { role: "notice" }> }) {
  return (
    <p className={`lm-notice lm-notice--${message.level}`}>
      {message.text}
      <VersionNav message={message} />
    </p>
  );
});

/** The reply a turn's runtime output at `index` came from (UI-event output may come from any reply: none). */
function replyBefore(messages: readonly ChatMessage[], index: number): ReplyView | undefined {
  const message = messages[index];
  const previous = messages[index - 1];
  if (message.role !== "feedback" || message.source === "ui-event") return undefined;
  return previous?.role === "assistant" ? previous.reply : undefined;
}

/** The reply at `index` is its interaction's last: no later reply before the person (or a UI event) speaks again. */
function endsInteraction(messages: readonly ChatMessage[], index: number): boolean {
  for (let at = index + 1; at < messages.length; at += 1) {
    const message = messages[at];
    if (message.role === "user" || (message.role === "feedback" && message.source === "ui-event")) return true;
    if (message.role === "assistant") return false;
  }
  return true;
}

/** Drawn at once when a session opens (HeldMessages.tsx): its last messages, and all of a shorter one. */
export const OPEN_DRAWN_MESSAGES = 12;
// A long session's messages: its own chunk, fetched as the page starts (main.tsx), drawn once the session opens.
const HeldMessages = lazy(() => import("./HeldMessages"));

/** A message drawn in full. */
export function drawnMessage(messages: readonly ChatMessage[], message: ChatMessage, index: number): ReactNode {
  switch (message.role) {
    case "user":
      return <UserMessage key={message.id} message={message} />;
    case "assistant":
      return (
        <AssistantMessage key={message.id} message={message} lastOfInteraction={endsInteraction(messages, index)} />
      );
    case "feedback":
      return <FeedbackMessage key={message.id} message={message} reply={replyBefore(messages, index)} />;
    case "agent":
      return (
        <Suspense
          key={message.id}
          fallback={
            <p className="lm-agent" data-message-id={message.id}>
              {message.text}
            </p>
          }
        >
          <AgentReportView message={message} />
        </Suspense>
      );
    case "notice":
      return <NoticeMessage key={message.id} message={message} />;
  }
}

export function Timeline({
  messages,
  suggestions = [],
  examples = false,
  onSuggestion,
  onOpenSettings,
  contentRef,
  bottomSpace = 0,
}: {
  messages: ChatMessage[];
  /** Room at the end for what floats over the timeline's bottom edge (the asks), in pixels. */
  bottomSpace?: number;
  /** The timeline's own box, watched by the scroller that follows new content (`useFollowLatest`). */
  contentRef?: Ref<HTMLDivElement>;
  suggestions?: readonly string[];
  /** A real model answers (a key is set) and the session can send: the empty screen offers example prompts. */
  examples?: boolean;
  onSuggestion?: (text: string) => void;
  /** Offered by the first-run welcome (bring a key). */
  onOpenSettings?: () => void;
}) {
  // A session that opens long is drawn from its end (HeldMessages.tsx); one that grows long is drawn in full.
  const long = useRef<boolean | undefined>(undefined);
  if (long.current === undefined && messages.length > 0) long.current = messages.length > OPEN_DRAWN_MESSAGES;
  return (
    <div className="lm-timeline" role="log" aria-label="Conversation" ref={contentRef}>
      {messages.length === 0 &&
        (suggestions.length > 0 && onSuggestion ? (
          // No key yet: the demo model answers, so the first screen is the welcome.
          <Suspense fallback={null}>
            <Welcome suggestions={suggestions} onSuggestion={onSuggestion} onOpenSettings={onOpenSettings} />
          </Suspense>
        ) : (
          <div className="lm-empty">
            <h2>Ask for something that runs.</h2>
            <p>Replies can carry code that executes as it streams, in a sandbox that cannot see your key.</p>
            {examples && onSuggestion && (
              <Suspense fallback={null}>
                <ExamplePrompts onSuggestion={onSuggestion} />
              </Suspense>
            )}
          </div>
        ))}
      {long.current ? (
        <Suspense fallback={null}>
          <HeldMessages messages={messages} draw={drawnMessage} />
        </Suspense>
      ) : (
        messages.map((message, index) => drawnMessage(messages, message, index))
      )}
      {bottomSpace > 0 && <div className="lm-timeline__room" aria-hidden="true" style={{ height: bottomSpace }} />}
    </div>
  );
}
