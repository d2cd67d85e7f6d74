/**
 * The host's MCP client (DESIGN.md §2, §4): one connection to one MCP server
 * the person added, made by this page with the official SDK — Streamable
 * HTTP first, the SDK's SSE transport as a fallback for older servers, or an
 * in-memory transport for the built-in demo server. Loaded lazily (a dynamic
 * import) the first time a server is added: nobody pays for the SDK up front.
 *
 * The bearer token lives in this closure and in the Authorization header of
 * the requests this page sends to that server: never in the realm, the
 * model's requests, the session or an export. Requests omit cookies and the
 * referrer, as the network broker's do.
 *
 * Failures are `McpConnectError`s with a code: `cors` (the server does not
 * accept requests from a web page, or could not be reached), `unauthorized`
 * (401/403: a token is missing or wrong, or OAuth sign-in failed),
 * `signing-in` (the page is leaving for the server's OAuth sign-in),
 * `invalid-url`, `not-mcp` (it answered, but not as an MCP server), `failed`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { jsonSchemaValidator, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { z } from "zod";
import type { JsonValue } from "../../wire/mount";
import type { McpToolResult } from "./createToolBroker";
import { MCP_APP_MIME, toolUiOf, type ToolUi } from "./mcpApps/toolUi";

export type McpConnectErrorCode = "cors" | "unauthorized" | "signing-in" | "invalid-url" | "not-mcp" | "failed";

export class McpConnectError extends Error {
  override readonly name = "McpConnectError";
  constructor(
    readonly code: McpConnectErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A tool as the server lists it (the parts Livemark uses). */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: JsonValue;
  readOnly: boolean;
  /** Its MCP App view, when it declares one (mcpApps/toolUi.ts). */
  ui?: ToolUi;
}

/** One content of a resource as the server read it (text or base64 bytes). */
export interface McpResourceContent {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  _meta?: Record<string, unknown>;
}

export interface McpConnection {
  /** The server's own name (`serverInfo.name`). */
  serverName: string;
  transport: "streamable-http" | "sse" | "in-memory";
  tools: McpToolInfo[];
  call(name: string, args: Record<string, JsonValue>, signal: AbortSignal): Promise<McpToolResult>;
  /** `resources/read` of this server (an MCP App's view, or what a view reads). */
  readResource(uri: string, signal: AbortSignal): Promise<{ contents: McpResourceContent[] }>;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: "livemark", version: "1.0.0" };

/**
 * Structured results are checked against the tool's output schema by the
 * SDK; its default checker (Ajv) compiles with `new Function`, which the
 * app's CSP forbids. zod reads JSON Schema without eval.
 */
const zodValidator: jsonSchemaValidator = {
  getValidator<T>(schema: unknown): JsonSchemaValidator<T> {
    let check: z.ZodType | undefined;
    try {
      check = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodType;
    } catch {
      check = undefined;
    }
    return (input: unknown) => {
      if (!check) return { valid: true, data: input as T, errorMessage: undefined };
      const result = check.safeParse(input);
      return result.success
        ? { valid: true, data: input as T, errorMessage: undefined }
        : {
            valid: false,
            data: undefined,
            errorMessage: result.error.issues
              .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
              .join("; "),
          };
    };
  },
};

/** This page hosts MCP Apps (mcpApps/): servers that check may offer their tools' views. */
const CAPABILITIES = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MCP_APP_MIME] } } };

function newClient(): Client {
  return new Client(CLIENT_INFO, { capabilities: CAPABILITIES, jsonSchemaValidator: zodValidator });
}

/** List every tool (following pages), keeping what the realm and the prompt need. */
async function listTools(client: Client): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page += 1) {
    const result = await client.listTools(cursor ? { cursor } : {});
    for (const tool of result.tools) {
      tools.push({
        name: tool.name,
        description: (tool.description ?? tool.title ?? "").trim(),
        inputSchema: (tool.inputSchema ?? { type: "object" }) as JsonValue,
        readOnly: tool.annotations?.readOnlyHint === true,
        ...(toolUiOf(tool._meta) ? { ui: toolUiOf(tool._meta) } : {}),
      });
    }
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

function connection(client: Client, transport: McpConnection["transport"], tools: McpToolInfo[]): McpConnection {
  return {
    serverName: client.getServerVersion()?.name ?? "",
    transport,
    tools,
    async call(name, args, signal) {
      const result = await client.callTool({ name, arguments: args }, undefined, { signal });
      return result as McpToolResult;
    },
    async readResource(uri, signal) {
      const result = await client.readResource({ uri }, { signal });
      return { contents: result.contents as McpResourceContent[] };
    },
    close: () => client.close(),
  };
}

/** The demo server (or any server object) in this page: no network at all. */
export async function connectInMemory(server: {
  connect(transport: Transport): Promise<void>;
}): Promise<McpConnection> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = newClient();
  await client.connect(clientSide);
  return connection(client, "in-memory", await listTools(client));
}

export interface ConnectOptions {
  url: string;
  /** Sent as `Authorization: Bearer …` to this server only. */
  token?: string;
  /** For servers that need OAuth (mcpOAuth.ts). */
  authProvider?: OAuthClientProvider;
  /** Back from the server's sign-in page with this authorization code. */
  signInCode?: string;
  fetch?: typeof fetch;
}

/** The plain-words sentence for a server this page cannot talk to. */
export function corsMessage(url: string): string {
  const origin = (() => {
    try {
      return new URL(url).origin;
    } catch {
      return url;
    }
  })();
  return (
    `The MCP server at ${origin} does not accept requests from a web page (CORS), or could not be reached. ` +
    "A browser lets this page talk to it only if the server allows it: its operator must send CORS headers " +
    "(Access-Control-Allow-Origin for this page, and allow the Authorization, Content-Type, mcp-session-id and mcp-protocol-version headers). " +
    "Check the URL, or use a server (or a local proxy) that allows browser requests."
  );
}

export async function connectMcpServer(options: ConnectOptions): Promise<McpConnection> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new McpConnectError(
      "invalid-url",
      `“${options.url.slice(0, 200)}” is not a URL; an MCP server URL looks like https://example.com/mcp`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new McpConnectError(
      "invalid-url",
      "an MCP server URL starts with https:// (or http:// for a server on this computer)",
    );
  if (url.username || url.password)
    throw new McpConnectError("invalid-url", "put credentials in the token field, not in the URL");

  const baseFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  // Whether the browser refused or failed a request outright (a CORS refusal
  // and an unreachable server look the same to a page: a TypeError).
  let blocked: unknown;
  let refused = false;
  const pageFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    try {
      const response = await baseFetch(input, {
        ...init,
        credentials: "omit",
        referrerPolicy: "no-referrer",
        mode: "cors",
      });
      if (response.status === 401 || response.status === 403) refused = true;
      return response;
    } catch (error) {
      if (error instanceof TypeError) blocked ??= error;
      throw error;
    }
  }) as typeof fetch;
  const headers: Record<string, string> = options.token ? { Authorization: `Bearer ${options.token}` } : {};
  // Set when the SDK sends the person to the server's sign-in page (the page is about to unload).
  let redirected = false;
  if (options.authProvider) {
    const provider = options.authProvider;
    const redirect = provider.redirectToAuthorization.bind(provider);
    options = {
      ...options,
      authProvider: Object.assign(Object.create(provider) as OAuthClientProvider, {
        redirectToAuthorization: (target: URL) => {
          redirected = true;
          return redirect(target);
        },
      }),
    };
  }
  const requestInit: RequestInit = { headers };

  const attempt = async (kind: "streamable-http" | "sse"): Promise<McpConnection> => {
    if (kind === "streamable-http" && options.signInCode !== undefined && options.authProvider) {
      // Back from the server's sign-in page: exchange the code (PKCE) for tokens first.
      await new StreamableHTTPClientTransport(url, {
        requestInit,
        fetch: pageFetch,
        authProvider: options.authProvider,
      }).finishAuth(options.signInCode);
    }
    const client = newClient();
    const transport =
      kind === "streamable-http"
        ? new StreamableHTTPClientTransport(url, {
            requestInit,
            fetch: pageFetch,
            ...(options.authProvider ? { authProvider: options.authProvider } : {}),
          })
        : new SSEClientTransport(url, {
            requestInit,
            fetch: pageFetch,
            // The SSE stream itself is opened with this page's fetch too, so it carries the same header.
            eventSourceInit: {
              fetch: (input: RequestInfo | URL, init?: RequestInit) =>
                pageFetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }),
            } as EventSourceInit,
            ...(options.authProvider ? { authProvider: options.authProvider } : {}),
          });
    try {
      await client.connect(transport);
      return connection(client, kind, await listTools(client));
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
  };

  const explain = (error: unknown): McpConnectError => {
    if (error instanceof McpConnectError) return error;
    if (blocked !== undefined) return new McpConnectError("cors", corsMessage(url.href), { cause: error });
    if (redirected) return new McpConnectError("signing-in", `Signing you in at ${url.origin}…`, { cause: error });
    if (refused && options.authProvider && !(error instanceof UnauthorizedError)) {
      return new McpConnectError(
        "unauthorized",
        `The MCP server at ${url.origin} needs you to sign in, and its sign-in (OAuth) did not work here: ${String((error as Error)?.message ?? error).slice(0, 200)}. Paste a bearer token instead.`,
        { cause: error },
      );
    }
    const status = (error as { code?: unknown }).code;
    if (
      error instanceof UnauthorizedError ||
      status === 401 ||
      status === 403 ||
      /\b(401|403)\b/.test(String((error as Error)?.message))
    ) {
      return new McpConnectError(
        "unauthorized",
        options.token
          ? `The MCP server at ${url.origin} refused the token (401/403). Check it, or ask the server's operator for a valid one.`
          : `The MCP server at ${url.origin} needs you to sign in or a token (401). Paste a bearer token, or use a server that supports OAuth sign-in.`,
        { cause: error },
      );
    }
    const message = String((error as Error)?.message ?? error);
    if (/json|parse|content-type|unexpected/i.test(message) || (typeof status === "number" && status >= 400)) {
      return new McpConnectError(
        "not-mcp",
        `${url.href} answered, but not as an MCP server (${message.slice(0, 200)}). Check the URL (often it ends in /mcp).`,
        { cause: error },
      );
    }
    return new McpConnectError(
      "failed",
      `Could not connect to the MCP server at ${url.href}: ${message.slice(0, 300)}`,
      { cause: error },
    );
  };

  try {
    return await attempt("streamable-http");
  } catch (first) {
    // Older servers speak the HTTP+SSE transport: they answer the Streamable
    // HTTP POST with 4xx (404, 405). Nothing else is worth a second try.
    const status = first instanceof StreamableHTTPError ? first.code : undefined;
    if (
      blocked !== undefined ||
      first instanceof UnauthorizedError ||
      typeof status !== "number" ||
      status < 400 ||
      status >= 500 ||
      status === 401 ||
      status === 403
    ) {
      throw explain(first);
    }
    try {
      return await attempt("sse");
    } catch (second) {
      throw explain(blocked !== undefined ? second : first);
    }
  }
}
