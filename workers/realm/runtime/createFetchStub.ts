/**
 * `fetch` in the realm until the host's network broker exists (DESIGN.md §4):
 * every call rejects with a CapabilityError naming the request. The sandbox
 * CSP (connect-src 'none') is the wall; this only makes the failure legible
 * to the model instead of an opaque "Failed to fetch".
 */
import { CapabilityError } from "./CapabilityError";

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

export function createFetchStub(): typeof fetch {
  return function fetch(input: unknown, init?: unknown): Promise<Response> {
    return Promise.reject(new CapabilityError("network", describe(input, init), "this session has no network access"));
  } as typeof fetch;
}
