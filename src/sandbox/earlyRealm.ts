/**
 * The first realm of the app's page, started before the app's own code has
 * loaded: src/boot.ts (a tiny module index.html runs first) calls
 * startEarlyRealm(), which fetches the realm bundle and loads the sandbox
 * iframe while the browser is still fetching and compiling the app. The
 * realm host takes it over as its first realm (takeEarlyRealm) instead of
 * starting one, so the page no longer waits for its own JavaScript before the
 * sandbox even begins to load.
 *
 * The frame is the same createSandboxFrame (same attributes, sandbox.html's
 * own policy, never allow-same-origin). The realm's port is read from the
 * start and what arrives before the host connects (the realm's READY) is held
 * for it (`takeHeld`): READY is taken in a task of its own as soon as it
 * comes, even while the app's code still loads, and the host learns of it the
 * moment it is made instead of after the task that made it.
 */
import { createSandboxFrame, type SandboxFrame } from "./createSandboxFrame";
import { loadRealmBundle } from "./loadRealmBundle";

export interface EarlyRealm {
  readonly realmUrl: string;
  readonly sandboxUrl: string;
  readonly container: HTMLElement;
  /** The host's end of the realm's channel (the realm's end went to the frame). */
  readonly port: MessagePort;
  readonly frame: SandboxFrame;
  readonly bundle: Promise<Blob>;
  /** performance.now() when it started. */
  readonly startedAt: number;
  /** Where the frame's worker `error` hints go once the host has it. */
  onWorkerError(listener: (message: string) => void): void;
  /**
   * What the realm sent before the host took the port (its READY), in order; from then on the host's listener hears
   * the port alone. Called once, by the host that takes it.
   */
  takeHeld(): unknown[];
}

/**
 * index.html's sandbox frame: `<iframe id="lm-realm-frame" sandbox="allow-scripts" src="./sandbox.html" …>`.
 * It begins loading (a new process for an opaque origin) while the page is
 * still being parsed; the early realm adopts it, or removes it when the
 * service worker's frame is the one to use.
 */
export const EARLY_FRAME_ID = "lm-realm-frame";

/**
 * What public/realm-start.js (a classic script in index.html's <head>, run
 * before the module graph) leaves for the app: the bundle it is fetching and,
 * once claimed, what it did with index.html's frame and the channel's ends.
 */
export interface HeadRealmStart {
  readonly realmUrl: string;
  readonly sandboxUrl: string;
  readonly bundle: Promise<Blob>;
  claim(): { started: boolean; hello: boolean; port: MessagePort; framePort: MessagePort };
}

/** The head script's start, taken over (it stops answering the frame) if it is for these URLs. */
function claimHeadStart(realmUrl: string, sandboxUrl: string) {
  const head = (window as { livemarkRealmStart?: HeadRealmStart }).livemarkRealmStart;
  if (!head || head.realmUrl !== realmUrl || head.sandboxUrl !== sandboxUrl) return undefined;
  return { bundle: head.bundle, ...head.claim() };
}

let early: EarlyRealm | undefined;
let started = false;

/** The realm and sandbox URLs the host uses by default. */
export function defaultRealmUrls(): { realmUrl: string; sandboxUrl: string } {
  return {
    realmUrl: new URL("generated/realm.js", document.baseURI).href,
    sandboxUrl: new URL("sandbox.html", document.baseURI).href,
  };
}

/** Start the page's first realm now (once; later calls do nothing). */
export function startEarlyRealm(): void {
  if (started) return;
  started = true;
  const { realmUrl, sandboxUrl } = defaultRealmUrls();
  const head = claimHeadStart(realmUrl, sandboxUrl);
  const channel = head ? { port1: head.port, port2: head.framePort } : new MessageChannel();
  // The head script's fetch when there is one (its failure starts the loader's own attempts).
  const bundle = loadRealmBundle(realmUrl, { first: head?.bundle });
  // A failed fetch is the host's to report (it retries with its own loader).
  bundle.catch(() => {});
  let listener: ((message: string) => void) | undefined;
  const container = document.body;
  const startedAt = performance.now();
  const frame = createSandboxFrame({
    container,
    sandboxUrl,
    bundle,
    port: channel.port2,
    onWorkerError: (message) => listener?.(message),
    // index.html's frame, loading since the page began (removed instead when it is not the one wanted).
    adopt: (document.getElementById(EARLY_FRAME_ID) as HTMLIFrameElement | null) ?? undefined,
    handshake: head && { started: head.started, hello: head.hello },
  });
  // The port is read from now on: the realm's READY is taken in a task of its own as soon as it comes, even while
  // the app's code is still loading, and kept for the host.
  const held: unknown[] = [];
  const hold = (event: MessageEvent) => void held.push(event.data);
  channel.port1.addEventListener("message", hold);
  channel.port1.start();
  early = {
    realmUrl,
    sandboxUrl,
    container,
    port: channel.port1,
    frame,
    bundle,
    startedAt,
    onWorkerError: (next) => void (listener = next),
    takeHeld: () => {
      channel.port1.removeEventListener("message", hold);
      return held.splice(0);
    },
  };
}

/**
 * Hand the early realm to a host that would start the same realm (same
 * bundle, same sandbox page, same container), once. Anyone else gets
 * undefined, and an early realm nobody can use is removed.
 */
export function takeEarlyRealm(wanted: {
  realmUrl: string;
  sandboxUrl: string;
  container: HTMLElement;
}): EarlyRealm | undefined {
  const taken = early;
  early = undefined;
  if (!taken) return undefined;
  if (
    taken.realmUrl === wanted.realmUrl &&
    taken.sandboxUrl === wanted.sandboxUrl &&
    taken.container === wanted.container
  )
    return taken;
  taken.frame.remove();
  taken.port.close();
  return undefined;
}
