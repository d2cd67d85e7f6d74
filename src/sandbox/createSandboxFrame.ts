/**
 * One sandbox iframe: an opaque-origin document (public/sandbox.html) whose
 * only job is to start the realm worker from the bundle we post and hand it
 * the realm's MessagePort. Removing the iframe kills the worker.
 *
 * Trust: the frame is addressed only through its own contentWindow, and a
 * window message counts only if it comes from that window with origin "null".
 */
import { SANDBOX_HELLO, SANDBOX_START, SANDBOX_WORKER_ERROR, WIRE_VERSION } from "../wire/constants";
import type { SandboxStartMessage } from "../wire/types";

export interface SandboxFrame {
  readonly iframe: HTMLIFrameElement;
  /** Remove the iframe (terminates the worker). Idempotent. */
  remove(): void;
}

export interface SandboxFrameOptions {
  container: HTMLElement;
  sandboxUrl: string;
  /** The realm bundle; the iframe loads while it is still being fetched. */
  bundle: Promise<Blob>;
  /** The realm's end of the channel; transferred to the worker. */
  port: MessagePort;
  /** The worker fired `error`: a hint to check liveness (its text is untrusted). */
  onWorkerError(message: string): void;
}

export function createSandboxFrame(options: SandboxFrameOptions): SandboxFrame {
  const iframe = document.createElement("iframe");
  // Set before src so the very first load is already sandboxed. Never
  // allow-same-origin (the realm would share the app's origin and storage),
  // never srcdoc (it would inherit the app's CSP instead of sandbox.html's).
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.setAttribute("aria-hidden", "true");
  iframe.setAttribute("tabindex", "-1");
  iframe.setAttribute("referrerpolicy", "no-referrer");
  iframe.setAttribute("allow", "");
  iframe.title = "Livemark realm";
  iframe.hidden = true;
  iframe.style.display = "none";
  iframe.src = options.sandboxUrl;

  let started = false;
  let removed = false;
  const onMessage = (event: MessageEvent) => {
    if (event.source === null || event.source !== iframe.contentWindow || event.origin !== "null") return;
    const data: unknown = event.data;
    if (typeof data !== "object" || data === null) return;
    const type = (data as { type?: unknown }).type;
    if (type === SANDBOX_HELLO && !started) {
      if ((data as { version?: unknown }).version !== WIRE_VERSION) return;
      started = true;
      const target = event.source as Window;
      options.bundle.then((bundle) => {
        if (removed) return;
        const start: SandboxStartMessage = { type: SANDBOX_START, version: WIRE_VERSION, bundle };
        // The target origin of an opaque-origin frame cannot be named: "*"
        // is the only option. We post to our own iframe's window, which we
        // checked sent the hello. (A failed bundle is the host's to report.)
        target.postMessage(start, "*", [options.port]);
      }, () => {});
    } else if (type === SANDBOX_WORKER_ERROR) {
      const message = (data as { message?: unknown }).message;
      options.onWorkerError(typeof message === "string" ? message.slice(0, 1_000) : "worker error");
    }
  };
  window.addEventListener("message", onMessage);
  options.container.appendChild(iframe);

  return {
    iframe,
    remove() {
      if (removed) return;
      removed = true;
      window.removeEventListener("message", onMessage);
      iframe.remove();
    },
  };
}
