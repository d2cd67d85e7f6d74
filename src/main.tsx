/// <reference types="vite/client" />
import "./ui/styles.css";
import { createRoot } from "react-dom/client";
import { useEffect, useRef, useState } from "react";
import { isDemo } from "./llm/settings";
import { createApp } from "./session/createApp";
import { afterRealmStart } from "./session/afterRealmStart";
import { CAPABILITIES } from "./capabilities";
import { FileChooserContext } from "./render/fileChooser";
import { RemoteImagesContext } from "./render/RemoteImage";
import { setSensitiveValues } from "./render/sensitiveValues";
import { MountsContext } from "./ui/mounts";
import { App, preloadSessionSettings } from "./ui/App";
import { preloadMarkdown, warmUpMarkdown } from "./ui/LazyMarkdown";
import { preloadCodeBlocks } from "./ui/Timeline";
import { prepareTimeFormat } from "./ui/MessageActions";
import { forgetKey, loadSettings, saveSettings, type Settings } from "./ui/settings";
import { watchRealmStatus, type RealmStatus } from "./session/realmStatus";
import {
  AskKindsContext,
  CapabilitiesContext,
  CapabilityViewsContext,
  type AskKinds,
  type CapabilityViews,
} from "./ui/capabilities";
import { installTestProbe } from "./testProbe";

/**
 * The store (Dexie opening the sessions), the prefetch of later chunks and the time formatter's warm-up wait
 * for the realm's READY (at most START_CAP_MS): before it they shared the two cores with the realm's worker
 * and slowed its start (issue 34 §3). The composer takes a message meanwhile (sendWhenOpen).
 */
const START_CAP_MS = 1_500;

/**
 * Parts the first screen does not show load on first use (src/ui/App.tsx, mounts.tsx, LazyMarkdown.tsx).
 * Once the session is open and the page idle they are fetched ahead (the reply's code, preloadModel, first),
 * so a first reply, a first mount, a first ask or a first click on Settings does not wait for the network (and the
 * Markdown pipeline has run once, so the first reply does not compile it). (Invite agent is left to its click: its chunk
 * brings the bridge's schemas.)
 */
function prefetchParts(preloadReply: () => Promise<unknown>): void {
  const fetchAll = () => {
    // The first message shows its time: the formatter's locale data loads before anyone has typed it.
    prepareTimeFormat();
    for (const load of [
      preloadReply,
      warmUpMarkdown,
      () => import("./ui/mounts").then((module) => module.loadMountView()),
      () => import("./ui/SettingsDialog"),
      () => import("./ui/SessionModelSettings"),
      preloadSessionSettings,
      () => import("./agent/cutFeedback"),
      () => import("./ui/ShortcutsDialog"),
      // The views of the kinds of ask (src/capabilities/lazyView.ts).
      ...[...ASK_KINDS.values()].map(
        (kind) => () => (kind.View as { preload?: () => Promise<unknown> }).preload?.() ?? Promise.resolve(),
      ),
    ]) {
      load().catch(() => {});
    }
  };
  if (typeof requestIdleCallback === "function") requestIdleCallback(fetchAll, { timeout: 1_000 });
  else setTimeout(fetchAll, 200);
}

/** Each capability's kind of ask (its view, its words), by the tag its asks carry. */
const ASK_KINDS: AskKinds = new Map(
  CAPABILITIES.flatMap((capability) => (capability.ask ? [[capability.ask.capability, capability.ask] as const] : [])),
);

/** Each capability's words in the interaction summary, in the list's order. */
const SUMMARIES: CapabilityViews["summaries"] = CAPABILITIES.flatMap((capability) =>
  capability.summary ? [capability.summary.bind(capability)] : [],
);

/** The settings the app reads (Root keeps it current): this origin's storage until Root renders. */
const settingsRef: { current: Settings | undefined } = { current: undefined };
const currentSettings = (): Settings => (settingsRef.current ??= loadSettings());

/**
 * The app (src/session/createApp.ts wires it), made before React's first render: its realm host takes over the early
 * realm then, with the READY the early realm may already hold (src/sandbox/earlyRealm.ts), instead of inside the
 * first render, a task of 40–80 ms after which a READY that came meanwhile was read (issue 34 §3).
 */
function makeApp() {
  const app = createApp({
    settings: currentSettings,
    capabilities: CAPABILITIES,
    startAfter: (realm) =>
      afterRealmStart(realm, START_CAP_MS).then(() => {
        // What draws the session the store reads next: its code blocks, and a long session's held messages.
        void preloadCodeBlocks().catch(() => {});
        void import("./ui/HeldMessages").catch(() => {});
        // A session's messages are drawn with the Markdown chunk: fetched while the store opens, not after.
        void preloadMarkdown().catch(() => {});
      }),
  });
  // Once the session is open (the composer works), what the first screen did not need is fetched ahead.
  void app.started.then(() => prefetchParts(app.preloadReply));
  // Read-only status for the browser tests, only on a page opened with their flag (src/testProbe.ts).
  installTestProbe({ realm: app.realm, inbox: app.inbox, restoring: () => app.controller.mounts.pending });
  const views: CapabilityViews = { sections: app.sections, summaries: SUMMARIES, timeline: app.timeline };
  return { ...app, views };
}

/**
 * Renders the app: settings in this origin's storage, the realm's status, the contexts the views read.
 */
function Root({ app }: { app: ReturnType<typeof makeApp> }) {
  const [settings, setSettings] = useState<Settings>(currentSettings);
  settingsRef.current = settings;
  // Generated UIs hold back values that look like the key (render/sensitiveValues.ts).
  useEffect(() => setSensitiveValues([settings.apiKey]), [settings.apiKey]);
  const [realmStatus, setRealmStatus] = useState<RealmStatus>({ state: "starting" });
  const { controller, realm, mounts, capabilities, imagePolicy, views } = app;

  const watcher = useRef<{ refresh(): void }>(undefined);
  useEffect(() => {
    const watch = watchRealmStatus(realm, setRealmStatus);
    watcher.current = watch;
    return watch.unsubscribe;
  }, [controller, realm]);

  return (
    <CapabilitiesContext.Provider value={capabilities}>
      <AskKindsContext.Provider value={ASK_KINDS}>
        <CapabilityViewsContext.Provider value={views}>
          <RemoteImagesContext.Provider value={imagePolicy}>
            <FileChooserContext.Provider value={capabilities.fileChooser}>
              <MountsContext.Provider value={mounts}>
                <App
                  controller={controller}
                  settings={settings}
                  usingDemo={isDemo(settings)}
                  realmStatus={realmStatus}
                  onRetryRealm={() => {
                    const restarted = realm.restart();
                    watcher.current?.refresh();
                    restarted.catch(() => watcher.current?.refresh());
                  }}
                  onForgetKey={() => setSettings((current) => forgetKey(current))}
                  onSaveSettings={(next) => {
                    saveSettings(next);
                    controller.getState().agent?.setMaxTurns(next.maxTurns);
                    setSettings(next);
                  }}
                />
              </MountsContext.Provider>
            </FileChooserContext.Provider>
          </RemoteImagesContext.Provider>
        </CapabilityViewsContext.Provider>
      </AskKindsContext.Provider>
    </CapabilitiesContext.Provider>
  );
}

/** `#app…`: the app view (src/ui/appView.tsx), its own small root, loaded only then; the chat's first JS does not carry it. */
const isAppView = /^#app(?:[=/]|$)/.test(location.hash);
// The chosen theme is applied before the first render by the entry (src/boot.ts): an inline script would need a CSP exception.
if (isAppView) {
  void import("./ui/appView").then((module) => module.renderAppView(createRoot(document.getElementById("root")!)));
} else {
  const app = makeApp();
  createRoot(document.getElementById("root")!).render(<Root app={app} />);
}
// Installable and offline: the service worker registers a little after the page has loaded and gone idle
// (workbox-window loads then), so precaching never competes with the first reply for the network.
const registerLater = () =>
  setTimeout(() => {
    const register = () =>
      void import("./ui/appUpdate").then((module) => module.registerServiceWorker()).catch(() => {});
    if (typeof requestIdleCallback === "function") requestIdleCallback(register, { timeout: 5_000 });
    else register();
  }, 2_000);
// A host that sends no Content-Security-Policy header is told once in the console (README "Hosting").
const checkCspHeaderLater = () => {
  if (!import.meta.env.PROD) return;
  // Its own chunk: the check runs once the page is idle, never before the first screen.
  const check = () =>
    void import("./ui/warnWithoutCspHeader")
      .then((module) => module.warnWithoutCspHeader().finally(() => performance.mark(module.CSP_HEADER_CHECKED_MARK)))
      .catch(() => {});
  if (typeof requestIdleCallback === "function") requestIdleCallback(check, { timeout: 5_000 });
  else setTimeout(check, 0);
};
const afterLoad = () => {
  registerLater();
  checkCspHeaderLater();
};
// This module is imported by src/boot.ts after it started the realm: the page may have finished loading already.
if (document.readyState === "complete") afterLoad();
else window.addEventListener("load", afterLoad, { once: true });
