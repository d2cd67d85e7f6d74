/**
 * The model-call broker (DESIGN.md §4): the host services behind `ai.complete`
 * and `ai.stream` in the realm (AI_CALL, AI_NEXT). It reads the prompt from
 * the realm's payload, decides with the pure rules (aiPolicy.ts), asks the
 * person when they say so, and performs the call itself with the session's
 * model (`model()`, the host's: the person's key and base URL stay there).
 * Everything it decides or does becomes one audit record, with the tokens.
 *
 * Invariants:
 * 1. At most `maxInFlight` (4) calls per session, counted from arrival
 *    (waiting for the person included) to their end; more are refused at once.
 * 2. A prompt (system text and messages) over MAX_AI_PROMPT_CHARS is refused
 *    before anything else.
 * 3. The tokens a call used (as the model reported them, else estimated)
 *    count against the budget when it ends, whatever ended it; while it runs
 *    its prompt and `maxTokens` are reserved, so calls side by side cannot
 *    pass the budget together.
 * 4. What reaches the realm of a failure is a code and a sentence of ours,
 *    never the server's words (which may echo the key or the address).
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { estimateTokens } from "../../llm/estimateTokens";
import { HostServiceError } from "../../sandbox/HostServiceError";
import type { HostService } from "../../sandbox/types";
import {
  MAX_AI_CALLS_IN_FLIGHT,
  MAX_AI_PROMPT_CHARS,
  type AiCallPayload,
  type AiMessagePayload,
} from "../../wire/capabilities";
import type { JsonValue } from "../../wire/mount";
import { createCapabilityCore, sha256Hex } from "../createCapabilityCore";
import {
  DEFAULT_AI_POLICY,
  answerAi,
  costOf,
  decideAi,
  spendAiGrant,
  type AiAction,
  type AiAnswer,
  type AiAuditDecision,
  type AiMode,
  type AiPolicyState,
} from "./aiPolicy";

export const MAX_AI_IN_FLIGHT = MAX_AI_CALLS_IN_FLIGHT;
export const DEFAULT_AI_MAX_TOKENS = 1_000;
export const MAX_AI_MAX_TOKENS = 16_000;
export const DEFAULT_AI_TIMEOUT_MS = 120_000;
const MAX_MESSAGES = 200;

/** What the person is asked (inline, above the composer). */
export interface AiAsk {
  id: string;
  capability: "ai";
  /** The prompt's first 200 characters (its last message's; the system text's when that is longer). */
  excerpt: string;
  /** The prompt's whole length in characters. */
  chars: number;
  /** The most tokens the answer may take. */
  maxTokens: number;
  /** The model that would answer. */
  model: string;
}

/** One line of the audit list. */
export interface AiAuditRecord {
  at: number;
  capability: "ai";
  method: "complete" | "stream";
  /** The prompt's first words. */
  excerpt: string;
  decision: AiAuditDecision;
  tokensIn?: number;
  tokensOut?: number;
  /** "ok", or why not: denied, off, budget, too-many-calls, too-large, failed, aborted, timeout. */
  result: string;
  reason?: string;
}

/** The session's model as the broker uses it (the host's: createApp). */
export interface CallModel {
  readonly model: LanguageModelV3;
  readonly name: string;
  /** What went wrong, as a short code (`auth`, `rate-limit`, …): never the server's text. */
  failure(error: unknown): string;
}

/** The parts of the AI SDK's `streamText` the broker reads. */
export type StreamText = (options: {
  model: LanguageModelV3;
  system?: string;
  messages: AiMessagePayload[];
  maxOutputTokens: number;
  temperature?: number;
  abortSignal: AbortSignal;
  maxRetries: number;
  onError: () => void;
}) => {
  fullStream: AsyncIterable<
    | { type: "text-delta"; text: string }
    | { type: "finish"; totalUsage?: { inputTokens?: number; outputTokens?: number } }
    | { type: "error"; error: unknown }
    | { type: string }
  >;
};

export interface AiBrokerOptions {
  initial?: AiPolicyState;
  ask(request: AiAsk, signal: AbortSignal): Promise<AiAnswer>;
  audit(record: AiAuditRecord): void;
  /** The rules or the usage changed: persist them. */
  onChange?(state: AiPolicyState): void;
  /** The session's model, at each call. */
  model(): Promise<CallModel>;
  /** The AI SDK's streamText (default: loaded on the first call). */
  streamText?(): Promise<StreamText>;
  newId?(): string;
  now?(): number;
  sha256?(bytes: Uint8Array): Promise<string>;
  timeoutMs?: number;
  maxInFlight?: number;
}

export interface AiBroker {
  /** AI_CALL */
  call: HostService;
  /** AI_NEXT */
  next: HostService;
  state(): AiPolicyState;
  /** Another session opened: every call in flight ends, its rules replace these. */
  load(state: AiPolicyState): void;
  setMode(mode: AiMode): void;
  setStrict(strict: boolean): void;
  setBudget(budget: number): void;
  /** Undo "Always allow for this session": later calls ask again. */
  revokeSession(): void;
  /** Calls arrived and not yet ended. */
  inFlight(): number;
  subscribe(listener: (state: AiPolicyState) => void): () => void;
}

interface Prompt {
  messages: AiMessagePayload[];
  system?: string;
  maxTokens: number;
  temperature?: number;
  stream: boolean;
}

function readPayload(payload: JsonValue): Prompt {
  const input = payload as Partial<Record<keyof AiCallPayload, unknown>> | null;
  if (!input || typeof input !== "object" || Array.isArray(input))
    throw new HostServiceError("invalid", "ai: the call is not an object");
  const { messages, system, maxTokens, temperature, stream } = input;
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_MESSAGES)
    throw new HostServiceError("invalid", `ai: pass a prompt string, or 1 to ${MAX_MESSAGES} messages`);
  const read: AiMessagePayload[] = messages.map((message: unknown) => {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if ((role !== "user" && role !== "assistant") || typeof content !== "string")
      throw new HostServiceError("invalid", 'ai: each message is { role: "user" | "assistant", content: string }');
    return { role, content };
  });
  if (system !== undefined && typeof system !== "string")
    throw new HostServiceError("invalid", "ai: `system` is a string");
  const chars = read.reduce((sum, message) => sum + message.content.length, system?.length ?? 0);
  if (chars > MAX_AI_PROMPT_CHARS)
    throw new HostServiceError(
      "too-large",
      `ai: the prompt is ${chars.toLocaleString("en-US")} characters, over the limit of ${MAX_AI_PROMPT_CHARS.toLocaleString("en-US")}; shorten it (send a summary or a part)`,
    );
  if (
    maxTokens !== undefined &&
    (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > MAX_AI_MAX_TOKENS)
  )
    throw new HostServiceError("invalid", `ai: \`maxTokens\` is a whole number from 1 to ${MAX_AI_MAX_TOKENS}`);
  if (temperature !== undefined && (typeof temperature !== "number" || !(temperature >= 0 && temperature <= 2)))
    throw new HostServiceError("invalid", "ai: `temperature` is a number from 0 to 2");
  return {
    messages: read,
    ...(system !== undefined ? { system } : {}),
    maxTokens: (maxTokens as number | undefined) ?? DEFAULT_AI_MAX_TOKENS,
    ...(temperature !== undefined ? { temperature: temperature as number } : {}),
    stream: stream === true,
  };
}

/** The prompt's first 200 characters, as the person reads them: its last message (the question), else the system text. */
function excerptOf(prompt: Prompt): string {
  const last = prompt.messages.at(-1)?.content ?? "";
  const text = last.trim() !== "" ? last : (prompt.system ?? "");
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

interface StreamEntry {
  chunks: string[];
  done: boolean;
  error?: HostServiceError;
  /** Pulls waiting for text. */
  waiting: (() => void)[];
  abort(): void;
}

/** Streams ended and not read to their end that are kept for a late pull. */
const MAX_UNREAD_STREAMS = 16;

const FAILURE_WORDS: Record<string, string> = {
  auth: "the model's provider refused the key (the person can check it in Settings)",
  "rate-limit": "the model's provider is rate-limiting; wait before calling again",
  network: "the model's provider could not be reached",
  "not-found": "the model's provider does not know this model",
  server: "the model's provider had an error",
  "bad-request": "the model's provider refused the request",
};

export function createAiBroker(options: AiBrokerOptions): AiBroker {
  const newId = options.newId ?? (() => crypto.randomUUID());
  const now = options.now ?? (() => Date.now());
  const sha256 = options.sha256 ?? sha256Hex;
  const timeoutMs = options.timeoutMs ?? DEFAULT_AI_TIMEOUT_MS;
  const maxInFlight = options.maxInFlight ?? MAX_AI_IN_FLIGHT;
  const loadStreamText = options.streamText ?? (async () => (await import("ai")).streamText as unknown as StreamText);
  const core = createCapabilityCore({
    initial: options.initial ?? DEFAULT_AI_POLICY,
    rules: {
      decide: decideAi,
      answer: answerAi,
      spend: spendAiGrant,
      remembers: "session" as AiAnswer,
      refuses: "deny" as AiAnswer,
    },
    onChange: options.onChange,
    newId,
  });
  let arrived = 0;
  const streams = new Map<string, StreamEntry>();

  /** Tokens used, added to the rules' count (saved), and a reservation released. */
  const account = (used: number, released: number) => {
    const state = core.state();
    core.change({ ...state, used: state.used + used, reserved: Math.max(0, state.reserved - released) }, used > 0);
  };

  const call: HostService = async (payload, { signal }): Promise<JsonValue> => {
    const prompt = readPayload(payload);
    const method = prompt.stream ? "stream" : "complete";
    const excerpt = excerptOf(prompt);
    const promptText = [prompt.system ?? "", ...prompt.messages.map((message) => message.content)].join("\n");
    const action: AiAction = {
      fingerprint: await sha256(new TextEncoder().encode(JSON.stringify([method, prompt]))),
      excerpt,
      promptTokens: estimateTokens(promptText),
      maxTokens: prompt.maxTokens,
    };
    let tokensIn: number | undefined;
    let tokensOut: number | undefined;
    let received = "";
    /** The call went to the model: what it used counts, reported or estimated. */
    let started = false;
    const record = (entry: { decision: AiAuditDecision | "denied"; result: string; reason?: string }) => {
      if (started) settleTokens();
      options.audit({
        at: now(),
        capability: "ai",
        method,
        excerpt: excerpt.replace(/\s+/g, " ").slice(0, 80),
        decision: entry.decision as AiAuditDecision,
        ...(tokensIn !== undefined ? { tokensIn } : {}),
        ...(tokensOut !== undefined ? { tokensOut } : {}),
        result: entry.result,
        ...(entry.reason ? { reason: entry.reason } : {}),
      });
    };
    const settleTokens = (usage?: { inputTokens?: number; outputTokens?: number }) => {
      tokensIn ??= usage?.inputTokens ?? action.promptTokens;
      tokensOut ??= usage?.outputTokens ?? estimateTokens(received);
    };
    if (arrived >= maxInFlight) {
      record({ decision: "denied", result: "too-many-calls" });
      throw new HostServiceError(
        "too-many-calls",
        `${maxInFlight} model calls of this session are already under way; this one was refused. Await each call before the next: a UI calls the model on a click, never on every render.`,
      );
    }
    arrived += 1;
    let releasedSlot = false;
    const releaseSlot = () => {
      if (releasedSlot) return;
      releasedSlot = true;
      arrived -= 1;
    };
    try {
      const session = await options.model();
      const verdict = await core.decide(action, {
        ask: (id) =>
          options.ask(
            {
              id,
              capability: "ai",
              excerpt,
              chars: promptText.length,
              maxTokens: prompt.maxTokens,
              model: session.name,
            },
            signal,
          ),
        scope: "ai",
        signal,
        description: "the model call",
        record,
      });
      if (!verdict.allowed) {
        const { reason, message } = verdict.decision;
        record({ decision: "denied", result: reason === "person" ? "denied" : reason, reason: verdict.reason });
        throw new HostServiceError(
          reason === "person" ? "denied" : reason === "off" ? "ai-off" : "over-budget",
          message,
        );
      }
      // Reserved until it ends: calls side by side cannot pass the budget together.
      const cost = costOf(action);
      core.change({ ...core.state(), reserved: core.state().reserved + cost }, false);
      const streamText = await loadStreamText();
      const perform = (callSignal: AbortSignal, push: (text: string) => void) =>
        core.perform(
          {
            scope: "ai",
            basis: verdict.decision.basis,
            description: "the model call",
            signal: callSignal,
            timeoutMs,
            cancelledMessage: "the model call was cancelled",
            auditDecision: verdict.auditDecision,
            record,
          },
          async (workSignal, ended) => {
            let usage: { inputTokens?: number; outputTokens?: number } | undefined;
            try {
              started = true;
              const result = streamText({
                model: session.model,
                ...(prompt.system !== undefined ? { system: prompt.system } : {}),
                messages: prompt.messages,
                maxOutputTokens: prompt.maxTokens,
                ...(prompt.temperature !== undefined ? { temperature: prompt.temperature } : {}),
                abortSignal: workSignal,
                maxRetries: 0,
                onError: () => undefined,
              });
              for await (const part of result.fullStream) {
                if (ended()) break;
                if (part.type === "text-delta") {
                  const text = (part as { text: string }).text;
                  received += text;
                  push(text);
                } else if (part.type === "finish") {
                  usage = (part as { totalUsage?: typeof usage }).totalUsage;
                } else if (part.type === "error") {
                  throw (part as { error: unknown }).error;
                }
              }
            } catch (error) {
              if (ended()) throw ended();
              const code = session.failure(error);
              settleTokens(usage);
              record({ decision: verdict.auditDecision, result: "failed", reason: code });
              throw new HostServiceError(
                "failed",
                `the model call failed: ${FAILURE_WORDS[code] ?? "the model's provider could not answer"}`,
              );
            }
            if (ended()) throw ended();
            settleTokens(usage);
            record({ decision: verdict.auditDecision, result: "ok" });
            return received;
          },
        );
      const settle = () => {
        // Whatever ended it, what it used counts (an ended call's prompt at least).
        if (started) settleTokens();
        account((tokensIn ?? 0) + (tokensOut ?? 0), cost);
        releaseSlot();
      };
      if (!prompt.stream) {
        try {
          return { text: await perform(signal, () => undefined) };
        } finally {
          settle();
        }
      }
      // The stream outlives this request: the realm pulls it (AI_NEXT); a cancelled pull ends it.
      const id = newId();
      const controller = new AbortController();
      const entry: StreamEntry = {
        chunks: [],
        done: false,
        waiting: [],
        abort: () => controller.abort(),
      };
      streams.set(id, entry);
      forgetUnread();
      void perform(controller.signal, (text) => {
        entry.chunks.push(text);
        wake(entry);
      })
        .catch((error: unknown) => {
          entry.error =
            error instanceof HostServiceError ? error : new HostServiceError("failed", "the model call failed");
        })
        .finally(() => {
          entry.done = true;
          settle();
          wake(entry);
        });
      return { stream: id };
    } catch (error) {
      releaseSlot();
      throw error;
    }
  };

  const wake = (entry: StreamEntry) => {
    const waiting = entry.waiting;
    entry.waiting = [];
    for (const resolve of waiting) resolve();
  };

  /** Streams that ended and were never read to their end: the oldest go past a few. */
  const forgetUnread = () => {
    for (const [id, entry] of streams) {
      if (streams.size <= MAX_UNREAD_STREAMS) break;
      if (entry.done) streams.delete(id);
    }
  };

  const next: HostService = async (payload, { signal }) => {
    const { stream, cancel } = (payload ?? {}) as { stream?: unknown; cancel?: unknown };
    const id = typeof stream === "string" ? stream : "";
    const entry = streams.get(id);
    if (!entry) throw new HostServiceError("invalid", "ai: no such stream (it ended, or another session was opened)");
    if (cancel === true) {
      streams.delete(id);
      entry.abort();
      return { text: "", done: true };
    }
    while (entry.chunks.length === 0 && !entry.done) {
      await new Promise<void>((resolve) => {
        const onAbort = () => resolve();
        entry.waiting.push(() => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        });
        signal.addEventListener("abort", onAbort, { once: true });
      });
      if (signal.aborted) {
        // The realm gave up on it (its AbortSignal, Stop): the call ends.
        streams.delete(id);
        entry.abort();
        throw new HostServiceError("aborted", "the model call was cancelled");
      }
    }
    const text = entry.chunks.join("");
    entry.chunks = [];
    if (text !== "") {
      if (entry.done && !entry.error) streams.delete(id);
      return { text, done: entry.done && !entry.error };
    }
    streams.delete(id);
    if (entry.error) throw entry.error;
    return { text: "", done: true };
  };

  return {
    call,
    next,
    state: core.state,
    load(state) {
      core.abortWhere(() => true, new HostServiceError("aborted", "another session was opened"));
      for (const entry of streams.values()) entry.abort();
      streams.clear();
      core.change(state, false);
    },
    setMode(mode) {
      if (mode === "off")
        core.abortWhere(
          () => true,
          new HostServiceError("ai-off", "the person turned model calls off; the call was aborted"),
        );
      core.change({ ...core.state(), mode });
    },
    setStrict(strict) {
      core.change({ ...core.state(), strict });
    },
    revokeSession() {
      core.change({ ...core.state(), session: false });
    },
    setBudget(budget) {
      core.change({ ...core.state(), budget: Math.max(0, Math.floor(budget)) });
    },
    inFlight: () => arrived,
    subscribe: core.subscribe,
  };
}
