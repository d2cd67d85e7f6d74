import { describe, expect, it, vi } from "vitest";
import type { CapabilityHost, OpenSession, PersonSide } from "../Capability";
import type { AuditEntry, Session } from "../../store/types";
import type { JsonValue } from "../../wire/mount";
import { AI_CALL } from "../../wire/capabilities";
import { ai } from "./index";

function install(answer: "once" | "session" | "deny" = "once") {
  const records: Record<string, unknown>[] = [];
  const untrusted: string[] = [];
  const asked: unknown[] = [];
  const person = {
    asker: () => async (request: unknown) => (asked.push(request), answer),
    record: (entry: Record<string, unknown>) => void records.push(entry),
    noteUntrusted: (source: string) => void untrusted.push(source),
  } as unknown as PersonSide;
  const host = {
    person,
    messages: () => [],
    setTools: () => {},
    languageModel: async () => ({ model: "demo" as const, failure: () => "unknown" }),
    modelName: () => "the offline demo model",
  } satisfies CapabilityHost;
  const installed = ai.install(host);
  const call = (content: string) =>
    Promise.resolve(
      installed.services[AI_CALL](
        { messages: [{ role: "user", content }], stream: false, maxTokens: 50 },
        { signal: new AbortController().signal, service: AI_CALL },
      ),
    );
  return { installed, call, records, untrusted, asked };
}

function openSession(saved: JsonValue | undefined, strict = false) {
  const save = vi.fn(async (_value: JsonValue) => {});
  const view = {
    session: { id: "s1", settings: { strict } } as unknown as Session,
    store: {} as OpenSession["store"],
    saved,
    save,
  } satisfies OpenSession;
  return { view, save };
}

describe("the ai capability module", () => {
  it("answers with the demo's responder, records the call with its tokens, marks the answer untrusted and saves the usage", async () => {
    const { installed, call, records, untrusted } = install();
    const { view, save } = openSession(undefined);
    await installed.open?.(view);
    await expect(call("Translate to German: good morning")).resolves.toEqual({ text: "guten Morgen" });
    expect(records).toMatchObject([
      {
        capability: "ai",
        method: "complete",
        url: "Translate to German: good morning",
        decision: "allowed-once",
        result: "ok",
      },
    ]);
    expect(records[0].tokensIn).toBeGreaterThan(0);
    expect(records[0].tokensOut).toBeGreaterThan(0);
    expect(untrusted).toEqual(["a model call's answer"]);
    const used = (records[0].tokensIn as number) + (records[0].tokensOut as number);
    expect(save).toHaveBeenLastCalledWith({ mode: "ask", session: false, budget: 50_000, used });
  });

  it("a session opens with its saved mode, budget and usage; strict comes from the session", async () => {
    const { installed, call, asked } = install();
    await installed.open?.(openSession({ mode: "off", session: false, budget: 1_000, used: 10 }).view);
    await expect(call("hello")).rejects.toMatchObject({ code: "ai-off" });
    await installed.open?.(openSession({ mode: "allowed", session: false, budget: 1_000, used: 990 }).view);
    await expect(call("hello")).rejects.toMatchObject({ code: "over-budget" });
    await installed.open?.(openSession({ mode: "allowed", session: true, budget: 1_000, used: 0 }, true).view);
    await call("hello");
    expect(asked).toHaveLength(1);
    installed.setStrict?.(false);
    await call("hello");
    expect(asked).toHaveLength(1);
  });

  it("sums up its calls and their tokens in the interaction summary", () => {
    const line = (fields: Partial<AuditEntry>): AuditEntry => ({
      sessionId: "s1",
      at: 1,
      capability: "ai",
      method: "complete",
      url: "hi",
      decision: "allowed-once",
      ...fields,
    });
    expect(ai.summary?.([])).toBeUndefined();
    expect(
      ai.summary?.([
        line({ tokensIn: 10, tokensOut: 5 }),
        line({ decision: "denied" }),
        line({ capability: "network", tokensIn: 1000 }),
      ]),
    ).toBe("model calls: 2 calls (1 refused), 15 tokens");
  });
});
