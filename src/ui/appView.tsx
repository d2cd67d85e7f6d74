/**
 * The app view (issue 29 §1): one reply's UIs on a page of their own, for
 * `#app/<sessionId>/<replyId>` (a reply of a session in this browser),
 * `#app=<payload>` (an app link) and `#app` (open a **Download app** file).
 * Its own root, loaded only on such a page (src/main.tsx): nothing of the
 * chat — no prose, composer or session list. src/session/appView.ts runs
 * the app; this draws its mounts, its asks, the **App link** and what went
 * wrong, in plain words.
 */
import "./appView.css";
import { useEffect, useMemo, useState, useSyncExternalStore, type DragEvent } from "react";
import type { Root } from "react-dom/client";
import { CAPABILITIES } from "../capabilities";
import { FileChooserContext } from "../render/fileChooser";
import { RemoteImagesContext } from "../render/RemoteImage";
import { setSensitiveValues } from "../render/sensitiveValues";
import { createAppRuntime, type AppRuntime } from "../session/appView";
import { watchRealmStatus, type RealmStatus } from "../session/realmStatus";
import { rememberOpenSession } from "../session/tabSession";
import type { ChatMessage } from "../agent/types";
// Static: these modules are in the app's chunk already; a dynamic import would keep every export of theirs there.
import { listAppData, writeAppData } from "../store/appData";
import { loadSession } from "../store/sessions";
import type { Store } from "../store/store";
import { utf8Bytes } from "../wire/appData";
import type { Session } from "../store/types";
import {
  appFileName,
  appIdOf,
  appMessages,
  appSessionExport,
  buildAppPayload,
  decodeAppLink,
  encodeAppLink,
  parseAppText,
  serializeApp,
  type AppPayload,
} from "../store/appLink";
import { installTestProbe } from "../testProbe";
import { AskKindsContext, CapabilitiesContext, PendingAsks, type AskKinds } from "./capabilities";
import { MountsContext, MountSlot, type MountsContextValue } from "./mounts";
import { saveFile } from "./saveFile";
import { loadSettings } from "./settings";

/** What the page's fragment asks for. */
export type AppRoute = { kind: "local"; sessionId: string; replyId: string } | { kind: "link" } | { kind: "file" };

/** `#app/<sessionId>/<replyId>`, `#app=…`, `#app`; undefined for any other fragment (the chat). */
export function appRoute(hash: string): AppRoute | undefined {
  if (hash.startsWith("#app=")) return { kind: "link" };
  const local = /^#app\/([A-Za-z0-9_.:-]{1,128})\/([A-Za-z0-9_.:-]{1,128})$/.exec(hash);
  if (local) return { kind: "local", sessionId: local[1], replyId: local[2] };
  if (hash === "#app" || hash === "#app/") return { kind: "file" };
  return undefined;
}

/** Draw the app view of this page's fragment (src/main.tsx calls it instead of drawing the chat). */
export function renderAppView(root: Root): void {
  root.render(<AppViewRoot route={appRoute(location.hash) ?? { kind: "file" }} />);
}

const ASK_KINDS: AskKinds = new Map(
  CAPABILITIES.flatMap((capability) => (capability.ask ? [[capability.ask.capability, capability.ask] as const] : [])),
);

/** The chat's address: this page without its fragment. */
const chatAddress = () => location.pathname + location.search;

/** What the view knows about the app it shows. */
type Loaded =
  | { state: "loading" }
  | { state: "choose" }
  | { state: "failed"; message: string }
  | {
      state: "ready";
      payload: AppPayload;
      /** For a reply of this browser: its session (Open in chat opens it). */
      sessionId?: string;
      /** For an app link or file: the hidden session the viewer's own app data is kept under. */
      appId?: string;
      link: { ok: true; url: string } | { ok: false; message: string };
    };

async function openAppStore(): Promise<Store | undefined> {
  const { openStore } = await import("../store/store");
  const opened = await openStore({});
  return opened.ok ? opened.store : undefined;
}

/** A session that exists only here: an app link's rights and app data, kept under its own id, never listed. */
function hiddenSession(id: string, title: string, now: number): Session {
  return {
    id,
    title,
    createdAt: now,
    updatedAt: now,
    origin: "imported",
    settings: { network: "ask", allowedHosts: [] },
  };
}

async function linkOf(payload: AppPayload): Promise<Extract<Loaded, { state: "ready" }>["link"]> {
  const encoded = await encodeAppLink(payload);
  return encoded.ok
    ? { ok: true, url: location.href.replace(/#.*$/s, "") + encoded.fragment }
    : { ok: false, message: encoded.error.message };
}

/** An app from a link or a file: its own id, its app data seeded once into this browser (then the viewer's own). */
async function startShared(
  runtime: AppRuntime,
  store: Store | undefined,
  payload: AppPayload,
): Promise<Extract<Loaded, { state: "ready" }>> {
  const appId = await appIdOf(payload);
  if (store && payload.appData?.length) {
    const seededKey = `livemark:app-seeded:${appId}`;
    let seeded = false;
    try {
      seeded = localStorage.getItem(seededKey) !== null;
    } catch {
      seeded = false;
    }
    if (!seeded && (await listAppData(store, appId)).length === 0) {
      await writeAppData(
        store,
        appId,
        payload.appData.map(({ key, json }) => ({ key, json, bytes: utf8Bytes(key) + utf8Bytes(json) })),
      );
    }
    try {
      localStorage.setItem(seededKey, "1");
    } catch {
      // Not remembered: the next open seeds only if the app has no data by then.
    }
  }
  const now = Date.now();
  void runtime.run({ messages: appMessages(payload, now), session: hiddenSession(appId, payload.title, now), store });
  return { state: "ready", payload, appId, link: await linkOf(payload) };
}

async function startLocal(
  runtime: AppRuntime,
  store: Store | undefined,
  route: Extract<AppRoute, { kind: "local" }>,
): Promise<Loaded> {
  if (!store) return { state: "failed", message: "This browser's storage is unavailable, so the app cannot be read." };
  const loaded = await loadSession(store, route.sessionId);
  if (!loaded)
    return { state: "failed", message: "This app's session is not in this browser any more (was it deleted?)." };
  const end = loaded.messages.findIndex((message) => message.id === route.replyId);
  const messages: ChatMessage[] = loaded.messages.slice(0, end + 1);
  const appData = await listAppData(store, route.sessionId);
  const payload = buildAppPayload({
    sessionTitle: loaded.session.title,
    messages: loaded.messages,
    replyId: route.replyId,
    appData,
  });
  if (!payload || end < 0) return { state: "failed", message: "This reply is not in its session any more." };
  void runtime.run({ messages, session: loaded.session, store });
  return { state: "ready", payload, sessionId: route.sessionId, link: await linkOf(payload) };
}

/** **Open in chat**: the session itself, or the app imported as a new session (with the viewer's app data). */
async function openInChat(store: Store | undefined, loaded: Extract<Loaded, { state: "ready" }>): Promise<string> {
  if (loaded.sessionId) {
    rememberOpenSession(loaded.sessionId);
    location.assign(chatAddress());
    return "";
  }
  if (!store) return "This browser's storage is unavailable, so the app cannot be imported.";
  const { importFile, serializeExport } = await import("../store/exportImport");
  const own = await listAppData(store, loaded.appId!);
  const payload: AppPayload = {
    ...loaded.payload,
    appData: own.length > 0 ? own.map(({ key, json }) => ({ key, json })) : undefined,
  };
  if (!payload.appData) delete payload.appData;
  const result = await importFile(
    store,
    serializeExport(appSessionExport(payload, `${loaded.appId}-chat`, Date.now())),
  );
  if (!result.ok) return `The app could not be opened in the chat: ${result.error.message}`;
  rememberOpenSession(result.sessions[0].id);
  location.assign(chatAddress());
  return "";
}

export function AppViewRoot({ route }: { route: AppRoute }) {
  const [settings] = useState(loadSettings);
  useEffect(() => setSensitiveValues([settings.apiKey]), [settings.apiKey]);
  const runtime = useMemo(() => {
    const made = createAppRuntime({ settings: () => settings, capabilities: CAPABILITIES });
    installTestProbe({ realm: made.realm, inbox: made.inbox });
    return made;
  }, [settings]);
  const [store, setStore] = useState<Store | undefined>();
  const [loaded, setLoaded] = useState<Loaded>({ state: "loading" });
  const [realmStatus, setRealmStatus] = useState<RealmStatus>({ state: "starting" });
  const [chatProblem, setChatProblem] = useState("");
  useEffect(() => watchRealmStatus(runtime.realm, setRealmStatus).unsubscribe, [runtime]);

  useEffect(() => {
    let live = true;
    const show = (next: Loaded) => void (live && setLoaded(next));
    void (async () => {
      const opened = await openAppStore().catch(() => undefined);
      if (!live) return;
      setStore(opened);
      if (route.kind === "file") return show({ state: "choose" });
      if (route.kind === "local") return show(await startLocal(runtime, opened, route));
      const decoded = await decodeAppLink(location.hash);
      if (!decoded.ok) return show({ state: "failed", message: decoded.error.message });
      show(await startShared(runtime, opened, decoded.payload));
    })().catch((error: unknown) =>
      show({ state: "failed", message: `The app could not be opened: ${(error as Error)?.message ?? error}` }),
    );
    return () => {
      live = false;
    };
  }, [runtime, route]);

  const openFile = async (file: Blob) => {
    if (loaded.state === "ready") return;
    const parsed = parseAppText(await file.text());
    if (!parsed.ok) return setLoaded({ state: "failed", message: parsed.error.message });
    setLoaded({ state: "loading" });
    const started = await startShared(runtime, store, parsed.payload);
    // A reload opens the same app: the page's address becomes its link when it fits in one.
    if (started.link.ok) history.replaceState(null, "", started.link.url);
    setLoaded(started);
  };

  const title = loaded.state === "ready" ? loaded.payload.title : "App";
  useEffect(() => {
    document.title = `${title} · Livemark`;
  }, [title]);

  const mounts = useMemo<MountsContextValue>(
    () => ({ registry: runtime.registry, sendEvent: runtime.sendEvent, mountsApplied: () => runtime.inbox.idle() }),
    [runtime],
  );
  const onDrop = (event: DragEvent) => {
    const file = event.dataTransfer.files[0];
    if (!file) return;
    event.preventDefault();
    void openFile(file);
  };

  return (
    <CapabilitiesContext.Provider value={runtime.capabilities}>
      <AskKindsContext.Provider value={ASK_KINDS}>
        <RemoteImagesContext.Provider value={undefined}>
          <FileChooserContext.Provider value={runtime.capabilities.fileChooser}>
            <MountsContext.Provider value={mounts}>
              <div className="lm-appview" onDragOver={(event) => event.preventDefault()} onDrop={onDrop}>
                <header className="lm-appview__header">
                  <h1 className="lm-appview__title">{title}</h1>
                  <p className="lm-appview__bar">
                    Made by the model ·{" "}
                    <button
                      type="button"
                      className="lm-button lm-button--quiet"
                      disabled={loaded.state !== "ready"}
                      onClick={() => loaded.state === "ready" && void openInChat(store, loaded).then(setChatProblem)}
                    >
                      Open in chat
                    </button>
                  </p>
                </header>
                {chatProblem && (
                  <p className="lm-notice lm-notice--error" role="alert">
                    {chatProblem}
                  </p>
                )}
                <AppBody loaded={loaded} runtime={runtime} realmStatus={realmStatus} onFile={openFile} />
                <PendingAsks />
                {loaded.state === "ready" && <AppLink loaded={loaded} />}
              </div>
            </MountsContext.Provider>
          </FileChooserContext.Provider>
        </RemoteImagesContext.Provider>
      </AskKindsContext.Provider>
    </CapabilitiesContext.Provider>
  );
}

function AppBody({
  loaded,
  runtime,
  realmStatus,
  onFile,
}: {
  loaded: Loaded;
  runtime: AppRuntime;
  realmStatus: RealmStatus;
  onFile: (file: Blob) => void;
}) {
  const state = useSyncExternalStore(runtime.subscribe, runtime.getState);
  if (loaded.state === "choose") {
    return (
      <section className="lm-appview__choose" aria-label="Open an app">
        <p>Drop an app file (from Download app) here, or choose one.</p>
        <label className="lm-button">
          Import
          <input
            type="file"
            accept=".json,application/json"
            hidden
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              if (file) onFile(file);
            }}
          />
        </label>
      </section>
    );
  }
  if (loaded.state === "failed") {
    return (
      <section className="lm-appview__problems" role="alert" aria-label="App problem">
        <p>{loaded.message}</p>
        <p>
          <a href={chatAddress()}>Open Livemark</a>
        </p>
      </section>
    );
  }
  const problems = [...state.problems];
  if (realmStatus.state === "failed") problems.unshift(`The app's sandbox could not start: ${realmStatus.message}.`);
  return (
    <>
      <p className="lm-appview__status" role="status" aria-label="App status">
        {loaded.state === "loading" || state.phase === "running" || state.phase === "idle"
          ? "Starting the app…"
          : state.phase === "stopped"
            ? "Stopped"
            : state.mounts.length === 0
              ? "This app shows nothing: its code ran without mounting a UI."
              : "Running"}
      </p>
      {problems.length > 0 && (
        <section className="lm-appview__problems" role="alert" aria-label="App problem">
          <p>Something in this app went wrong. No model is here to fix it; Open in chat to get help.</p>
          <ul>
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
          {state.phase === "stopped" && (
            <button type="button" className="lm-button" onClick={() => void runtime.runAgain()}>
              Run again
            </button>
          )}
        </section>
      )}
      <main className="lm-appview__mounts">
        {state.mounts.map((mountId) => (
          <MountSlot key={mountId} mountId={mountId} />
        ))}
      </main>
    </>
  );
}

function AppLink({ loaded }: { loaded: Extract<Loaded, { state: "ready" }> }) {
  const [copied, setCopied] = useState(false);
  const { link, payload } = loaded;
  return (
    <footer className="lm-appview__link" aria-label="Share this app">
      {link.ok ? (
        <>
          <label className="lm-appview__field">
            App link
            <input readOnly value={link.url} onFocus={(event) => event.currentTarget.select()} />
          </label>
          <button
            type="button"
            className="lm-button"
            onClick={() =>
              void navigator.clipboard.writeText(link.url).then(
                () => setCopied(true),
                () => setCopied(false),
              )
            }
          >
            Copy app link
          </button>
          {copied && <span role="status">Copied</span>}
        </>
      ) : (
        <p className="lm-notice lm-notice--warn">{link.message}</p>
      )}
      <button
        type="button"
        className="lm-button lm-button--quiet"
        onClick={() => saveFile(appFileName(payload), new TextEncoder().encode(serializeApp(payload)))}
      >
        Download app
      </button>
    </footer>
  );
}
