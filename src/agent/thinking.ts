import type { ThinkingEvent } from "../protocol/types";
import { splitThinking } from "../protocol/thinking";
import type { ProviderThinkingStart, ReplyView } from "./reply";

/**
 * Thinking outside the protocol path: the provider's reasoning stream (AI SDK
 * `reasoning-*` parts, which OpenAI-compatible servers send as
 * `reasoning_content`/`reasoning` deltas) becomes the same thinking events
 * the parser emits for a `<think>` section. It never reaches the parser, so
 * nothing in it can run.
 */
export class ProviderReasoning {
  /** Reasoning has begun and not ended yet. */
  open = false;

  /** A reasoning delta from the provider. */
  delta(text: string): (ThinkingEvent | ProviderThinkingStart)[] {
    if (text === "") return [];
    const events: (ThinkingEvent | ProviderThinkingStart)[] = [];
    if (!this.open) {
      events.push({ type: "thinking-start", tag: "provider" });
      this.open = true;
    }
    events.push({ type: "thinking-delta", text });
    return events;
  }

  /** The reasoning ended (`reasoning-end`, or the answer's text began). */
  close(): ThinkingEvent[] {
    if (!this.open) return [];
    this.open = false;
    return [{ type: "thinking-end", unterminated: false }];
  }

  /** The stream ended: reasoning still open then means the reply ended inside it. */
  end(): ThinkingEvent[] {
    if (!this.open) return [];
    this.open = false;
    return [{ type: "thinking-end", unterminated: true }];
  }
}

/** Stamps the thinking view's clock times: its first part, and its end. */
export function stampThinking(reply: ReplyView, now: number): ReplyView {
  const thinking = reply.thinking;
  if (!thinking) return reply;
  if (thinking.startedAt === undefined)
    return { ...reply, thinking: { ...thinking, startedAt: now, ...(thinking.closed ? { endedAt: now } : {}) } };
  if (thinking.closed && thinking.endedAt === undefined) return { ...reply, thinking: { ...thinking, endedAt: now } };
  if (!thinking.closed && thinking.endedAt !== undefined) {
    const { endedAt: _ended, ...open } = thinking;
    return { ...reply, thinking: open };
  }
  return reply;
}

/**
 * What the model is shown of one of its earlier replies: the answer without
 * the leading thinking section (most providers ask that thinking is not sent
 * back; a reply's drafts would also read as things it said).
 */
export function answerForModel(text: string): string {
  return splitThinking(text).answer;
}

/** The whole-second duration for "Thought for N s" (at least 1). */
export function thinkingSeconds(thinking: { startedAt?: number; endedAt?: number }): number | undefined {
  if (thinking.startedAt === undefined || thinking.endedAt === undefined) return undefined;
  return Math.max(1, Math.round((thinking.endedAt - thinking.startedAt) / 1000));
}
