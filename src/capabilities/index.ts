/**
 * The capabilities the app installs, in this order (src/session/createApp.ts):
 * one module each (README.md).
 */
import { buildSystemPrompt, promptExamples } from "../llm/systemPrompt";
import { ai } from "./ai";
import type { Capability } from "./Capability";
import { files } from "./files";
import { network } from "./network";
import { storage } from "./storage";
import { tools } from "./tools";

export type { AskViewProps, Capability, CapabilityHost, CapabilityPrompt, PersonSide } from "./Capability";

export const CAPABILITIES: readonly Capability[] = Object.freeze([network, files, tools, storage, ai]);

/** The system prompt with these capabilities' lines (before any tool is connected: tools' lines follow at each call). */
export const SYSTEM_PROMPT = buildSystemPrompt(CAPABILITIES.map((capability) => capability.prompt ?? {}));

/** Every example in SYSTEM_PROMPT, in its order (test/promptExamples.test.ts runs each). */
export const PROMPT_EXAMPLES: readonly string[] = Object.freeze(
  promptExamples(CAPABILITIES.map((capability) => capability.prompt ?? {})),
);
