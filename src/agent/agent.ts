import type { LanguageModel } from "ai";
import type { RealmEvent } from "../sandbox/types";
import type { MountRealmMessage } from "../wire/mount";
import type { Attachment } from "./attachments";
import type { ExternalRun } from "./externalAgentTypes";
import { FeedbackCollector } from "./feedback";
import { IMPORTED_END, IMPORTED_START } from "./importedContent";
import { Interaction, type ExternalSource, type InteractionHost } from "./interaction";
import { continueFeedback, editedTimeline, interactionStart } from "./messageActions";
import { toModelMessages } from "./modelMessages";
import { INITIAL_PHASE, nextPhase, type PhaseEvent, type PhaseState } from "./nextPhase";
import { placeMount } from "./placeMount";
import { reviveNotice, reviveSession, type ReviveResult, type ReviveTarget } from "./revive";
import type { Turn, TurnTimeline } from "./turn";
import { abortableSleep } from "./abortableSleep";
import type { AgentOptions, AgentState, ChatMessage, SendRefusal } from "./types";
import { isBusy } from "./types";
import { UiEventTurns } from "./uiEventTurns";

/**
 * The interaction loop (DESIGN.md §1): stream a reply, route its code and data
 * blocks to the realm in protocol order, collect what the realm reports, and
 * send non-empty feedback back as the next turn, until feedback is empty, the
 * turn cap is reached, or the person presses Stop.
 *
 * The agent coordinates; each lifetime has its own module: a reply is a
 * `Turn` (turn.ts), a person's action on a mount starts UI-event turns
 * (uiEventTurns.ts), Revive re-runs the session (revive.ts), and the phase
 * is a value only `nextPhase` (nextPhase.ts) changes.
 *
 * The model, the realm and the clock are passed in, so the loop runs in Node
 * tests against the AI SDK's mock models and the real executor.
 */

export type { RealmEvent };
export type {
  AgentOptions,
  AgentState,
  CallSettings,
  ChatMessage,
  ImportMark,
  LlmErrorInfo,
  Phase,
  RealmPort,
  ReplyState,
  SendRefusal,
} from "./types";
export { isBusy } from "./types";
export { IMPORTED_START, IMPORTED_END };

let counter = 0;
const defaultId = () => `m${Date.now().toString(36)}${(counter++).toString(36)}`;

export class Agent {
  private state: AgentState;
  /** The phase and where a permission ask returns to: changed only by `move` (nextPhase). */
  private phase: PhaseState = INITIAL_PHASE;
  private readonly listeners = new Set<(state: AgentState) => void>();
  private controller: AbortController | undefined;
  private readonly options: Required<Omit<AgentOptions, "maxTurns" | "maxRetries" | "isImported" | "callSettings">> &
    Pick<AgentOptions, "isImported" | "callSettings"> & { maxTurns: number; maxRetries: number };
  /** Realm output that arrived while no interaction ran (timers): waits for the next turn. */
  private idleOutput = new FeedbackCollector();
  /** The running interaction (interaction.ts): its turn owns the realm's output while it listens. */
  private interaction: Interaction | undefined;
  /** Revive's output (reported to the person, never to the model). */
  private reviveOutput: FeedbackCollector | undefined;
  /** While Revive re-runs a reply: which one, the block running, and whether its restored mounts were replaced yet. */
  private reviving: ReviveTarget | undefined;
  /** Runtime output of a reply that was cut mid-stream, sent with Continue. */
  private interruptedFeedback = "";
  /** Mounts whose code awaits the person's input (`await comp.result`). */
  private readonly waitingMounts = new Set<string>();
  private readonly uiTurns: UiEventTurns;
  /** Closing or disposed: nothing new starts (send, edit, Regenerate, Continue, Revive, a UI-event turn). */
  private closed = false;
  private readonly unsubscribeRealm: () => void;
  private readonly unsubscribeMounts: () => void;

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
      phase: this.phase.phase,
      turn: 0,
      maxTurns: this.options.maxTurns,
      // A reply saved mid-stream (tab closed, crash) comes back interrupted.
      canContinue:
        [...initialMessages].reverse().find((message) => message.role === "assistant")?.state === "interrupted",
    };
    this.uiTurns = new UiEventTurns({
      realm: this.options.realm,
      messages: () => this.state.messages,
      closed: () => this.closed,
      busy: () => this.busy,
      defer: (line) => this.idleOutput.add({ type: "note", message: line }),
      start: (body) => {
        this.pushFeedback(body, "ui-event");
        void this.interact();
      },
    });
    this.unsubscribeRealm = this.options.realm.subscribe((event) => this.onRealmEvent(event));
    this.unsubscribeMounts =
      this.options.realm.subscribeMounts?.((message) => this.onMountMessage(message)) ?? (() => undefined);
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

  /** Why a message sent now would be refused; undefined: it would be sent. */
  get refusal(): SendRefusal | undefined {
    if (this.closed) return "closed";
    return this.busy ? "busy" : undefined;
  }

  /**
   * The session is closing (src/session/sessionController.ts): from now on every
   * way in is refused, so nothing reaches an agent about to be disposed; what
   * runs goes on until dispose stops it.
   */
  close(): void {
    this.closed = true;
  }

  dispose(): void {
    this.closed = true;
    this.stop();
    this.unsubscribeRealm();
    this.unsubscribeMounts();
    this.uiTurns.dispose();
    this.listeners.clear();
  }

  /** Stop: abort the LLM stream and interrupt running code. */
  stop(): void {
    if (!this.controller) return;
    this.controller.abort(new DOMException("Stopped by the person", "AbortError"));
    this.options.realm.abort();
  }

  /**
   * The code waits for the person's answer to a capability ask (or no longer
   * does): the status says "Waiting for permission" meanwhile.
   */
  setWaitingForPermission(waiting: boolean): void {
    if (waiting && !this.busy) return;
    this.move({ type: "permission", waiting });
  }

  /**
   * The person acted on a mounted UI: returns the id the UI event carries to
   * the realm (UI_EVENT `eventId`). Output tagged with it (ExecEvent `cause`,
   * also after the handler's `await`s and from timers it started) that
   * arrives while no interaction runs starts a new turn, marked as a UI
   * event (uiEventTurns.ts); untagged output (timers of earlier replies)
   * waits for the next turn instead, however close to the action it arrives.
   */
  noteUiEvent(): number {
    return this.uiTurns.note();
  }

  /** A problem the host found while drawing a mount (unknown component, refused prop): the model hears of it. */
  reportRenderProblem(message: string): void {
    (this.collecting() ?? this.idleOutput).add({ type: "note", message: `UI: ${message}` });
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
    if (this.refusal) return false;
    const messages = editedTimeline(this.state.messages, messageId, text, () => ({
      id: this.options.newId(),
      createdAt: this.options.now(),
    }));
    if (!messages) return false;
    this.setState({ messages, canContinue: false });
    this.interruptedFeedback = "";
    await this.interact();
    return true;
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
    const start = interactionStart(this.state.messages, replyId);
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
    const body = continueFeedback(this.state.messages, this.interruptedFeedback);
    this.interruptedFeedback = "";
    this.pushFeedback(body, "runtime");
    await this.interact();
  }

  /** Revive (revive.ts): re-run the session's blocks in the realm without the model. */
  async revive(): Promise<ReviveResult> {
    if (this.refusal) return { blocks: 0, failures: [] };
    const controller = new AbortController();
    this.controller = controller;
    this.reviveOutput = new FeedbackCollector();
    this.move({ type: "revive-start" }, { detail: "reviving", turn: 0, canContinue: false });
    const result: ReviveResult = { blocks: 0, failures: [] };
    try {
      const host = {
        realm: this.options.realm,
        messages: this.state.messages,
        signal: controller.signal,
        target: (target: ReviveTarget | undefined) => void (this.reviving = target),
      };
      await reviveSession(host, result);
    } finally {
      this.controller = undefined;
      this.reviveOutput = undefined;
      const stopped = controller.signal.aborted;
      const notice = reviveNotice(result, stopped);
      this.notice(notice.text, notice.level);
      this.move({ type: "end", outcome: stopped ? "stopped" : "done" }, { detail: undefined });
    }
    return result;
  }

  /** Where realm output goes now: the listening turn's feedback, Revive's, or none (then it waits for the next turn). */
  private collecting(): FeedbackCollector | undefined {
    return this.listeningTurn()?.collector ?? this.reviveOutput;
  }

  private listeningTurn(): Turn | undefined {
    const turn = this.interaction?.turn;
    return turn?.listening ? turn : undefined;
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
    const collector = this.collecting();
    const cause = event.type === "console" || event.type === "error" ? event.cause : undefined;
    if (!collector && !this.busy && this.uiTurns.tracks(cause)) {
      this.uiTurns.capture(event, cause);
      return;
    }
    (collector ?? this.idleOutput).add(event);
    if (!collector || event.type === "realm-reset") return;
    this.interaction?.lifecycle.exec(event);
    this.listeningTurn()?.exec(event);
  }

  private onMountMessage(message: MountRealmMessage): void {
    this.interaction?.lifecycle.mount(message);
    if (message.kind === "open") {
      const running = { replyId: this.listeningTurn()?.replyId, revive: this.reviving };
      const placed = placeMount(this.state.messages, message, running);
      if (!placed) return;
      if (placed.replacedRestored && this.reviving) this.reviving.replaced = true;
      this.setState({ messages: placed.messages });
    } else if (message.kind === "ops") {
      // By identity: only changes the realm tagged with a tracked action's id.
      this.uiTurns.mountChanged(message.eventId, message.mountId);
    } else if (message.kind === "waiting" || message.kind === "close") {
      if (message.kind === "waiting" && message.waiting) this.waitingMounts.add(message.mountId);
      else this.waitingMounts.delete(message.mountId);
      this.updateWaitingPhase();
    }
  }

  private updateWaitingPhase(): void {
    if (this.busy) this.move({ type: "mounts-waiting", waiting: this.waitingMounts.size > 0 });
  }

  /** The one writer of `phase`: the table decides, the lifecycle records each phase entered, listeners hear once. */
  private move(event: PhaseEvent, patch: Partial<Omit<AgentState, "phase">> = {}): void {
    const next = nextPhase(this.phase, event);
    if (next === this.phase) {
      if (Object.keys(patch).length > 0) this.setState(patch);
      return;
    }
    this.phase = next;
    if (isBusy(next.phase)) this.interaction?.lifecycle.enter(next.phase);
    this.publish({ ...this.state, ...patch, phase: next.phase });
  }

  private setState(patch: Partial<Omit<AgentState, "phase">>): void {
    this.publish({ ...this.state, ...patch });
  }

  private publish(state: AgentState): void {
    this.state = state;
    for (const listener of this.listeners) listener(this.state);
  }

  private updateMessage(id: string, update: (message: ChatMessage) => ChatMessage): void {
    this.setState({ messages: this.state.messages.map((message) => (message.id === id ? update(message) : message)) });
  }

  private push(message: ChatMessage): void {
    this.setState({ messages: [...this.state.messages, message] });
  }

  private notice(text: string, level: "info" | "warn" | "error"): void {
    this.push({ id: this.options.newId(), role: "notice", text, level, createdAt: this.options.now() });
  }

  /** Returns the text the model (or an invited agent) is given. */
  private pushFeedback(body: string, source: "runtime" | "ui-event", to?: "agent"): string {
    const text = this.options.wrapFeedback(body, source);
    this.push({
      id: this.options.newId(),
      role: "feedback",
      body,
      text,
      source,
      createdAt: this.options.now(),
      ...(to ? { to } : {}),
    });
    return text;
  }

  private readonly timeline: TurnTimeline = {
    state: () => this.state,
    push: (message) => this.push(message),
    update: (id, update) => this.updateMessage(id, update),
    move: (event, patch) => this.move(event, patch),
    setDetail: (detail) => this.setState({ detail }),
    checkWaiting: () => this.updateWaitingPhase(),
  };

  private interactionHost(): InteractionHost {
    const { options } = this;
    return {
      turnContext: {
        realm: options.realm,
        model: options.model,
        system: () => (typeof options.system === "function" ? options.system() : options.system),
        callSettings: () => options.callSettings?.() ?? {},
        history: (importedInstruction) =>
          toModelMessages(
            this.state.messages,
            options.isImported ?? ((message) => message.imported === true),
            importedInstruction,
          ),
        createParser: options.createParser,
        describeError: options.describeError,
        wrapFeedback: options.wrapFeedback,
        maxRetries: options.maxRetries,
        now: options.now,
        newId: options.newId,
        sleep: options.sleep,
        timeline: this.timeline,
      },
      maxTurns: () => options.maxTurns,
      setState: (patch) => this.setState(patch),
      pushFeedback: (body, source, to) => this.pushFeedback(body, source, to),
      notice: (text, level) => this.notice(text, level),
      interrupted: (feedback) => {
        this.interruptedFeedback = feedback;
        this.setState({ canContinue: true });
      },
    };
  }

  /** One interaction (interaction.ts); its summary goes on its last reply. */
  private async interact(external?: ExternalSource): Promise<void> {
    const interaction = new Interaction(this.interactionHost(), this.options.now);
    this.interaction = interaction;
    this.controller = interaction.controller;
    this.move({ type: "interaction-start" }, { turn: 0, detail: undefined, canContinue: false });
    // Output from timers while idle joins the first turn's feedback, it never starts one.
    const idle = this.idleOutput;
    this.idleOutput = new FeedbackCollector();
    try {
      await interaction.run(idle.empty ? "" : idle.text(), external);
    } finally {
      this.controller = undefined;
      this.interaction = undefined;
      const summary = interaction.lifecycle.finish(interaction.outcome);
      const lastReplyId = interaction.lastReplyId;
      if (lastReplyId)
        this.updateMessage(lastReplyId, (message) =>
          message.role === "assistant" ? { ...message, summary } : message,
        );
      this.move({ type: "end", outcome: interaction.outcome }, { detail: undefined });
    }
  }
}
