/**
 * `fetch` in the realm (DESIGN.md §2, §4): the standard shape, performed by
 * the host's network broker as a realm → host request (NET_FETCH). The
 * realm itself can reach nothing (its CSP says `connect-src 'none'`); the
 * host asks the person when the session's rules say so, and answers with the
 * response, which becomes a real `Response` here (`ok`, `status`,
 * `statusText`, `headers`, `url`, `json()`, `text()`, `arrayBuffer()`,
 * `blob()`, `body`). An `AbortSignal` withdraws the request at the host.
 *
 * How it fails, so the model can adapt:
 * - the person denied it / the network is off → CapabilityError with the host's sentence;
 * - the server does not allow browser requests (CORS) or is unreachable → TypeError, as fetch does;
 * - the server redirected → RedirectError (`code: "redirected"`): redirects are never followed, the
 *   person decided about this URL only; the code fetches the final URL itself (and is asked again);
 * - aborted by the caller's signal → the signal's reason (an AbortError);
 * - too large, too slow, revoked, stopped → an Error saying so, with the host's `code`.
 */
import {
  MAX_FETCH_REQUEST_BODY,
  NET_FETCH,
  type FetchRequestPayload,
  type FetchResponsePayload,
} from "../../../../src/wire/capabilities";
import type { JsonValue } from "../../../../src/wire/mount";
import { CapabilityError } from "../CapabilityError";
import type { HostRequests } from "../createHostRequests";

function describe(input: unknown, init: unknown): string {
  let method = "GET";
  let url = "";
  try {
    if (typeof input === "string") url = input;
    else if (input instanceof URL) url = input.href;
    else if (typeof Request !== "undefined" && input instanceof Request) {
      url = input.url;
      method = input.method;
    } else url = String(input);
    const override = (init as { method?: unknown } | undefined)?.method;
    if (typeof override === "string") method = override.toUpperCase();
  } catch {
    url = "(unreadable URL)";
  }
  return `${method} ${url.length > 200 ? url.slice(0, 200) + "…" : url}`;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let start = 0; start < bytes.length; start += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

/** `requests`: the port's host requests, once the realm is connected (none: every call is refused). */
export function createRealmFetch(requests: () => HostRequests | undefined): typeof fetch {
  return async function fetch(input: unknown, init?: unknown): Promise<Response> {
    const host = requests();
    if (!host) throw new CapabilityError("network", describe(input, init), "this session has no network access");
    let request: Request;
    try {
      request = new Request(input as RequestInfo, init as RequestInit | undefined);
    } catch (error) {
      throw new TypeError(
        `fetch(${describe(input, init)}): ${(error as Error).message}. Use an absolute https:// URL.`,
      );
    }
    const signal = (init as RequestInit | undefined)?.signal ?? (input instanceof Request ? input.signal : undefined);
    if (signal?.aborted) throw abortError(signal);
    const bytes = request.body === null ? null : new Uint8Array(await request.arrayBuffer());
    if (bytes && bytes.length > MAX_FETCH_REQUEST_BODY) {
      throw new RangeError(
        `fetch: request bodies are limited to ${MAX_FETCH_REQUEST_BODY / 1024} KB (this one is ${bytes.length} bytes)`,
      );
    }
    const payload: FetchRequestPayload = {
      url: request.url,
      method: request.method,
      headers: [...request.headers],
      body: bytes ? toBase64(bytes) : null,
    };
    let answer: FetchResponsePayload;
    try {
      // The person may take their time to answer; the host enforces the network's own time limit.
      answer = (await host.request(NET_FETCH, payload as unknown as JsonValue, {
        timeoutMs: Infinity,
        ...(signal ? { signal } : {}),
      })) as unknown as FetchResponsePayload;
    } catch (error) {
      const { code, message } = error as { code?: string; message?: string };
      if (signal?.aborted) throw abortError(signal);
      switch (code) {
        case "denied":
        case "network-off":
        case "invalid-url":
          throw CapabilityError.fromHost("network", code, message ?? "network capability not granted");
        case "unknown-service":
          // A host without a network broker (a test page, an embedding) grants nothing.
          throw new CapabilityError("network", describe(input, init), "this host offers no network access");
        case "cors":
          throw new TypeError(message);
        case "redirected": {
          const failure = new Error(
            message ?? `fetch ${request.method} ${request.url}: the server redirected to another address`,
          );
          failure.name = "RedirectError";
          throw Object.assign(failure, { code });
        }
        default: {
          const failure = new Error(`fetch ${request.method} ${request.url} failed: ${message}`);
          failure.name =
            code === "timeout"
              ? "TimeoutError"
              : code === "aborted" || code === "revoked"
                ? "AbortError"
                : "NetworkError";
          throw Object.assign(failure, { code: code ?? "failed" });
        }
      }
    }
    const body = NULL_BODY_STATUSES.has(answer.status) ? null : fromBase64(answer.body);
    const response = new Response(body, {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
    });
    Object.defineProperty(response, "url", { value: answer.url, enumerable: true });
    Object.defineProperty(response, "redirected", { value: answer.redirected, enumerable: true });
    return response;
  } as typeof fetch;
}
