/**
 * A mock OpenAI-compatible server for browser tests: answers
 * `POST /v1/chat/completions` with queued turns streamed as real
 * chat-completions SSE, or with OpenAI-style error responses, and records
 * every request it receives.
 *
 * It binds 127.0.0.1 on a free port, answers CORS preflights (the app is
 * served from another port) unless `{ cors: false }`, and must be closed by the
 * test (`afterAll(() => mock.close())`).
 *
 *     const mock = await startMockLlm();
 *     const gate = createGate();
 *     mock.enqueue({ chunks: ["Hello ", { waitFor: gate.promise }, "world"] });
 *     // … point the app at mock.url, send a message, check the page …
 *     gate.open();
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * One piece of a streamed reply: text, a reasoning delta, a pause, or a hold
 * until a promise settles. A reasoning delta is sent the way reasoning
 * servers do, in `delta.reasoning_content` (DeepSeek, vLLM, llama.cpp; the
 * default) or `delta.reasoning` (OpenRouter, Ollama).
 */
export type MockChunk =
  | string
  | { reasoning: string; field?: "reasoning_content" | "reasoning" }
  | { pauseMs: number }
  | { waitFor: Promise<unknown> };

export type MockTurn =
  | {
      /** Streamed in order, one SSE event per string. */
      chunks: MockChunk[];
      /** Destroy the socket after the last chunk instead of finishing the reply. */
      dropAfter?: boolean;
      /** Send no response headers until this settles (a server that stalls before answering). */
      holdHeaders?: Promise<unknown>;
      /** `finish_reason` of the last chunk (default `"stop"`). */
      finishReason?: "stop" | "length" | "content_filter";
      /** Token counts to report (default: estimated from the request and reply lengths). */
      usage?: { prompt: number; completion: number };
    }
  | {
      status: 400 | 401 | 403 | 404 | 408 | 413 | 429 | 500 | 502 | 503;
      headers?: Record<string, string>;
      /** Response body; an object is sent as JSON. Default: an OpenAI-style error for the status. */
      body?: unknown;
    };

export interface RecordedRequest {
  method: string;
  /** Path and query as received, e.g. `/v1/chat/completions`. */
  path: string;
  /** Request headers, names lower-cased. */
  headers: Record<string, string>;
  /** The body parsed as JSON; the raw text when it is not JSON; `undefined` when empty. */
  body: any;
  /** True when no turn was queued and the server answered with an empty reply. */
  unqueued: boolean;
  at: number;
}

export interface MockLlmOptions {
  /** Answer CORS preflights and add CORS headers (default true). `false` acts like an endpoint that refuses browser requests. */
  cors?: boolean;
  /** Turns to queue before the first request. */
  turns?: MockTurn[];
  /** The model listed by `GET /v1/models` (default `"mock-model"`). */
  model?: string;
  /** Every model `GET /v1/models` lists (default `[model]`). */
  models?: string[];
  /** `GET /v1/models` answers 404, like servers that offer no list. */
  noModelList?: boolean;
  /** Requests without `Authorization: Bearer <requireKey>` get a 401 (a refused key). */
  requireKey?: string;
  /** Chat requests for a model not listed here get a 404 `model_not_found` (an unknown model name). */
  knownModels?: string[];
}

export interface MockLlm {
  /** Base URL to configure in the app: `http://127.0.0.1:PORT/v1`. */
  url: string;
  origin: string;
  port: number;
  /** Every non-preflight request, in order. */
  requests: RecordedRequest[];
  /** Every CORS preflight (`OPTIONS`), in order. */
  preflights: RecordedRequest[];
  /** Queue the answer to the next chat-completions request. */
  enqueue(turn: MockTurn): void;
  /** Turns queued and not yet served. */
  readonly pending: number;
  /** Resolves once `count` chat-completions requests have been received. */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  clearRequests(): void;
  close(): Promise<void>;
}

/** A promise a test opens by hand, to hold a `{ waitFor }` chunk until it has checked the page. */
export interface Gate {
  promise: Promise<void>;
  open(): void;
}

export function createGate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const ERROR_BODIES: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: "Invalid request.", type: "invalid_request_error", code: null },
  401: {
    message: "Incorrect API key provided: test. You can find your API key in your account settings.",
    type: "invalid_request_error",
    code: "invalid_api_key",
  },
  403: { message: "You are not allowed to use this model.", type: "invalid_request_error", code: "model_not_allowed" },
  404: {
    message: "The model `mock-model` does not exist or you do not have access to it.",
    type: "invalid_request_error",
    code: "model_not_found",
  },
  408: { message: "Request timed out.", type: "server_error", code: null },
  413: { message: "Request too large.", type: "invalid_request_error", code: null },
  429: {
    message: "Rate limit reached for requests. Please try again in 1s.",
    type: "requests",
    code: "rate_limit_exceeded",
  },
  500: { message: "The server had an error while processing your request.", type: "server_error", code: null },
  502: { message: "Bad gateway.", type: "server_error", code: null },
  503: { message: "The engine is currently overloaded, please try again later.", type: "server_error", code: null },
};

export async function startMockLlm(options: MockLlmOptions = {}): Promise<MockLlm> {
  const cors = options.cors ?? true;
  const listedModels = options.models ?? [options.model ?? "mock-model"];
  const queue: MockTurn[] = [...(options.turns ?? [])];
  const requests: RecordedRequest[] = [];
  const preflights: RecordedRequest[] = [];
  const waiters: Array<() => void> = [];
  const sockets = new Set<Socket>();
  let nextId = 1;

  const corsHeaders = (request: IncomingMessage): Record<string, string> =>
    cors
      ? {
          "access-control-allow-origin": header(request, "origin") ?? "*",
          // Without this, browsers hide retry-after from the page.
          "access-control-expose-headers": "*",
          vary: "Origin",
        }
      : {};

  const server: Server = createServer(async (request, response) => {
    const method = request.method ?? "GET";
    const path = request.url ?? "/";
    const raw = await readBody(request);
    const record: RecordedRequest = {
      method,
      path,
      headers: flattenHeaders(request),
      body: parseBody(raw),
      unqueued: false,
      at: Date.now(),
    };

    if (method === "OPTIONS") {
      preflights.push(record);
      if (!cors) {
        // An endpoint that does not speak CORS: the browser sees no allow-origin and blocks the request.
        response.writeHead(204);
        response.end();
        return;
      }
      response.writeHead(204, {
        ...corsHeaders(request),
        "access-control-allow-methods": "GET, POST, OPTIONS",
        // `*` does not cover Authorization, so echo what was asked for.
        "access-control-allow-headers":
          header(request, "access-control-request-headers") ?? "authorization, content-type",
        "access-control-max-age": "600",
      });
      response.end();
      return;
    }

    requests.push(record);
    const pathname = path.split("?")[0];
    try {
      const requestedModel =
        typeof (record.body as { model?: unknown } | undefined)?.model === "string"
          ? (record.body as { model: string }).model
          : "";
      if (options.requireKey !== undefined && header(request, "authorization") !== `Bearer ${options.requireKey}`) {
        // Like OpenAI: the refused key is echoed, partly (the app must never pass it on).
        const given = (header(request, "authorization") ?? "").replace(/^Bearer /, "");
        sendJson(
          response,
          401,
          openAiError(
            `Incorrect API key provided: ${given}. You can find your API key in your account settings.`,
            "invalid_request_error",
            "invalid_api_key",
          ),
          corsHeaders(request),
        );
        if (method === "POST") notify();
      } else if (method === "GET" && pathname === "/v1/models") {
        if (options.noModelList)
          sendJson(
            response,
            404,
            openAiError("Not found.", "invalid_request_error", "unknown_url"),
            corsHeaders(request),
          );
        else
          sendJson(
            response,
            200,
            { object: "list", data: listedModels.map((id) => ({ id, object: "model", created: 0, owned_by: "mock" })) },
            corsHeaders(request),
          );
      } else if (
        method === "POST" &&
        pathname === "/v1/chat/completions" &&
        options.knownModels &&
        !options.knownModels.includes(requestedModel)
      ) {
        sendJson(
          response,
          404,
          openAiError(
            `The model \`${requestedModel}\` does not exist or you do not have access to it.`,
            "invalid_request_error",
            "model_not_found",
          ),
          corsHeaders(request),
        );
        notify();
      } else if (method === "POST" && pathname === "/v1/chat/completions") {
        const turn = queue.shift();
        if (turn === undefined) record.unqueued = true;
        notify();
        await serveTurn(turn ?? { chunks: [] }, record.body, request, response, corsHeaders(request), nextId++);
      } else {
        sendJson(
          response,
          404,
          openAiError(`Unknown request URL: ${method} ${pathname}.`, "invalid_request_error", "unknown_url"),
          corsHeaders(request),
        );
      }
    } catch (error) {
      if (!response.headersSent)
        sendJson(response, 500, openAiError(String(error), "server_error", null), corsHeaders(request));
      else response.destroy();
    }
  });

  server.on("connection", (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  // Keep-alive sockets would hold close() open until they time out.
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  function chatRequestCount(): number {
    return requests.filter((request) => request.method === "POST" && request.path.startsWith("/v1/chat/completions"))
      .length;
  }

  function notify(): void {
    for (const waiter of waiters.splice(0)) waiter();
  }

  return {
    url: `${origin}/v1`,
    origin,
    port,
    requests,
    preflights,
    enqueue: (turn) => void queue.push(turn),
    get pending() {
      return queue.length;
    },
    async waitForRequests(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (chatRequestCount() < count) {
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`mock LLM: ${chatRequestCount()} of ${count} chat requests within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return requests.filter((request) => request.path.startsWith("/v1/chat/completions"));
    },
    clearRequests() {
      requests.splice(0);
      preflights.splice(0);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function serveTurn(
  turn: MockTurn,
  body: any,
  request: IncomingMessage,
  response: ServerResponse,
  cors: Record<string, string>,
  id: number,
): Promise<void> {
  if ("status" in turn) {
    const fallback = ERROR_BODIES[turn.status] ?? {
      message: `Error ${turn.status}.`,
      type: "server_error",
      code: null,
    };
    const payload = turn.body ?? { error: { ...fallback, param: null } };
    const text = typeof payload === "string" ? payload : JSON.stringify(payload);
    response.writeHead(turn.status, {
      "content-type": typeof payload === "string" ? "text/plain; charset=utf-8" : "application/json",
      ...cors,
      ...turn.headers,
    });
    response.end(text);
    return;
  }

  const model = typeof body?.model === "string" ? body.model : "mock-model";
  const completionId = `chatcmpl-mock-${id}`;
  const created = Math.floor(Date.now() / 1000);
  const finishReason = turn.finishReason ?? "stop";

  if (body?.stream !== true) {
    // Non-streaming request: collect the text, honouring pauses and gates.
    let content = "";
    let reasoning = "";
    for (const chunk of turn.chunks) {
      if (typeof chunk === "string") content += chunk;
      else if ("reasoning" in chunk) reasoning += chunk.reasoning;
      else await hold(chunk);
    }
    if (turn.dropAfter) return void response.destroy();
    sendJson(
      response,
      200,
      {
        id: completionId,
        object: "chat.completion",
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content, ...(reasoning ? { reasoning_content: reasoning } : {}) },
            finish_reason: finishReason,
          },
        ],
        usage: usage(body, content, turn.usage),
      },
      cors,
    );
    return;
  }

  let closed = false;
  // `close` on the response fires when the client went away (Stop, abort).
  response.on("close", () => (closed = true));
  if (turn.holdHeaders) await turn.holdHeaders.catch(() => undefined);
  if (closed) return;
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...cors,
  });
  const send = (data: unknown) => {
    if (!closed) response.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    id: completionId,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

  send(chunk({ role: "assistant", content: "" }, null));
  let content = "";
  for (const item of turn.chunks) {
    if (closed) return;
    if (typeof item === "string") {
      content += item;
      send(chunk({ content: item }, null));
    } else if ("reasoning" in item) {
      send(chunk({ [item.field ?? "reasoning_content"]: item.reasoning }, null));
    } else {
      await hold(item);
    }
  }
  if (closed) return;
  if (turn.dropAfter) {
    // Let the last chunk leave the socket before cutting it, like a proxy dying mid-reply.
    await new Promise((resolve) => setTimeout(resolve, 20));
    response.socket?.destroy();
    return;
  }
  send(chunk({}, finishReason));
  if (body?.stream_options?.include_usage) {
    send({
      id: completionId,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [],
      usage: usage(body, content, turn.usage),
    });
  }
  send("[DONE]");
  response.end();
}

function hold(chunk: Exclude<MockChunk, string | { reasoning: string }>): Promise<unknown> {
  if ("pauseMs" in chunk) return new Promise((resolve) => setTimeout(resolve, chunk.pauseMs));
  return chunk.waitFor.catch(() => undefined);
}

function usage(body: any, content: string, given?: { prompt: number; completion: number }) {
  const prompt = given?.prompt ?? Math.ceil(JSON.stringify(body?.messages ?? []).length / 4);
  const completion = given?.completion ?? Math.ceil(content.length / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function openAiError(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

function sendJson(response: ServerResponse, status: number, payload: unknown, headers: Record<string, string>): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(payload));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    request.on("error", reject);
  });
}

function parseBody(raw: string): unknown {
  if (raw === "") return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function flattenHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/**
 * A `fetch` for Node tests that behaves like a browser's on a cross-origin
 * call: it sends the CORS preflight the browser would send and, when the
 * answer does not allow `origin`, fails the way browsers do — a bare
 * `TypeError("Failed to fetch")` with no status and no details. It also
 * checks `access-control-allow-origin` on the actual response.
 */
export function browserLikeFetch(origin = "http://127.0.0.1:5173"): typeof fetch {
  return async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const headerNames = [...new Headers(init?.headers).keys()].filter((name) => !SAFELISTED_HEADERS.has(name));
    const preflight = await fetch(url, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": init?.method ?? "GET",
        ...(headerNames.length > 0 ? { "access-control-request-headers": headerNames.sort().join(",") } : {}),
      },
    }).catch(() => undefined);
    if (!preflight || !allows(preflight.headers, origin)) throw new TypeError("Failed to fetch");
    const response = await fetch(input, {
      ...init,
      headers: { ...Object.fromEntries(new Headers(init?.headers)), origin },
    });
    if (!allows(response.headers, origin)) {
      await response.body?.cancel();
      throw new TypeError("Failed to fetch");
    }
    return response;
  };
}

const SAFELISTED_HEADERS = new Set(["accept", "accept-language", "content-language"]);

function allows(headers: Headers, origin: string): boolean {
  const allowed = headers.get("access-control-allow-origin");
  return allowed === "*" || allowed === origin;
}
