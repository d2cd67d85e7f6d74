/**
 * One sandbox iframe: an opaque-origin document (public/sandbox.html) whose
 * only job is to start the realm worker from the bundle we post and hand it
 * the realm's MessagePort. Removing the iframe kills the worker.
 *
 * Two ways to load it, one wall:
 * - `<iframe sandbox="allow-scripts" src="sandbox.html">`, the way of a
 *   page no service worker controls (the first visit, or workers blocked);
 * - offline-capable: when the app's service worker controls the page,
 *   `<iframe src="sandbox.html?sw">` without the attribute, which the worker
 *   answers from its precache with `Content-Security-Policy: sandbox
 *   allow-scripts; <sandbox.html's policy>` (sandboxDocument.ts): Chromium
 *   never routes an attribute-sandboxed frame's navigation through a
 *   service worker, so that frame could not load offline. Same opaque
 *   origin, same flags. If that document does not say hello within a grace
 *   period after it loaded (no header: it runs at the app's origin and
 *   refuses to start; or it failed to load), the frame is replaced by the
 *   attribute-sandboxed one.
 *
 * Trust: the frame is addressed only through its own contentWindow, and a
 * window message counts only if it comes from that window with origin
 * "null": a document that is not sandboxed never gets the bundle or the port.
 */
import {
  SANDBOX_HELLO,
  SANDBOX_PING,
  SANDBOX_PONG,
  SANDBOX_START,
  SANDBOX_WORKER_ERROR,
  WIRE_VERSION,
} from "../wire/constants";
import type { SandboxCommand } from "../wire/types";
import { serviceWorkerSandboxUrl } from "./sandboxDocument";

/** How long after the worker-served frame loaded its hello may still be on its way. */
export const SERVICE_WORKER_FRAME_GRACE_MS = 3_000;

export interface SandboxFrame {
  /** The current iframe (replaced once if the worker-served document could not start). */
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
  /**
   * Load the sandbox through the service worker (header-sandboxed, works
   * offline) first. Default: when a service worker controls this page.
   */
  viaServiceWorker?: boolean;
  /**
   * An attribute-sandboxed frame that is already loading (index.html's own,
   * which starts with the page instead of after its script): used instead of
   * a new one. Its hello may have come before anyone listened, so it is
   * asked (a ping, which its document answers) until it speaks.
   */
  adopt?: HTMLIFrameElement;
  /**
   * What public/realm-start.js did with the adopted frame before the app's
   * code ran: `started` (it posted the bundle and `port`: nothing more to
   * send), `hello` (the frame said hello: start it as soon as the bundle is
   * there). Ignored when the frame is not adopted.
   */
  handshake?: { started: boolean; hello: boolean };
}

/** How often an adopted frame is asked whether its document runs, until it answers (its load event asks at once). */
const ADOPTED_PROBE_MS = 150;
/** The probe's ping number (real pings count from 1). */
const PROBE_SEQ = 0;

/** Whether an existing frame is one this module would have made for the attribute way. */
export function isAdoptableFrame(element: Element | null, sandboxUrl: string): element is HTMLIFrameElement {
  return (
    element instanceof HTMLIFrameElement &&
    element.getAttribute("sandbox") === "allow-scripts" &&
    element.src === sandboxUrl &&
    !element.hasAttribute("srcdoc") &&
    !element.hasAttribute("allow-same-origin")
  );
}

/** Whether a service worker controls this page (then it serves sandbox.html?sw). */
export function controlledByServiceWorker(): boolean {
  return typeof navigator !== "undefined" && !!navigator.serviceWorker?.controller;
}

function createIframe(src: string, sandboxAttribute: boolean): HTMLIFrameElement {
  const iframe = document.createElement("iframe");
  // Set before src so the very first load is already sandboxed. Never
  // allow-same-origin (the realm would share the app's origin and storage),
  // never srcdoc (it would inherit the app's CSP instead of sandbox.html's).
  // Without the attribute, the service worker's CSP header sandboxes it.
  if (sandboxAttribute) iframe.setAttribute("sandbox", "allow-scripts");
  iframe.setAttribute("aria-hidden", "true");
  iframe.setAttribute("tabindex", "-1");
  iframe.setAttribute("referrerpolicy", "no-referrer");
  iframe.setAttribute("allow", "");
  iframe.title = "Livemark realm";
  iframe.hidden = true;
  iframe.style.display = "none";
  iframe.src = src;
  return iframe;
}

export function createSandboxFrame(options: SandboxFrameOptions): SandboxFrame {
  const viaServiceWorker = options.viaServiceWorker ?? controlledByServiceWorker();
  const adopted =
    !viaServiceWorker && options.adopt && isAdoptableFrame(options.adopt, options.sandboxUrl)
      ? options.adopt
      : undefined;
  if (options.adopt && !adopted) options.adopt.remove();
  let iframe =
    adopted ??
    (viaServiceWorker
      ? createIframe(serviceWorkerSandboxUrl(options.sandboxUrl), false)
      : createIframe(options.sandboxUrl, true));
  let hello = false;
  let probe: ReturnType<typeof setInterval> | undefined;
  let started = false;
  let removed = false;
  let fallbackTimer: ReturnType<typeof setTimeout> | undefined;
  let pingSeq = 0;
  const pongs = new Map<number, () => void>();

  // The target origin of an opaque-origin frame cannot be named: "*" is the
  // only option. We post only to our own iframe's window.
  const post = (command: SandboxCommand, transfer: Transferable[] = []) => {
    iframe.contentWindow?.postMessage(command, "*", transfer);
  };

  /** Post the bundle and the realm's port to the frame, once. */
  const startFrame = () => {
    if (started) return;
    started = true;
    // A failed bundle is the host's to report.
    options.bundle.then(
      (bundle) => {
        if (!removed) post({ type: SANDBOX_START, version: WIRE_VERSION, bundle }, [options.port]);
      },
      () => {},
    );
  };

  const onMessage = (event: MessageEvent) => {
    if (event.source === null || event.source !== iframe.contentWindow || event.origin !== "null") return;
    const data: unknown = event.data;
    if (typeof data !== "object" || data === null) return;
    const message = data as { type?: unknown; version?: unknown; seq?: unknown; message?: unknown };
    const start = () => {
      hello = true;
      clearTimeout(fallbackTimer);
      clearInterval(probe);
      startFrame();
    };
    switch (message.type) {
      case SANDBOX_HELLO:
        if (message.version !== WIRE_VERSION) {
          hello = true;
          clearTimeout(fallbackTimer);
          clearInterval(probe);
          return;
        }
        return start();
      case SANDBOX_PONG:
        // An adopted frame answering the probe: its document runs (its hello went by before we listened).
        // It still checks the version of what it is sent.
        if (message.seq === PROBE_SEQ && adopted && !hello) return start();
        if (typeof message.seq === "number") pongs.get(message.seq)?.();
        return;
      case SANDBOX_WORKER_ERROR:
        options.onWorkerError(typeof message.message === "string" ? message.message.slice(0, 1_000) : "worker error");
        return;
    }
  };
  window.addEventListener("message", onMessage);
  if (viaServiceWorker) {
    // Loaded and silent: not sandboxed (it refused to start at the app's
    // origin) or not loaded at all. Then the attribute-sandboxed frame.
    const served = iframe;
    served.addEventListener("load", () => {
      if (hello || removed || iframe !== served) return;
      clearTimeout(fallbackTimer);
      fallbackTimer = setTimeout(() => {
        if (hello || removed || iframe !== served) return;
        iframe = createIframe(options.sandboxUrl, true);
        served.replaceWith(iframe);
      }, SERVICE_WORKER_FRAME_GRACE_MS);
    });
  }
  if (adopted && options.handshake?.started) {
    // Started by public/realm-start.js: its document has the bundle and the port.
    adopted.style.display = "none";
    hello = started = true;
  } else if (adopted && options.handshake?.hello) {
    adopted.style.display = "none";
    hello = true;
    startFrame();
  } else if (adopted) {
    adopted.style.display = "none";
    const ask = () => (hello || removed ? clearInterval(probe) : post({ type: SANDBOX_PING, seq: PROBE_SEQ }));
    // Until sandbox.html commits, the frame holds its initial about:blank, a
    // document of this page's process: posting to it builds a window context
    // for it (10-17 ms of the entry's task in traces) and reaches nobody. The
    // document says hello before its load event, so the hello can have gone
    // by unheard only if the frame had loaded already (its navigation's
    // resource timing entry is there): ask at once then, else when it loads;
    // a slow probe covers a browser that gives no entry.
    const loaded = performance
      .getEntriesByName(adopted.src)
      .some((entry) => (entry as PerformanceResourceTiming).initiatorType === "iframe");
    adopted.addEventListener("load", () => void (hello || ask()), { once: true });
    probe = setInterval(ask, ADOPTED_PROBE_MS);
    if (loaded) ask();
  } else options.container.appendChild(iframe);

  return {
    get iframe() {
      return iframe;
    },
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
      clearTimeout(fallbackTimer);
      clearInterval(probe);
      window.removeEventListener("message", onMessage);
      for (const answer of pongs.values()) answer();
      pongs.clear();
      iframe.remove();
    },
  };
}
