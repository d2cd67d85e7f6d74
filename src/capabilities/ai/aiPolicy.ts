/**
 * The rules for model calls from code (`ai.complete`, `ai.stream`), pure:
 * state and an action in, a decision and an audit entry out. No I/O, no
 * clock, no ids of its own: the broker (createAiBroker.ts) passes them in.
 *
 * Invariants:
 * 1. Mode `off` denies every call, without asking.
 * 2. A call that could take the session past its token budget (what was
 *    used, what calls in flight may still use, and this call's prompt plus
 *    its `maxTokens`) is denied before anyone is asked, naming the budget.
 * 3. Strict mode asks for every call, even with the mode `allowed` or after
 *    "Always allow for this session".
 * 4. A one-time grant is bound to the fingerprint of one call (SHA-256 of its
 *    prompt, system text and options) and spent by exactly one call.
 */

export type AiMode = "off" | "ask" | "allowed";

/** The session's token budget for model calls from code, by default. */
export const DEFAULT_AI_BUDGET = 50_000;

/** What one call asks for. */
export interface AiAction {
  /** SHA-256 hex of the call's canonical JSON (messages, system, options). */
  fingerprint: string;
  /** The prompt's first 200 characters, as the person is shown them. */
  excerpt: string;
  /** Estimated tokens of the prompt (system text and messages). */
  promptTokens: number;
  /** The most tokens the answer may take. */
  maxTokens: number;
}

export interface OneTimeGrant {
  id: string;
  fingerprint: string;
  spent: boolean;
}

export interface AiPolicyState {
  mode: AiMode;
  /** "Always allow for this session" was answered. */
  session: boolean;
  strict: boolean;
  /** Tokens the session's calls may use in all. */
  budget: number;
  /** Tokens its calls used (in and out, as the model reported them). */
  used: number;
  /** Tokens the calls in flight may still use (their prompt and maxTokens): not saved. */
  reserved: number;
  grants: readonly OneTimeGrant[];
}

export const DEFAULT_AI_POLICY: AiPolicyState = Object.freeze({
  mode: "ask",
  session: false,
  strict: false,
  budget: DEFAULT_AI_BUDGET,
  used: 0,
  reserved: 0,
  grants: Object.freeze([]) as readonly OneTimeGrant[],
});

export type AiAuditDecision = "allowed-once" | "allowed-session" | "denied";

export type AiDecision =
  | { kind: "allow"; basis: "session" }
  | { kind: "allow"; basis: "once"; grantId: string }
  | { kind: "ask" }
  | { kind: "deny"; reason: "off" | "budget" | "person"; message: string };

export interface AiAuditEntry {
  decision: AiAuditDecision;
  reason?: string;
}

export type AiAnswer = "once" | "session" | "deny";

const number = (value: number) => value.toLocaleString("en-US");

/** The most tokens a call may take: its prompt and its answer. */
export const costOf = (action: AiAction) => action.promptTokens + action.maxTokens;

/** The teaching error of a call past the budget. */
export function budgetMessage(state: AiPolicyState, action: AiAction): string {
  return (
    `The session's budget for model calls from code is ${number(state.budget)} tokens and ${number(state.used + state.reserved)} are used or reserved; ` +
    `this call could take up to ${number(costOf(action))} (about ${number(action.promptTokens)} for the prompt, up to ${number(action.maxTokens)} for the answer), so it was not sent. ` +
    "Do not retry: make fewer or smaller calls (a shorter prompt, a lower maxTokens), or ask the person to raise the budget in Session settings → Model calls from code."
  );
}

export function decideAi(state: AiPolicyState, action: AiAction): { decision: AiDecision; audit?: AiAuditEntry } {
  if (state.mode === "off") {
    const message =
      "Model calls from code are off for this session (Session settings → Model calls from code): the call was not sent. Do not retry; say what you needed the model for.";
    return {
      decision: { kind: "deny", reason: "off", message },
      audit: { decision: "denied", reason: "model calls off" },
    };
  }
  if (state.used + state.reserved + costOf(action) > state.budget) {
    return {
      decision: { kind: "deny", reason: "budget", message: budgetMessage(state, action) },
      audit: { decision: "denied", reason: "over the token budget" },
    };
  }
  if (state.strict) return { decision: { kind: "ask" } };
  if (state.mode === "allowed" || state.session)
    return { decision: { kind: "allow", basis: "session" }, audit: { decision: "allowed-session" } };
  return { decision: { kind: "ask" } };
}

export function answerAi(
  state: AiPolicyState,
  action: AiAction,
  answer: AiAnswer,
  grantId: string,
): { state: AiPolicyState; decision: AiDecision; audit?: AiAuditEntry } {
  switch (answer) {
    case "once": {
      const grant: OneTimeGrant = { id: grantId, fingerprint: action.fingerprint, spent: false };
      return {
        state: { ...state, grants: [...state.grants, grant] },
        decision: { kind: "allow", basis: "once", grantId },
      };
    }
    case "session":
      return {
        state: { ...state, session: true },
        decision: { kind: "allow", basis: "session" },
        audit: { decision: "allowed-session" },
      };
    case "deny": {
      const message =
        "The person denied this model call. Do not retry it; say what you wanted the model for, or ask the person.";
      return {
        state,
        decision: { kind: "deny", reason: "person", message },
        audit: { decision: "denied", reason: "the person denied it" },
      };
    }
    default: {
      const never: never = answer;
      return never;
    }
  }
}

export function spendAiGrant(
  state: AiPolicyState,
  grantId: string,
  action: AiAction,
): { ok: boolean; state: AiPolicyState; reason?: string; audit: AiAuditEntry } {
  const grant = state.grants.find((item) => item.id === grantId);
  if (!grant) return { ok: false, state, reason: "unknown", audit: { decision: "denied", reason: "unknown grant" } };
  if (grant.spent)
    return { ok: false, state, reason: "spent", audit: { decision: "denied", reason: "grant already used" } };
  if (grant.fingerprint !== action.fingerprint)
    return { ok: false, state, reason: "mismatch", audit: { decision: "denied", reason: "grant is for another call" } };
  // A spent grant is of no more use: dropped, so grants do not pile up over a long session.
  const grants = state.grants.filter((item) => item.id !== grantId);
  return { ok: true, state: { ...state, grants }, audit: { decision: "allowed-once" } };
}

/** What the module saves with the session (the rest is the page's while it is open). */
export interface SavedAiSettings {
  mode: AiMode;
  session: boolean;
  budget: number;
  used: number;
}

/** The saved settings read back, anything malformed replaced by its default. */
export function readSaved(value: unknown): SavedAiSettings {
  const saved = value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const mode = saved.mode === "off" || saved.mode === "allowed" || saved.mode === "ask" ? saved.mode : "ask";
  const whole = (input: unknown, fallback: number) =>
    typeof input === "number" && Number.isFinite(input) && input >= 0 ? Math.floor(input) : fallback;
  return {
    mode,
    session: saved.session === true,
    budget: whole(saved.budget, DEFAULT_AI_BUDGET),
    used: whole(saved.used, 0),
  };
}
