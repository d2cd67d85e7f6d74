import type { LanguageModel } from "ai";
import type { RealmEvent } from "../sandbox/types";
import { resolveOptions, type ResolvedOptions } from "./agentOptions";
import type { Attachment } from "./attachments";
import type { BlockRef } from "./editBlock";
import type { ExternalRun } from "./externalAgentTypes";
import { IMPORTED_END, IMPORTED_START } from "./importedContent";
import { RealmOutput } from "./realmOutput";
import type { ReviveResult } from "./revive";
import { endUnfinished } from "./reply";
import { Runner } from "./runner";
import { StateStore } from "./stateStore";
import type { AgentOptions, AgentState, ChatMessage, SendRefusal } from "./types";

/**
 * The interaction loop (DESIGN.md §1): stream a reply, route its code and data
 * blocks to the realm in protocol order, collect what the realm reports, and
 * send non-empty feedback back as the next turn, until feedback is empty, the
 * turn cap is reached, or the person presses Stop.
 *
 * The agent coordinates; each lifetime has its own module: the state the UI
 * reads and the phase live in a `StateStore` (stateStore.ts, the phase a
 * value only `nextPhase` changes), the realm's output is routed by
 * `RealmOutput` (realmOutput.ts, with UI-event turns, uiEventTurns.ts), the
 * `Runner` (runner.ts) runs one interaction (interaction.ts) or Revive
 * (revive.ts) at a time, and a reply is a `Turn` (turn.ts). The agent
 * decides what may start (busy, closing) and edits the timeline for the
 * message actions (messageActions.ts).
 *
 * The model, the realm and the clock are passed in, so the loop runs in Node
 * tests against the AI SDK's mock models and the real executor.
 */

export type { RealmEvent };
/** The timeline edits (Edit and resend, Regenerate, the versions' switch) load with the first (the initial JavaScript budget, bench/). */
const timelineEdits = () => import("./messageActions");

export type { AgentOptions, AgentState, CallSettings, ChatMessage, ImportMark, LlmErrorInfo } from "./types";
export type { Phase, RealmPort, ReplyState, SendRefusal } from "./types";
export { isBusy } from "./types";
export type { BlockRef };
export { IMPORTED_START, IMPORTED_END };

export class Agent {
  private readonly options: ResolvedOptions;
  /** The state the UI reads, its listeners and the phase (stateStore.ts). */
  private readonly store: StateStore;
  /** Where the realm's output goes (realmOutput.ts). */
  private readonly output: RealmOutput;
  /** What runs (an interaction or Revive), one at a time (runner.ts). */
  private readonly runner: Runner;
  /** Closing or disposed: nothing new starts (send, edit, Regenerate, Continue, Revive, a UI-event turn). */
  private closed = false;
  /** While the session's older messages are read (`loadingOlder`): settles once they are in. */
  private older: Promise<void> | undefined;

  constructor(options: AgentOptions, initialMessages: ChatMessage[] = []) {
    this.options = resolveOptions(options);
    const { maxTurns, now, newId, wrapFeedback, realm } = this.options;
    const busy = () => this.busy;
    const interaction = () => this.runner.interaction;
    this.store = new StateStore(
      { maxTurns, now, newId, wrapFeedback, busy, entered: (phase) => interaction()?.lifecycle.enter(phase) },
      initialMessages,
    );
    this.runner = new Runner({
      options: this.options,
      store: this.store,
      output: () => this.output,
      older: () => this.older,
    });
    this.output = new RealmOutput({
      realm,
      store: this.store,
      interaction,
      busy,
      closed: () => this.closed,
      startUiTurn: (body) => {
        this.store.pushFeedback(body, "ui-event");
        void this.runner.interact();
      },
    });
  }

  getState(): AgentState {
    return this.store.state();
  }

  subscribe(listener: (state: AgentState) => void): () => void {
    return this.store.subscribe(listener);
  }

  /**
   * A session opened on its newest messages (src/session): its older ones
   * come with `prependOlder`, and `older` settles once they all have (or
   * failed to). Until then a reply (its model reads the whole session), Edit
   * and resend, Regenerate, the versions' switch, Continue, Edit code's Run
   * and Revive wait for them; a message sent shows at once.
   */
  loadingOlder(older: Promise<unknown>): void {
    const settled = older.then(
      () => undefined,
      () => undefined,
    );
    this.older = settled;
    void settled.then(() => {
      if (this.older === settled) this.older = undefined;
    });
  }

  /** Older messages of the session (in order), before those shown. */
  prependOlder(messages: readonly ChatMessage[]): void {
    this.store.prepend(messages);
  }

  /** Settles once the older messages are in (at once when none were loading). */
  olderLoaded(): Promise<void> {
    return this.older ?? Promise.resolve();
  }

  /** Change the cap on automatic turns (takes effect at the next turn). */
  setMaxTurns(maxTurns: number): void {
    this.options.maxTurns = Math.max(1, Math.floor(maxTurns));
    this.store.set({ maxTurns: this.options.maxTurns });
  }

  get busy(): boolean {
    return this.runner.busy;
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
    this.output.dispose();
    this.store.clear();
  }

  /**
   * The session is being left while something runs (the person switched
   * sessions): the timeline records that cause — the running reply stopped,
   * a notice "Interrupted: …" — before anything closes, then Stop. Nothing
   * when idle.
   */
  interrupt(cause: string): void {
    if (!this.busy) return;
    for (const message of this.store.state().messages)
      if (message.role === "assistant" && message.state === "streaming")
        // This agent is about to be dropped: the realm's answer to the stop below would reach nobody.
        this.store.update(message.id, (current) =>
          current.role === "assistant"
            ? { ...current, state: "stopped", reply: endUnfinished(current.reply) }
            : current,
        );
    this.store.notice(`Interrupted: ${cause}.`, "warn");
    this.stop();
  }

  /** Stop: abort the LLM stream and interrupt running code. */
  stop(): void {
    this.runner.stop();
  }

  /** Keep waiting on a stalled model request: the notice goes and the silence is counted again. */
  keepWaiting(): void {
    this.runner.interaction?.turn?.keepWaiting();
  }

  /**
   * The code waits for the person's answer to a capability ask (or no longer
   * does): the status says "Waiting for permission" meanwhile.
   */
  setWaitingForPermission(waiting: boolean): void {
    if (waiting && !this.busy) return;
    this.store.move({ type: "permission", waiting });
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
    return this.output.noteUiEvent();
  }

  /** A problem the host found while drawing a mount (unknown component, refused prop): the model hears of it. */
  reportRenderProblem(message: string): void {
    this.output.reportRenderProblem(message);
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
    this.store.push({
      id: this.options.newId(),
      role: "user",
      text: trimmed,
      createdAt: this.options.now(),
      ...(attachments.length > 0 ? { attachments: [...attachments] } : {}),
    });
    await this.runner.interact();
    return true;
  }

  /** A message from the invited agent's channel (the person's command, the agent's report): shown and saved; no turn starts. */
  record(message: ChatMessage): void {
    this.store.push(message);
  }

  /** Change a recorded message (a question the person answered). */
  amend(id: string, update: (message: ChatMessage) => ChatMessage): void {
    this.store.update(id, update);
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
    await this.runner.interact({ model, run, by });
    return run;
  }

  /**
   * Edit and resend: the person's message `messageId` is replaced by `text`
   * (keeping its attachments) as a new version of the timeline from there;
   * the earlier one, with everything after it, stays a version (‹ 1/2 ›).
   * The new interaction runs in the current realm.
   */
  async editAndResend(messageId: string, text: string): Promise<boolean> {
    if (this.refusal) return false;
    if (this.older) await this.older;
    const { editedTimeline } = await timelineEdits();
    if (this.refusal) return false;
    const { newId, now } = this.options;
    const messages = editedTimeline(this.store.state().messages, messageId, text, () => ({
      id: newId(),
      createdAt: now(),
    }));
    if (!messages) return false;
    this.store.set({ messages, canContinue: false });
    this.runner.interruptedFeedback = "";
    await this.runner.interact();
    return true;
  }

  /**
   * Regenerate: ask the model again from the message that started the
   * interaction that produced `replyId`; its earlier replies (runtime output
   * and notices with them) stay a version (‹ 1/2 ›). The new version begins
   * with a notice saying in which realm it runs. Without `freshRealm` the new
   * run happens in the current realm, whose state the earlier run changed;
   * with it, the realm is replaced (`freshRealm` resets it) and the session's
   * code up to that point is revived first, so the new run starts from that
   * state.
   */
  async regenerate(replyId: string, options: { freshRealm?: () => Promise<void> } = {}): Promise<boolean> {
    if (this.refusal) return false;
    if (this.older) await this.older;
    const { interactionStart, regeneratedTimeline, regenerationNotice } = await timelineEdits();
    const { messages } = this.store.state();
    const start = interactionStart(messages, replyId);
    if (this.refusal || start < 0) return false;
    const notice: ChatMessage = {
      id: this.options.newId(),
      role: "notice",
      level: "info",
      createdAt: this.options.now(),
      text: regenerationNotice(!!options.freshRealm),
    };
    this.store.set({ messages: regeneratedTimeline(messages, start, notice), canContinue: false });
    this.runner.interruptedFeedback = "";
    if (options.freshRealm) {
      await options.freshRealm();
      await this.revive();
      // The reset was asked for and the revive restored the state: the model
      // hears of neither (the person saw both as notices).
      this.output.dropIdle();
    }
    await this.runner.interact();
    return true;
  }

  /**
   * The ‹ › switch: show version `at` of the timeline from `messageId` on.
   * Nothing runs: the realm keeps its state, and the model's next turn reads
   * only the version shown. False when refused (busy, closing) or there is
   * no such version.
   */
  async showVersion(messageId: string, at: number): Promise<boolean> {
    if (this.refusal) return false;
    if (this.older) await this.older;
    const { switchedTimeline } = await timelineEdits();
    if (this.refusal) return false;
    const switched = switchedTimeline(this.store.state().messages, messageId, at);
    if (!switched) return false;
    this.store.set(switched);
    this.runner.interruptedFeedback = "";
    return true;
  }

  /** Resume after a reply was cut mid-stream. */
  async continue(): Promise<void> {
    // Its words load with the first Continue (the model's code loads then too); the state is read after.
    const { continueFeedback } = await import("./cutFeedback");
    if (this.older) await this.older;
    const { messages, canContinue } = this.store.state();
    if (this.refusal || !canContinue) return;
    const body = continueFeedback(messages, this.runner.interruptedFeedback);
    this.runner.interruptedFeedback = "";
    this.store.pushFeedback(body, "runtime");
    await this.runner.interact();
  }

  /**
   * Edit code and re-run (editBlock.ts, `Runner.runBlocks`): run these code
   * blocks with this code, in order, in the current realm, without the
   * model. False at once when refused (busy, closing).
   */
  async runBlocks(runs: readonly { ref: BlockRef; code: string }[]): Promise<boolean> {
    if (this.refusal || runs.length === 0) return false;
    return this.runner.runBlocks(runs);
  }

  /** Run all stale: every stale block of the session again, in order, with the code it holds. */
  async runAllStale(): Promise<boolean> {
    if (this.refusal) return false;
    return this.runner.runBlocks("stale");
  }

  /** Revive (revive.ts): re-run the session's blocks in the realm without the model. */
  async revive(): Promise<ReviveResult> {
    if (this.refusal) return { blocks: 0, failures: [] };
    return this.runner.revive();
  }
}
