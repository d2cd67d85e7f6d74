import type { LanguageModel, ModelMessage } from "ai";
import type { ProtocolEvent, ProtocolParser } from "../protocol/types";
import type { ExecEvent } from "../wire/events";
import { runningDetail } from "./blockPlaces";
import { shownOnlyFences, shownOnlyNote } from "./shownOnly";
import { FeedbackCollector } from "./feedback";
import { UNCLOSED_THINKING_FEEDBACK, cutFromFinishReason, cutNoteForPerson } from "./finishReason";
import type { InteractionLifecycle } from "./interactionLifecycle";
import type { PhaseEvent } from "./nextPhase";
import { applyExecEvent, applyProtocolEvent, emptyReply, runningStatement, type ProviderThinkingStart } from "./reply";
import { createBlockRouter } from "./routeBlocks";
import { settleRealm } from "./settleRealm";
import type { StallClock, StallLimits, StallWatch } from "./stallWatch";
import { ProviderReasoning, stampThinking } from "./thinking";
import type { AgentState, CallSettings, ChatMessage, LlmErrorInfo, RealmPort, ReplyState } from "./types";

/**
 * One reply, from its first token to its settled code (the AI SDK's "step"):
 * it owns the reply's stream and rate-limit retries, feeds the parser, routes
 * code and data blocks to the realm, patches its message in the timeline,
 * handles a cut (token limit, content filter, dropped connection) and waits
 * for the realm to settle. Its outcome says what the interaction does next.
 *
 * The realm's output belongs to the turn from its start until its code
 * settled (`listening`); RealmOutput (realmOutput.ts) hands it over (`exec`, `collector`).
 */

export type TurnOutcome =
  /** `deferred`: notes that do not call for a turn of their own (`FeedbackCollector.onlyNotes`); they wait for the next one. */
  | { kind: "ok"; feedback: string; deferred?: string }
  | { kind: "stopped" }
  | { kind: "error" }
  | { kind: "interrupted"; feedback: string };

/** The agent's state, as a turn may change it. */
export interface TurnTimeline {
  state(): AgentState;
  push(message: ChatMessage): void;
  update(id: string, update: (message: ChatMessage) => ChatMessage): void;
  /** The phase moves (nextPhase.ts), with other fields of the state in the same update. */
  move(event: PhaseEvent, patch?: { detail?: string }): void;
  setDetail(detail: string | undefined): void;
  /** Seconds the open model request has been silent past its limit (stallWatch.ts), or `undefined`. */
  setStalled(seconds: number | undefined): void;
  /** Enter "waiting-input" now if some mount's code already awaits the person. */
  checkWaiting(): void;
}

export interface TurnContext {
  realm: RealmPort;
  model: () => LanguageModel | Promise<LanguageModel>;
  system: () => string | Promise<string>;
  callSettings: () => CallSettings;
  /** The timeline as the model reads it (modelMessages.ts). */
  history: (importedInstruction?: string) => ModelMessage[];
  createParser: () => ProtocolParser | Promise<ProtocolParser>;
  describeError: (error: unknown) => LlmErrorInfo;
  wrapFeedback: (body: string, source: "runtime" | "ui-event") => string;
  maxRetries: number;
  now: () => number;
  newId: () => string;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** When an open request counts as stalled (default `STALL_LIMITS`); and the clock that tells (default: the real one). */
  stall?: StallLimits;
  stallClock?: StallClock;
  lifecycle: InteractionLifecycle;
  timeline: TurnTimeline;
}

export class Turn {
  readonly replyId: string;
  /** What the realm reported while this turn listened: the next turn's feedback. */
  readonly collector = new FeedbackCollector();
  private settled = false;
  /** The open model request's stall watch (none between attempts). */
  private watch: StallWatch | undefined;

  constructor(
    private readonly context: TurnContext,
    /** Another reply source for this turn (an invited agent); default: the session's model. */
    private readonly source?: { model: LanguageModel; by?: string },
  ) {
    this.replyId = context.newId();
  }

  /** Realm output belongs to this turn until its code has settled. */
  get listening(): boolean {
    return !this.settled;
  }

  /** A realm event while the turn listens: the reply's statements and the status line follow it. */
  exec(event: ExecEvent): void {
    const { timeline } = this.context;
    const replyId = this.replyId;
    timeline.update(replyId, (message) => {
      if (message.role !== "assistant") return message;
      const reply = applyExecEvent(message.reply, event);
      return reply === message.reply ? message : { ...message, reply };
    });
    const state = timeline.state();
    if (state.phase === "running" || state.phase === "streaming") {
      const current = state.messages.find((message) => message.id === replyId);
      if (current?.role === "assistant") {
        const running = runningStatement(current.reply);
        const detail = running ? runningDetail(current.reply.blocks, running) : undefined;
        if (detail !== state.detail) timeline.setDetail(detail);
      }
    }
  }

  /** Keep waiting: the stall notice goes and the silence is counted again. */
  keepWaiting(): void {
    this.watch?.keepWaiting();
  }

  /** One line for each plain jsx/tsx fence of the reply that looks meant to run (shownOnly.ts). */
  private noteShownOnly(collector: FeedbackCollector): void {
    const reply = this.context.timeline.state().messages.find((message) => message.id === this.replyId);
    if (reply?.role !== "assistant") return;
    for (const block of reply.reply.blocks) {
      if (block.kind !== "text") continue;
      for (const fence of shownOnlyFences(block.text, block.line))
        collector.add({ type: "note", message: shownOnlyNote(fence), wait: true });
    }
  }

  /** `carried`: runtime output from before the interaction, sent after the history. */
  async run(signal: AbortSignal, carried: string): Promise<TurnOutcome> {
    const { context } = this;
    const { timeline, realm } = context;
    const replyId = this.replyId;
    const collector = this.collector;
    const by = this.source?.by;
    timeline.push({
      id: replyId,
      role: "assistant",
      text: "",
      reply: emptyReply(),
      state: "streaming",
      createdAt: context.now(),
      ...(by ? { by } : {}),
    });
    timeline.move({ type: "reply-start" }, { detail: undefined });
    realm.beginReply();
    const parser = await context.createParser();

    /** Code and data blocks go to the realm, in protocol order; protocol errors to the feedback; thinking stays here. */
    const route = createBlockRouter((event) => realm.sendBlock(event));
    /** The highest block index the parser has started (a cut marks it). */
    let lastBlock = -1;
    /** One state update per chunk: the raw text and the block view together. */
    const receive = (text: string, events: readonly (ProtocolEvent | ProviderThinkingStart)[]) => {
      for (const event of events) if (event.type === "block-start" && event.index > lastBlock) lastBlock = event.index;
      for (const problem of route(events)) if (problem.type === "protocol-error") collector.add(problem);
      if (text === "" && events.length === 0) return;
      timeline.update(replyId, (message) => {
        if (message.role !== "assistant") return message;
        let reply = message.reply;
        for (const event of events) reply = applyProtocolEvent(reply, event);
        reply = stampThinking(reply, context.now());
        return { ...message, text: message.text + text, reply };
      });
    };

    const { streamError, finishReason, received, reasoning } = await this.stream(signal, carried, parser, receive);

    const cut = streamError === undefined ? cutFromFinishReason(finishReason) : undefined;
    // A cut reply's last statement is incomplete: its syntax error is the cut, told as such.
    const cutMidStream = cut !== undefined || (streamError !== undefined && received > 0);
    if (cutMidStream) collector.markCut(lastBlock);
    // Close whatever is open: complete statements of an unterminated fence
    // still run; on a cut, the statement the stream stopped in does not.
    const closing = parser
      .end()
      .map((event) =>
        cutMidStream && event.type === "block-end" && event.unterminated ? { ...event, cut: true } : event,
      );
    receive("", [...reasoning.end(), ...closing]);

    if (signal.aborted) {
      this.markReply("stopped");
      await settleRealm(realm, 1000);
      return { kind: "stopped" };
    }

    let failure: LlmErrorInfo | undefined;
    if (streamError !== undefined) {
      failure = context.describeError(streamError);
      // A broken connection after the reply began is a disconnect; an error the provider sent keeps its own code.
      if (received > 0 && (failure.code === "network" || failure.code === "unknown")) {
        failure = { ...failure, code: "disconnected" };
      }
      this.markReply(received > 0 ? "interrupted" : "error", failure);
    } else if (cut) {
      failure = cutNoteForPerson(cut);
      this.markReply("interrupted", failure);
    } else {
      const ended = timeline.state().messages.find((message) => message.id === replyId);
      if (ended?.role === "assistant" && ended.reply.thinking?.unterminated)
        collector.add({ type: "note", message: UNCLOSED_THINKING_FEEDBACK });
    }

    timeline.move({ type: "reply-streamed" });
    // A form may already be waiting for the person (its await began mid-stream).
    timeline.checkWaiting();
    try {
      await settleRealm(realm, undefined, signal);
    } catch {
      // Stopped while code ran.
    }
    // No wait for drawing: the realm sends its batched mount frames before
    // it answers the flush, and the host reports what it cannot draw as the
    // message arrives (src/render/mountRegistry.ts), so those problems are
    // in this turn's collector already.
    this.settled = true;
    if (signal.aborted) {
      this.markReply("stopped");
      return { kind: "stopped" };
    }
    if (failure) {
      if (received > 0 || cut) return { kind: "interrupted", feedback: collector.text() };
      return { kind: "error" };
    }
    this.markReply("done");
    this.noteShownOnly(collector);
    if (collector.onlyNotes) return { kind: "ok", feedback: "", deferred: collector.text() };
    return { kind: "ok", feedback: collector.text() };
  }

  /** The reply's state (and why it failed or was cut). */
  private markReply(state: ReplyState, error?: LlmErrorInfo): void {
    this.context.timeline.update(this.replyId, (message) =>
      message.role === "assistant" ? { ...message, state, ...(error ? { error } : {}) } : message,
    );
  }

  /**
   * The model's stream, retried on a rate limit that came before any text
   * (at most `maxRetries` times, after the wait the provider asked for).
   * Text goes through the parser; the provider's reasoning is shown as
   * thinking and never parsed.
   */
  private async stream(
    signal: AbortSignal,
    carried: string,
    parser: ProtocolParser,
    receive: (text: string, events: readonly (ProtocolEvent | ProviderThinkingStart)[]) => void,
  ): Promise<{
    streamError: unknown;
    finishReason: string | undefined;
    received: number;
    reasoning: ProviderReasoning;
  }> {
    const { context, source } = this;
    const { timeline } = context;
    const replyId = this.replyId;
    const reasoning = new ProviderReasoning();
    let received = 0;
    let finishReason: string | undefined;
    let streamError: unknown;
    for (let attempt = 0; ; attempt += 1) {
      streamError = undefined;
      try {
        // Loaded on first use: keeps the AI SDK (and the stall watch) out of the app's initial JavaScript.
        const [{ streamText }, { StallWatch, watchedModel }] = await Promise.all([
          import("ai"),
          import("./stallWatch"),
        ]);
        const watch = new StallWatch((seconds) => timeline.setStalled(seconds), context.stall, context.stallClock);
        this.watch = watch;
        const model = watchedModel(source?.model ?? (await context.model()), watch);
        const modelId = typeof model === "string" ? model : model.modelId;
        timeline.update(replyId, (message) =>
          message.role === "assistant" && message.model !== modelId ? { ...message, model: modelId } : message,
        );
        const call = context.callSettings();
        const instruction = call.instruction?.trim();
        const baseSystem = await context.system();
        const result = streamText({
          model,
          system: instruction
            ? `${baseSystem}\n\n## The person's instruction for this session\n\n${instruction}`
            : baseSystem,
          ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
          // Another source brings its own text: it reads no history (and the SDK wants one message).
          messages: source
            ? [{ role: "user", content: "(reply from another source)" }]
            : context
                .history(call.importedInstruction?.trim())
                .concat(carried ? [{ role: "user", content: context.wrapFeedback(carried, "runtime") }] : []),
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
            context.lifecycle.usage(part.totalUsage);
            const { inputTokens, outputTokens } = part.totalUsage ?? {};
            if (inputTokens !== undefined || outputTokens !== undefined) {
              const usage = {
                ...(inputTokens !== undefined ? { inputTokens } : {}),
                ...(outputTokens !== undefined ? { outputTokens } : {}),
              };
              timeline.update(replyId, (message) => (message.role === "assistant" ? { ...message, usage } : message));
            }
          } else if (part.type === "error") {
            throw part.error;
          } else if (part.type === "abort") {
            throw signal.reason ?? new DOMException("Aborted", "AbortError");
          }
        }
      } catch (error) {
        streamError = error;
      } finally {
        this.watch?.end();
        this.watch = undefined;
      }
      if (streamError === undefined || signal.aborted) break;
      const info = context.describeError(streamError);
      if (info.code === "rate-limit" && received === 0 && attempt < context.maxRetries) {
        const wait = info.retryAfterMs ?? 2000 * (attempt + 1);
        // Counted down on the status line, one step per whole second left.
        let stopped = false;
        for (let left = wait; left > 0;) {
          timeline.setDetail(`rate limited, retrying in ${Math.ceil(left / 1000)} s`);
          const step = left % 1000 || 1000;
          try {
            await context.sleep(step, signal);
          } catch {
            stopped = true;
            break;
          }
          left -= step;
        }
        if (stopped) break;
        continue;
      }
      break;
    }
    return { streamError, finishReason, received, reasoning };
  }
}
