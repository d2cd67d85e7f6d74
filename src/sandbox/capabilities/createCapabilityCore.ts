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
 *    (`result: <code>`), any other outcome in the broker's work.
 */
import { HostServiceError } from "../HostServiceError";

/** A decision as both rule sets make it. */
export type CapabilityDecision =
  | { kind: "allow"; basis: string; grantId?: string }
  | { kind: "ask" }
  | { kind: "deny"; message: string };

export interface CapabilityAuditEntry<AuditDecision extends string> {
  decision: AuditDecision;
  reason?: string;
}

/** The pure rules of one capability (state and an action in, a decision out). */
export interface CapabilityRules<State, Action, Decision extends CapabilityDecision, Answer extends string, AuditDecision extends string> {
  decide(state: State, action: Action): { decision: Decision; audit?: CapabilityAuditEntry<AuditDecision> };
  answer(state: State, action: Action, answer: Answer, grantId: string): { state: State; decision: Decision; audit?: CapabilityAuditEntry<AuditDecision> };
  spend(state: State, grantId: string, action: Action): { ok: boolean; state: State; reason?: string; audit: CapabilityAuditEntry<AuditDecision> };
  /** The answer that adds a lasting rule ("host", "tool"): the only change an ask persists. */
  remembers: Answer;
}

/** What an audit record needs from the core; the broker adds the rest (time, URL, bytes). */
export interface CoreAuditFields<AuditDecision extends string> {
  decision: AuditDecision | "denied";
  result: string;
  reason?: string;
}

export interface DecideCall<Answer extends string, AuditDecision extends string> {
  /** Ask the person (the core makes the ask's id). */
  ask(id: string): Promise<Answer>;
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

export interface CapabilityCore<State, Action, Decision extends CapabilityDecision, Answer extends string, AuditDecision extends string> {
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
  perform<T>(call: PerformCall<AuditDecision>, work: (signal: AbortSignal, ended: () => HostServiceError | undefined) => Promise<T>): Promise<T>;
  /** End the calls in flight that match (revoke, network off, another session). */
  abortWhere(predicate: (flight: Flight) => boolean, error: HostServiceError): void;
  inFlight(): number;
}

export function createCapabilityCore<State, Action, Decision extends CapabilityDecision, Answer extends string, AuditDecision extends string>(options: {
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

  const decide = async (action: Action, call: DecideCall<Answer, AuditDecision>) => {
    let { decision, audit } = rules.decide(policy, action);
    if (decision.kind === "ask") {
      const answer = await call.ask(newId());
      if (call.signal.aborted) throw new HostServiceError("aborted", "the call ended while waiting for permission");
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
          call.record({ decision: "denied", result: "denied", reason: spent.audit.reason });
          throw new HostServiceError("denied", `the grant for ${call.description} could not be used (${spent.reason})`);
        }
      }
    }
    if (decision.kind === "deny") return { allowed: false as const, decision: decision as Deny, reason: audit?.reason };
    if (decision.kind !== "allow") throw new HostServiceError("failed", "no decision");
    return { allowed: true as const, decision: decision as Allow, auditDecision: audit?.decision ?? ("denied" as const) };
  };

  const perform = async <T>(call: PerformCall<AuditDecision>, work: (signal: AbortSignal, ended: () => HostServiceError | undefined) => Promise<T>): Promise<T> => {
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
      () => flight.abort(new HostServiceError("timeout", `${call.description} took longer than ${call.timeoutMs / 1000} s and was aborted`)),
      call.timeoutMs,
    );
    flying.add(flight);
    // Settles the call the moment it is ended, even if the work ignores its signal.
    const ending = new Promise<never>((_resolve, reject) => controller.signal.addEventListener("abort", () => reject(ended), { once: true }));
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
