/**
 * `ai` in the realm: model calls from code and generated UIs, performed by
 * the host's model-call broker (AI_CALL, AI_NEXT; src/capabilities/ai). The
 * realm sends the prompt and gets text back; the model, the key, the base
 * URL and the headers stay on the host, which asks the person and keeps the
 * session's token budget.
 *
 * ```ts
 * const text = await ai.complete("Translate to French: good morning", { maxTokens: 100 })
 * for await (const piece of ai.stream([{ role: "user", content: "A haiku" }], { signal })) out += piece
 * ```
 *
 * How it fails, so the model can adapt:
 * - the person denied it, model calls are off, the budget is spent → CapabilityError with the host's sentence;
 * - too many calls at once, a prompt too long, a UI the commit limit paused → AiError with its `code`
 *   (`too-many-calls`, `too-large`, `paused`), the last two before anything is sent;
 * - aborted by the caller's signal → the signal's reason (an AbortError), as `fetch` does;
 * - the model's provider failed, too slow, stopped → AiError (`failed`, `timeout`, `aborted`).
 *
 * Invariants:
 * 1. A call from a mount the commit limit paused is refused here, and the
 *    calls such a mount has in flight end when it is paused.
 * 2. `ai` holds nothing of the host: its two functions and the realm's own requests.
 */
import {
  AI_CALL,
  AI_NEXT,
  MAX_AI_CALLS_IN_FLIGHT,
  MAX_AI_PROMPT_CHARS,
  type AiCallPayload,
  type AiCallResponse,
  type AiMessagePayload,
  type AiNextResponse,
} from "../../../../src/wire/capabilities";
import type { JsonValue } from "../../../../src/wire/mount";
import { CapabilityError } from "../CapabilityError";
import type { HostRequests } from "../createHostRequests";
import type { MountCaller } from "../ui/createMountRuntime";

export type AiErrorCode = "invalid" | "too-large" | "too-many-calls" | "paused" | "failed" | "timeout" | "aborted";

/** A model call that failed; `code` says how (branch on it, not on the message). */
export class AiError extends Error {
  override readonly name = "AiError";
  constructor(
    readonly code: AiErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Which mount is calling (the UI runtime's `caller`), and when one is paused. */
export interface MountCallers {
  caller(): MountCaller | undefined;
  onPause(listener: (mountId: string) => void): void;
}

interface Options {
  system?: unknown;
  maxTokens?: unknown;
  temperature?: unknown;
  signal?: unknown;
}

/** The prompt as the host reads it; what is plainly wrong is refused here, before anything is sent. */
function prepare(input: unknown, options: Options, stream: boolean): AiCallPayload {
  let system = options.system === undefined ? undefined : options.system;
  if (system !== undefined && typeof system !== "string")
    throw new AiError("invalid", "ai: `system` is a string (the instruction the model follows)");
  let messages: AiMessagePayload[];
  if (typeof input === "string") messages = [{ role: "user", content: input }];
  else if (Array.isArray(input)) {
    messages = [];
    for (const message of input as unknown[]) {
      const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
      if (typeof content !== "string" || (role !== "user" && role !== "assistant" && role !== "system"))
        throw new AiError(
          "invalid",
          'ai: pass a prompt string, or messages as [{ role: "user" | "assistant" | "system", content: string }]',
        );
      // A system message joins the system text (the host sends one).
      if (role === "system") system = system === undefined ? content : `${system}\n\n${content}`;
      else messages.push({ role, content });
    }
  } else throw new AiError("invalid", "ai: pass a prompt string or an array of { role, content } messages");
  if (messages.length === 0) throw new AiError("invalid", "ai: the prompt has no user message");
  const chars = messages.reduce(
    (sum, message) => sum + message.content.length,
    (system as string | undefined)?.length ?? 0,
  );
  if (chars > MAX_AI_PROMPT_CHARS)
    throw new AiError(
      "too-large",
      `ai: the prompt is ${chars.toLocaleString("en-US")} characters, over the limit of ${MAX_AI_PROMPT_CHARS.toLocaleString("en-US")}; send a shorter one (a summary, or a part)`,
    );
  const payload: AiCallPayload = { messages, stream };
  if (system !== undefined) payload.system = system as string;
  if (options.maxTokens !== undefined) payload.maxTokens = options.maxTokens as number;
  if (options.temperature !== undefined) payload.temperature = options.temperature as number;
  return payload;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

const PAUSED =
  "ai: this UI was paused for re-rendering faster than the page can draw, so its model calls are refused. Call the model on a click or a submit, never on render or in an effect that sets state.";

/** The host's refusal as the code sees it. */
function fromHost(error: unknown, signal: AbortSignal | undefined, paused: () => boolean): unknown {
  if (signal?.aborted) return abortError(signal);
  if (paused()) return new AiError("paused", PAUSED);
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  switch (code) {
    case "denied":
    case "ai-off":
    case "over-budget":
    case "too-many-asks":
      return CapabilityError.fromHost("ai", code, message ?? "the model call was not allowed");
    case "too-many-calls":
    case "too-large":
    case "invalid":
    case "timeout":
    case "aborted":
      return new AiError(code, message ?? `ai: ${code}`);
    default:
      return new AiError("failed", message ?? `ai: the model call failed (${String(code ?? error)})`);
  }
}

export function createRealmAi(requests: () => HostRequests | undefined, mounts?: MountCallers): object {
  /** The calls each mount has in flight: a pause ends them. */
  const flying = new Map<string, Set<AbortController>>();
  /** Calls under way from this realm (the host counts the session's too). */
  let under = 0;
  mounts?.onPause((mountId) => {
    for (const controller of flying.get(mountId) ?? []) controller.abort();
    flying.delete(mountId);
  });

  /** Runs `work` with a signal that ends with the caller's signal or its mount's pause. */
  async function charged<T>(options: Options, work: (host: HostRequests, signal: AbortSignal) => Promise<T>) {
    const signal = options.signal instanceof AbortSignal ? options.signal : undefined;
    if (signal?.aborted) throw abortError(signal);
    const caller = mounts?.caller();
    if (caller?.paused) throw new AiError("paused", PAUSED);
    const host = requests();
    if (!host) throw new CapabilityError("ai", "ai.complete", "this realm is not connected to the page");
    if (under >= MAX_AI_CALLS_IN_FLIGHT)
      throw new AiError(
        "too-many-calls",
        `ai: ${MAX_AI_CALLS_IN_FLIGHT} model calls are already under way; this one was refused. Await each call before the next: a UI calls the model on a click, never on every render.`,
      );
    under += 1;
    const own = new AbortController();
    const onAbort = () => own.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    let calls: Set<AbortController> | undefined;
    if (caller) {
      calls = flying.get(caller.id) ?? new Set();
      flying.set(caller.id, calls);
      calls.add(own);
    }
    try {
      return await work(host, own.signal);
    } catch (error) {
      throw fromHost(error, signal, () => caller?.paused === true);
    } finally {
      under -= 1;
      signal?.removeEventListener("abort", onAbort);
      calls?.delete(own);
    }
  }

  const complete = async function complete(input: unknown, options: Options = {}): Promise<string> {
    const payload = prepare(input, options ?? {}, false);
    return charged(options ?? {}, async (host, signal) => {
      // The person may take their time to answer; the host bounds the call itself.
      const answer = (await host.request(AI_CALL, payload as unknown as JsonValue, {
        timeoutMs: Infinity,
        signal,
      })) as unknown as AiCallResponse;
      return "text" in answer ? answer.text : "";
    });
  };

  const stream = function stream(input: unknown, options: Options = {}): AsyncIterable<string> {
    const payload = prepare(input, options ?? {}, true);
    return {
      [Symbol.asyncIterator]() {
        let id: string | undefined;
        let finished = false;
        const cancel = () => {
          if (id === undefined || finished) return;
          finished = true;
          void requests()
            ?.request(AI_NEXT, { stream: id, cancel: true }, { timeoutMs: 10_000 })
            .catch(() => undefined);
        };
        // The caller's signal ends the call at once, also between two pulls.
        const signal = (options ?? {}).signal;
        if (signal instanceof AbortSignal) signal.addEventListener("abort", cancel, { once: true });
        return {
          async next(): Promise<IteratorResult<string>> {
            // Aborted, as fetch's body is: the next pull rejects with the signal's reason.
            if (signal instanceof AbortSignal && signal.aborted) throw abortError(signal);
            if (finished) return { done: true, value: undefined };
            try {
              return await charged(options ?? {}, async (host, signal) => {
                if (id === undefined) {
                  const started = (await host.request(AI_CALL, payload as unknown as JsonValue, {
                    timeoutMs: Infinity,
                    signal,
                  })) as unknown as AiCallResponse;
                  id = "stream" in started ? started.stream : "";
                }
                for (;;) {
                  const part = (await host.request(
                    AI_NEXT,
                    { stream: id },
                    { timeoutMs: Infinity, signal },
                  )) as unknown as AiNextResponse;
                  if (part.done) finished = true;
                  if (part.text !== "") return { done: false, value: part.text };
                  if (part.done) return { done: true, value: undefined };
                }
              });
            } catch (error) {
              cancel();
              finished = true;
              throw error;
            }
          },
          async return(): Promise<IteratorResult<string>> {
            cancel();
            finished = true;
            return { done: true, value: undefined };
          },
        };
      },
    };
  };

  const ai = Object.create(null) as Record<string, unknown>;
  Object.defineProperties(ai, {
    complete: { value: complete, enumerable: true },
    stream: { value: stream, enumerable: true },
    [Symbol.toStringTag]: { value: "AI" },
  });
  return Object.freeze(ai);
}
