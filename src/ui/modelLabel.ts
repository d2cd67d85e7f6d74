import { isDemo } from "../llm/settings";
import type { Settings } from "./settings";

/**
 * Which model answers, in words, for the header and the Settings dialog:
 * "Demo model (offline)" or "gpt-4.1-mini · api.openai.com". Also says why
 * the demo answers when the endpoint was chosen without a key.
 */
export function answeringModel(settings: Pick<Settings, "provider" | "apiKey" | "baseURL" | "model">): {
  label: string;
  reason?: string;
} {
  if (isDemo(settings)) {
    return {
      label: "Demo model (offline)",
      reason:
        settings.provider === "openai"
          ? "the endpoint needs an API key (servers on this machine or network do not)"
          : undefined,
    };
  }
  return { label: `${settings.model.trim() || "(no model)"} · ${hostOf(settings.baseURL)}` };
}

function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL.trim()).host || baseURL;
  } catch {
    return baseURL.trim() || "(no base URL)";
  }
}
