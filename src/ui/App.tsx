import {
  lazy,
  memo,
  Suspense,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type ComponentProps,
} from "react";
import type { Agent } from "../agent/agent";
import { isBusy, type AgentState, type Phase, type SendRefusal } from "../agent/types";
import { useAgentSelector, useAgentState } from "./useAgentState";
import { Timeline } from "./Timeline";
import { TokenPriceContext } from "./cost";
import { Composer, type ComposerDraft } from "./Composer";
import { Sidebar, download } from "./Sidebar";
import type { Settings } from "./settings";
import type { SessionController, SessionsState } from "../session/sessionController";
import { useDemoSuggestions } from "./useDemoSuggestions";
import type { RealmStatus } from "../session/realmStatus";
import { answeringModel } from "./modelLabel";
import { PendingAsks, useCapabilities } from "./capabilities";
import type { SessionChannel } from "../agent/agentChannel";
import { useChannelState, useTimelineSelection } from "./agentHooks";
import { AgentChannelContext } from "./agentChannelContext";
import { useInviteAgent } from "./useInviteAgent";
import { useWebMcp, type WebMcpLink } from "./useWebMcp";
import { useBindFollow, useFollowHandle, useFollowLatest, type FollowHandle } from "./useFollowLatest";

/** The invited agent's and in-browser agents' views: drawn only once there is one (agentHooks.ts is what every page needs). */
const agentViews = () => import("./agentLink");
const AgentAdmissions = lazy(() => agentViews().then((module) => ({ default: module.AgentAdmissions })));
const AgentComposerBar = lazy(() => agentViews().then((module) => ({ default: module.AgentComposerBar })));
const AgentRunApprovals = lazy(() => agentViews().then((module) => ({ default: module.AgentRunApprovals })));
const InvitedAgentSettings = lazy(() => agentViews().then((module) => ({ default: module.InvitedAgentSettings })));
const RunApprovals = lazy(() => agentViews().then((module) => ({ default: module.RunApprovals })));

const LeaveRunningDialog = lazy(() =>
  import("./LeaveRunningDialog").then((module) => ({ default: module.LeaveRunningDialog })),
);
const RecentlyDeletedDialog = lazy(() =>
  import("./RecentlyDeletedDialog").then((module) => ({ default: module.RecentlyDeletedDialog })),
);
const InviteAgentDialog = lazy(() =>
  import("./InviteAgentDialog").then((module) => ({ default: module.InviteAgentDialog })),
);
import { MessageActionsContext, type MessageActions } from "./MessageActions";
import { ATTACH_FILES_EVENT, NOT_SENT_BUSY, NOT_SENT_WAITING } from "./Composer";
import { joinDraftTexts, readDraft, writeDraft } from "../session/drafts";
import type { Attachment } from "../agent/attachments";
import { flushSync } from "react-dom";
import { matchShortcut } from "./shortcuts";
import { ThemePicker } from "./ThemePicker";
import { HeaderMore } from "./HeaderMore";
import { ArrowDownIcon, BotIcon, DownloadIcon, MenuIcon, SettingsIcon, ShareIcon } from "./icons";

// Not needed for the first screen: their own small chunks (the initial JavaScript budget, bench/).
const ShortcutsDialog = lazy(() => import("./ShortcutsDialog").then((module) => ({ default: module.ShortcutsDialog })));
const UpdateBanner = lazy(() => import("./UpdateBanner").then((module) => ({ default: module.UpdateBanner })));
const SettingsDialog = lazy(() => import("./SettingsDialog").then((module) => ({ default: module.SettingsDialog })));
const SharePreview = lazy(() => import("./SharePreview").then((module) => ({ default: module.SharePreview })));
/**
 * Session settings load on first use, or once the page is idle (`preloadSessionSettings`, main.tsx); once loaded,
 * the dialog opens in the click's own render, as it did when it was part of the first chunk.
 */
let sessionSettings: typeof import("./SessionSettingsDialog") | undefined;
export const preloadSessionSettings = () =>
  import("./SessionSettingsDialog").then((module) => (sessionSettings = module));
const LazySessionSettingsDialog = lazy(() =>
  preloadSessionSettings().then((module) => ({ default: module.SessionSettingsDialog })),
);
function SessionSettingsDialog(props: ComponentProps<typeof LazySessionSettingsDialog>) {
  // Chosen once, when it opens: a dialog drawn by the lazy one is not drawn again by the loaded one.
  const [Dialog] = useState(() => sessionSettings?.SessionSettingsDialog ?? LazySessionSettingsDialog);
  return (
    <Suspense fallback={null}>
      <Dialog {...props} />
    </Suspense>
  );
}
const WebMcpSettings = lazy(() => import("./WebMcpSettings").then((module) => ({ default: module.WebMcpSettings })));
const SessionModelSettings = lazy(() =>
  import("./SessionModelSettings").then((module) => ({ default: module.SessionModelSettings })),
);

const PHASE_WORD: Record<Phase, string> = {
  idle: "Ready",
  streaming: "Streaming",
  running: "Running",
  "waiting-input": "Waiting for input",
  "waiting-permission": "Waiting for permission",
  done: "Done",
  error: "Error",
  stopped: "Stopped",
};

/** Why the composer kept a message instead of sending it (Agent.refusal). */
const SEND_REFUSED: Record<SendRefusal, string> = {
  busy: NOT_SENT_BUSY,
  closed: "Not sent: this session is closing. Your message is kept here; send it in the session that opens.",
};

/** Said on the status line while nothing runs and the sandbox could not start. */
const REALM_FAILED_STATUS = "Sandbox failed: code cannot run";

/** The status line's words. The turn count shows from the second turn on ("turn 1 of at most 10" says nothing). */
export function statusText(state: AgentState, realm: RealmStatus, waitingForPermission = false): string {
  const settled = state.phase === "idle" || state.phase === "done";
  if (realm.state === "failed" && settled) return REALM_FAILED_STATUS;
  // A silent model request (src/agent/stallWatch.ts) says so instead of "Streaming".
  const parts = [
    state.stalled !== undefined
      ? `No data for ${state.stalled} s`
      : waitingForPermission
        ? "Waiting for permission"
        : PHASE_WORD[state.phase],
  ];
  if (state.detail) parts.push(`(${state.detail})`);
  if (
    (state.phase === "streaming" || state.phase === "running" || (waitingForPermission && !settled)) &&
    state.turn > 1
  ) {
    parts.push(`· turn ${state.turn} of at most ${state.maxTurns}`);
  }
  return parts.join(" ");
}

// Busy, not the phase: a reply's phase moves between Streaming and Running at each code block.
const selectBusy = (state: AgentState) => isBusy(state.phase);
const selectEmpty = (state: AgentState) => state.messages.length === 0;
const selectHasReply = (state: AgentState) => state.messages.some((message) => message.role === "assistant");
const selectStalled = (state: AgentState) => state.stalled;
const selectCanContinue = (state: AgentState) => state.canContinue;
const selectMessages = (state: AgentState) => state.messages;

/** The status line: re-rendered with every frame of the agent's state (the detail, the turn), alone in the footer. */
const StatusLine = memo(function StatusLine({
  agent,
  realm,
  waitingForPermission,
}: {
  agent: Agent;
  realm: RealmStatus;
  waitingForPermission: boolean;
}) {
  const state = useAgentState(agent);
  return (
    <span role="status" aria-live="polite" className={`lm-status lm-status--${state.phase}`}>
      {statusText(state, realm, waitingForPermission)}
    </span>
  );
});

/** The follow of the timeline (useFollowLatest) for the page's `handle`, and its **Jump to latest** while the reader is elsewhere. */
function JumpToLatest({ handle, empty }: { handle: FollowHandle; empty: boolean }) {
  const follow = useFollowLatest({ empty });
  useBindFollow(handle, follow);
  if (follow.atLatest) return null;
  return (
    <button type="button" className="lm-button lm-jump" onClick={follow.jump}>
      <ArrowDownIcon size={16} />
      Jump to latest
    </button>
  );
}

/** The timeline reads the messages itself: a streamed chunk re-renders it (and, memoised below it, the streaming message only). */
const AgentTimeline = memo(function AgentTimeline({
  agent,
  ...props
}: { agent: Agent } & Omit<ComponentProps<typeof Timeline>, "messages">) {
  const messages = useAgentSelector(agent, selectMessages);
  return <Timeline messages={messages} {...props} />;
});

function SessionView({
  agent,
  readOnly,
  usingDemo,
  onRevive,
  realm,
  onRetryRealm,
  channel,
  inviteOpen,
  controller,
  onOpenSettings,
  initialDraft,
  sessionId,
  deletedElsewhere,
  webMcp,
  previewing = false,
}: {
  /** A share link's session shown read-only before import (the banner above offers **Import**). */
  previewing?: boolean;
  /** The session was deleted in another tab: nothing is written here; **Restore** brings it back. */
  deletedElsewhere?: { title: string; onRestore: () => void };
  /** The session offered to in-browser agents (WebMCP): its runs waiting for the person. */
  webMcp?: WebMcpLink;
  onOpenSettings?: () => void;
  /** The open session: its unsent text is kept across reloads (drafts.ts). */
  sessionId?: string;
  /** What was written in the composer shown while the sessions opened. */
  initialDraft?: () => ComposerDraft | undefined;
  agent: Agent;
  readOnly: boolean;
  usingDemo: boolean;
  onRevive: () => void;
  realm: RealmStatus;
  onRetryRealm: () => void;
  /** An invited agent's channel, when the person opened one. */
  channel?: SessionChannel;
  /** The Invite agent dialog is open (it shows the agents asking to join; the page behind it is inert). */
  inviteOpen?: boolean;
  controller: SessionController;
}) {
  // Only what the page around the timeline shows: a streamed chunk changes none of it, so the composer and
  // the footer do not re-render on a chunk (the timeline and the status line read the rest themselves).
  const agentBusy = useAgentSelector(agent, selectBusy);
  const empty = useAgentSelector(agent, selectEmpty);
  const hasReply = useAgentSelector(agent, selectHasReply);
  const stalled = useAgentSelector(agent, selectStalled);
  const canContinue = useAgentSelector(agent, selectCanContinue);
  const realmFailed = realm.state === "failed";
  const channelState = useChannelState(channel);
  // An ACP agent's turn is busy until it ends, also while it waits for a permission answer between its replies.
  const busy = agentBusy || channelState?.turn === true;
  // The code waits for the person's answer to an ask in the timeline.
  const capabilities = useCapabilities();
  // An ask waits above the composer: during a reply, or after it, from a generated UI's click (a model call, a fetch).
  // While an agent is joined the composer sends to it (the person can switch back to the model).
  // …or an invited agent's run waits for Allow once or Reject (Confirm each run).
  // …or an in-browser agent's run (WebMCP), each one confirmed.
  const webMcpRuns = webMcp?.state.pendingRuns ?? [];
  const waitingForPermission =
    capabilities.state.asks.length > 0 ||
    (channelState?.pendingRuns.length ?? 0) > 0 ||
    (channelState?.permissionAsks ?? 0) > 0 ||
    webMcpRuns.length > 0;
  const joined =
    channel !== undefined && channelState !== undefined && channelState.code !== undefined && channelState.everJoined;
  const toAgent = joined && channelState.sendToAgent;
  const getMessages = useCallback(() => agent.getState().messages, [agent]);
  const selection = useTimelineSelection(joined, getMessages);
  // The follow's own state lives in <JumpToLatest> (below): its changes as a reply grows do not re-render this view.
  const follow = useFollowHandle();
  const { jump } = follow;
  // The asks float over the timeline's end; the timeline makes that much room, so nothing stays hidden under them.
  // (Room inside the timeline, not a smaller scroller: a scroller that grows back would read as scrolling up.)
  const [asksHeight, setAsksHeight] = useState(0);
  const onSend = useCallback(
    (text: string, attachments: Attachment[] = []): string | undefined => {
      if (toAgent && channel) {
        jump();
        channel.sendCommand(text, selection.describe());
        selection.clear();
        return undefined;
      }
      // Refused (a reply runs, the session is closing): the composer keeps the text and says why.
      const refusal = agent.refusal;
      if (refusal) return SEND_REFUSED[refusal];
      // What the person sends, and the answer, are what they want to see.
      jump();
      void agent.send(text, attachments);
      return undefined;
    },
    [agent, channel, toAgent, selection, jump],
  );
  // Stop also clears the asks still waiting (the realm's own calls end with it; an MCP App view's do not).
  const capabilityController = capabilities.controller;
  // An ACP agent's turn: session/cancel, and its open permission request is answered "cancelled".
  const onStop = useCallback(() => {
    agent.stop();
    capabilityController?.denyAll();
    channel?.stop?.();
  }, [agent, capabilityController, channel]);
  // One value while nothing changes: a fresh object each render would make React search the whole timeline for readers.
  const channelActions = useMemo(
    () => ({ answer: (id: string, text: string) => channel?.answer(id, text), open: joined }),
    [channel, joined],
  );
  const actions = useMemo<MessageActions>(
    () => ({
      disabled: busy || readOnly,
      editAndResend: (messageId, text) => void agent.editAndResend(messageId, text),
      showVersion: (messageId, at) => void agent.showVersion(messageId, at),
      versionsDisabled: busy || (readOnly && !previewing),
      regenerate: (replyId, freshRealm) => void controller.regenerate(replyId, freshRealm),
      branch: (messageId) => void controller.branchFrom(messageId),
      openAsApp: (replyId) => {
        const sessionId = controller.getState().current?.id;
        if (sessionId)
          window.open(`${location.pathname}${location.search}#app/${sessionId}/${replyId}`, "_blank", "noopener");
      },
      runBlocks: (runs) => void controller.runBlocks(runs),
      runAllStale: () => void controller.runBlocks("stale"),
    }),
    [agent, controller, busy, readOnly, previewing],
  );
  const suggestions = useDemoSuggestions(usingDemo && !readOnly);
  return (
    <AgentChannelContext.Provider value={channelActions}>
      {/* Clicking a message or a mount selects it as context for the agent (shown, and cleared, above the composer). */}
      <main className="lm-main" onClick={selection.onClick} ref={follow.scrollRef}>
        <MessageActionsContext.Provider value={actions}>
          <AgentTimeline
            agent={agent}
            contentRef={follow.contentRef}
            bottomSpace={asksHeight > 0 ? asksHeight + 16 : 0}
            suggestions={suggestions}
            examples={!usingDemo && !readOnly}
            onSuggestion={onSend}
            onOpenSettings={onOpenSettings}
          />
        </MessageActionsContext.Provider>
        <Suspense fallback={null}>
          {channel && channelState && !readOnly && <AgentRunApprovals channel={channel} state={channelState} />}
          {webMcp?.tools && !readOnly && (
            <RunApprovals
              runs={webMcpRuns}
              onAllow={(id) => webMcp.tools?.allowRun(id)}
              onReject={(id) => webMcp.tools?.rejectRun(id)}
            />
          )}
        </Suspense>
      </main>
      <footer className="lm-footer">
        {/* Floats over the timeline's bottom edge, anchored to the footer: generated UI cannot move it. */}
        <div className="lm-footer__float">
          <JumpToLatest handle={follow} empty={empty} />
          {/* Asks wait here, above the composer (the timeline keeps a record of each). */}
          {!readOnly && <PendingAsks onHeight={setAsksHeight} />}
        </div>
        <div className="lm-statusbar">
          <StatusLine agent={agent} realm={realm} waitingForPermission={waitingForPermission} />
          {/* Stop is the composer's, beside it (one Stop on the page). */}
          {stalled !== undefined && !readOnly && (
            <button type="button" className="lm-button" onClick={() => agent.keepWaiting()}>
              Keep waiting
            </button>
          )}
          {realmFailed && (
            <button type="button" className="lm-button" title="Start the sandbox again" onClick={onRetryRealm}>
              Retry
            </button>
          )}
          {canContinue && !busy && !readOnly && (
            <button type="button" className="lm-button" onClick={() => void agent.continue()}>
              Continue
            </button>
          )}
          {!busy && !readOnly && hasReply && (
            <button
              type="button"
              className="lm-button lm-button--quiet"
              title="Re-run this session's code in a fresh sandbox, without calling the model"
              onClick={onRevive}
            >
              Revive
            </button>
          )}
        </div>
        {realmFailed && !readOnly && (
          <p className="lm-notice lm-notice--error lm-realm-failed" role="alert">
            The sandbox could not start ({realm.message}), so code in replies cannot run: replies show their text and
            code, but nothing runs. Press Retry to start it again.
          </p>
        )}
        {deletedElsewhere ? (
          <p className="lm-notice lm-notice--error lm-readonly" role="alert">
            “{deletedElsewhere.title}” was deleted in another tab. Nothing more is saved here; what this tab had is kept
            in Recently deleted for 30 days.{" "}
            <button type="button" className="lm-button" onClick={deletedElsewhere.onRestore}>
              Restore
            </button>
          </p>
        ) : previewing ? (
          <Suspense fallback={null}>
            <SharePreview />
          </Suspense>
        ) : readOnly ? (
          <p className="lm-readonly">
            This session is open in another tab. It is shown here read-only and follows that tab.
          </p>
        ) : (
          <>
            <Suspense fallback={null}>
              {channel && channelState && !inviteOpen && <AgentAdmissions channel={channel} state={channelState} />}
              {joined && channel && channelState && (
                <AgentComposerBar
                  channel={channel}
                  state={channelState}
                  selectionLabel={selection.selected ? selection.describe()?.label : undefined}
                  onClearSelection={selection.clear}
                />
              )}
            </Suspense>
            <Composer
              busy={busy}
              onSend={onSend}
              onStop={onStop}
              placeholder={toAgent ? "Message your agent… (Enter sends)" : undefined}
              initialDraft={() => {
                // What was typed while the sessions opened comes after what this session kept from before.
                const opening = initialDraft?.();
                const kept = sessionId === undefined ? undefined : readDraft(sessionId);
                if (kept === undefined) return opening;
                return {
                  ...opening,
                  text: joinDraftTexts(kept, opening?.text ?? ""),
                  attachments: opening?.attachments ?? [],
                };
              }}
              onTextChange={sessionId === undefined ? undefined : (text) => writeDraft(sessionId, text)}
            />
          </>
        )}
      </footer>
    </AgentChannelContext.Provider>
  );
}

/**
 * The page before the first session is open (IndexedDB still opening): the
 * composer already works. A message sent now is shown as sent and goes to
 * the session that opens; Stop takes it back into the composer.
 */
function OpeningView({
  controller,
  queued,
  draft,
}: {
  controller: SessionController;
  queued: SessionsState["queued"];
  draft: { current?: ComposerDraft };
}) {
  // A new composer (with the message's text) when Stop takes the message back.
  const [generation, setGeneration] = useState(0);
  return (
    <>
      <main className="lm-main">
        {/* Waiting, so without a time yet (the session's own message shows it once sent). */}
        {queued && (
          <article className="lm-message lm-message--user" aria-label="Your message">
            {queued.text && <p>{queued.text}</p>}
            {queued.attachments.length > 0 && (
              <ul className="lm-attachments" aria-label="Attachments">
                {queued.attachments.map((attachment, index) => (
                  <li key={index}>{attachment.name}</li>
                ))}
              </ul>
            )}
          </article>
        )}
        <p className="lm-empty">Opening your sessions…</p>
      </main>
      <footer className="lm-footer">
        <div className="lm-statusbar">
          {/* Not the status live region: the session's status line is that one element, from its first state on. */}
          {/* The timeline already says the sessions are opening; this line speaks only of a waiting message. */}
          <span className="lm-status">{queued ? "Sending once your session is open…" : ""}</span>
        </div>
        <Composer
          key={generation}
          busy={queued !== undefined}
          busyReason={NOT_SENT_WAITING}
          onSend={(text, attachments) => {
            // Refused only if the session opened this very moment: the text stays and moves into its composer.
            if (!controller.sendWhenOpen(text, attachments))
              return "Not sent: your session has just opened. Your message is kept here; send it again.";
            draft.current = undefined;
            return undefined;
          }}
          onStop={() => {
            const taken = controller.takeQueued();
            if (!taken) return;
            // What was typed since stays too, after the message taken back.
            const typed = draft.current;
            draft.current = {
              text: joinDraftTexts(taken.text, typed?.text ?? ""),
              attachments: [...taken.attachments, ...(typed?.attachments ?? [])],
            };
            setGeneration((value) => value + 1);
          }}
          initialDraft={() => draft.current}
          onDraftChange={(next) => void (draft.current = next)}
        />
      </footer>
    </>
  );
}

export function App({
  controller,
  settings,
  onSaveSettings,
  realmStatus,
  usingDemo,
  onRetryRealm,
  onForgetKey,
}: {
  controller: SessionController;
  settings: Settings;
  usingDemo: boolean;
  onSaveSettings: (settings: Settings) => void;
  onForgetKey?: () => void;
  realmStatus: RealmStatus;
  onRetryRealm: () => void;
}) {
  const sessions = useSyncExternalStore(controller.subscribe, controller.getState);
  const { controller: capabilityController } = useCapabilities();
  /** Written while the sessions opened; the first session's composer takes it over. */
  const openingDraft = useRef<ComposerDraft | undefined>(undefined);
  const takeOpeningDraft = useCallback(() => {
    const draft = openingDraft.current;
    openingDraft.current = undefined;
    return draft;
  }, []);
  const invite = useInviteAgent(controller);
  const webMcp = useWebMcp(controller);
  // Leaving a session whose reply runs asks first (LeaveRunningDialog): the answer resolves the controller's question.
  const [leaveAsk, setLeaveAsk] = useState<{ resolve: (leave: boolean) => void }>();
  useEffect(() => {
    controller.confirmLeave = () => new Promise<boolean>((resolve) => setLeaveAsk({ resolve }));
    return () => void (controller.confirmLeave = undefined);
  }, [controller]);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [sessionSettingsOpen, setSessionSettingsOpen] = useState(false);
  const [shareUrl, setShareUrl] = useState<string | undefined>();
  /** **Include app data** in the share link (off each time the link is made). */
  const [shareAppData, setShareAppData] = useState(false);
  const [dragging, setDragging] = useState(false);
  /** Narrow screens: the session list is a drawer. */
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const [recentlyDeletedOpen, setRecentlyDeletedOpen] = useState(false);
  // Saving that failed (storage full) is retried on every action of the person, not only after its backoff.
  useEffect(() => {
    const retry = () => controller.retrySaving();
    window.addEventListener("pointerdown", retry, true);
    window.addEventListener("keydown", retry, true);
    return () => {
      window.removeEventListener("pointerdown", retry, true);
      window.removeEventListener("keydown", retry, true);
    };
  }, [controller]);
  // Keyboard shortcuts (shortcuts.ts). A modal dialog keeps its keys to itself.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (document.querySelector("dialog[open]")) return;
      const shortcut = matchShortcut(event);
      if (!shortcut) return;
      const agent = controller.getState().agent;
      switch (shortcut) {
        case "new-session":
          event.preventDefault();
          setDrawerOpen(false);
          void controller.newSession().then(() => document.getElementById("lm-message")?.focus());
          return;
        case "focus-composer":
          event.preventDefault();
          document.getElementById("lm-message")?.focus();
          return;
        case "stop": {
          // Escape first closes the drawer (its own handler); otherwise it stops a reply in progress.
          const phase = agent?.getState().phase;
          if (drawerOpen || !agent || !phase || !isBusy(phase)) return;
          event.preventDefault();
          agent.stop();
          capabilityController?.denyAll();
          return;
        }
        case "search-sessions":
          event.preventDefault();
          // On a narrow screen the list is a drawer: open it first, so the field can take the focus.
          flushSync(() => setDrawerOpen(true));
          document.querySelector<HTMLInputElement>(".lm-sidebar__search")?.focus();
          return;
        case "help":
          event.preventDefault();
          setShortcutsOpen(true);
          return;
        default: {
          const unknown: never = shortcut;
          return unknown;
        }
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [controller, drawerOpen, capabilityController]);
  useEffect(() => {
    if (!drawerOpen) return;
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && setDrawerOpen(false);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [drawerOpen]);

  // Drop a session file anywhere on the window to import it.
  useEffect(() => {
    const over = (event: DragEvent) => {
      if (!event.dataTransfer?.types.includes("Files")) return;
      event.preventDefault();
      setDragging(true);
    };
    const leave = (event: DragEvent) => {
      if (event.relatedTarget === null) setDragging(false);
    };
    const drop = (event: DragEvent) => {
      if (!event.dataTransfer?.files.length) return;
      event.preventDefault();
      setDragging(false);
      const files = [...event.dataTransfer.files];
      // Session files are JSON; anything else (an image, a CSV) is meant for the message being written.
      if (files.some((file) => !/\.json$/i.test(file.name) && file.type !== "application/json")) {
        window.dispatchEvent(new CustomEvent<File[]>(ATTACH_FILES_EVENT, { detail: files }));
        return;
      }
      void controller.importFrom(files[0]);
    };
    window.addEventListener("dragover", over);
    window.addEventListener("dragleave", leave);
    window.addEventListener("drop", drop);
    return () => {
      window.removeEventListener("dragover", over);
      window.removeEventListener("dragleave", leave);
      window.removeEventListener("drop", drop);
    };
  }, [controller]);

  const banner = sessions.banner;
  return (
    <div className={`lm-shell${dragging ? " lm-shell--dragging" : ""}`}>
      {/* The first stop of the keyboard: past the session list and the header, straight to writing. */}
      <a
        className="lm-skip-link"
        href="#lm-message"
        onClick={(event) => {
          // Focus, not a fragment: the URL's fragment is where a share link arrives.
          event.preventDefault();
          document.getElementById("lm-message")?.focus();
        }}
      >
        Skip to the message box
      </a>
      <Sidebar
        controller={controller}
        state={sessions}
        open={drawerOpen}
        onNavigate={() => setDrawerOpen(false)}
        onOpenRecentlyDeleted={() => {
          setDrawerOpen(false);
          setRecentlyDeletedOpen(true);
        }}
      >
        <ThemePicker />
        <button
          type="button"
          className="lm-button"
          aria-haspopup="dialog"
          title="Keyboard shortcuts (?)"
          onClick={() => setShortcutsOpen(true)}
        >
          Shortcuts
        </button>
      </Sidebar>
      {drawerOpen && <div className="lm-drawer-backdrop" aria-hidden="true" onClick={() => setDrawerOpen(false)} />}
      <div className="lm-app">
        <header className="lm-header">
          <button
            type="button"
            className="lm-button lm-drawer-toggle"
            aria-controls="lm-sidebar"
            aria-expanded={drawerOpen}
            onClick={() => setDrawerOpen((open) => !open)}
          >
            <MenuIcon className="lm-header__icon" />
            <span className="lm-header__label">Sessions</span>
          </button>
          <h1 className="lm-title">Livemark</h1>
          <span className="lm-session-title" title={sessions.current?.title}>
            {sessions.current?.title ?? ""}
          </span>
          <button
            type="button"
            className="lm-icon-button lm-session-gear"
            aria-label="Session settings"
            title="Session settings: network, granted hosts, audit"
            disabled={!sessions.current}
            onClick={() => setSessionSettingsOpen(true)}
          >
            ⚙
          </button>
          <span
            className="lm-model"
            title={
              usingDemo
                ? "Scripted offline model"
                : `${sessions.current?.chat?.model ?? settings.model} at ${settings.baseURL}`
            }
          >
            {invite.acp?.headerLabel ??
              answeringModel({ ...settings, model: sessions.current?.chat?.model ?? settings.model }).label}
          </span>
          <span
            className={`lm-realm lm-realm--${realmStatus.state}`}
            title={
              realmStatus.state === "failed"
                ? `The sandbox where code runs could not start: ${realmStatus.message}`
                : "The sandbox where code runs"
            }
          >
            <span className="lm-header__label">
              {realmStatus.state === "ready"
                ? "Sandbox ready"
                : realmStatus.state === "starting"
                  ? "Sandbox starting…"
                  : "Sandbox failed"}
            </span>
          </span>
          <HeaderMore>
            <button
              type="button"
              className="lm-button"
              disabled={!sessions.current}
              title="Export this session as a file"
              onClick={async () => {
                const file = await controller.exportCurrent();
                if (file) download(file.name, file.text);
              }}
            >
              <DownloadIcon className="lm-header__icon" />
              <span className="lm-header__label">Export</span>
            </button>
            <button
              type="button"
              className="lm-button"
              disabled={!sessions.current}
              title="Share this session as a link"
              onClick={async () => {
                setShareAppData(false);
                setShareUrl(await controller.shareLink(location.href));
              }}
            >
              <ShareIcon className="lm-header__icon" />
              <span className="lm-header__label">Share</span>
            </button>
            <button
              type="button"
              className="lm-button"
              disabled={!sessions.current || sessions.readOnly}
              title="Bring your own agent (any MCP client) into this session through the local bridge"
              onClick={() => void invite.open()}
            >
              <BotIcon className="lm-header__icon" />
              <span className="lm-header__label">Invite agent</span>
            </button>
          </HeaderMore>
          <button
            type="button"
            className="lm-button"
            title="Settings: endpoint, key, model"
            onClick={() => setSettingsOpen(true)}
          >
            <SettingsIcon className="lm-header__icon" />
            <span className="lm-header__label">Settings</span>
          </button>
        </header>
        {/* Not on the opening screen: its chunk loads once the sessions are open (a new version is looked for only after the page has loaded and gone idle, main.tsx). */}
        {!sessions.starting && (
          <Suspense fallback={null}>
            <UpdateBanner agent={sessions.agent} />
          </Suspense>
        )}
        {banner && (
          <div className={`lm-banner lm-banner--${banner.level}`} role={banner.level === "error" ? "alert" : "note"}>
            <span>{banner.text}</span>
            {banner.undoSessionId && (
              <button
                type="button"
                className="lm-button"
                onClick={() => void controller.undoRemove(banner.undoSessionId!)}
              >
                Undo
              </button>
            )}
            {banner.deleteForeverSessionId && (
              <button
                type="button"
                className="lm-button"
                onClick={() => void controller.deleteForever(banner.deleteForeverSessionId!)}
              >
                Delete forever
              </button>
            )}
            {banner.storageFull && (
              <>
                <button
                  type="button"
                  className="lm-button"
                  title="Save this session as a file"
                  onClick={async () => {
                    const file = await controller.exportCurrent();
                    if (file) download(file.name, file.text);
                  }}
                >
                  Export
                </button>
                <button
                  type="button"
                  className="lm-button"
                  aria-haspopup="dialog"
                  onClick={() => setRecentlyDeletedOpen(true)}
                >
                  Recently deleted
                </button>
              </>
            )}
            <button
              type="button"
              className="lm-icon-button"
              aria-label="Dismiss"
              onClick={() => controller.dismissBanner()}
            >
              ×
            </button>
          </div>
        )}
        {shareUrl && (
          <div className="lm-banner lm-banner--info" role="note">
            <label htmlFor="lm-share-url">Share link (the session travels inside the link; no server sees it)</label>
            <input id="lm-share-url" readOnly value={shareUrl} onFocus={(event) => event.target.select()} />
            <label>
              <input
                type="checkbox"
                checked={shareAppData}
                onChange={async (event) => {
                  const include = event.target.checked;
                  setShareAppData(include);
                  const url = await controller.shareLink(location.href, { includeAppData: include });
                  if (url) setShareUrl(url);
                }}
              />{" "}
              Include app data
            </label>
            <button type="button" className="lm-button" onClick={() => void navigator.clipboard?.writeText(shareUrl)}>
              Copy
            </button>
            <button
              type="button"
              className="lm-icon-button"
              aria-label="Close share link"
              onClick={() => setShareUrl(undefined)}
            >
              ×
            </button>
          </div>
        )}
        {sessions.preview && (
          <Suspense fallback={null}>
            <SharePreview
              preview={sessions.preview}
              onImport={() => void controller.importPreview()}
              onDismiss={() => void controller.dismissPreview()}
            />
          </Suspense>
        )}
        {sessions.agent ? (
          <TokenPriceContext.Provider value={settings.price}>
            <SessionView
              key={sessions.current?.id ?? "none"}
              agent={sessions.agent}
              readOnly={sessions.readOnly}
              usingDemo={usingDemo}
              onRevive={() => void controller.revive()}
              realm={realmStatus}
              onRetryRealm={onRetryRealm}
              channel={invite.acp?.channel ?? invite.channel}
              inviteOpen={invite.dialogOpen}
              controller={controller}
              onOpenSettings={() => setSettingsOpen(true)}
              initialDraft={takeOpeningDraft}
              sessionId={sessions.current?.id}
              deletedElsewhere={
                sessions.deletedElsewhere && sessions.current
                  ? {
                      title: sessions.current.title,
                      onRestore: () => void controller.restore(sessions.current!.id),
                    }
                  : undefined
              }
              webMcp={webMcp}
              previewing={!!sessions.preview && !sessions.current}
            />
          </TokenPriceContext.Provider>
        ) : sessions.starting ? (
          <OpeningView controller={controller} queued={sessions.queued} draft={openingDraft} />
        ) : (
          <main className="lm-main">
            <p className="lm-empty">Opening your sessions…</p>
          </main>
        )}
      </div>
      {leaveAsk && (
        <Suspense fallback={null}>
          <LeaveRunningDialog
            onAnswer={(leave) => {
              setLeaveAsk(undefined);
              leaveAsk.resolve(leave);
            }}
          />
        </Suspense>
      )}
      {recentlyDeletedOpen && (
        <Suspense fallback={null}>
          <RecentlyDeletedDialog
            controller={controller}
            state={sessions}
            onClose={() => setRecentlyDeletedOpen(false)}
          />
        </Suspense>
      )}
      {shortcutsOpen && (
        <Suspense fallback={null}>
          <ShortcutsDialog onClose={() => setShortcutsOpen(false)} />
        </Suspense>
      )}
      {invite.dialogOpen && invite.channel && (
        <Suspense fallback={null}>
          <InviteAgentDialog channel={invite.channel} onClose={invite.close} />
        </Suspense>
      )}
      {sessionSettingsOpen && (
        <SessionSettingsDialog onClose={() => setSessionSettingsOpen(false)}>
          <Suspense fallback={null}>
            <InvitedAgentSettings channel={invite.channel} />
          </Suspense>
          <Suspense fallback={null}>
            <WebMcpSettings
              available={webMcp.available}
              enabled={webMcp.enabled}
              registered={webMcp.state.registeredFor !== undefined}
              disabled={sessions.readOnly || !sessions.current}
              onChange={webMcp.setEnabled}
            />
            <SessionModelSettings
              key={sessions.current?.id}
              chat={sessions.current?.chat}
              suggested={sessions.current?.suggestedChat}
              appModel={settings.model}
              demo={usingDemo}
              disabled={sessions.readOnly}
              onSave={(chat) => controller.updateChat(chat)}
              onApplySuggested={async () => (await controller.applySuggestedChat())?.chat}
            />
          </Suspense>
        </SessionSettingsDialog>
      )}
      {settingsOpen && (
        <Suspense fallback={null}>
          <SettingsDialog
            settings={settings}
            onForgetKey={onForgetKey}
            onClose={() => setSettingsOpen(false)}
            onSave={(next) => {
              onSaveSettings(next);
              setSettingsOpen(false);
            }}
          />
        </Suspense>
      )}
    </div>
  );
}
