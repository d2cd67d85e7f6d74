/**
 * The system prompt assembled from CAPABILITIES (index.ts), for the contract
 * tests and the benches: the app builds the same text at its first turn
 * (src/session/createApp.ts `systemPrompt`, from its own lazy chunk), so the
 * prompt's text is not in the page's first chunk.
 */
import { buildSystemPrompt, promptExamples } from "../llm/systemPrompt";
import { CAPABILITIES } from "./index";

/** The system prompt with these capabilities' lines (before any tool is connected: tools' lines follow at each call). */
export const SYSTEM_PROMPT = buildSystemPrompt(CAPABILITIES.map((capability) => capability.prompt ?? {}));

/** Every example in SYSTEM_PROMPT, in its order (test/promptExamples.test.ts runs each). */
export const PROMPT_EXAMPLES: readonly string[] = Object.freeze(
  promptExamples(CAPABILITIES.map((capability) => capability.prompt ?? {})),
);
