import type { LanguageModel, ModelMessage } from "ai";
import type { ProtocolEvent, ProtocolParser } from "../protocol/types";
import type { RealmEvent } from "../sandbox/types";
import type { MountRealmMessage } from "../wire/mount";
import type { BlockEvent } from "../wire/types";
import { FeedbackCollector } from "./feedback";
import { InteractionLifecycle, type InteractionSummary } from "./interactionLifecycle";
import { UNCLOSED_THINKING_FEEDBACK, cutFeedback, cutFromFinishReason, cutNoteForPerson, cutOfReply } from "./finishReason";
import { ProviderReasoning, answerForModel, stampThinking } from "./thinking";
import { applyExecEvent, applyProtocolEvent, emptyReply, runningStatement, type ProviderThinkingStart, type ReplyView } from "./reply";
import { createBlockRouter, replayBlock } from "./routeBlocks";
import type { AgentReportMessage, ChannelFields, ExternalRun } from "./externalAgentTypes";
import { userContent, type Attachment } from "./attachments";
import type { AgentState, ChatMessage, LlmErrorInfo, Phase, ReplyState, SendRefusal } from "./types";
import { IMPORTED_END, IMPORTED_START, escapeImportedText, importedInstructionMessage } from "./importedContent";

/**
 * The interaction loop (DESIGN.md §1): stream a reply, route its code and data
 * blocks to the realm in protocol order, collect what the realm reports, and
 * send non-empty feedback back as the next turn, until feedback is empty, the
 * turn cap is reached, or the person presses Stop.
 *
 * The model, the realm and the clock are passed in, so the loop runs in Node
 * tests against the AI SDK's mock models and the real executor.
 */

export type { RealmEvent };

/** The part of the realm host the loop needs (src/sandbox implements it). */
export interface RealmPort {
  beginReply(): void;
  /** One event of a code or data block, in protocol order (routeBlocks.ts). */
  sendBlock(event: BlockEvent): void;
  /** Resolves when everything sent so far has run. */
  flush(timeoutMs?: number, options?: { signal?: AbortSignal }): Promise<void>;
  abort(): void;
  subscribe(listener: (event: RealmEvent) => void): () => void;
  /** Mount messages (generative UI), already validated by the host. */
  subscribeMounts?(listener: (message: MountRealmMessage) => void): () => void;
}

export type { AgentState, ChatMessage, ImportMark, LlmErrorInfo, Phase, ReplyState, SendRefusal } from "./types";
export { isBusy } from "./types";

/** Per-call settings of the open session (Session settings → Model). */
export interface CallSettings {
  temperature?: number;
  /** The person's extra system instruction, appended to the system prompt. */
  instruction?: string;
  /**
   * An instruction that came with an imported file and that the person
   * applied: sent first inside the imported-content bracket, never in the
   * system prompt.
   */
  importedInstruction?: string;
}

export interface AgentOptions {
  /** The model for the next call; may load lazily (the SDK is not in the initial bundle). */
  model: () => LanguageModel | Promise<LanguageModel>;
  /** The system prompt, or a function read at each call (it lists the session's connected tools). */
  system: string | (() => string);
  /** Read at every call: the session's temperature and extra instruction. */
  callSettings?: () => CallSettings;
  realm: RealmPort;
  createParser: () => ProtocolParser;
  describeError: (error: unknown) => LlmErrorInfo;
  wrapFeedback: (body: string, source: "runtime" | "ui-event") => string;
  /**
   * Messages that came from outside (an imported session): replayed to the
   * model between two markers that say they are untrusted content, with any
   * marker inside their text escaped. Default: the messages marked
   * `imported` at import.
   */
  isImported?: (message: ChatMessage) => boolean;
  maxTurns?: number;
  /** Rate-limit retries per turn before giving up. */
  maxRetries?: number;
  now?: () => number;
  newId?: () => string;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });

export { IMPORTED_START, IMPORTED_END };

let counter = 0;
const defaultId = () => `m${Date.now().toString(36)}${(counter++).toString(36)}`;
/** UI event ids are unique per page, across agents (sessions) and realms. */
let nextUiEventId = 1;
const MAX_TRACKED_UI_EVENTS = 1_000;
/** A UI-event turn waits at most this long for the realm's flush (a handler still running synchronously). */
const UI_SETTLE_TIMEOUT_MS = 5_000;

export class Agent {
  private state: AgentState;
  private readonly listeners = new Set<(state: AgentState) => void>();
  private controller: AbortController | undefined;
  private readonly options: Required<Omit<AgentOptions, "maxTurns" | "maxRetries" | "isImported" | "callSettings">> &
    Pick<AgentOptions, "isImported" | "callSettings"> & { maxTurns: number; maxRetries: number };
  /** Realm output that arrived while no interaction ran (timers): waits for the next turn. */
  private idleOutput = new FeedbackCollector();
  private currentReplyId: string | undefined;
  private currentCollector: FeedbackCollector | undefined;
  /** Runtime output of a reply that was cut mid-stream, sent with Continue. */
  private interruptedFeedback = "";
  private readonly unsubscribeRealm: () => void;
  private readonly unsubscribeMounts: () => void;
  /** Mounts whose code awaits the person's input (`await comp.result`). */
  private readonly waitingMounts = new Set<string>();
  /** While Revive re-runs a reply: which one, the block running, and whether its restored mounts were replaced yet. */
  private reviving: { replyId: string; block: number | undefined; replaced: boolean } | undefined;
  /** Ids of the person's actions on mounted UIs (noteUiEvent), most recent last. */
  private readonly uiEvents = new Set<number>();
  /** Output their handlers caused while no interaction ran: the next UI-event turn's feedback. */
  private uiOutput: FeedbackCollector | undefined;
  /** A UI-event turn waits for the realm to have sent everything the action caused so far. */
  private uiTurnPending = false;
  /** Mounts each tracked action's handler changed (MOUNT_OPS `eventId`): named in that action's UI-event turn. */
  private readonly uiMountChanges = new Map<number, Set<string>>();
  /** The actions whose output `uiOutput` holds. */
  private uiOutputCauses = new Set<number>();

  constructor(options: AgentOptions, initialMessages: ChatMessage[] = []) {
    this.options = {
      maxTurns: 10,
      maxRetries: 2,
      now: () => Date.now(),
      newId: defaultId,
      sleep: abortableSleep,
      ...options,
    };
    this.state = {
      messages: initialMessages,
      phase: "idle",
      turn: 0,
      maxTurns: this.options.maxTurns,
      // A reply saved mid-stream (tab closed, crash) comes back interrupted.
      canContinue: [...initialMessages].reverse().find((message) => message.role === "assistant")?.state === "interrupted",
    };
    this.unsubscribeRealm = this.options.realm.subscribe((event) => this.onRealmEvent(event));
    this.unsubscribeMounts = this.options.realm.subscribeMounts?.((message) => this.onMountMessage(message)) ?? (() => undefined);
  }

  private onMountMessage(message: MountRealmMessage): void {
    this.lifecycle?.mount(message);
    if (message.type === "mount-open") {
      const known = this.state.messages.some(
        (item) => item.role === "assistant" && item.reply.mounts?.some((mount) => mount.mountId === message.mountId),
      );
      if (known) return;
      const reviving = this.reviving;
      const target =
        this.currentReplyId ??
        reviving?.replyId ??
        [...this.state.messages].reverse().find((item) => item.role === "assistant")?.id;
      if (!target) return;
      // Revive makes the reply's mounts anew (new ids): the first one that
      // opens replaces the restored, inert ones of that reply.
      const replaceRestored = reviving !== undefined && reviving.replyId === target && !reviving.replaced;
      if (replaceRestored) reviving.replaced = true;
      this.updateMessage(target, (item) => {
        if (item.role !== "assistant") return item;
        const running = runningStatement(item.reply);
        const afterBlock = running?.block ?? (reviving?.replyId === target ? reviving.block : undefined) ?? -1;
        const mounts = [...(replaceRestored ? [] : item.reply.mounts ?? []), { mountId: message.mountId, afterBlock, title: message.title }];
        return { ...item, reply: { ...item.reply, mounts } };
      });
    } else if (message.type === "mount-ops") {
      // By identity: only changes the realm tagged with a tracked action's id.
      const cause = message.eventId;
      if (cause === undefined || !this.uiEvents.has(cause)) return;
      const changed = this.uiMountChanges.get(cause) ?? new Set<string>();
      changed.add(message.mountId);
      this.uiMountChanges.set(cause, changed);
    } else if (message.type === "mount-waiting") {
      if (message.waiting) this.waitingMounts.add(message.mountId);
      else this.waitingMounts.delete(message.mountId);
      this.updateWaitingPhase();
    } else if (message.type === "mount-close") {
      this.waitingMounts.delete(message.mountId);
      this.updateWaitingPhase();
    }
  }

  /** The running interaction's states and counts (interactionLifecycle.ts). */
  private lifecycle: InteractionLifecycle | undefined;
  /** The phase to return to when the person has answered every capability ask. */
  private beforePermission: Phase | undefined;

  /**
   * The code waits for the person's answer to a capability ask (or no longer
   * does): the status says "Waiting for permission" meanwhile.
   */
  setWaitingForPermission(waiting: boolean): void {
    if (waiting && this.busy && this.state.phase !== "waiting-permission") {
      this.beforePermission = this.state.phase;
      this.setState({ phase: "waiting-permission" });
    } else if (!waiting && this.state.phase === "waiting-permission") {
      this.setState({ phase: this.beforePermission ?? "running" });
      this.beforePermission = undefined;
    }
  }

  private updateWaitingPhase(): void {
    if (!this.busy) return;
    if (this.waitingMounts.size > 0 && this.state.phase === "running") this.setState({ phase: "waiting-input" });
    else if (this.waitingMounts.size === 0 && this.state.phase === "waiting-input") this.setState({ phase: "running" });
  }

  /**
   * The person acted on a mounted UI: returns the id the UI event carries to
   * the realm (UI_EVENT `eventId`). Output tagged with it (ExecEvent `cause`,
   * also after the handler's `await`s and from timers it started) that
   * arrives while no interaction runs starts a new turn, marked as a UI
   * event; untagged output (timers of earlier replies) waits for the next
   * turn instead, however close to the action it arrives.
   */
  noteUiEvent(): number {
    const id = nextUiEventId++;
    this.uiEvents.add(id);
    // Keep the set bounded; an action this old has long finished its turn.
    if (this.uiEvents.size > MAX_TRACKED_UI_EVENTS) {
      const oldest = this.uiEvents.values().next().value!;
      this.uiEvents.delete(oldest);
      this.uiMountChanges.delete(oldest);
    }
    return id;
  }

  /** A problem the host found while drawing a mount (unknown component, refused prop): the model hears of it. */
  reportRenderProblem(message: string): void {
    (this.currentCollector ?? this.idleOutput).add({ type: "note", message: `UI: ${message}` });
  }

  getState(): AgentState {
    return this.state;
  }

  subscribe(listener: (state: AgentState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Change the cap on automatic turns (takes effect at the next turn). */
  setMaxTurns(maxTurns: number): void {
    this.options.maxTurns = Math.max(1, Math.floor(maxTurns));
    this.setState({ maxTurns: this.options.maxTurns });
  }

  get busy(): boolean {
    return this.controller !== undefined;
  }

  /** Closing or disposed: nothing new starts (send, edit, Regenerate, Continue, Revive, a UI-event turn). */
  private closed = false;

  /**
   * The session is closing (src/ui/sessionController.ts): from now on every
   * way in is refused, so nothing reaches an agent about to be disposed; what
   * runs goes on until dispose stops it.
   */
  close(): void {
    this.closed = true;
  }

  /** Why a message sent now would be refused; undefined: it would be sent. */
  get refusal(): SendRefusal | undefined {
    if (this.closed) return "closed";
    return this.busy ? "busy" : undefined;
  }

  dispose(): void {
    this.closed = true;
    this.stop();
    this.unsubscribeRealm();
    this.unsubscribeMounts();
    this.uiOutput = undefined;
    this.listeners.clear();
  }

  private setState(patch: Partial<AgentState>): void {
    if (patch.phase && patch.phase !== "idle" && patch.phase !== "done" && patch.phase !== "error" && patch.phase !== "stopped") {
      this.lifecycle?.enter(patch.phase);
    }
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener(this.state);
  }

  private updateMessage(id: string, update: (message: ChatMessage) => ChatMessage): void {
    const messages = this.state.messages.map((message) => (message.id === id ? update(message) : message));
    this.setState({ messages });
  }

  private push(message: ChatMessage): void {
    this.setState({ messages: [...this.state.messages, message] });
  }

  private notice(text: string, level: "info" | "warn" | "error"): void {
    this.push({ id: this.options.newId(), role: "notice", text, level, createdAt: this.options.now() });
  }

  /**
   * The person sends a message (with files, maybe). Resolves false at once,
   * changing nothing, when the message is empty or refused (`refusal`: an
   * interaction runs, or the session is closing); the caller keeps the text.
   * Otherwise resolves true when the interaction has ended.
   */
  async send(text: string, attachments: readonly Attachment[] = []): Promise<boolean> {
    const trimmed = text.trim();
    if ((!trimmed && attachments.length === 0) || this.refusal) return false;
    this.push({
      id: this.options.newId(),
      role: "user",
      text: trimmed,
      createdAt: this.options.now(),
      ...(attachments.length > 0 ? { attachments: [...attachments] } : {}),
    });
    await this.interact();
    return true;
  }

  /** A message from the invited agent's channel (the person's command, the agent's report): shown and saved; no turn starts. */
  record(message: ChatMessage): void {
    this.push(message);
  }

  /** Change a recorded message (a question the person answered). */
  amend(id: string, update: (message: ChatMessage) => ChatMessage): void {
    this.updateMessage(id, update);
  }

  /**
   * One reply from another source (an invited agent's Markdown, as a model
   * stream) through the same turn as a model's reply: parser, realm,
   * timeline, lifecycle. No automatic next turn: the feedback a model would
   * get next is returned (and shown), for the source to act on.
   */
  async runExternal(model: LanguageModel, by?: string): Promise<ExternalRun> {
    if (this.refusal) return { kind: "busy" };
    const run: ExternalRun = { kind: "ran", state: "error", feedback: "", replyId: undefined };
    await this.interact({ model, run, by });
    return run;
  }

  /**
   * Edit and resend: the person's message `messageId` is replaced by `text`
   * (keeping its attachments) and everything after it is dropped; the earlier
   * branch is not kept (Branch first to keep it). The new interaction runs in
   * the current realm.
   */
  async editAndResend(messageId: string, text: string): Promise<boolean> {
    const trimmed = text.trim();
    const index = this.state.messages.findIndex((message) => message.id === messageId);
    const original = this.state.messages[index];
    if (this.refusal || index < 0 || original.role !== "user" || (!trimmed && !original.attachments?.length)) return false;
    // The person wrote the new text: an edited imported message is theirs, unless it still carries the file's attachments.
    const { imported: _imported, ...edited } = original;
    const stillImported = original.imported === true && !!original.attachments?.length;
    this.setState({
      messages: [
        ...this.state.messages.slice(0, index),
        { ...edited, ...(stillImported ? { imported: true } : {}), id: this.options.newId(), text: trimmed, createdAt: this.options.now() },
      ],
      canContinue: false,
    });
    this.interruptedFeedback = "";
    await this.interact();
    return true;
  }

  /**
   * The index of the message that started the interaction `replyId` belongs
   * to (the person's message or UI event before it), or -1.
   */
  private interactionStart(replyId: string): number {
    const index = this.state.messages.findIndex((message) => message.id === replyId);
    if (index < 0 || this.state.messages[index].role !== "assistant") return -1;
    for (let at = index - 1; at >= 0; at -= 1) {
      const message = this.state.messages[at];
      if (message.role === "user" || (message.role === "feedback" && message.source === "ui-event")) return at;
    }
    return -1;
  }

  /**
   * Regenerate: drop the interaction that produced `replyId` (its replies,
   * runtime output and notices) and ask the model again from the message
   * that started it. Without `freshRealm` the new run happens in the current
   * realm, whose state the earlier run changed (a notice says so); with it,
   * the realm is replaced (`freshRealm` resets it) and the session's code up
   * to that point is revived first, so the new run starts from that state.
   */
  async regenerate(replyId: string, options: { freshRealm?: () => Promise<void> } = {}): Promise<boolean> {
    const start = this.interactionStart(replyId);
    if (this.refusal || start < 0) return false;
    this.setState({ messages: this.state.messages.slice(0, start + 1), canContinue: false });
    this.interruptedFeedback = "";
    if (options.freshRealm) {
      await options.freshRealm();
      await this.revive();
      // The reset was asked for and the revive restored the state: the model
      // hears of neither (the person saw both as notices).
      this.idleOutput = new FeedbackCollector();
    } else {
      this.notice(
        "Regenerating in the current realm: variables, data and mounts the earlier run made are still there. Use “Regenerate in a fresh realm” to start from the session’s state up to this message instead.",
        "info",
      );
    }
    await this.interact();
    return true;
  }

  /** Resume after a reply was cut mid-stream. */
  async continue(): Promise<void> {
    if (this.refusal || !this.state.canContinue) return;
    const cut = [...this.state.messages].reverse().find((message) => message.role === "assistant");
    const note =
      cut?.role === "assistant"
        ? cutFeedback(cut.reply, cutOfReply(cut) ?? "closed")
        : "The previous reply was cut off mid-stream. Continue from where it stopped; code that already ran keeps its effects, do not repeat it.";
    const body = this.interruptedFeedback ? `${this.interruptedFeedback}\n${note}` : note;
    this.interruptedFeedback = "";
    this.pushFeedback(body, "runtime");
    await this.interact();
  }

  /**
   * Revive: re-run every code and data block of the session, in order, in
   * the realm, without calling the model, so restored state (and mounts) are
   * live again. What fails is reported to the person, not to the model.
   */
  async revive(): Promise<{ blocks: number; failures: string[] }> {
    if (this.refusal) return { blocks: 0, failures: [] };
    const controller = new AbortController();
    this.controller = controller;
    const collector = new FeedbackCollector();
    this.currentCollector = collector;
    this.setState({ phase: "running", detail: "reviving", turn: 0, canContinue: false });
    const realm = this.options.realm;
    let blocks = 0;
    const failures: string[] = [];
    const listen = realm.subscribe((event) => {
      if (event.type === "statement-start" && this.reviving) this.reviving.block = event.block;
      if (event.type === "statement-end" && event.status === "error" && event.error) failures.push(event.error.message);
      if (event.type === "error") failures.push(event.error.message);
    });
    try {
      for (const message of this.state.messages) {
        if (controller.signal.aborted) break;
        if (message.role !== "assistant") continue;
        realm.beginReply();
        this.reviving = { replyId: message.id, block: undefined, replaced: false };
        const route = createBlockRouter((event) => realm.sendBlock(event));
        let any = false;
        for (const block of message.reply.blocks) {
          route(replayBlock(block));
          if (block.kind === "text") continue;
          any = true;
          blocks += 1;
        }
        if (any) await this.settleRealm(undefined, controller.signal).catch(() => undefined);
      }
    } finally {
      listen();
      this.reviving = undefined;
      this.controller = undefined;
      this.currentCollector = undefined;
      const stopped = controller.signal.aborted;
      this.notice(
        stopped
          ? "Revive stopped."
          : failures.length === 0
            ? `Revived: re-ran ${blocks} block${blocks === 1 ? "" : "s"} in a fresh realm.`
            : `Revived ${blocks} block${blocks === 1 ? "" : "s"}; ${failures.length} failed: ${failures.slice(0, 3).join("; ")}`,
        failures.length > 0 ? "warn" : "info",
      );
      this.setState({ phase: stopped ? "stopped" : "done", detail: undefined });
    }
    return { blocks, failures };
  }

  /** Stop: abort the LLM stream and interrupt running code. */
  stop(): void {
    if (!this.controller) return;
    this.controller.abort(new DOMException("Stopped by the person", "AbortError"));
    this.options.realm.abort();
  }

  /** Returns the text the model (or an invited agent) is given. */
  private pushFeedback(body: string, source: "runtime" | "ui-event", to?: "agent"): string {
    const text = this.options.wrapFeedback(body, source);
    this.push({ id: this.options.newId(), role: "feedback", body, text, source, createdAt: this.options.now(), ...(to ? { to } : {}) });
    return text;
  }

  private onRealmEvent(event: RealmEvent): void {
    if (event.type === "ready") return;
    if (event.type === "realm-error") {
      this.notice(`Sandbox: ${event.message}`, event.code === "malformed-message" ? "warn" : "error");
      return;
    }
    if (event.type === "realm-reset") {
      this.notice(
        `The sandbox was reset (${event.reason === "unresponsive" ? "it stopped responding" : event.reason === "crashed" ? "it crashed" : "on request"}): variables and mounts are gone.`,
        "warn",
      );
    }
    const cause = event.type === "console" || event.type === "error" ? event.cause : undefined;
    const fromUi = cause !== undefined && this.uiEvents.has(cause) && !this.currentCollector && !this.busy;
    if (fromUi) {
      this.uiOutput ??= new FeedbackCollector();
      this.uiOutput.add(event);
      this.uiOutputCauses.add(cause);
      this.scheduleUiTurn();
      return;
    }
    const collector = this.currentCollector ?? this.idleOutput;
    collector.add(event);
    if (this.currentCollector && event.type !== "realm-reset") this.lifecycle?.exec(event);
    if (event.type === "realm-reset" || !this.currentReplyId) return;
    const replyId = this.currentReplyId;
    this.updateMessage(replyId, (message) => {
      if (message.role !== "assistant") return message;
      const reply = applyExecEvent(message.reply, event);
      return reply === message.reply ? message : { ...message, reply };
    });
    if (this.state.phase === "running" || this.state.phase === "streaming") {
      const current = this.state.messages.find((message) => message.id === replyId);
      if (current?.role === "assistant") {
        const running = runningStatement(current.reply);
        const detail = running ? `statement ${running.statement + 1} of block ${running.block}, line ${running.line}` : undefined;
        if (detail !== this.state.detail) this.setState({ detail });
      }
    }
  }

  private scheduleUiTurn(): void {
    if (this.uiTurnPending) return;
    this.uiTurnPending = true;
    // Everything the realm sent before answering a flush is here when the
    // answer is: the whole burst one action caused goes to the model once.
    // (No clock: output the handler causes later starts its own turn.)
    void this.options.realm.flush(UI_SETTLE_TIMEOUT_MS).catch(() => undefined).then(() => {
      this.uiTurnPending = false;
      const output = this.uiOutput;
      const causes = this.uiOutputCauses;
      this.uiOutput = undefined;
      this.uiOutputCauses = new Set();
      if (!output || output.empty || this.closed) return;
      // Which mounts these actions changed (the realm sent their ops before the flush answered).
      const changed = new Set<string>();
      for (const cause of causes) {
        for (const mountId of this.uiMountChanges.get(cause) ?? []) changed.add(mountId);
        this.uiMountChanges.delete(cause);
      }
      for (const mountId of changed) output.add({ type: "note", message: `mount ${this.mountLabel(mountId)} updated` });
      if (this.busy) {
        for (const line of output.text().split("\n")) this.idleOutput.add({ type: "note", message: line });
        return;
      }
      this.pushFeedback(output.text(), "ui-event");
      void this.interact();
    });
  }

  /** `"Title"` when the mount has one, else its id within its realm (`m1`). */
  private mountLabel(mountId: string): string {
    for (const message of this.state.messages) {
      if (message.role !== "assistant") continue;
      const title = message.reply.mounts?.find((mount) => mount.mountId === mountId)?.title;
      if (title !== undefined) return JSON.stringify(title);
    }
    return mountId.slice(mountId.lastIndexOf(":") + 1);
  }

  private toModelMessages(importedInstruction?: string): ModelMessage[] {
    const messages: ModelMessage[] = [];
    const isImported = this.options.isImported ?? ((message: ChatMessage) => message.imported === true);
    let inImported = false;
    if (importedInstruction) {
      messages.push({ role: "user", content: IMPORTED_START }, { role: "user", content: importedInstructionMessage(importedInstruction) });
      inImported = true;
    }
    for (const message of this.state.messages) {
      const imported = isImported(message);
      if (imported !== inImported) {
        messages.push({ role: "user", content: imported ? IMPORTED_START : IMPORTED_END });
        inImported = imported;
      }
      // Imported text cannot write the bracket's markers: it would close the bracket and speak as the person.
      const text = imported ? escapeImportedText : (value: string) => value;
      switch (message.role) {
        case "user": {
          const content = userContent(message.text, message.attachments);
          messages.push({
            role: "user",
            content: typeof content === "string" ? text(content) : content.map((part) => (part.type === "text" ? { ...part, text: text(part.text) } : part)),
          } as ModelMessage);
          break;
        }
        case "assistant":
          // Thinking is never sent back (providers ask for that); an all-thinking reply sends nothing.
          if (message.text) {
            const answer = answerForModel(message.text);
            if (answer.trim()) messages.push({ role: "assistant", content: text(answer) });
          }
          break;
        case "feedback":
          messages.push({ role: "user", content: text(message.text) });
          break;
        case "notice":
        case "agent":
          break;
        default: {
          const never: never = message;
          return never;
        }
      }
    }
    if (inImported) messages.push({ role: "user", content: IMPORTED_END });
    return messages;
  }

  private async interact(external?: { model: LanguageModel; run: ExternalRun & { kind: "ran" }; by?: string }): Promise<void> {
    const controller = new AbortController();
    this.controller = controller;
    const lifecycle = new InteractionLifecycle(this.options.now(), this.options.now);
    this.lifecycle = lifecycle;
    this.lastReplyId = undefined;
    this.setState({ phase: "streaming", turn: 0, detail: undefined, canContinue: false });
    // Output from timers while idle joins the first turn's feedback, it never starts one.
    const idle = this.idleOutput;
    this.idleOutput = new FeedbackCollector();
    let carried = idle.empty ? "" : idle.text();
    let finalPhase: Phase = "done";
    try {
      for (let turn = 1; ; turn += 1) {
        this.setState({ turn });
        lifecycle.turn();
        const outcome = await this.runTurn(controller.signal, external ? "" : carried, external?.model, external?.by);
        if (external) {
          // Output from idle timers goes with this run's feedback; the source decides what comes next.
          const feedback = [carried, outcome.kind === "ok" || outcome.kind === "interrupted" ? outcome.feedback : ""].filter(Boolean).join("\n");
          external.run.replyId = this.lastReplyId;
          external.run.state = outcome.kind === "ok" ? "done" : outcome.kind === "stopped" ? "stopped" : outcome.kind;
          external.run.feedback = feedback ? this.pushFeedback(feedback, "runtime", "agent") : "";
          if (outcome.kind === "stopped") finalPhase = "stopped";
          else if (outcome.kind !== "ok") finalPhase = "error";
          break;
        }
        carried = "";
        if (outcome.kind === "stopped") {
          finalPhase = "stopped";
          break;
        }
        if (outcome.kind === "error") {
          finalPhase = "error";
          break;
        }
        if (outcome.kind === "interrupted") {
          finalPhase = "error";
          this.interruptedFeedback = outcome.feedback;
          this.setState({ canContinue: true });
          break;
        }
        if (!outcome.feedback) break;
        if (turn >= this.options.maxTurns) {
          this.pushFeedback(outcome.feedback, "runtime");
          this.notice(
            `Stopped after ${this.options.maxTurns} automatic turns. Send a message to go on.`,
            "warn",
          );
          break;
        }
        this.pushFeedback(outcome.feedback, "runtime");
      }
    } finally {
      this.controller = undefined;
      this.currentReplyId = undefined;
      this.currentCollector = undefined;
      this.lifecycle = undefined;
      this.beforePermission = undefined;
      const summary = lifecycle.finish(finalPhase === "stopped" ? "stopped" : finalPhase === "error" ? "error" : "done");
      const lastReply = this.lastReplyId;
      if (lastReply) this.updateMessage(lastReply, (message) => (message.role === "assistant" ? { ...message, summary } : message));
      this.setState({ phase: finalPhase, detail: undefined });
    }
  }

  /** The last reply the running interaction made (it carries the interaction's summary). */
  private lastReplyId: string | undefined;

  private async runTurn(
    signal: AbortSignal,
    carried: string,
    /** Another reply source for this turn (an invited agent); default: the session's model. */
    source?: LanguageModel,
    by?: string,
  ): Promise<{ kind: "ok"; feedback: string } | { kind: "stopped" } | { kind: "error" } | { kind: "interrupted"; feedback: string }> {
    const replyId = this.options.newId();
    const collector = new FeedbackCollector();
    this.push({
      id: replyId,
      role: "assistant",
      text: "",
      reply: emptyReply(),
      state: "streaming",
      createdAt: this.options.now(),
      ...(by ? { by } : {}),
    });
    this.currentReplyId = replyId;
    this.lastReplyId = replyId;
    this.currentCollector = collector;
    this.setState({ phase: "streaming", detail: undefined });

    const realm = this.options.realm;
    realm.beginReply();
    const parser = this.options.createParser();
    let received = 0;

    /** Code and data blocks go to the realm, in protocol order; protocol errors to the feedback; thinking stays here. */
    const route = createBlockRouter((event) => realm.sendBlock(event));
    /** One state update per chunk: the raw text and the block view together. */
    /** The highest block index the parser has started (a cut marks it). */
    let lastBlock = -1;
    const receive = (text: string, events: readonly (ProtocolEvent | ProviderThinkingStart)[]) => {
      for (const event of events) if (event.type === "block-start" && event.index > lastBlock) lastBlock = event.index;
      for (const problem of route(events)) if (problem.type === "protocol-error") collector.add(problem);
      if (text === "" && events.length === 0) return;
      this.updateMessage(replyId, (message) => {
        if (message.role !== "assistant") return message;
        let reply = message.reply;
        for (const event of events) reply = applyProtocolEvent(reply, event);
        reply = stampThinking(reply, this.options.now());
        return { ...message, text: message.text + text, reply };
      });
    };

    /** The provider's reasoning stream: shown as thinking, never parsed. */
    const reasoning = new ProviderReasoning();
    let finishReason: string | undefined;
    let streamError: unknown;
    for (let attempt = 0; ; attempt += 1) {
      streamError = undefined;
      try {
        // Loaded on first use: keeps the AI SDK out of the app's initial JavaScript.
        const { streamText } = await import("ai");
        const model = source ?? (await this.options.model());
        const modelId = typeof model === "string" ? model : model.modelId;
        this.updateMessage(replyId, (message) => (message.role === "assistant" && message.model !== modelId ? { ...message, model: modelId } : message));
        const call = this.options.callSettings?.() ?? {};
        const instruction = call.instruction?.trim();
        const baseSystem = typeof this.options.system === "function" ? this.options.system() : this.options.system;
        const result = streamText({
          model,
          system: instruction ? `${baseSystem}\n\n## The person's instruction for this session\n\n${instruction}` : baseSystem,
          ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
          // Another source brings its own text: it reads no history (and the SDK wants one message).
          messages: source
            ? [{ role: "user", content: "(reply from another source)" }]
            : this.toModelMessages(call.importedInstruction?.trim()).concat(carried ? [{ role: "user", content: this.options.wrapFeedback(carried, "runtime") }] : []),
          abortSignal: signal,
          maxRetries: 0,
          // Errors arrive as stream parts and are handled below; the SDK's default logs them.
          onError: () => undefined,
        });
        for await (const part of result.fullStream) {
          if (part.type === "text-delta") {
            received += part.text.length;
            const events = parser.push(part.text);
            receive(part.text, reasoning.open ? [...reasoning.close(), ...events] : events);
          } else if (part.type === "reasoning-delta") {
            received += part.text.length;
            receive("", reasoning.delta(part.text));
          } else if (part.type === "reasoning-end") {
            receive("", reasoning.close());
          } else if (part.type === "finish") {
            finishReason = part.finishReason;
            // Tokens as the API reported them (absent when it reports none).
            this.lifecycle?.usage(part.totalUsage);
            const { inputTokens, outputTokens } = part.totalUsage ?? {};
            if (inputTokens !== undefined || outputTokens !== undefined) {
              const usage = { ...(inputTokens !== undefined ? { inputTokens } : {}), ...(outputTokens !== undefined ? { outputTokens } : {}) };
              this.updateMessage(replyId, (message) => (message.role === "assistant" ? { ...message, usage } : message));
            }
          } else if (part.type === "error") {
            throw part.error;
          } else if (part.type === "abort") {
            throw signal.reason ?? new DOMException("Aborted", "AbortError");
          }
        }
      } catch (error) {
        streamError = error;
      }
      if (streamError === undefined || signal.aborted) break;
      const info = this.options.describeError(streamError);
      if (info.code === "rate-limit" && received === 0 && attempt < this.options.maxRetries) {
        const wait = info.retryAfterMs ?? 2000 * (attempt + 1);
        this.setState({ detail: `rate limited, retrying in ${Math.ceil(wait / 1000)} s` });
        try {
          await this.options.sleep(wait, signal);
        } catch {
          break;
        }
        continue;
      }
      break;
    }
    const cut = streamError === undefined ? cutFromFinishReason(finishReason) : undefined;
    // A cut reply's last statement is incomplete: its syntax error is the cut, told as such.
    const cutMidStream = cut !== undefined || (streamError !== undefined && received > 0);
    if (cutMidStream) collector.markCut(lastBlock);
    // Close whatever is open: complete statements of an unterminated fence
    // still run; on a cut, the statement the stream stopped in does not.
    const closing = parser.end().map((event) => (cutMidStream && event.type === "block-end" && event.unterminated ? { ...event, cut: true } : event));
    receive("", [...reasoning.end(), ...closing]);

    if (signal.aborted) {
      this.updateMessage(replyId, (message) => (message.role === "assistant" ? { ...message, state: "stopped" } : message));
      await this.settleRealm(1000);
      return { kind: "stopped" };
    }

    let failure: LlmErrorInfo | undefined;
    if (streamError !== undefined) {
      failure = this.options.describeError(streamError);
      // A broken connection after the reply began is a disconnect; an error the provider sent keeps its own code.
      if (received > 0 && (failure.code === "network" || failure.code === "unknown")) {
        failure = { ...failure, code: "disconnected" };
      }
      const state: ReplyState = received > 0 ? "interrupted" : "error";
      this.updateMessage(replyId, (message) =>
        message.role === "assistant" ? { ...message, state, error: failure } : message,
      );
    } else if (cut) {
      failure = cutNoteForPerson(cut);
      const error = failure;
      this.updateMessage(replyId, (message) => (message.role === "assistant" ? { ...message, state: "interrupted", error } : message));
    } else {
      const ended = this.state.messages.find((message) => message.id === replyId);
      if (ended?.role === "assistant" && ended.reply.thinking?.unterminated) collector.add({ type: "note", message: UNCLOSED_THINKING_FEEDBACK });
    }

    this.setState({ phase: "running" });
    // A form may already be waiting for the person (its await began mid-stream).
    this.updateWaitingPhase();
    try {
      await this.settleRealm(undefined, signal);
    } catch {
      // Stopped while code ran.
    }
    // No wait for drawing: the realm sends its batched mount frames before
    // it answers the flush, and the host reports what it cannot draw as the
    // message arrives (src/render/mountRegistry.ts), so those problems are
    // in this turn's collector already.
    this.currentReplyId = undefined;
    this.currentCollector = undefined;
    if (signal.aborted) {
      this.updateMessage(replyId, (message) => (message.role === "assistant" ? { ...message, state: "stopped" } : message));
      return { kind: "stopped" };
    }
    if (failure) {
      if (received > 0 || cut) return { kind: "interrupted", feedback: collector.text() };
      return { kind: "error" };
    }
    this.updateMessage(replyId, (message) => (message.role === "assistant" ? { ...message, state: "done" } : message));
    return { kind: "ok", feedback: collector.text() };
  }

  /** Wait for the realm to finish this reply's code (or give up on abort). */
  private async settleRealm(timeoutMs?: number, signal?: AbortSignal): Promise<void> {
    // Code may wait for the person (a form) for as long as they like; Stop ends the wait.
    const flushed = this.options.realm.flush(timeoutMs ?? Infinity, signal ? { signal } : undefined);
    if (!signal) {
      await flushed.catch(() => undefined);
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      flushed.then(
        () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
        () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
      );
    });
  }
}
