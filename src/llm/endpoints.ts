/**
 * Presets for common OpenAI-compatible providers (Settings → Provider
 * preset): choosing one fills the base URL. Models are not guessed here:
 * they come from the endpoint's `/models` list (listModels.ts) or are typed.
 */
export interface EndpointPreset {
  id: string;
  label: string;
  baseURL: string;
  /** A model name that exists there, offered when the list cannot be read. */
  exampleModel: string;
  /** Runs on this machine: usually no key, and CORS must be enabled on the server. */
  local: boolean;
}

export const ENDPOINT_PRESETS: readonly EndpointPreset[] = Object.freeze([
  { id: "openai", label: "OpenAI", baseURL: "https://api.openai.com/v1", exampleModel: "gpt-4.1-mini", local: false },
  {
    id: "openrouter",
    label: "OpenRouter",
    baseURL: "https://openrouter.ai/api/v1",
    exampleModel: "openai/gpt-4.1-mini",
    local: false,
  },
  {
    id: "groq",
    label: "Groq",
    baseURL: "https://api.groq.com/openai/v1",
    exampleModel: "llama-3.3-70b-versatile",
    local: false,
  },
  {
    id: "together",
    label: "Together",
    baseURL: "https://api.together.xyz/v1",
    exampleModel: "meta-llama/Llama-3.3-70B-Instruct-Turbo",
    local: false,
  },
  {
    id: "ollama",
    label: "Ollama (this machine)",
    baseURL: "http://localhost:11434/v1",
    exampleModel: "llama3.2",
    local: true,
  },
  {
    id: "lmstudio",
    label: "LM Studio (this machine)",
    baseURL: "http://localhost:1234/v1",
    exampleModel: "local-model",
    local: true,
  },
  {
    id: "llamacpp",
    label: "llama.cpp server (this machine)",
    baseURL: "http://localhost:8080/v1",
    exampleModel: "local-model",
    local: true,
  },
]);

/** The preset whose base URL this is (trailing slashes ignored), if any. */
export function presetFor(baseURL: string): EndpointPreset | undefined {
  const normalized = baseURL.trim().replace(/\/+$/, "");
  return ENDPOINT_PRESETS.find((preset) => preset.baseURL === normalized);
}
