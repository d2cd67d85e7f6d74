import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { EXTERNAL_PROVIDER_ID } from "./externalReply";

/**
 * An ACP agent's message as it streams (`agent_message_chunk`,
 * `agent_thought_chunk`), as a model stream (AI SDK `LanguageModelV3`) fed
 * while it plays: `Agent.runExternal` sends it through the very turn a
 * model's reply takes (the parser, the realm statement by statement, the
 * timeline). Thoughts are the provider's reasoning (shown collapsed, never
 * run). `onAbort` hears the person's Stop (the turn's abort signal).
 */
export interface StreamedReply {
  model: LanguageModelV3;
  text(delta: string): void;
  thought(delta: string): void;
  /** No more parts: the reply finishes (the turn then settles the realm's statements). */
  end(): void;
  readonly ended: boolean;
}

const usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

export function createStreamedReply(agentName: string, onAbort: () => void): StreamedReply {
  const queue: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
  let controller: ReadableStreamDefaultController<LanguageModelV3StreamPart> | undefined;
  let ended = false;
  let open: "text" | "reasoning" | undefined;
  let piece = 0;
  const push = (part: LanguageModelV3StreamPart) => {
    if (controller) controller.enqueue(part);
    else queue.push(part);
  };
  const switchTo = (kind: "text" | "reasoning") => {
    if (open === kind) return;
    if (open) push({ type: open === "text" ? "text-end" : "reasoning-end", id: String(piece) });
    piece += 1;
    open = kind;
    push({ type: kind === "text" ? "text-start" : "reasoning-start", id: String(piece) });
  };
  const finish = () => {
    if (open) push({ type: open === "text" ? "text-end" : "reasoning-end", id: String(piece) });
    open = undefined;
    push({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage });
  };
  const model: LanguageModelV3 = {
    specificationVersion: "v3",
    provider: EXTERNAL_PROVIDER_ID,
    modelId: agentName,
    supportedUrls: {},
    async doGenerate() {
      throw new Error("An ACP agent's reply only streams.");
    },
    async doStream(call: LanguageModelV3CallOptions) {
      const signal = call.abortSignal;
      signal?.throwIfAborted();
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(streamController) {
          controller = streamController;
          for (const part of queue.splice(0)) streamController.enqueue(part);
          if (ended) streamController.close();
          signal?.addEventListener(
            "abort",
            () => {
              if (!ended) onAbort();
              ended = true;
              try {
                streamController.error(signal.reason ?? new DOMException("The operation was aborted.", "AbortError"));
              } catch {
                // Already closed.
              }
            },
            { once: true },
          );
        },
      });
      return { stream };
    },
  };
  return {
    model,
    text(delta) {
      if (ended || !delta) return;
      switchTo("text");
      push({ type: "text-delta", id: String(piece), delta });
    },
    thought(delta) {
      if (ended || !delta) return;
      switchTo("reasoning");
      push({ type: "reasoning-delta", id: String(piece), delta });
    },
    end() {
      if (ended) return;
      finish();
      ended = true;
      controller?.close();
    },
    get ended() {
      return ended;
    },
  };
}
