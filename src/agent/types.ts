import type { LanguageModel } from "ai";
import type { ProtocolParser } from "../protocol/types";
import type { RealmHost } from "../sandbox/types";
import type { Attachment } from "./attachments";
import type { AgentReportMessage, ChannelFields } from "./externalAgentTypes";
import type { InteractionSummary } from "./interactionLifecycle";
import type { ReplyView } from "./reply";
import type { StallClock, StallLimits } from "./stallWatch";

/**
 * The agent's values, apart from the class that drives them: the timeline's
 * messages, the phase, the state the UI reads. src/store and src/ui import
 * these from here, never the loop.
 */

export interface LlmErrorInfo {
  code: string;
  message: string;
  retryAfterMs?: number;
  retryable: boolean;
}

export type ReplyState = "streaming" | "done" | "interrupted" | "stopped" | "error";

/**
 * On every message an import wrote (src/store sets it, whatever the file
 * said): content from outside, replayed to the model inside the
 * imported-content bracket. Never decided by dates, which the file chose.
 */
export interface ImportMark {
  /** True on imported messages; absent (or false) on the session's own. */
  imported?: boolean;
}

/**
 * Versions (Edit and resend, Regenerate keep what they replace): on the first
 * message of a branch, the other versions of the timeline from this message
 * on, each a whole tail (its own messages may carry versions further on).
 * The shown tail is version `at` (0-based) of `others.length + 1`; `others`
 * holds the rest in order. Only the shown tail reaches the model.
 */
export interface MessageVersions {
  at: number;
  others: ChatMessage[][];
}

export interface VersionsMark {
  versions?: MessageVersions;
}

export type ChatMessage = (
  | ({ id: string; role: "user"; text: string; createdAt: number; attachments?: Attachment[] } & ChannelFields)
  | {
      id: string;
      role: "assistant";
      text: string;
      reply: ReplyView;
      state: ReplyState;
      error?: LlmErrorInfo;
      createdAt: number;
      /** The model that wrote this reply (its id as the provider names it). */
      model?: string;
      /** Tokens of this call as the API reported them (absent when it reported none). */
      usage?: { inputTokens?: number; outputTokens?: number };
      /** On the last reply of an interaction: what the interaction went through and did. */
      summary?: InteractionSummary;
      /** Written by an invited agent (its label), not by the session's model. */
      by?: string;
    }
  | {
      id: string;
      role: "feedback";
      text: string;
      body: string;
      source: "runtime" | "ui-event";
      createdAt: number;
      to?: "agent";
    }
  | { id: string; role: "notice"; text: string; level: "info" | "warn" | "error"; createdAt: number }
  /** What an invited agent reported (externalAgentTypes.ts). */
  | AgentReportMessage
) &
  ImportMark &
  VersionsMark;

/**
 * Why the agent refuses a message: an interaction runs, or the session is
 * closing (a switch is saving it; its agent is about to be disposed).
 */
export type SendRefusal = "busy" | "closed";

/** The phases an interaction passes through while it runs (the status line's "busy"). */
export const BUSY_PHASES = ["streaming", "running", "waiting-input", "waiting-permission"] as const;
/** How an interaction (or Revive) ended; `idle` before the first. */
export const RESTING_PHASES = ["idle", "done", "error", "stopped"] as const;

export type BusyPhase = (typeof BUSY_PHASES)[number];
export type Phase = BusyPhase | (typeof RESTING_PHASES)[number];

/** An interaction runs (streaming, running, or waiting for the person): Stop applies, Reload waits. */
export const isBusy = (phase: Phase): phase is BusyPhase => (BUSY_PHASES as readonly Phase[]).includes(phase);

export interface AgentState {
  messages: ChatMessage[];
  phase: Phase;
  /** Human detail for the status line, e.g. "statement 3" or "retrying in 4 s". */
  detail?: string;
  /**
   * The model's request is open and silent past its limit (no headers in
   * 20 s, no data for 60 s; stallWatch.ts): the seconds of silence, for
   * "No data for N s" with Stop and Keep waiting (`Agent.keepWaiting`).
   */
  stalled?: number;
  turn: number;
  maxTurns: number;
  /** The last reply was cut mid-stream and can be continued. */
  canContinue: boolean;
}

/** The part of the realm host the loop needs: its reply verbs, declared once on RealmHost (src/sandbox/types.ts). */
export type RealmPort = Pick<RealmHost, "beginReply" | "sendBlock" | "flush" | "abort" | "subscribe"> &
  Partial<Pick<RealmHost, "subscribeMounts">>;

/** Per-call settings of the open session (Session settings → Model). */
export interface CallSettings {
  temperature?: number;
  /** The person's extra system instruction, appended to the system prompt. */
  instruction?: string;
  /**
   * An instruction that came with an imported file and that the person
   * applied: sent first inside the imported-content bracket, never in the
   * system prompt.
   */
  importedInstruction?: string;
}

export interface AgentOptions {
  /** The model for the next call; may load lazily (the SDK is not in the initial bundle). */
  model: () => LanguageModel | Promise<LanguageModel>;
  /** The system prompt, or a function read at each call (it lists the session's connected tools). */
  system: string | (() => string | Promise<string>);
  /** Read at every call: the session's temperature and extra instruction. */
  callSettings?: () => CallSettings;
  realm: RealmPort;
  /** May load the parser first (the app imports it with the first reply, out of its initial JavaScript). */
  createParser: () => ProtocolParser | Promise<ProtocolParser>;
  describeError: (error: unknown) => LlmErrorInfo;
  wrapFeedback: (body: string, source: "runtime" | "ui-event") => string;
  /**
   * Messages that came from outside (an imported session): replayed to the
   * model between two markers that say they are untrusted content, with any
   * marker inside their text escaped. Default: the messages marked
   * `imported` at import.
   */
  isImported?: (message: ChatMessage) => boolean;
  maxTurns?: number;
  /** Rate-limit retries per turn before giving up. */
  maxRetries?: number;
  now?: () => number;
  newId?: () => string;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** When an open model request counts as stalled (default `STALL_LIMITS`, 20 s to headers and 60 s between data, or the browser tests' flag). */
  stall?: StallLimits;
  /** The clock the stall watch reads (default: the real one). */
  stallClock?: StallClock;
}
