import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";

/**
 * An invited agent's Markdown as a model stream (AI SDK `LanguageModelV3`),
 * so `Agent.runExternal` sends it through the very turn a model's reply takes:
 * the protocol parser, the realm, the timeline, the lifecycle. The text
 * arrives in pieces, one task each, so it streams and shows as a reply does
 * (statements run as they complete) without holding the page.
 */

export const EXTERNAL_PROVIDER_ID = "livemark.external-agent";
const PIECE = 48;

export function createExternalReply(markdown: string, agentName = "invited agent"): LanguageModelV3 {
  const pieces: string[] = [];
  for (let index = 0; index < markdown.length; index += PIECE) pieces.push(markdown.slice(index, index + PIECE));
  const usage = {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  };
  return {
    specificationVersion: "v3",
    provider: EXTERNAL_PROVIDER_ID,
    modelId: agentName,
    supportedUrls: {},
    async doGenerate() {
      throw new Error("An invited agent's reply only streams.");
    },
    async doStream(call: LanguageModelV3CallOptions) {
      const signal = call.abortSignal;
      signal?.throwIfAborted();
      const parts: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "0" },
        ...pieces.map((delta): LanguageModelV3StreamPart => ({ type: "text-delta", id: "0", delta })),
        { type: "text-end", id: "0" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
      ];
      let next = 0;
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          // One piece per task: the page draws while the reply streams.
          if (next > 1) await new Promise((resolve) => setTimeout(resolve, 0));
          if (signal?.aborted) {
            controller.error(signal.reason ?? new DOMException("The operation was aborted.", "AbortError"));
            return;
          }
          controller.enqueue(parts[next]);
          next += 1;
          if (next === parts.length) controller.close();
        },
      });
      return { stream };
    },
  };
}
