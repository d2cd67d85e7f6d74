/**
 * The offline demo model: an AI SDK language model (`LanguageModelV3`) that
 * replays scripted replies (./demoScripts) token by token, so a new person
 * sees every data flow in seconds, through the very same pipeline as a real
 * model (`streamText`, the protocol parser, the realm, the feedback loop).
 *
 * - The reply is chosen from the conversation alone (./selectDemoReply): the
 *   person's message picks a script, runtime-output messages advance it.
 * - It streams in pieces of 2–6 characters at `tokensPerSecond` (default
 *   120), after a short first-token latency. The cuts come from a PRNG seeded
 *   by the reply, so the same reply always streams in the same pieces.
 * - It honours the abort signal the way `fetch` does: the stream errors with
 *   the signal's reason (an `AbortError`), and no timer outlives it.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { DEMO_SCRIPTS, type DemoScript } from "./demoScripts";
import { estimateTokens } from "./estimateTokens";
import { selectDemoReply, type DemoMessage } from "./selectDemoReply";

export const DEMO_PROVIDER_ID = "livemark.demo";
export const DEMO_MODEL_ID = "livemark-demo";

export interface DemoModelOptions {
  /** Streaming pace (default 120 pieces per second, one piece ≈ one token). */
  tokensPerSecond?: number;
  /** Fixed delay between pieces in ms; overrides `tokensPerSecond`. `0` streams as fast as the event loop allows. */
  delayMs?: number;
  /** Delay before the first piece (default 250 ms; `0` when `delayMs` is 0). */
  firstTokenDelayMs?: number;
  /** The scripts to choose from (default: all of ./demoScripts). */
  scripts?: readonly DemoScript[];
  /**
   * Runs before a reply of a script streams (awaited): the page connects the
   * built-in demo MCP server for a script that `usesDemoTools`.
   */
  prepare?: (script: DemoScript) => Promise<void> | void;
}

export function createDemoModel(options: DemoModelOptions = {}): LanguageModelV3 {
  const scripts = options.scripts ?? DEMO_SCRIPTS;
  const interval = options.delayMs ?? 1000 / Math.max(1, options.tokensPerSecond ?? 120);
  const firstDelay = options.firstTokenDelayMs ?? (options.delayMs === 0 ? 0 : 250);

  return {
    specificationVersion: "v3",
    provider: DEMO_PROVIDER_ID,
    modelId: DEMO_MODEL_ID,
    supportedUrls: {},

    async doGenerate(call: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
      call.abortSignal?.throwIfAborted();
      const reply = selectDemoReply(call.prompt as readonly DemoMessage[], scripts);
      if (reply.script.usesDemoTools) await options.prepare?.(reply.script);
      const text = reply.text;
      return {
        content: [{ type: "text", text }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: usage(call, splitIntoPieces(text).length),
        warnings: [],
      };
    },

    async doStream(call: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
      const signal = call.abortSignal;
      signal?.throwIfAborted();
      const reply = selectDemoReply(call.prompt as readonly DemoMessage[], scripts);
      if (reply.script.usesDemoTools) await options.prepare?.(reply.script);
      signal?.throwIfAborted();
      const pieces = splitIntoPieces(reply.text);
      const parts: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        {
          type: "response-metadata",
          id: `demo-${reply.script.name}-${reply.step}`,
          modelId: DEMO_MODEL_ID,
          timestamp: new Date(),
        },
        { type: "text-start", id: "0" },
        ...pieces.map((delta): LanguageModelV3StreamPart => ({ type: "text-delta", id: "0", delta })),
        { type: "text-end", id: "0" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(call, pieces.length) },
      ];
      const firstDelta = 3;
      const lastDelta = firstDelta + pieces.length - 1;

      let next = 0;
      let started = 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let wake: (() => void) | undefined;
      let onAbort: (() => void) | undefined;

      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          if (!signal) return;
          onAbort = () => {
            if (timer !== undefined) clearTimeout(timer);
            wake?.();
            try {
              controller.error(signal.reason ?? new DOMException("The operation was aborted.", "AbortError"));
            } catch {
              // Already closed.
            }
          };
          signal.addEventListener("abort", onAbort, { once: true });
        },
        async pull(controller) {
          if (next >= firstDelta && next <= lastDelta) {
            // Pace against a schedule, not per piece, so timer lateness does not add up.
            if (started === 0) {
              await wait(firstDelay);
              started = now();
            }
            const due = started + (next - firstDelta) * interval;
            await wait(due - now());
          }
          if (signal?.aborted) return;
          controller.enqueue(parts[next]);
          next += 1;
          if (next === parts.length) {
            signal?.removeEventListener("abort", onAbort!);
            controller.close();
          }
        },
        cancel() {
          if (timer !== undefined) clearTimeout(timer);
          wake?.();
          if (onAbort) signal?.removeEventListener("abort", onAbort);
        },
      });

      function wait(ms: number): Promise<void> {
        if (ms <= 0) return Promise.resolve();
        return new Promise((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, ms);
        });
      }

      return { stream, request: { body: { script: reply.script.name, step: reply.step } } };
    },
  };
}

/**
 * Cut `text` into pieces of 2–6 characters (the last may be shorter),
 * never inside a surrogate pair. Deterministic for a given text.
 */
export function splitIntoPieces(text: string): string[] {
  const random = mulberry32(hash(text));
  const pieces: string[] = [];
  let index = 0;
  while (index < text.length) {
    let end = Math.min(text.length, index + 2 + Math.floor(random() * 5));
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff && end < text.length) end += 1;
    pieces.push(text.slice(index, end));
    index = end;
  }
  return pieces;
}

function usage(call: LanguageModelV3CallOptions, outputTokens: number): LanguageModelV3Usage {
  const promptText = call.prompt
    .map((message) =>
      typeof message.content === "string"
        ? message.content
        : message.content.map((part) => ("text" in part ? part.text : "")).join(""),
    )
    .join("\n");
  const inputTokens = estimateTokens(promptText);
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
  };
}

function now(): number {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}

function hash(text: string): number {
  let value = 2166136261;
  for (let index = 0; index < text.length; index++) {
    value ^= text.charCodeAt(index);
    value = Math.imul(value, 16777619);
  }
  return value >>> 0;
}

function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
