/**
 * Why a reply ended before the model finished it, and what the model and the
 * person are told about it. Pure: a reply view in, sentences out. What
 * Continue tells the model (where the reply was cut, what ran) is
 * cutFeedback.ts, loaded with the first Continue.
 *
 * - `length`: the provider stopped at the maximum output length
 *   (`finish_reason: "length"`).
 * - `content-filter`: the provider's content filter stopped it.
 * - `disconnected`: the connection dropped mid-stream.
 * - `provider-error`: the provider sent an error mid-stream.
 * - `closed`: the page was closed while it streamed (a reply restored
 *   mid-stream).
 */
export type CutReason = "length" | "content-filter" | "disconnected" | "provider-error" | "closed";

/** Error codes a cut reply carries on its message (`LlmErrorInfo.code`). */
export const CUT_CODES = {
  length: "length",
  contentFilter: "content-filter",
} as const;

/**
 * The cut a stream's finish reason means, for a stream that ended without an
 * error; `undefined` when the model finished its reply (stop, tool calls,
 * other, unknown).
 */
export function cutFromFinishReason(finishReason: string | undefined): "length" | "content-filter" | undefined {
  if (finishReason === "length") return "length";
  if (finishReason === "content-filter") return "content-filter";
  return undefined;
}

/** The cut a stored reply's state and error code stand for (a reply that was not cut: `undefined`). */
export function cutOfReply(reply: { state: string; error?: { code: string; message: string } }): CutReason | undefined {
  if (reply.state !== "interrupted") return undefined;
  const code = reply.error?.code;
  if (code === undefined) return "closed";
  if (code === "length") return "length";
  if (code === "content-filter") return "content-filter";
  if (code === "disconnected") return "disconnected";
  return "provider-error";
}

/** True for a reply the provider or the connection cut before the model finished it. */
export function isCutReply(reply: { state: string; error?: { code: string; message: string } }): boolean {
  return cutOfReply(reply) !== undefined;
}

/** What the person reads on a cut reply, with the next step. */
export function cutNoteForPerson(reason: "length" | "content-filter"): {
  code: string;
  message: string;
  retryable: boolean;
} {
  if (reason === "length") {
    return {
      code: CUT_CODES.length,
      message:
        "This reply was cut at the token limit. Press Continue to let the model go on from where it stopped; to allow longer replies, raise max tokens in Settings.",
      retryable: true,
    };
  }
  return {
    code: CUT_CODES.contentFilter,
    message:
      "The provider's content filter stopped this reply. Press Continue to let the model go on from where it stopped, or rephrase your request.",
    retryable: true,
  };
}

/** Told to the model when a reply ended inside its thinking section although the model finished it. */
export const UNCLOSED_THINKING_FEEDBACK =
  "Your reply ended inside its thinking section (the closing tag never came), so none of it was shown as your answer or run. Write the answer after the closing tag.";
