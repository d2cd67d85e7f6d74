/**
 * Fetch the realm bundle as a Blob, retrying transient failures with
 * backoff. Transient: the network failed (fetch or reading the body threw,
 * e.g. "TypeError: Failed to fetch" from `response.blob()` after a 200) or
 * the server answered 5xx. A 4xx, or an HTML page where the script should be
 * (a static host's SPA fallback), is a deployment problem and fails at once.
 *
 * Pure apart from the injected `fetch` and `sleep`, so the retry policy is
 * tested in Node.
 */
import { RealmHostError } from "./RealmHostError";

/** Waits before the 2nd, 3rd, … attempt. Four attempts over ~2.5 s. */
export const BUNDLE_RETRY_DELAYS_MS: readonly number[] = [150, 600, 1_800];

export interface LoadRealmBundleOptions {
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  sleep?: (ms: number) => Promise<void>;
  delaysMs?: readonly number[];
  /** Called before each retry, with the failure that caused it (for logs and tests). */
  onRetry?: (attempt: number, error: unknown) => void;
  /**
   * A fetch of the bundle already under way (public/realm-start.js starts one before the app's code loads): its
   * Blob is the answer; if it fails, the attempts above begin.
   */
  first?: Promise<Blob>;
}

export async function loadRealmBundle(url: string, options: LoadRealmBundleOptions = {}): Promise<Blob> {
  const fetchBundle = options.fetch ?? ((input: string, init: RequestInit) => fetch(input, init));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((done) => setTimeout(done, ms)));
  const delays = options.delaysMs ?? BUNDLE_RETRY_DELAYS_MS;
  if (options.first) {
    try {
      return await options.first;
    } catch {
      // Fetched again below: a failure there says what went wrong.
    }
  }
  for (let attempt = 0; ; attempt++) {
    try {
      // A retry must not be answered from whatever cache entry just failed.
      const response = await fetchBundle(url, {
        credentials: "same-origin",
        cache: attempt === 0 ? "default" : "reload",
      });
      const type = response.headers.get("content-type") ?? "";
      if (!response.ok || type.includes("text/html")) {
        throw new RealmHostError(
          "bundle-unavailable",
          `could not load the realm from ${url} (HTTP ${response.status}, ${type || "no content type"})`,
          {
            details: { status: response.status, transient: response.status >= 500 },
          },
        );
      }
      return await response.blob();
    } catch (error) {
      const permanent = error instanceof RealmHostError && error.details?.transient !== true;
      if (permanent || attempt >= delays.length) {
        if (error instanceof RealmHostError) throw error;
        throw new RealmHostError(
          "bundle-unavailable",
          `could not load the realm from ${url} (${attempt + 1} attempts: ${describe(error)})`,
          { cause: error },
        );
      }
      options.onRetry?.(attempt + 1, error);
      await sleep(delays[attempt]);
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
