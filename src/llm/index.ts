/**
 * The LLM area's public surface: provider setup, error mapping, the offline
 * demo model and the system prompt with its runtime-output messages.
 */
export {
  createLanguageModel,
  isDemo,
  isLocalBaseURL,
  normalizeBaseURL,
  describeSettingsProblem,
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  DEFAULT_SETTINGS,
  type LlmSettings,
  type LlmProviderKind,
  type CreateLanguageModelOptions,
} from "./provider";
export {
  describeLlmError,
  parseRetryAfter,
  type LlmErrorCode,
  type LlmErrorDescription,
  type LlmErrorContext,
} from "./errors";
export { createDemoModel, splitIntoPieces, DEMO_MODEL_ID, DEMO_PROVIDER_ID, type DemoModelOptions } from "./demoModel";
export {
  selectDemoReply,
  pickScript,
  DEMO_CLOSING_REPLY,
  DEMO_UI_EVENT_REPLY,
  type DemoReply,
  type DemoMessage,
} from "./selectDemoReply";
export { DEMO_SCRIPTS, DEMO_SUGGESTIONS, type DemoScript, type DemoStep } from "./demoScripts";
export {
  buildSystemPrompt,
  promptExamples,
  BASE_PROMPT_EXAMPLES,
  type PromptLines,
  type PromptExample,
  RUNTIME_OUTPUT_MARKER,
  UI_EVENT_MARKER,
  DEFAULT_FEEDBACK_MAX_CHARS,
  classifyUserMessage,
  formatFeedbackMessage,
  formatUiEventMessage,
  wrapFeedback,
  estimateTokens,
  type FeedbackOptions,
  type UserMessageKind,
} from "./systemPrompt";
