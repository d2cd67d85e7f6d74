/**
 * The service worker (vite.config.ts, vite-plugin-pwa): registered once the
 * page has loaded, with workbox-window loaded only then. A new version of
 * the app installs in the background and waits; the page says "A new
 * version is ready" and the person chooses when to Reload (UpdateBanner.tsx
 * holds it back while a reply runs). Nothing ever skips waiting on its own,
 * so an update never replaces the app in the middle of a reply.
 */
export interface AppUpdateState {
  /** A new version is installed and waits for the page to let it take over. */
  waiting: boolean;
}

type Listener = () => void;

let state: AppUpdateState = { waiting: false };
const listeners = new Set<Listener>();
let applyWaiting: (() => void) | undefined;

function set(next: AppUpdateState): void {
  state = next;
  for (const listener of listeners) listener();
}

export const appUpdate = {
  getState: (): AppUpdateState => state,
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
  /** Let the waiting version take over, then reload into it. */
  apply(): void {
    applyWaiting?.();
  },
};

/**
 * Register the service worker, if this build has one: only the build links a
 * web app manifest (the dev server serves none and registers nothing). The
 * worker's URL and scope are relative to the page, so any sub-path works.
 */
export async function registerServiceWorker(): Promise<void> {
  if (!("serviceWorker" in navigator) || !document.querySelector('link[rel="manifest"]')) return;
  const { Workbox } = await import("workbox-window");
  const workbox = new Workbox(new URL("sw.js", document.baseURI).href);
  workbox.addEventListener("waiting", (event) => {
    const waiting = event.sw;
    applyWaiting = () => {
      // Reload once the new version is active (a page it never controlled gets no controllerchange).
      waiting?.addEventListener("statechange", () => waiting.state === "activated" && location.reload());
      workbox.messageSkipWaiting();
    };
    set({ waiting: true });
  });
  await workbox.register();
}
