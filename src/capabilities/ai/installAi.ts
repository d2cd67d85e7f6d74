/**
 * The ai capability on the page (`ai.install`, loaded by dynamic import): the
 * broker (createAiBroker.ts) with the session's model, its rules loaded when
 * a session opens and saved on every change, and its Session settings section.
 */
import { AI_CALL, AI_NEXT } from "../../wire/capabilities";
import type { CapabilityHost, InstalledCapability, OpenSession, PersonSide } from "../Capability";
import { DEFAULT_AI_POLICY, readSaved, type AiPolicyState } from "./aiPolicy";
import { aiAsk } from "./ask";
import { createAiBroker, type AiAuditRecord } from "./createAiBroker";
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

export function installAi(host: CapabilityHost): InstalledCapability {
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
}
