import type { Agent } from "../agent/agent";
import { isBusy, type AgentState, type ChatMessage } from "../agent/types";
import type { Attachment } from "../agent/attachments";
// The export/import/share code (and zod with it) loads on first use; the rest
// of the store is needed to show the first session.
import {
  applySuggestedChat,
  createSession,
  deleteSession,
  deleteSessionForever,
  listDeletedSessions,
  listSessions,
  loadSession,
  openSession,
  renameSession,
  saveMessages,
  purgeExpired,
  searchSessions,
  undoDelete,
  updateCapabilitySettings,
  updateSessionChat,
  type OpenedSession,
  type SearchHit,
} from "../store/sessions";
import type { Store } from "../store/store";
import { pruneDrafts } from "./drafts";
import { toStoreError } from "../store/errors";
import { openSessionOfThisTab, rememberOpenSession } from "./tabSession";
import { createSessionWriter, flushOnPageHide, type SessionWriter } from "../store/sessionWriter";
import { DEFAULT_TITLE, type Session, type SessionChatSettings } from "../store/types";
import type { SessionExport } from "../store/exportSchema";
import type { BlockRef } from "../agent/editBlock";
import type { JsonValue } from "../wire/mount";

const exportImport = () => import("../store/exportImport");
/**
 * After the next frame's paint; at once where the page draws no frames (Node), and after NEXT_PAINT_CAP_MS at the
 * latest (a hidden tab draws none).
 */
const nextPaint = () =>
  new Promise<void>((resolve) => {
    if (typeof requestAnimationFrame !== "function") return resolve();
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, NEXT_PAINT_CAP_MS);
  });
const NEXT_PAINT_CAP_MS = 200;
const sharing = () => import("../store/share");
/** Edit and resend, Regenerate, the versions' switch and Branch: what they change on disk, loaded with the first. */
const timelineEdits = () => import("../store/timelineEdits");
/** Cheap check without loading the share code: the prefix `decodeShare` looks for. */
const hasShareFragment = (href: string) => href.includes("#share=");
/** The page's address without the share link's fragment (a reload then opens the sessions, not the preview). */
const dropShareFragment = () => {
  if (typeof history !== "undefined") history.replaceState(null, "", location.pathname + location.search);
};

/** How long after a mount changes its snapshot is taken (changes meanwhile join it). */
export const MOUNT_SNAPSHOT_DELAY_MS = 150;

/**
 * Which session is open, the session list, and everything that moves
 * sessions in and out of IndexedDB (DESIGN.md §3 "Persistence"). One realm
 * serves the page; opening another session resets it, so code of one session
 * never sees another's state. A session open in another tab is shown
 * read-only and follows that tab's writes.
 */

export interface Banner {
  text: string;
  level: "info" | "warn" | "error";
  /** A deleted session that can still come back. */
  undoSessionId?: string;
  /** A session the full store could not move to Recently deleted: **Delete forever** frees its space. */
  deleteForeverSessionId?: string;
  /** Saving failed because storage is full: the banner offers **Export** and **Recently deleted**. */
  storageFull?: boolean;
}

export interface SessionsState {
  storage: "opening" | "ready" | "unavailable";
  sessions: Session[];
  current?: Session;
  agent?: Agent;
  /** Another tab holds this session: look, don't touch. */
  readOnly: boolean;
  /**
   * The open session was deleted in another tab: this tab stopped writing
   * (read-only) and offers **Restore**.
   */
  deletedElsewhere?: boolean;
  /** **Recently deleted**: sessions kept for KEEP_DELETED_MS after their delete, most recent first. */
  deleted: Session[];
  banner?: Banner;
  /** A shared session opened from a link, not yet imported. */
  preview?: SessionExport;
  searchResults?: SearchHit[];
  /**
   * True until the first session is open. The composer works from the first
   * render: a message sent before then waits here (shown as sent) and goes
   * to the session that opens.
   */
  starting: boolean;
  queued?: QueuedMessage;
}

/** A message the person sent while the page was still opening their sessions. */
export interface QueuedMessage {
  text: string;
  attachments: readonly Attachment[];
  createdAt: number;
}

import type { MountRegistry } from "../render";
import { MountSnapshots } from "./mountSnapshots";
import { acquireSessionLock, createSessionsChannel, waitForSessionLock, type SessionsBroadcast } from "./sessionLock";

export interface RealmLike {
  reset(reason?: string): Promise<void>;
}

export class SessionController {
  private state: SessionsState = { storage: "opening", sessions: [], deleted: [], readOnly: false, starting: true };
  private readonly listeners = new Set<() => void>();
  private store: Store | undefined;
  private writer: SessionWriter | undefined;
  private unsubscribeAgent: (() => void) | undefined;
  private releaseLock: (() => void) | undefined;
  /** Read-only here: stop waiting to take the session over (this tab opens another). */
  private stopWaitingForLock: (() => void) | undefined;
  private readonly channel = createSessionsChannel((message) => {
    const here = message.sessionId !== undefined && message.sessionId === this.state.current?.id;
    switch (message.type) {
      case "saved":
        if (here && this.state.readOnly && !this.state.deletedElsewhere) void this.reloadReadOnly();
        return;
      case "list":
        void this.refreshList();
        return;
      case "deleted":
        if (here) void this.deletedInAnotherTab(message.sessionId!);
        void this.refreshList();
        return;
      case "restored":
        if (here && this.state.deletedElsewhere) void this.reopen(message.sessionId!);
        void this.refreshList();
        return;
      case "purged":
        // Space was freed: what failed to save here goes now.
        this.retrySaving();
        if (here) void this.openAnother(message.sessionId!);
        void this.refreshList();
        return;
      default: {
        const never: never = message.type;
        return never;
      }
    }
  });
  private broadcastTimer: ReturnType<typeof setTimeout> | undefined;
  /** The page's one realm ran code of the open session: opening another resets it first. */
  private realmUsed = false;
  /** A snapshot pass asked for by a mount change, not taken yet. */
  private mountTimer: ReturnType<typeof setTimeout> | undefined;
  /** The open session's saved mounts: sliced restore, size caps and their notes (read by the mount panels). */
  readonly mounts: MountSnapshots;
  /**
   * Settles when start() has opened the store (or found it unavailable) and
   * the first session: an import, a share link or a dropped file that comes
   * earlier (right after the page loads) waits for it instead of failing.
   */
  private readonly started: Promise<void>;
  private markStarted!: () => void;

  constructor(
    private readonly options: {
      realm: RealmLike;
      /** `session`: the session the messages belong to (an imported one's are replayed as untrusted content). */
      makeAgent: (messages: ChatMessage[], session?: Session) => Agent;
      /** The page's mounted UIs (one realm, so one registry). */
      registry?: MountRegistry;
      /** The page URL, to read a `#share=` fragment. */
      href?: string;
      /**
       * Settles when the open session's capabilities (grants, asks) are loaded: a message sent before the
       * session opened waits for it too, so an ask its reply makes is not swept away by that load.
       */
      sessionReady?: () => Promise<void>;
      /**
       * Settles once the page has drawn what it was given: a long session's older messages are read after its
       * newest are on screen. By default the next frame's paint (at once where there are no frames).
       */
      afterPaint?: () => Promise<void>;
    },
  ) {
    this.started = new Promise<void>((resolve) => (this.markStarted = resolve));
    this.mounts = new MountSnapshots(options.registry, {
      // A snapshot cut to fit the caps: the model hears it once per mount.
      onCut: (_mountId, message) => this.state.agent?.reportRenderProblem(message),
    });
  }

  getState = (): SessionsState => this.state;

  /** The open store (undefined while opening or when storage is unavailable), for the session's capability records. */
  storeHandle = (): Store | undefined => this.store;

  /**
   * Put a message in session `sessionId`'s timeline: the open one's agent
   * records it; another session's is written to the store, and shows when
   * that session opens (an invited agent's report on a command the person
   * sent from there).
   */
  async recordInSession(sessionId: string, message: ChatMessage): Promise<void> {
    const { current, agent } = this.state;
    if (current?.id === sessionId && agent) return agent.record(message);
    if (!this.store) throw new Error("The session's storage is not open.");
    await saveMessages(this.store, sessionId, [message]);
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private set(patch: Partial<SessionsState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }

  private notify(text: string, level: Banner["level"] = "info", undoSessionId?: string): void {
    this.set({ banner: { text, level, undoSessionId } });
  }

  dismissBanner(): void {
    this.set({ banner: undefined });
  }

  async start(): Promise<void> {
    try {
      await this.startOnce();
      await this.sendQueued();
    } finally {
      this.set({ starting: false });
      this.markStarted();
    }
  }

  /**
   * Send before the first session is open: the message waits (the person
   * sees it as sent) and goes to the session that opens. False once a
   * session is open (send to its agent) or while another message waits.
   */
  sendWhenOpen(text: string, attachments: readonly Attachment[] = []): boolean {
    if (!this.state.starting || this.state.queued) return false;
    this.set({ queued: { text, attachments, createdAt: Date.now() } });
    return true;
  }

  /** Take back the waiting message (Stop before the session opened): its text and files, for the composer. */
  takeQueued(): QueuedMessage | undefined {
    const queued = this.state.queued;
    if (queued) this.set({ queued: undefined });
    return queued;
  }

  /** The waiting message goes to the open session; if that one is another tab's (read-only here), to a new one. */
  private async sendQueued(): Promise<void> {
    if (!this.state.queued) return;
    if (!this.state.agent || this.state.readOnly) await this.newSession();
    await this.options.sessionReady?.().catch(() => undefined);
    const agent = this.state.agent;
    const queued = this.state.queued;
    if (!agent || this.state.readOnly || !queued) return;
    this.set({ queued: undefined });
    // Not awaited: it settles when the whole reply has.
    void agent.send(queued.text, queued.attachments);
  }

  private async startOnce(): Promise<void> {
    // The database code (Dexie) loads here, after the first paint, not with the page.
    const { openStore } = await import("../store/store");
    const opened = await openStore({
      onStatus: (status) => this.notify(status.message, "warn"),
    });
    if (!opened.ok) {
      this.set({ storage: "unavailable" });
      this.notify(`${opened.error.message} This session will not be saved.`, "error");
      this.attachAgent(this.options.makeAgent([]), undefined, false);
      return;
    }
    this.store = opened.store;
    this.set({ storage: "ready" });
    const href = this.options.href ?? "";
    // This tab's session (a reload) is read beside the lists rather than after them: the page shows it sooner.
    const mine = hasShareFragment(href) ? undefined : openSessionOfThisTab();
    const early = mine === undefined ? undefined : openSession(opened.store, mine).catch(() => undefined);
    // Recently deleted keeps a session 30 days; older ones go now (a failure waits for the next start).
    const purged = purgeExpired(opened.store).catch(() => 0);
    flushOnPageHide(() => {
      // Mounts are snapshotted 150 ms after they change, messages every 500 ms
      // and when a reply ends: a change since then, or a write still under
      // way, must not be lost to a reload or a closed tab.
      const writer = this.writer;
      const agent = this.state.agent;
      if (writer && agent) {
        const { messages } = agent.getState();
        writer.markChanged(messages);
        this.mounts.saveNow(messages, writer);
        writer.writeNow();
      }
      return writer?.flush() ?? Promise.resolve();
    });
    let preview: SessionExport | undefined;
    if (hasShareFragment(href)) {
      const { decodeShare } = await sharing();
      const decoded = await decodeShare(href);
      if (decoded.ok) preview = decoded.document;
      else this.notify(decoded.error.message, "error");
    }
    const [sessions, deleted] = await Promise.all([
      listSessions(opened.store),
      purged.then(() => listDeletedSessions(opened.store)),
    ]);
    // Drafts of sessions deleted forever or purged go (a session in Recently deleted keeps its draft for Restore).
    pruneDrafts(new Set([...sessions, ...deleted].map((session) => session.id)));
    this.set({ sessions, deleted });
    if (preview) this.showPreview(preview);
    else await this.openDefault(mine, early);
  }

  /**
   * A reload reopens this tab's session (`mine`, already being read: `early`); a new tab the most recent one;
   * with none, a new session.
   */
  private async openDefault(mine?: string, early?: Promise<OpenedSession | undefined>): Promise<void> {
    const { sessions } = this.state;
    const id = sessions.find((session) => session.id === mine)?.id ?? sessions[0]?.id;
    if (id !== undefined) await this.open(id, id === mine ? early : undefined);
    else await this.newSession();
  }

  /**
   * A share link's session, shown read-only before anything is written: its
   * messages and mount snapshots, no composer, no writer, no session row
   * (**Import** keeps it; **Dismiss** opens the sessions as usual). Its code
   * does not run.
   */
  private showPreview(preview: SessionExport): void {
    this.restoreMounts(preview.mounts);
    const messages = preview.messages.map((message): ChatMessage => ({ ...message, imported: true }));
    this.set({ preview, current: undefined, deletedElsewhere: false });
    this.attachAgent(this.options.makeAgent(messages), undefined, true);
  }

  private async refreshList(): Promise<void> {
    if (!this.store) return;
    const [sessions, deleted] = await Promise.all([listSessions(this.store), listDeletedSessions(this.store)]);
    const current = this.state.current
      ? (sessions.find((session) => session.id === this.state.current!.id) ?? this.state.current)
      : undefined;
    this.set({ sessions, deleted, current });
  }

  private broadcast(message: SessionsBroadcast): void {
    this.channel.post(message);
  }

  /** Close the open session: flush its writes, drop its agent and its lock. */
  private async closeCurrent(): Promise<void> {
    // From here the closing agent refuses every message, whoever sends it:
    // nothing can reach it between now and its dispose below.
    this.state.agent?.close();
    this.unsubscribeAgent?.();
    this.unsubscribeAgent = undefined;
    if (this.mountTimer) clearTimeout(this.mountTimer);
    this.mountTimer = undefined;
    // Saved in slices: finish before the writer closes.
    const agent = this.state.agent;
    const saved = this.saveMounts();
    // The closing session's composer goes at once: a message sent to an
    // agent about to be disposed would be lost. The next session's view
    // brings its own.
    if (agent) this.set({ agent: undefined });
    await saved;
    agent?.dispose();
    if (this.writer) {
      const writer = this.writer;
      this.writer = undefined;
      await writer.close();
      this.broadcast({ type: "saved", sessionId: writer.sessionId });
    }
    this.releaseLock?.();
    this.releaseLock = undefined;
    this.stopWaitingForLock?.();
    this.stopWaitingForLock = undefined;
    if (this.realmUsed) {
      this.realmUsed = false;
      await this.options.realm.reset("another session was opened").catch(() => undefined);
    }
  }

  /** Hold the session's Web Lock while it is open here; false when another tab holds it (read-only here). */
  private async acquireLock(sessionId: string): Promise<boolean> {
    const lock = await acquireSessionLock(sessionId);
    if (lock.owned) this.releaseLock = lock.release;
    return lock.owned;
  }

  /**
   * Asked before the person leaves a session whose reply runs (or whose form
   * waits): resolves true to leave (**Switch anyway**), false to stay. Set by
   * the UI; without it the session is left at once.
   */
  confirmLeave: (() => Promise<boolean>) | undefined;

  /** Leaving is all right: nothing runs, or the person said so; what ran is recorded as interrupted by the switch. */
  private mayLeave(): true | Promise<boolean> {
    const agent = this.state.agent;
    if (!agent || this.state.readOnly || !agent.busy) return true;
    // The switch is the cause, said before the session closes (and saved with it).
    const leave = (): true => {
      if (this.state.agent === agent) agent.interrupt("you switched sessions");
      return true;
    };
    // Synchronous when nobody asks: the closing agent refuses messages from the switch's first moment.
    if (!this.confirmLeave) return leave();
    return this.confirmLeave().then((yes) => yes && leave());
  }

  /**
   * Switches run one at a time (`open`, `newSession`). A session picked while
   * a switch is still closing the one it leaves (saving its reply as
   * interrupted) opens once that switch is over: run side by side, the picked
   * session was read before the closing one was saved, and the switch then
   * opened its own session over it.
   */
  private switching: Promise<void> | undefined;

  private oneSwitchAtATime(switchTo: () => Promise<void>): Promise<void> {
    // With none under way it starts at once: the closing agent refuses messages from the switch's first moment.
    const run = this.switching ? this.switching.then(switchTo) : switchTo();
    const over = run.catch(() => undefined);
    this.switching = over;
    void over.then(() => {
      if (this.switching === over) this.switching = undefined;
    });
    return run;
  }

  /** `early`: the session's opening read, already under way (the start's), used instead of reading it again. */
  open(id: string, early?: Promise<OpenedSession | undefined>): Promise<void> {
    return this.oneSwitchAtATime(() => this.openNow(id, early));
  }

  private async openNow(id: string, early?: Promise<OpenedSession | undefined>): Promise<void> {
    if (!this.store) return;
    if (this.state.current?.id === id && this.state.agent) return;
    const leave = this.mayLeave();
    if (leave !== true && !(await leave)) return;
    await this.closeCurrent();
    // The newest messages first: the end of a long session shows before its first messages are read (issue 34 §1).
    const loaded = (await early) ?? (await openSession(this.store, id));
    if (!loaded) {
      this.notify("That session no longer exists (deleted in another tab?).", "warn");
      await this.refreshList();
      return;
    }
    const owned = await this.acquireLock(id);
    rememberOpenSession(id);
    this.restoreMounts(loaded.mounts);
    const agent = this.options.makeAgent(loaded.messages, loaded.session);
    this.set({ current: loaded.session, readOnly: !owned, deletedElsewhere: false, searchResults: undefined });
    this.attachAgent(agent, owned ? id : undefined, !owned);
    if (loaded.hasOlder) this.readOlder(agent, loaded);
    if (!owned) this.takeOverWhenFree(id);
  }

  /**
   * The older messages of a session opened on its newest: read once the page
   * has drawn those, a page at a time, each put before the others in the
   * agent's timeline; what reads the whole session waits for them (the
   * agent's `loadingOlder`). Stops when the session is left.
   */
  private readOlder(agent: Agent, opened: OpenedSession): void {
    const afterPaint = this.options.afterPaint ?? nextPaint;
    const older = afterPaint().then(() =>
      opened.readOlder((messages) => {
        if (this.state.agent !== agent) return false;
        agent.prependOlder(messages);
      }),
    );
    agent.loadingOlder(older);
    older.catch((error: unknown) => {
      if (this.state.agent === agent)
        this.notify(
          `This session's earlier messages could not be read: ${toStoreError(error).message} Reload to try again.`,
          "error",
        );
    });
  }

  /** Read-only here: once the owner tab closes (or leaves the session), this tab takes it over, writable. */
  private takeOverWhenFree(id: string): void {
    const waiting = new AbortController();
    this.stopWaitingForLock = () => waiting.abort();
    void waitForSessionLock(id, waiting.signal).then(async ({ release }) => {
      if (waiting.signal.aborted || !this.store || this.state.current?.id !== id || !this.state.readOnly) {
        release();
        return;
      }
      this.stopWaitingForLock = undefined;
      const loaded = await loadSession(this.store, id);
      if (!loaded || waiting.signal.aborted || this.state.current?.id !== id) {
        release();
        return;
      }
      this.releaseLock = release;
      this.restoreMounts(loaded.mounts);
      this.state.agent?.dispose();
      this.set({ current: loaded.session });
      this.attachAgent(this.options.makeAgent(loaded.messages, loaded.session), id, false);
    });
  }

  private async reloadReadOnly(): Promise<void> {
    if (!this.store || !this.state.current) return;
    const loaded = await loadSession(this.store, this.state.current.id);
    if (!loaded || !this.state.readOnly) return;
    this.restoreMounts(loaded.mounts);
    this.state.agent?.dispose();
    this.set({ agent: this.options.makeAgent(loaded.messages, loaded.session), current: loaded.session });
  }

  private attachAgent(agent: Agent, writableSessionId: string | undefined, readOnly: boolean): void {
    this.set({ agent, readOnly });
    if (!this.store || !writableSessionId) return;
    const store = this.store;
    const writer = createSessionWriter(store, writableSessionId, {
      onError: (error) => {
        if (error.code === "quota-exceeded") void this.showStorageFull();
        else
          this.notify(`Not saved yet: ${error.message} Your work is kept in this tab and saving is retried.`, "error");
      },
      onRecovered: () => this.dismissBanner(),
    });
    this.writer = writer;
    let previous: AgentState = agent.getState();
    this.unsubscribeAgent = agent.subscribe((state) => {
      if (state.messages !== previous.messages) {
        writer.markChanged(state.messages);
        // Edit and resend, regenerate, the ‹ › switch: messages no longer shown
        // leave their rows once the message that keeps them as a version is
        // written (the flush), their mounts' snapshots stay while a version
        // holds them. A message shown again by then keeps its row.
        const shown = new Set(state.messages.map((message) => message.id));
        const hidden = previous.messages.filter((message) => !shown.has(message.id)).map((message) => message.id);
        if (hidden.length > 0)
          void Promise.all([writer.flush(), timelineEdits()])
            .then(([, { everyMessageId, removeMessages }]) => {
              const messages = agent.getState().messages;
              const shownNow = new Set(messages.map((message) => message.id));
              return removeMessages(
                store,
                writableSessionId,
                hidden.filter((id) => !shownNow.has(id)),
                everyMessageId(messages),
              );
            })
            .catch((error: Error) => this.notify(`Not saved: ${error.message}`, "error"));
      }
      if (state.messages.some((message) => message.role === "assistant")) this.realmUsed = true;
      const finished = previous.phase !== state.phase && !isBusy(state.phase);
      previous = state;
      if (finished) void writer.flush().then(() => this.broadcast({ type: "saved", sessionId: writableSessionId }));
      else this.scheduleBroadcast(writableSessionId);
      void this.autoTitle(state);
      if (finished) void this.saveMounts();
    });
  }

  /**
   * A mount of the open session changed (the inbox applied an open or ops):
   * its snapshot is taken within MOUNT_SNAPSHOT_DELAY_MS and written soon
   * after (SessionWriter.markMountDirty), so its latest state is on disk
   * within 0.5 s. Changes in between share one pass, which walks only the
   * mounts that changed.
   */
  mountsChanged(): void {
    if (this.mountTimer || !this.writer) return;
    this.mountTimer = setTimeout(() => {
      this.mountTimer = undefined;
      void this.saveMounts();
    }, MOUNT_SNAPSHOT_DELAY_MS);
  }

  private restoreMounts(mounts: readonly { mountId: string; snapshot: unknown }[]): void {
    this.mounts.restore(mounts);
  }

  /** Persist the current tree of each mount of the open session that changed. */
  private saveMounts(): Promise<void> {
    const writer = this.writer;
    const agent = this.state.agent;
    if (!writer || !agent) return Promise.resolve();
    return this.mounts.save(agent.getState().messages, writer);
  }

  private scheduleBroadcast(sessionId: string): void {
    if (this.broadcastTimer) return;
    this.broadcastTimer = setTimeout(() => {
      this.broadcastTimer = undefined;
      void this.writer?.flush().then(() => this.broadcast({ type: "saved", sessionId }));
    }, 500);
  }

  /** A new session takes its title from the person's first message. */
  private async autoTitle(state: AgentState): Promise<void> {
    const current = this.state.current;
    if (!this.store || !current || current.title !== DEFAULT_TITLE) return;
    const first = state.messages.find((message) => message.role === "user");
    if (!first || first.role !== "user") return;
    const title = first.text.split("\n")[0].slice(0, 60);
    this.set({ current: { ...current, title } });
    await renameSession(this.store, current.id, title).catch(() => undefined);
    await this.refreshList();
    this.broadcast({ type: "list" });
  }

  /** Re-run the open session's code in a fresh realm, without the model. */
  async revive(): Promise<void> {
    const agent = this.state.agent;
    if (!agent || agent.busy || this.state.readOnly) return;
    await this.options.realm.reset("revive").catch(() => undefined);
    this.realmUsed = true;
    await agent.revive();
  }

  /** Edit code and re-run (Agent.runBlocks): code blocks run again in the current realm, without the model; `"stale"`: Run all stale. */
  async runBlocks(runs: readonly { ref: BlockRef; code: string }[] | "stale"): Promise<void> {
    const agent = this.state.agent;
    if (!agent || agent.busy || this.state.readOnly) return;
    this.realmUsed = true;
    await (runs === "stale" ? agent.runAllStale() : agent.runBlocks(runs));
  }

  /**
   * Regenerate a reply. In the current realm by default; `freshRealm`: the
   * realm is reset and the session's code up to the interaction is revived
   * first, so the new reply starts from the state the old one started from.
   */
  async regenerate(replyId: string, freshRealm = false): Promise<void> {
    const agent = this.state.agent;
    if (!agent || agent.busy || this.state.readOnly) return;
    await agent.regenerate(
      replyId,
      freshRealm
        ? {
            freshRealm: async () => {
              await this.options.realm.reset("regenerate in a fresh realm").catch(() => undefined);
              this.realmUsed = true;
            },
          }
        : {},
    );
  }

  /** Branch: a new session with copies of the open session's messages up to `messageId`, opened. */
  async branchFrom(messageId: string): Promise<void> {
    const agent = this.state.agent;
    const current = this.state.current;
    if (!this.store || !agent || !current) return;
    // A long session's older messages are still being read: the branch copies them too.
    await agent.olderLoaded();
    const messages = agent.getState().messages;
    const index = messages.findIndex((message) => message.id === messageId);
    if (index < 0) return;
    this.saveMounts();
    await this.writer?.flush();
    const loaded = await loadSession(this.store, current.id);
    const { branchSession } = await timelineEdits();
    const session = await branchSession(this.store, current, messages.slice(0, index + 1), loaded?.mounts ?? []);
    await this.refreshList();
    this.broadcast({ type: "list" });
    await this.open(session.id);
    this.notify(
      `Branched into “${session.title}”: its code has not run here yet; use Revive to bring its mounts to life.`,
      "info",
    );
  }

  /** The open session's model settings (Session settings → Model). */
  async updateChat(chat: SessionChatSettings): Promise<void> {
    const current = this.state.current;
    if (!this.store || !current || this.state.readOnly) return;
    const session = await updateSessionChat(this.store, current.id, chat);
    if (this.state.current?.id === session.id) this.set({ current: session });
  }

  /**
   * A page module's own setting for the open session (`settings.capabilities[name]`,
   * e.g. WebMCP's switch): saved and exported with the session, never imported.
   */
  async saveSessionSetting(name: string, value: JsonValue): Promise<void> {
    const current = this.state.current;
    if (!this.store || !current || this.state.readOnly) return;
    const session = await updateCapabilitySettings(this.store, current.id, name, value);
    if (this.state.current?.id === session.id) this.set({ current: session });
  }

  /** Apply suggested settings: what the imported file suggested becomes the open session's (by the person's hand only). */
  async applySuggestedChat(): Promise<Session | undefined> {
    const current = this.state.current;
    if (!this.store || !current || this.state.readOnly || !current.suggestedChat) return undefined;
    const session = await applySuggestedChat(this.store, current.id);
    if (this.state.current?.id === session.id) this.set({ current: session });
    return session;
  }

  newSession(): Promise<void> {
    return this.oneSwitchAtATime(() => this.newSessionNow());
  }

  private async newSessionNow(): Promise<void> {
    if (!this.store) return;
    // The open session is still empty: it is the new session.
    if (
      this.state.current &&
      this.state.agent &&
      !this.state.readOnly &&
      this.state.agent.getState().messages.length === 0
    )
      return;
    const leave = this.mayLeave();
    if (leave !== true && !(await leave)) return;
    // Save the open session before creating the new one, so its last write
    // cannot date it after the new one (the list is newest first).
    await this.closeCurrent();
    const session = await createSession(this.store);
    await this.refreshList();
    this.broadcast({ type: "list" });
    await this.openNow(session.id);
  }

  async rename(id: string, title: string): Promise<void> {
    if (!this.store) return;
    await renameSession(this.store, id, title);
    await this.refreshList();
    this.broadcast({ type: "list" });
  }

  /** Delete: the session goes to **Recently deleted** (kept 30 days); a tab that has it open stops writing. */
  async remove(id: string): Promise<void> {
    if (!this.store) return;
    let session: Session;
    try {
      session = await deleteSession(this.store, id);
    } catch (error) {
      const info = toStoreError(error);
      const title = this.state.sessions.find((item) => item.id === id)?.title ?? "the session";
      if (info.code === "quota-exceeded")
        this.set({
          banner: {
            text: `“${title}” was not deleted: storage is full, and moving it to Recently deleted needs a write. Delete forever removes it now and frees its space (it cannot be undone).`,
            level: "error",
            deleteForeverSessionId: id,
          },
        });
      else this.notify(`“${title}” was not deleted: ${info.message}`, "error");
      return;
    }
    this.broadcast({ type: "deleted", sessionId: id });
    if (this.state.current?.id === id) await this.openAnother(id);
    await this.refreshList();
    this.broadcast({ type: "list" });
    this.notify(`Deleted “${session.title}”. It stays in Recently deleted for 30 days.`, "info", id);
  }

  /** Close session `id` (deleted) and open the most recent other one, or a new one. */
  private async openAnother(id: string): Promise<void> {
    if (!this.store || this.state.current?.id !== id) return;
    await this.closeCurrent();
    this.set({ current: undefined, agent: undefined, deletedElsewhere: false });
    const remaining = (await listSessions(this.store)).filter((item) => item.id !== id);
    if (remaining.length > 0) await this.open(remaining[0].id);
    else await this.newSession();
  }

  /**
   * Another tab deleted the open session: what this tab has not saved yet is
   * written once more (into the deleted session, so **Restore** brings it
   * back), then nothing is written any more; the session stays on screen,
   * read-only, with **Restore**.
   */
  private async deletedInAnotherTab(id: string): Promise<void> {
    if (!this.store || this.state.deletedElsewhere) return;
    await this.closeCurrent();
    if (this.state.current?.id !== id) return;
    const loaded = await loadSession(this.store, id);
    if (!loaded || this.state.current?.id !== id) {
      await this.openAnother(id);
      return;
    }
    this.restoreMounts(loaded.mounts);
    this.set({ current: loaded.session, deletedElsewhere: true });
    this.attachAgent(this.options.makeAgent(loaded.messages, loaded.session), undefined, true);
  }

  /** Open `id` afresh (it was shown deleted, read-only): writable again if no other tab holds it. */
  private async reopen(id: string): Promise<void> {
    await this.closeCurrent();
    this.set({ current: undefined, agent: undefined, deletedElsewhere: false });
    await this.open(id);
  }

  async undoRemove(id: string): Promise<void> {
    await this.restore(id);
    this.dismissBanner();
  }

  /** **Restore** (Recently deleted, or the notice of a delete in another tab): the session is back in the list. */
  async restore(id: string): Promise<void> {
    if (!this.store) return;
    try {
      await undoDelete(this.store, id);
    } catch (error) {
      this.notify(`Not restored: ${toStoreError(error).message}`, "error");
      return;
    }
    if (this.state.current?.id === id && this.state.deletedElsewhere) await this.reopen(id);
    await this.refreshList();
    this.broadcast({ type: "restored", sessionId: id });
    this.broadcast({ type: "list" });
  }

  /**
   * **Delete forever**: the session and all its rows go at once. It only
   * deletes, so it works when storage is full, and the saving that failed
   * for lack of space is retried right after, here and in the other tabs.
   */
  async deleteForever(id: string): Promise<void> {
    if (!this.store) return;
    const title = [...this.state.sessions, ...this.state.deleted].find((item) => item.id === id)?.title;
    const open = this.state.current?.id === id;
    if (open) await this.closeCurrent();
    try {
      await deleteSessionForever(this.store, id);
    } catch (error) {
      this.notify(`Not deleted: ${toStoreError(error).message}`, "error");
      if (open) await this.reopen(id);
      return;
    }
    if (open) await this.openAnother(id);
    this.retrySaving();
    await this.refreshList();
    this.broadcast({ type: "purged", sessionId: id });
    this.broadcast({ type: "list" });
    const banner = this.state.banner;
    if (banner?.deleteForeverSessionId === id || banner?.undoSessionId === id || !banner?.storageFull)
      this.notify(`Deleted “${title ?? "the session"}” forever.`, "info");
  }

  /**
   * Saving failed (storage full): try again now instead of after the backoff.
   * Called when space is freed and on every action of the person; cheap when
   * nothing failed.
   */
  retrySaving(): void {
    if (this.writer?.failing) void this.writer.retry();
  }

  /** The storage-full banner: how much the app uses, **Export** and **Recently deleted**. */
  private async showStorageFull(): Promise<void> {
    // Its own chunk: only a full store needs it.
    const text = await import("./storageUsage").then(
      async (module) => module.storageFullText(await module.storageUsage()),
      () =>
        "Storage is full. Export this session to keep it as a file, or free space: Delete forever in Recently deleted.",
    );
    // Saving recovered while the estimate was read; or the banner offers Delete forever for a refused delete,
    // which says more (a retry fails on each of the person's actions, the click on Delete among them).
    if (!this.writer?.failing || this.state.banner?.deleteForeverSessionId) return;
    this.set({ banner: { text, level: "error", storageFull: true } });
  }

  async search(query: string): Promise<void> {
    if (!this.store) return;
    if (!query.trim()) {
      this.set({ searchResults: undefined });
      return;
    }
    this.set({ searchResults: await searchSessions(this.store, query) });
  }

  /** The open session as a `livemark.session` file (never settings or the key). */
  async exportCurrent(): Promise<{ name: string; text: string } | undefined> {
    await this.started;
    if (!this.store || !this.state.current) return undefined;
    await this.writer?.flush();
    const { exportSession, exportFileName, serializeExport } = await exportImport();
    const document = await exportSession(this.store, this.state.current.id);
    return { name: exportFileName(document), text: serializeExport(document) };
  }

  async exportEverything(): Promise<{ name: string; text: string } | undefined> {
    await this.started;
    if (!this.store) return undefined;
    await this.writer?.flush();
    const { exportAll, exportFileName, serializeExport } = await exportImport();
    const document = await exportAll(this.store);
    return { name: exportFileName(document), text: serializeExport(document) };
  }

  async importFrom(input: string | Blob): Promise<boolean> {
    await this.started;
    if (!this.store) {
      this.notify("Storage is unavailable in this browser, so nothing can be imported.", "error");
      return false;
    }
    const { importFile } = await exportImport();
    const result = await importFile(this.store, input);
    if (!result.ok) {
      this.notify(`Import failed, nothing was changed: ${result.error.message}`, "error");
      return false;
    }
    await this.refreshList();
    this.broadcast({ type: "list" });
    const first = result.sessions[0];
    const count = result.sessions.length;
    this.notify(
      `Imported ${count === 1 ? `“${first.title}”` : `${count} sessions`}. Imported sessions come from outside: their code has not run here; use Revive to run it.`,
      "info",
    );
    if (first) await this.open(first.id);
    return true;
  }

  /** **Import** on a share link's preview: the session is written and opened; no other session is made. */
  async importPreview(): Promise<void> {
    const preview = this.state.preview;
    if (!preview) return;
    dropShareFragment();
    const { serializeExport } = await exportImport();
    const imported = await this.importFrom(serializeExport(preview));
    if (this.state.preview !== preview) return;
    this.set({ preview: undefined });
    if (!imported) await this.openDefault();
  }

  /** **Dismiss**: the preview goes, nothing was written; the sessions open as on any start. */
  async dismissPreview(): Promise<void> {
    if (!this.state.preview) return;
    this.set({ preview: undefined });
    dropShareFragment();
    if (!this.state.current) await this.openDefault();
  }

  /** The open session as a share link; its app data only with `includeAppData` (**Include app data**). */
  async shareLink(base: string, options: { includeAppData?: boolean } = {}): Promise<string | undefined> {
    await this.started;
    if (!this.store || !this.state.current) return undefined;
    await this.writer?.flush();
    const { createShareLink } = await sharing();
    const result = await createShareLink(this.store, this.state.current.id, base, options);
    if (!result.ok) {
      this.notify(result.error.message, "warn");
      return undefined;
    }
    return result.url;
  }
}
