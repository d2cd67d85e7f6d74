/**
 * `ai` in the realm: model calls from code and generated UIs, brokered by
 * the host (DESIGN.md §4) — the session's rules and token budget
 * (aiPolicy.ts), the broker that asks and calls the session's model with the
 * person's key (createAiBroker.ts; installAi.ts installs it, loaded by dynamic import), the offline demo's responder
 * (demoResponder.ts), the ask (ask.ts, AskView.tsx), its Session settings
 * section (Settings.tsx) and its lines in the system prompt (prompt.ts).
 * Realm half: workers/realm/runtime/capabilities/ai.ts.
 */
import { AI_CALL, AI_NEXT } from "../../wire/capabilities";
import type { Capability } from "../Capability";
import { installLazily } from "../installLazily";
import { plural } from "../plural";
import { aiAsk } from "./ask";
import { aiPrompt } from "./prompt";

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
  // The broker, its rules and its Settings section load by dynamic import (installLazily.ts, installAi.ts).
  install: (host) =>
    installLazily(host, { services: [AI_CALL, AI_NEXT], asks: [aiAsk], settings: true }, () =>
      import("./installAi").then((module) => module.installAi),
    ),
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
