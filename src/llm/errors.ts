/**
 * Turns whatever a model call threw into a stable code and a plain sentence
 * that says what happened and what to do next (DESIGN.md §3 "The LLM").
 *
 * Works from the AI SDK's error classes — `APICallError` (status, headers,
 * body, `isRetryable`), `RetryError` (wraps the attempts when the SDK retried),
 * `LoadAPIKeyError`, parse errors — and from what the platform throws before a
 * response exists (`TypeError: Failed to fetch`, `AbortError`). Every check is
 * by name or shape, never `instanceof` alone, so errors that crossed a
 * structured clone or a second copy of the SDK still map.
 *
 * Retrying: the agent retries a refused first request itself (it shows
 * "rate limited, retrying in N s" while it waits; the SDK's own retry has no
 * such hook and its header reader is internal), with the wait read here once
 * (`parseRetryAfter`). There is no second backoff helper.
 */
import { APICallError } from "@ai-sdk/provider";

export type LlmErrorCode =
  /** 401/403, or no key: the key was refused or lacks access. */
  | "auth"
  /** 404: the model or the base URL does not exist. */
  | "not-found"
  /** 429: rate limited or out of quota. */
  | "rate-limit"
  /** No response at all: unreachable, CORS refused, timed out. */
  | "network"
  /** The response started and the connection broke mid-reply. */
  | "disconnected"
  /** 400/413/422: the server refused the request as made. */
  | "bad-request"
  /** 5xx, or a reply that is not an OpenAI-compatible stream. */
  | "server"
  /** Stopped by the person (or the app). */
  | "aborted"
  | "unknown";

export interface LlmErrorDescription {
  code: LlmErrorCode;
  /** One or two plain sentences: what happened and the next step. */
  message: string;
  /** The server's own words, when it gave any (secrets redacted). */
  details?: string;
  /** HTTP status, when there was a response. */
  status?: number;
  /** How long the server asked us to wait before retrying. */
  retryAfterMs?: number;
  /** Sending the same request again may succeed. */
  retryable: boolean;
}

export interface LlmErrorContext {
  /** The configured base URL, to name it in messages (the error's own URL is used otherwise). */
  baseURL?: string;
  /** The configured model name. */
  model?: string;
  /** Part of the reply had already arrived: a network failure now is a disconnect. */
  partialReply?: boolean;
  /** `location.protocol` of the page, to spot mixed content (an https page calling http). */
  pageProtocol?: string;
  /** Clock for `retry-after` dates. */
  now?: number;
}

const RETRY_AFTER_CAP_MS = 60 * 60 * 1000;

export function describeLlmError(error: unknown, context: LlmErrorContext = {}): LlmErrorDescription {
  const chain = errorChain(error);

  if (chain.some(isAbort)) {
    return { code: "aborted", message: "Stopped.", retryable: false };
  }

  const retry = chain.find((item) => nameOf(item) === "AI_RetryError");
  const attempts =
    retry && Array.isArray((retry as { errors?: unknown[] }).errors)
      ? (retry as { errors: unknown[] }).errors.length
      : 0;
  const apiCall = chain.find(isApiCallError);
  const described = apiCall ? describeApiCall(apiCall, chain, context) : describeOther(chain, context);
  if (attempts > 1 && described.code !== "aborted") {
    described.message += ` (Gave up after ${attempts} attempts.)`;
  }
  return described;
}

// ---------------------------------------------------------------------------

type ApiCallLike = {
  statusCode?: number;
  url?: string;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  data?: unknown;
  isRetryable?: boolean;
  message?: string;
  cause?: unknown;
  requestBodyValues?: unknown;
};

function describeApiCall(error: ApiCallLike, chain: unknown[], context: LlmErrorContext): LlmErrorDescription {
  const status = error.statusCode;
  const where = endpointOf(error, context);
  const model = context.model ?? modelOf(error);
  const modelName = model ? `"${model}"` : "the configured model";
  const details = serverMessage(error);
  const errorCode = serverErrorCode(error);
  const retryAfterMs = retryAfterFrom(error, context.now ?? Date.now());
  const base = { status, details, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };

  if (status === undefined) {
    // The SDK wraps "fetch failed" (with a cause) into an APICallError without a status.
    return describeNetwork(chain, context, where) ?? unreachable(where, context, redact(error.message ?? ""));
  }
  if (status >= 200 && status < 300) {
    if (chain.some((item) => PARSE_ERRORS.has(nameOf(item)))) return notOpenAiCompatible(where, chain, context);
    // The SDK reports a body that broke off as "Failed to process successful response".
    return {
      code: "disconnected",
      status,
      message: `The connection to ${where.host} was lost in the middle of the reply. The partial reply is kept; press Continue to resume.`,
      retryable: true,
    };
  }
  if (status === 401) {
    return {
      ...base,
      code: "auth",
      retryable: false,
      message: `The API key was refused by ${where.host} (HTTP 401). Check the key in Settings, or switch to the demo model.`,
    };
  }
  if (status === 403) {
    return {
      ...base,
      code: "auth",
      retryable: false,
      message: `${where.host} refused the request (HTTP 403): the key may not have access to ${modelName}, or the account or region is not allowed. Check the key and the model in Settings.`,
    };
  }
  if (status === 404) {
    const modelMissing = errorCode === "model_not_found" || /model/i.test(details ?? "");
    return {
      ...base,
      code: "not-found",
      retryable: false,
      message: modelMissing
        ? `The model ${modelName} was not found at ${where.base} (HTTP 404). Check the model name in Settings (and that the base URL is the right server).`
        : `Nothing was found at ${where.url} (HTTP 404): the base URL ${where.base} or the model ${modelName} is wrong. Check both in Settings; OpenAI-compatible base URLs usually end in /v1.`,
    };
  }
  if (status === 429) {
    if (errorCode === "insufficient_quota" || /quota|billing|credit/i.test(details ?? "")) {
      return {
        ...base,
        code: "rate-limit",
        retryable: false,
        message: `The account behind this key has run out of quota at ${where.host} (HTTP 429). Add credit with the provider or use another key in Settings.`,
      };
    }
    return {
      ...base,
      code: "rate-limit",
      retryable: true,
      message: `${where.host} is rate-limiting requests (HTTP 429). ${retryAfterMs !== undefined ? `Try again in ${formatWait(retryAfterMs)}.` : "Wait a moment and try again."}`,
    };
  }
  if (status === 408) {
    return {
      ...base,
      code: "network",
      retryable: true,
      message: `${where.host} timed out waiting for the request (HTTP 408). Try again.`,
    };
  }
  if (status >= 500) {
    return {
      ...base,
      code: "server",
      retryable: true,
      message: `${where.host} had a server error (HTTP ${status}). This is usually temporary: try again ${retryAfterMs !== undefined ? `in ${formatWait(retryAfterMs)}` : "in a moment"}.`,
    };
  }
  if (
    /context|too long|maximum.*tokens|too many tokens/i.test(details ?? "") ||
    errorCode === "context_length_exceeded" ||
    status === 413
  ) {
    return {
      ...base,
      code: "bad-request",
      retryable: false,
      message: `The conversation is too long for ${modelName} (HTTP ${status}). Start a new session, or choose a model with a larger context window in Settings.`,
    };
  }
  return {
    ...base,
    code: "bad-request",
    retryable: error.isRetryable === true,
    message: `${where.host} rejected the request (HTTP ${status})${details ? `: ${details}` : "."} Check the model and settings.`,
  };
}

function describeOther(chain: unknown[], context: LlmErrorContext): LlmErrorDescription {
  const where = endpointOf(undefined, context);
  const names = chain.map(nameOf);

  if (names.includes("AI_LoadAPIKeyError")) {
    return {
      code: "auth",
      retryable: false,
      message: `No API key is set for ${where.host}. Add one in Settings, or use the demo model.`,
    };
  }
  if (names.some((name) => PARSE_ERRORS.has(name))) return notOpenAiCompatible(where, chain, context);
  const network = describeNetwork(chain, context, where);
  if (network) return network;

  // An error part streamed by the provider: a plain `{ message, type, code }` object.
  const first = chain[0];
  const type = stringField(first, "type") ?? stringField(first, "code") ?? "";
  const message = messageOf(first);
  if (/rate_limit|rate limit/i.test(type + " " + message)) {
    return {
      code: "rate-limit",
      retryable: true,
      details: redact(message),
      message: `${where.host} is rate-limiting requests. Wait a moment and try again.`,
    };
  }
  if (/server_error|overloaded/i.test(type + " " + message)) {
    return {
      code: "server",
      retryable: true,
      details: redact(message),
      message: `${where.host} had a server error mid-reply. The partial reply is kept; try again in a moment.`,
    };
  }
  return {
    code: "unknown",
    retryable: false,
    message: `Something went wrong talking to the model${message ? `: ${redact(message)}` : "."}`,
  };
}

/** The AI SDK's words when a stream ended with no finish reason (no last chunk, no `[DONE]`). */
const ENDED_UNFINISHED = /stream ended without a finish reason/i;
/** A chunk's text that starts as a chat-completions chunk does: a chunk cut or corrupted, not a wrong server. */
const CHUNK_START = /^\s*\{\s*"(id|object|choices|model|created)"/;

function notOpenAiCompatible(where: Endpoint, chain: unknown[], context: LlmErrorContext): LlmErrorDescription {
  const parseError = chain.find((item) => PARSE_ERRORS.has(nameOf(item)));
  // The stream stopped without its last chunk or [DONE]: the server (or a proxy) closed it early.
  if (chain.some((item) => ENDED_UNFINISHED.test(messageOf(item))))
    return {
      code: "disconnected",
      retryable: true,
      message: context.partialReply
        ? `The stream from ${where.host} stopped without saying the reply was finished (no last chunk, no [DONE]): the reply may be incomplete. It is kept; press Continue to resume.`
        : `The stream from ${where.host} stopped before the reply began, without saying it was finished (no last chunk, no [DONE]). Try again.`,
      details: redact(messageOf(parseError ?? chain[0])).slice(0, 400),
    };
  const chunkText = (parseError as { text?: unknown } | undefined)?.text;
  // One chunk that reads as a chat-completions chunk but not as JSON: a corrupt chunk, the address is right.
  if (!context.partialReply && typeof chunkText === "string" && CHUNK_START.test(chunkText))
    return {
      code: "server",
      retryable: true,
      message: `The stream from ${where.host} sent a chunk that could not be read (cut or corrupted). The address is right; try again.`,
      details: redact(messageOf(parseError)).slice(0, 400),
    };
  // The stream was a chat-completions stream until then: one bad chunk, not a wrong address.
  if (context.partialReply)
    return {
      code: "disconnected",
      retryable: true,
      message: `The stream from ${where.host} broke mid-reply: a chunk it sent could not be read. The partial reply is kept; press Continue to resume.`,
      details: redact(messageOf(parseError ?? chain[0])).slice(0, 400),
    };
  return {
    code: "server",
    retryable: false,
    message: `${where.host} answered with something that is not an OpenAI-compatible chat-completions stream. Check the base URL in Settings (it usually ends in /v1).`,
    details: redact(messageOf(parseError ?? chain[0])).slice(0, 400),
  };
}

const PARSE_ERRORS = new Set([
  "AI_JSONParseError",
  "AI_TypeValidationError",
  "AI_InvalidResponseDataError",
  "AI_EmptyResponseBodyError",
  "AI_NoContentGeneratedError",
]);

/** Messages the platforms give when a request never got a response. */
const REQUEST_FAILED =
  /^(failed to fetch|fetch failed|load failed|networkerror when attempting to fetch resource\.?|network request failed)$/i;
/** Messages the platforms give when a response body broke off. */
const BODY_FAILED = /^(terminated|network error|error in (input|body) stream|the network connection was lost\.?)$/i;
const SOCKET_CODES = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE", "ConnectionClosed"]);

function describeNetwork(chain: unknown[], context: LlmErrorContext, where: Endpoint): LlmErrorDescription | undefined {
  const names = chain.map(nameOf);
  const messages = chain.map(messageOf);
  const codes = chain.map((item) => stringField(item, "code"));

  if (names.includes("TimeoutError")) {
    return {
      code: "network",
      retryable: true,
      message: `${where.host} did not answer in time. Check that the server is running and try again.`,
    };
  }
  const bodyBroke =
    messages.some((message) => BODY_FAILED.test(message)) ||
    codes.some((code) => code !== undefined && SOCKET_CODES.has(code));
  if (bodyBroke || (context.partialReply && messages.some((message) => REQUEST_FAILED.test(message)))) {
    return {
      code: "disconnected",
      retryable: true,
      message: `The connection to ${where.host} was lost in the middle of the reply. The partial reply is kept; press Continue to resume.`,
    };
  }
  const cannotConnect = messages.find((message) => message.startsWith("Cannot connect to API"));
  if (
    messages.some((message) => REQUEST_FAILED.test(message)) ||
    cannotConnect !== undefined ||
    codes.includes("ECONNREFUSED")
  ) {
    return unreachable(where, context, cannotConnect ? redact(cannotConnect) : undefined);
  }
  return undefined;
}

function unreachable(where: Endpoint, context: LlmErrorContext, details: string | undefined): LlmErrorDescription {
  const mixedContent =
    context.pageProtocol === "https:" && where.base.startsWith("http:") && !isLoopback(where.base)
      ? " This page is served over https, and browsers block plain-http calls to hosts other than localhost: use an https URL."
      : "";
  return {
    code: "network",
    retryable: true,
    ...(details ? { details } : {}),
    message:
      `Could not reach ${where.base}: this endpoint does not accept browser requests or is unreachable. ` +
      "Check the base URL and that the server is running. The server must allow cross-origin requests from this page (CORS): " +
      'start Ollama with OLLAMA_ORIGINS set (e.g. OLLAMA_ORIGINS="*"), enable CORS in LM Studio\'s server settings, or start llama.cpp / vLLM with their CORS options.' +
      mixedContent,
  };
}

// ---------------------------------------------------------------------------

function errorChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current !== undefined && current !== null && !seen.has(current) && chain.length < 16) {
    seen.add(current);
    chain.push(current);
    // A RetryError's own cause is empty: its attempts carry the story.
    current =
      nameOf(current) === "AI_RetryError"
        ? (current as { lastError?: unknown }).lastError
        : (current as { cause?: unknown }).cause;
  }
  return chain;
}

function isAbort(error: unknown): boolean {
  const name = nameOf(error);
  if (name === "AbortError" || name === "ResponseAborted") return true;
  return name === "AI_RetryError" && (error as { reason?: unknown }).reason === "abort";
}

function isApiCallError(error: unknown): error is ApiCallLike {
  return APICallError.isInstance(error) || nameOf(error) === "AI_APICallError";
}

function nameOf(error: unknown): string {
  return stringField(error, "name") ?? "";
}

function messageOf(error: unknown): string {
  if (typeof error === "string") return error;
  return stringField(error, "message") ?? "";
}

function stringField(value: unknown, field: string): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const found = (value as Record<string, unknown>)[field];
  return typeof found === "string" ? found : undefined;
}

interface Endpoint {
  /** e.g. `api.openai.com` or `localhost:11434` */
  host: string;
  /** the base URL, e.g. `https://api.openai.com/v1` */
  base: string;
  /** the URL that was called */
  url: string;
}

function endpointOf(error: ApiCallLike | undefined, context: LlmErrorContext): Endpoint {
  const url = error?.url ?? context.baseURL ?? "";
  const base = context.baseURL ?? url.replace(/\/(chat\/completions|completions|responses|models)\/?$/, "");
  let host = "the endpoint";
  try {
    host = new URL(base || url).host || host;
  } catch {
    // Not a URL: keep the generic name.
  }
  return { host, base: base || "the configured base URL", url: url || base || "the configured base URL" };
}

function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127\./.test(host);
  } catch {
    return false;
  }
}

function modelOf(error: ApiCallLike): string | undefined {
  const body = error.requestBodyValues;
  return typeof body === "object" && body !== null && typeof (body as { model?: unknown }).model === "string"
    ? (body as { model: string }).model
    : undefined;
}

/** The `error` object of an OpenAI-style error body, from the SDK's parsed `data` or the raw body. */
function serverError(error: ApiCallLike): Record<string, unknown> | undefined {
  const candidates: unknown[] = [error.data];
  if (typeof error.responseBody === "string") {
    try {
      candidates.push(JSON.parse(error.responseBody));
    } catch {
      // Not JSON.
    }
  }
  for (const candidate of candidates) {
    if (typeof candidate !== "object" || candidate === null) continue;
    const inner = (candidate as { error?: unknown }).error;
    if (typeof inner === "object" && inner !== null) return inner as Record<string, unknown>;
    if (typeof inner === "string") return { message: inner };
    return candidate as Record<string, unknown>;
  }
  return undefined;
}

function serverMessage(error: ApiCallLike): string | undefined {
  const found = serverError(error);
  const text = [found?.message, found?.detail, found?.error].find(
    (value): value is string => typeof value === "string",
  );
  if (text) return redact(text).slice(0, 400);
  const body = error.responseBody?.trim();
  // A plain-text body says something; an HTML error page is noise.
  if (body && !body.startsWith("<") && !body.startsWith("{")) return redact(body).slice(0, 200);
  return undefined;
}

function serverErrorCode(error: ApiCallLike): string | undefined {
  const found = serverError(error);
  return [found?.code, found?.type].find((value): value is string => typeof value === "string");
}

function retryAfterFrom(error: ApiCallLike, now: number): number | undefined {
  const fromHeaders = parseRetryAfter(error.responseHeaders ?? {}, now);
  if (fromHeaders !== undefined) return fromHeaders;
  // OpenAI also says it in words: "Please try again in 20s." / "in 350ms".
  const match = /try again in (\d+(?:\.\d+)?)\s*(ms|s|seconds?)\b/i.exec(serverMessage(error) ?? "");
  if (!match) return undefined;
  const value = Number(match[1]);
  return Math.round(match[2].toLowerCase() === "ms" ? value : value * 1000);
}

/**
 * Milliseconds to wait, from `retry-after-ms`, `retry-after` (seconds or an
 * HTTP date) or OpenAI's `x-ratelimit-reset-*` durations ("6m0s", "120ms").
 */
export function parseRetryAfter(headers: Record<string, string>, now = Date.now()): number | undefined {
  const get = (name: string) => {
    for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
    return undefined;
  };
  const ms = Number.parseFloat(get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return Math.min(Math.round(ms), RETRY_AFTER_CAP_MS);
  const retryAfter = get("retry-after")?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.min(Math.round(Number(retryAfter) * 1000), RETRY_AFTER_CAP_MS);
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.min(Math.max(0, date - now), RETRY_AFTER_CAP_MS);
  }
  const resets = ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"]
    .map((name) => parseDuration(get(name)))
    .filter((value): value is number => value !== undefined);
  return resets.length > 0 ? Math.min(Math.max(...resets), RETRY_AFTER_CAP_MS) : undefined;
}

function parseDuration(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const pattern = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let consumed = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    total += Number(match[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as "ms" | "s" | "m" | "h"];
    consumed += match[0].length;
  }
  return consumed > 0 && consumed === text.trim().length ? Math.round(total) : undefined;
}

function formatWait(ms: number): string {
  if (ms < 1500) return "a second";
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 90) return `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes < 90 ? `${minutes} minutes` : `${Math.ceil(minutes / 60)} hours`;
}

/** Servers echo parts of keys in error messages; never pass those on. */
export function redact(text: string): string {
  return text
    .replace(/\bBearer\s+\S+/gi, "Bearer [redacted]")
    .replace(/\b(sk|gsk|xai|pk|rk)[-_][A-Za-z0-9_\-*.]{6,}/g, "[redacted key]");
}
