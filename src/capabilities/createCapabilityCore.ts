/**
 * What the network broker and the tool broker share (DESIGN.md §4): the
 * session's rules and their listeners, the grant / ask / spend flow, and the
 * bookkeeping of calls in flight (cancel, time limit, revoke). Each broker
 * keeps what is its own: reading the realm's payload, the rules themselves
 * (networkPolicy.ts, toolPolicy.ts, given here as `CapabilityRules`), what
 * the person is shown, the words of a denial and the work of the call.
 *
 * Invariants (both brokers' tests hold them):
 * 1. Nothing from the realm's payload chooses a decision: the rules see only
 *    the action the broker built from it.
 * 2. A one-time grant is spent by the call that asked, before anything else
 *    runs (no await between the answer and the spend): two identical racing
 *    calls cannot share one "Allow once".
 * 3. Every decided call becomes exactly one audit record: a denial here or
 *    in the broker, a call ended by cancel/timeout/revoke here
 *    (`result: <code>`), an ask refused without asking here
 *    (`result: too-many-asks`), any other outcome in the broker's work.
 * 4. At most one ask per scope (host, tool) is put to the person at a time.
 *    Later calls in that scope wait behind it (at most
 *    `MAX_WAITING_PER_ASK`) and take its answer: after a deny they are
 *    denied too; after anything else (an "always", a one-time grant that
 *    covers only the call that asked, an ask that ended unanswered) the
 *    rules decide them again, so they pass, or the next of them asks.
 */
import { HostServiceError } from "../sandbox/HostServiceError";

/** A decision as both rule sets make it. */
export type CapabilityDecision =
  { kind: "allow"; basis: string; grantId?: string } | { kind: "ask" } | { kind: "deny"; message: string };

export interface CapabilityAuditEntry<AuditDecision extends string> {
  decision: AuditDecision;
  reason?: string;
}

/** The pure rules of one capability (state and an action in, a decision out). */
export interface CapabilityRules<
  State,
  Action,
  Decision extends CapabilityDecision,
  Answer extends string,
  AuditDecision extends string,
> {
  decide(state: State, action: Action): { decision: Decision; audit?: CapabilityAuditEntry<AuditDecision> };
  answer(
    state: State,
    action: Action,
    answer: Answer,
    grantId: string,
  ): { state: State; decision: Decision; audit?: CapabilityAuditEntry<AuditDecision> };
  spend(
    state: State,
    grantId: string,
    action: Action,
  ): { ok: boolean; state: State; reason?: string; audit: CapabilityAuditEntry<AuditDecision> };
  /** The answer that adds a lasting rule ("host", "tool"): the only change an ask persists. */
  remembers: Answer;
  /** The answer that refuses ("deny"): the calls waiting behind an ask take it too. */
  refuses: Answer;
}

/** Calls that may wait behind one ask of their scope; more are refused at once. */
export const MAX_WAITING_PER_ASK = 100;

/** What an audit record needs from the core; the broker adds the rest (time, URL, bytes). */
export interface CoreAuditFields<AuditDecision extends string> {
  decision: AuditDecision | "denied";
  result: string;
  reason?: string;
}

export interface DecideCall<Answer extends string, AuditDecision extends string> {
  /**
   * Ask the person (the core makes the ask's id). A rejection that is not the
   * call's own abort (e.g. `too-many-asks`) refuses the call and is recorded.
   */
  ask(id: string): Promise<Answer>;
  /** What one ask covers (the host, the `server/tool` key): calls of a scope are asked about one at a time. */
  scope: string;
  /** The call's signal: it ends the wait for an answer. */
  signal: AbortSignal;
  /** The call in a few words, for errors ("GET https://…", "films/lookup_film"). */
  description: string;
  record(entry: CoreAuditFields<AuditDecision>): void;
}

/** A call in flight: what a revoke or a new session matches on. */
export interface Flight {
  /** The host, or the `server/tool` key. */
  scope: string;
  /** What allowed it (the decision's basis). */
  basis: string;
}

export interface PerformCall<AuditDecision extends string> {
  scope: string;
  basis: string;
  description: string;
  /** The call's own signal (the realm cancelled it). */
  signal: AbortSignal;
  timeoutMs: number;
  /** The error a cancel from the realm ends the call with. */
  cancelledMessage: string;
  auditDecision: AuditDecision | "denied";
  record(entry: CoreAuditFields<AuditDecision>): void;
}

export interface CapabilityCore<
  State,
  Action,
  Decision extends CapabilityDecision,
  Answer extends string,
  AuditDecision extends string,
> {
  state(): State;
  /** Replace the rules; `notify: false` skips persisting (a spent grant, a loaded session). */
  change(next: State, notify?: boolean): void;
  subscribe(listener: (state: State) => void): () => void;
  /**
   * The rules' verdict on one call, asking the person when they say so.
   * Returns an allow (a one-time grant already spent) or a deny for the
   * broker to word; a grant that cannot be spent is recorded and thrown here.
   */
  decide(
    action: Action,
    call: DecideCall<Answer, AuditDecision>,
  ): Promise<
    | { allowed: true; decision: Extract<Decision, { kind: "allow" }>; auditDecision: AuditDecision | "denied" }
    | { allowed: false; decision: Extract<Decision, { kind: "deny" }>; reason?: string }
  >;
  /**
   * Runs the call's work as a flight: a cancel from the realm, the time limit
   * or `abortWhere` ends it at once with that error (recorded as
   * `result: <code>`), whatever the work is still doing.
   */
  perform<T>(
    call: PerformCall<AuditDecision>,
    work: (signal: AbortSignal, ended: () => HostServiceError | undefined) => Promise<T>,
  ): Promise<T>;
  /** End the calls in flight that match (revoke, network off, another session). */
  abortWhere(predicate: (flight: Flight) => boolean, error: HostServiceError): void;
  inFlight(): number;
}

export function createCapabilityCore<
  State,
  Action,
  Decision extends CapabilityDecision,
  Answer extends string,
  AuditDecision extends string,
>(options: {
  initial: State;
  rules: CapabilityRules<State, Action, Decision, Answer, AuditDecision>;
  onChange?(state: State): void;
  newId(): string;
}): CapabilityCore<State, Action, Decision, Answer, AuditDecision> {
  const { rules, newId } = options;
  let policy = options.initial;
  const listeners = new Set<(state: State) => void>();
  const flying = new Set<Flight & { abort(reason: HostServiceError): void }>();

  const change = (next: State, notify = true) => {
    if (next === policy) return;
    policy = next;
    if (notify) options.onChange?.(policy);
    for (const listener of listeners) listener(policy);
  };

  type Allow = Extract<Decision, { kind: "allow" }>;
  type Deny = Extract<Decision, { kind: "deny" }>;

  /** The ask on screen for each scope, and how many calls wait behind it. */
  const asking = new Map<string, { answer: Promise<Answer | undefined>; waiting: number }>();
  const ended = () => new HostServiceError("aborted", "the call ended while waiting for permission");

  /** `promise`, or the call's end if that comes first. */
  const unlessAborted = <T>(promise: Promise<T>, signal: AbortSignal) =>
    new Promise<T>((resolve, reject) => {
      if (signal.aborted) return reject(ended());
      const onAbort = () => reject(ended());
      signal.addEventListener("abort", onAbort, { once: true });
      promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });

  const decide = async (action: Action, call: DecideCall<Answer, AuditDecision>) => {
    let { decision, audit } = rules.decide(policy, action);
    while (decision.kind === "ask") {
      const ahead = asking.get(call.scope);
      if (ahead) {
        if (ahead.waiting >= MAX_WAITING_PER_ASK) {
          const message = `${MAX_WAITING_PER_ASK} calls already wait behind the ask about ${call.scope}; ${call.description} was refused without asking. Make fewer calls at once.`;
          call.record({ decision: "denied", result: "too-many-asks", reason: "too many calls waiting" });
          throw new HostServiceError("too-many-asks", message);
        }
        ahead.waiting += 1;
        let previous: Answer | undefined;
        try {
          previous = await unlessAborted(ahead.answer, call.signal);
        } finally {
          ahead.waiting -= 1;
        }
        if (previous === rules.refuses) {
          // The person said no to this scope while this call waited: the same answer, recorded as this call's own.
          const answered = rules.answer(policy, action, previous, newId());
          decision = answered.decision;
          audit = answered.audit;
          break;
        }
        ({ decision, audit } = rules.decide(policy, action));
        continue;
      }
      // This call asks. Set before the first await, so a call arriving meanwhile waits behind it.
      let settle!: (answer: Answer | undefined) => void;
      const entry = { answer: new Promise<Answer | undefined>((resolve) => (settle = resolve)), waiting: 0 };
      asking.set(call.scope, entry);
      let answer: Answer;
      try {
        answer = await call.ask(newId());
      } catch (error) {
        asking.delete(call.scope);
        settle(undefined);
        if (call.signal.aborted) throw ended();
        const code = error instanceof HostServiceError ? error.code : "failed";
        call.record({
          decision: "denied",
          result: code,
          reason: error instanceof Error ? error.message : String(error),
        });
        throw error;
      }
      asking.delete(call.scope);
      if (call.signal.aborted) {
        settle(undefined);
        throw ended();
      }
      const answered = rules.answer(policy, action, answer, newId());
      change(answered.state, answer === rules.remembers);
      decision = answered.decision;
      audit = answered.audit;
      if (decision.kind === "allow" && decision.basis === "once") {
        // Spent here, by the call that asked, before anything else can run.
        const spent = rules.spend(policy, decision.grantId ?? "", action);
        change(spent.state, false);
        audit = spent.audit;
        if (!spent.ok) {
          settle(answer);
          call.record({ decision: "denied", result: "denied", reason: spent.audit.reason });
          throw new HostServiceError("denied", `the grant for ${call.description} could not be used (${spent.reason})`);
        }
      }
      // The answer is in the rules before the calls behind wake (they decide again, or take a deny).
      settle(answer);
      break;
    }
    if (decision.kind === "deny") return { allowed: false as const, decision: decision as Deny, reason: audit?.reason };
    if (decision.kind !== "allow") throw new HostServiceError("failed", "no decision");
    return {
      allowed: true as const,
      decision: decision as Allow,
      auditDecision: audit?.decision ?? ("denied" as const),
    };
  };

  const perform = async <T>(
    call: PerformCall<AuditDecision>,
    work: (signal: AbortSignal, ended: () => HostServiceError | undefined) => Promise<T>,
  ): Promise<T> => {
    const controller = new AbortController();
    let ended: HostServiceError | undefined;
    const flight = {
      scope: call.scope,
      basis: call.basis,
      abort(reason: HostServiceError) {
        ended ??= reason;
        controller.abort(reason);
      },
    };
    const onOuterAbort = () => flight.abort(new HostServiceError("aborted", call.cancelledMessage));
    call.signal.addEventListener("abort", onOuterAbort, { once: true });
    const timer = setTimeout(
      () =>
        flight.abort(
          new HostServiceError(
            "timeout",
            `${call.description} took longer than ${call.timeoutMs / 1000} s and was aborted`,
          ),
        ),
      call.timeoutMs,
    );
    flying.add(flight);
    // Settles the call the moment it is ended, even if the work ignores its signal.
    const ending = new Promise<never>((_resolve, reject) =>
      controller.signal.addEventListener("abort", () => reject(ended), { once: true }),
    );
    ending.catch(() => undefined);
    try {
      return await Promise.race([work(controller.signal, () => ended), ending]);
    } catch (error) {
      if (ended) {
        call.record({ decision: call.auditDecision, result: ended.code });
        throw ended;
      }
      throw error;
    } finally {
      clearTimeout(timer);
      flying.delete(flight);
      call.signal.removeEventListener("abort", onOuterAbort);
    }
  };

  return {
    state: () => policy,
    change,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    decide,
    perform,
    abortWhere(predicate, error) {
      for (const flight of [...flying]) if (predicate(flight)) flight.abort(error);
    },
    inFlight: () => flying.size,
  };
}

/** SHA-256 as hex (the grants' fingerprints hash request bodies and tool arguments). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
