/**
 * Settings → Test connection, and the model list: ask the endpoint what it
 * offers (`GET {baseURL}/models`) and whether the chosen model answers (one
 * chat-completions request of at most one token), and say in plain words
 * what worked and what is wrong — the key (401/403), the URL (404, nothing
 * there), CORS (the server answers, but not to pages), the model name.
 *
 * `fetch` and the reachability `probe` are passed in, so the decisions are
 * tested in Node without a network. The key only ever goes to `baseURL`, in
 * the `Authorization` header; no message here contains it.
 */
import { redact } from "./errors";
import { scrubSecret } from "./scrubSecret";
import { describeSettingsProblem, normalizeBaseURL, type LlmSettings } from "./settings";

export type ConnectionProblem = "settings" | "auth" | "not-found" | "model" | "cors" | "unreachable" | "server";

export interface ConnectionCheck {
  ok: boolean;
  text: string;
}

export interface ConnectionReport {
  ok: boolean;
  /** What is wrong, when something is. */
  problem?: ConnectionProblem;
  /** What was tried, in order, each with its outcome in a sentence. */
  checks: ConnectionCheck[];
  /** The endpoint's models, when it lists them. */
  models?: string[];
}

export interface ConnectionOptions {
  fetch?: typeof globalThis.fetch;
  /**
   * Whether anything answers at `url` at all, ignoring CORS (a `no-cors`
   * request resolves with an opaque response when a server answered). It
   * tells "refuses browser requests" from "unreachable" after a fetch failed.
   */
  probe?: (url: string) => Promise<boolean>;
  signal?: AbortSignal;
  pageProtocol?: string;
  /** Only read the model list (Load models): no request to the model. */
  listOnly?: boolean;
}

type Outcome = { kind: "response"; response: Response } | { kind: "failed"; error: unknown };

const defaultProbe = (url: string) =>
  globalThis.fetch(url, { mode: "no-cors", credentials: "omit", cache: "no-store" }).then(
    () => true,
    () => false,
  );

function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL).host;
  } catch {
    return baseURL;
  }
}

/** The endpoint's model ids (`GET /models`, OpenAI's `{ data: [{ id }] }` or a bare array), sorted; `undefined` when it lists none. */
export async function listModels(
  settings: LlmSettings,
  options: ConnectionOptions = {},
): Promise<string[] | undefined> {
  const outcome = await call(settings, "models", undefined, options);
  if (outcome.kind !== "response" || !outcome.response.ok) return undefined;
  return readModelIds(outcome.response);
}

async function readModelIds(response: Response): Promise<string[] | undefined> {
  try {
    const body = (await response.json()) as unknown;
    const list = Array.isArray(body)
      ? body
      : typeof body === "object" && body !== null
        ? ((body as { data?: unknown; models?: unknown }).data ?? (body as { models?: unknown }).models)
        : undefined;
    if (!Array.isArray(list)) return undefined;
    const ids = list
      .map((item) =>
        typeof item === "string"
          ? item
          : typeof item === "object" && item !== null
            ? ((item as { id?: unknown; name?: unknown }).id ?? (item as { name?: unknown }).name)
            : undefined,
      )
      .filter((id): id is string => typeof id === "string" && id.trim() !== "" && id.length <= 200);
    return [...new Set(ids)].sort((a, b) => a.localeCompare(b));
  } catch {
    return undefined;
  }
}

async function call(
  settings: LlmSettings,
  path: "models" | "chat/completions",
  body: unknown,
  options: ConnectionOptions,
): Promise<Outcome> {
  const fetch = options.fetch ?? globalThis.fetch;
  const key = settings.apiKey.trim();
  const headers: Record<string, string> = {
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    ...(body ? { "content-type": "application/json" } : {}),
  };
  try {
    const response = await fetch(`${normalizeBaseURL(settings.baseURL)}/${path}`, {
      method: body ? "POST" : "GET",
      headers,
      ...(body ? { body: JSON.stringify(body) } : {}),
      credentials: "omit",
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { kind: "response", response };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return { kind: "failed", error };
  }
}

/** The server's own words from an error body (OpenAI-style `{ error: { message, code } }` or plain text), redacted. */
async function serverWords(response: Response): Promise<{ message: string; code: string }> {
  const text = await response.text().catch(() => "");
  try {
    const parsed = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const inner =
      typeof parsed.error === "object" && parsed.error !== null ? (parsed.error as Record<string, unknown>) : {};
    const message =
      [inner.message, parsed.error, parsed.message, parsed.detail].find(
        (value): value is string => typeof value === "string",
      ) ?? "";
    const code = [inner.code, inner.type].find((value): value is string => typeof value === "string") ?? "";
    return { message: redact(message).slice(0, 300), code };
  } catch {
    return { message: text.trim().startsWith("<") ? "" : redact(text.trim()).slice(0, 300), code: "" };
  }
}

export async function testConnection(
  settings: LlmSettings,
  options: ConnectionOptions = {},
): Promise<ConnectionReport> {
  // The model name is checked below, against the list (Load models needs none).
  const problem = describeSettingsProblem(
    { ...settings, provider: "openai", model: settings.model.trim() || "unset" },
    options.pageProtocol,
  );
  if (problem) return { ok: false, problem: "settings", checks: [{ ok: false, text: problem }] };
  const base = normalizeBaseURL(settings.baseURL);
  const host = hostOf(base);
  const model = settings.model.trim();
  const checks: ConnectionCheck[] = [];
  const fail = (kind: ConnectionProblem, text: string, models?: string[]): ConnectionReport => ({
    ok: false,
    problem: kind,
    checks: [...checks, { ok: false, text }],
    ...(models ? { models } : {}),
  });
  const keyRefused = (status: number) =>
    status === 401
      ? `The API key was refused by ${host} (HTTP 401). Check the key${settings.apiKey.trim() ? "" : " (none is set)"}.`
      : `${host} refused the request (HTTP 403): the key has no access here (or to this model). Check the key and the account.`;
  const networkFailure = async (): Promise<ConnectionReport> => {
    const reachable = await (options.probe ?? defaultProbe)(`${base}/models`);
    return reachable
      ? fail(
          "cors",
          `${host} answered, but it does not accept requests from web pages (CORS). Allow this page's origin on the server: ` +
            'start Ollama with OLLAMA_ORIGINS="*", enable CORS in LM Studio\'s server settings, start llama.cpp or vLLM with their CORS options, or use a provider that allows browsers.',
        )
      : fail(
          "unreachable",
          `Nothing answered at ${base}. Check the base URL (it usually ends in /v1) and that the server is running.`,
        );
  };

  // 1. The model list (also tells whether the key is accepted).
  let models: string[] | undefined;
  const listed = await call(settings, "models", undefined, options);
  if (listed.kind === "failed") return networkFailure();
  const listStatus = listed.response.status;
  if (listStatus === 401 || listStatus === 403) return fail("auth", keyRefused(listStatus));
  if (listed.response.ok) {
    models = await readModelIds(listed.response);
    checks.push(
      models
        ? {
            ok: true,
            text: `Reached ${host}; the key was accepted and it lists ${models.length} model${models.length === 1 ? "" : "s"}.`,
          }
        : { ok: true, text: `Reached ${host}, but its model list could not be read; type the model name.` },
    );
  } else {
    checks.push({
      ok: true,
      text: `Reached ${host}; it offers no model list (HTTP ${listStatus}), so type the model name.`,
    });
  }
  const inList = models && model ? models.includes(model) : undefined;
  if (options.listOnly) {
    return models
      ? { ok: true, checks, models }
      : {
          ok: false,
          problem: "not-found",
          checks: [...checks, { ok: false, text: "This endpoint offers no model list: type the model name." }],
        };
  }
  if (!model)
    return fail(
      "model",
      `Enter a model name${models && models.length > 0 ? `, or pick one of the ${models.length} listed` : ""}.`,
      models,
    );

  // 2. One tiny request to the model itself.
  const answered = await call(
    settings,
    "chat/completions",
    { model, messages: [{ role: "user", content: "Reply with OK." }], max_tokens: 1, stream: false },
    options,
  );
  if (answered.kind === "failed") return networkFailure();
  const { response } = answered;
  const suggestions =
    models && models.length > 0
      ? ` Models listed there: ${models.slice(0, 8).join(", ")}${models.length > 8 ? ", …" : ""}.`
      : "";
  if (response.ok) {
    await response.body?.cancel().catch(() => undefined);
    checks.push({ ok: true, text: `The model “${model}” answered.` });
    return { ok: true, checks, ...(models ? { models } : {}) };
  }
  const said = await serverWords(response);
  const words = { ...said, message: scrubSecret(said.message, settings.apiKey) };
  const status = response.status;
  if (status === 401 || status === 403) return fail("auth", keyRefused(status), models);
  const aboutModel = words.code === "model_not_found" || /model/i.test(words.message) || inList === false;
  if ((status === 404 || status === 400 || status === 422) && aboutModel) {
    return fail(
      "model",
      `The model “${model}” is not known at ${host} (HTTP ${status}). Check the model name.${suggestions}`,
      models,
    );
  }
  if (status === 404) {
    return fail(
      "not-found",
      `Nothing was found at ${base}/chat/completions (HTTP 404): the base URL looks wrong. OpenAI-compatible base URLs usually end in /v1.`,
      models,
    );
  }
  return fail("server", `${host} answered HTTP ${status}${words.message ? `: ${words.message}` : "."}`, models);
}
