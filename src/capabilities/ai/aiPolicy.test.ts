import { describe, expect, it } from "vitest";
import {
  DEFAULT_AI_POLICY,
  answerAi,
  budgetMessage,
  decideAi,
  readSaved,
  spendAiGrant,
  type AiAction,
  type AiPolicyState,
} from "./aiPolicy";

const action = (overrides: Partial<AiAction> = {}): AiAction => ({
  fingerprint: "f1",
  excerpt: "Translate to French: hello",
  promptTokens: 10,
  maxTokens: 100,
  ...overrides,
});
const state = (overrides: Partial<AiPolicyState> = {}): AiPolicyState => ({ ...DEFAULT_AI_POLICY, ...overrides });

describe("model-call rules", () => {
  it("ask by default, with a 50,000-token budget", () => {
    expect(DEFAULT_AI_POLICY).toMatchObject({ mode: "ask", budget: 50_000, used: 0, session: false });
    expect(decideAi(state(), action()).decision).toEqual({ kind: "ask" });
  });

  it("off denies without asking, whatever else allows", () => {
    const { decision, audit } = decideAi(state({ mode: "off", session: true, strict: true }), action());
    expect(decision).toMatchObject({ kind: "deny", reason: "off" });
    expect(audit).toMatchObject({ decision: "denied" });
  });

  it("the budget: used, reserved and this call's prompt and maxTokens together may not pass it", () => {
    expect(decideAi(state({ mode: "allowed", budget: 110 }), action()).decision).toMatchObject({ kind: "allow" });
    expect(decideAi(state({ mode: "allowed", budget: 110, used: 1 }), action()).decision).toMatchObject({
      kind: "deny",
      reason: "budget",
    });
    expect(decideAi(state({ mode: "allowed", budget: 200, reserved: 91 }), action()).decision).toMatchObject({
      kind: "deny",
      reason: "budget",
    });
    // Refused before asking, even in strict mode.
    expect(decideAi(state({ strict: true, budget: 50 }), action()).decision).toMatchObject({ kind: "deny" });
    expect(budgetMessage(state({ budget: 50_000, used: 49_950 }), action())).toMatch(
      /budget for model calls from code is 50,000 tokens and 49,950 are used or reserved; this call could take up to 110/,
    );
  });

  it("strict asks for every call, even allowed for the session or in mode allowed", () => {
    expect(decideAi(state({ strict: true, session: true }), action()).decision).toEqual({ kind: "ask" });
    expect(decideAi(state({ strict: true, mode: "allowed" }), action()).decision).toEqual({ kind: "ask" });
    expect(decideAi(state({ session: true }), action()).decision).toMatchObject({ kind: "allow", basis: "session" });
  });

  it("Always allow for this session lets later calls through; Deny refuses with a sentence for the code", () => {
    const always = answerAi(state(), action(), "session", "g1");
    expect(always.state.session).toBe(true);
    expect(decideAi(always.state, action({ fingerprint: "other" })).decision).toMatchObject({ kind: "allow" });
    const deny = answerAi(state(), action(), "deny", "g2");
    expect(deny.decision).toMatchObject({ kind: "deny", reason: "person" });
    expect((deny.decision as { message: string }).message).toMatch(/The person denied this model call\. Do not retry/);
  });

  it("Allow once: a grant for this call only, spent once", () => {
    const once = answerAi(state(), action(), "once", "g1");
    expect(once.decision).toEqual({ kind: "allow", basis: "once", grantId: "g1" });
    expect(spendAiGrant(once.state, "g1", action({ fingerprint: "other" }))).toMatchObject({
      ok: false,
      reason: "mismatch",
    });
    const spent = spendAiGrant(once.state, "g1", action());
    expect(spent).toMatchObject({ ok: true, audit: { decision: "allowed-once" } });
    expect(spendAiGrant(spent.state, "g1", action())).toMatchObject({ ok: false });
    expect(decideAi(spent.state, action()).decision).toEqual({ kind: "ask" });
  });

  it("saved settings are read back whole, anything malformed replaced by its default", () => {
    expect(readSaved({ mode: "allowed", session: true, budget: 1234.5, used: 99 })).toEqual({
      mode: "allowed",
      session: true,
      budget: 1234,
      used: 99,
    });
    expect(readSaved(undefined)).toEqual({ mode: "ask", session: false, budget: 50_000, used: 0 });
    expect(readSaved({ mode: "sure", session: "yes", budget: -1, used: "lots" })).toEqual({
      mode: "ask",
      session: false,
      budget: 50_000,
      used: 0,
    });
  });
});
