/**
 * One sandbox iframe: an opaque-origin document (public/sandbox.html) whose
 * only job is to start the realm worker from the bundle we post and hand it
 * the realm's MessagePort. Removing the iframe kills the worker.
 *
 * Trust: the frame is addressed only through its own contentWindow, and a
 * window message counts only if it comes from that window with origin "null".
 */
import { SANDBOX_HELLO, SANDBOX_PING, SANDBOX_PONG, SANDBOX_START, SANDBOX_WORKER_ERROR, WIRE_VERSION } from "../wire/constants";
import type { SandboxCommand } from "../wire/types";

export interface SandboxFrame {
  readonly iframe: HTMLIFrameElement;
  /**
   * Ask the sandbox document (not the worker) whether it is alive. A worker
   * stuck in a loop leaves its document answering; a crashed sandbox
   * process answers nothing.
   */
  ping(timeoutMs: number): Promise<boolean>;
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
  let pingSeq = 0;
  const pongs = new Map<number, () => void>();

  // The target origin of an opaque-origin frame cannot be named: "*" is the
  // only option. We post only to our own iframe's window.
  const post = (command: SandboxCommand, transfer: Transferable[] = []) => {
    iframe.contentWindow?.postMessage(command, "*", transfer);
  };

  const onMessage = (event: MessageEvent) => {
    if (event.source === null || event.source !== iframe.contentWindow || event.origin !== "null") return;
    const data: unknown = event.data;
    if (typeof data !== "object" || data === null) return;
    const message = data as { type?: unknown; version?: unknown; seq?: unknown; message?: unknown };
    switch (message.type) {
      case SANDBOX_HELLO:
        if (started || message.version !== WIRE_VERSION) return;
        started = true;
        // A failed bundle is the host's to report.
        options.bundle.then((bundle) => {
          if (!removed) post({ type: SANDBOX_START, version: WIRE_VERSION, bundle }, [options.port]);
        }, () => {});
        return;
      case SANDBOX_PONG:
        if (typeof message.seq === "number") pongs.get(message.seq)?.();
        return;
      case SANDBOX_WORKER_ERROR:
        options.onWorkerError(typeof message.message === "string" ? message.message.slice(0, 1_000) : "worker error");
        return;
    }
  };
  window.addEventListener("message", onMessage);
  options.container.appendChild(iframe);

  return {
    iframe,
    ping(timeoutMs) {
      if (removed || !started) return Promise.resolve(false);
      const seq = ++pingSeq;
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          pongs.delete(seq);
          resolve(false);
        }, timeoutMs);
        pongs.set(seq, () => {
          clearTimeout(timer);
          pongs.delete(seq);
          resolve(true);
        });
        post({ type: SANDBOX_PING, seq });
      });
    },
    remove() {
      if (removed) return;
      removed = true;
      window.removeEventListener("message", onMessage);
      for (const answer of pongs.values()) answer();
      pongs.clear();
      iframe.remove();
    },
  };
}
