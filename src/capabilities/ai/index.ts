/**
 * `ai` in the realm: model calls from code and generated UIs, brokered by
 * the host (DESIGN.md §4) — the session's rules and token budget
 * (aiPolicy.ts), the broker that asks and calls the session's model with the
 * person's key (createAiBroker.ts), the offline demo's responder
 * (demoResponder.ts), the ask (ask.ts, AskView.tsx), its Session settings
 * section (Settings.tsx) and its lines in the system prompt (prompt.ts).
 * Realm half: workers/realm/runtime/capabilities/ai.ts.
 */
import { AI_CALL, AI_NEXT } from "../../wire/capabilities";
import type { Capability, PersonSide } from "../Capability";
import type { OpenSession } from "../Capability";
import { plural } from "../plural";
import { DEFAULT_AI_POLICY, readSaved, type AiPolicyState } from "./aiPolicy";
import { aiAsk } from "./ask";
import { createAiBroker, type AiAuditRecord } from "./createAiBroker";
import { aiPrompt } from "./prompt";
import { settingsFor } from "./Settings";

/** The broker's records as the session's audit lines; an answer that came back is outside content. */
export const aiAudit =
  (person: Pick<PersonSide, "record" | "noteUntrusted">) =>
  (record: AiAuditRecord): void => {
    if (record.result === "ok") person.noteUntrusted("a model call's answer");
    person.record({
      at: record.at,
      capability: "ai",
      method: record.method,
      url: record.excerpt,
      decision: record.decision,
      ...(record.tokensIn !== undefined ? { tokensIn: record.tokensIn } : {}),
      ...(record.tokensOut !== undefined ? { tokensOut: record.tokensOut } : {}),
      result: record.result,
      ...(record.reason !== undefined ? { reason: record.reason } : {}),
    });
  };

/** What is saved with the session: the mode, "always", the budget and the tokens used. */
const saved = (state: AiPolicyState) => ({
  mode: state.mode,
  session: state.session,
  budget: state.budget,
  used: state.used,
});

/** The tokens the audit lines of model calls report, in and out. */
export function aiTokens(used: readonly { capability: string; tokensIn?: unknown; tokensOut?: unknown }[]) {
  let tokensIn = 0;
  let tokensOut = 0;
  for (const entry of used) {
    if (entry.capability !== "ai") continue;
    if (typeof entry.tokensIn === "number") tokensIn += entry.tokensIn;
    if (typeof entry.tokensOut === "number") tokensOut += entry.tokensOut;
  }
  return { tokensIn, tokensOut };
}

export const ai: Capability = {
  name: "ai",
  realmGlobals: ["ai"],
  install(host) {
    const { person } = host;
    let open: OpenSession | undefined;
    const broker = createAiBroker({
      ask: person.asker(aiAsk),
      audit: aiAudit(person),
      onChange: (state) => void open?.save(saved(state)).catch(() => undefined),
      model: async () => {
        const session = await host.languageModel();
        return {
          // The demo's responder loads with the first call, like the providers: none of it is in the first screen's code.
          model: session.model === "demo" ? (await import("./demoResponder")).createDemoResponder() : session.model,
          name: host.modelName(),
          failure: session.failure,
        };
      },
    });
    return {
      services: { [AI_CALL]: broker.call, [AI_NEXT]: broker.next },
      open(session) {
        open = session;
        broker.load({
          ...DEFAULT_AI_POLICY,
          ...readSaved(session?.saved),
          strict: session?.session.settings.strict === true,
        });
      },
      setStrict: (strict) => broker.setStrict(strict),
      Settings: settingsFor(broker),
    };
  },
  summary(used) {
    const calls = used.filter((entry) => entry.capability === "ai");
    if (calls.length === 0) return undefined;
    const denied = calls.filter((entry) => entry.decision === "denied").length;
    const { tokensIn, tokensOut } = aiTokens(calls);
    return `model calls: ${plural(calls.length, "call")}${denied ? ` (${denied} refused)` : ""}, ${(tokensIn + tokensOut).toLocaleString("en-US")} tokens`;
  },
  prompt: aiPrompt,
  ask: aiAsk,
};
