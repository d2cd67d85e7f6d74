/// <reference types="vite/client" />
import "./ui/styles.css";
import { createRoot } from "react-dom/client";
import { useEffect, useMemo, useRef, useState } from "react";
import { Agent, type ChatMessage } from "./agent/agent";
import { limitConsoleEvents } from "./agent/limitConsoleEvents";
import { createProtocolParser } from "./protocol/parser";
// Specific modules, not "./llm": the provider (and the AI SDK) load lazily.
import { describeLlmError } from "./llm/errors";
import { scrubDescription } from "./llm/scrubSecret";
import { isDemo } from "./llm/settings";
import type { DemoModelOptions } from "./llm/demoModel";
import { SYSTEM_PROMPT, toolsPrompt, wrapFeedback } from "./llm/systemPrompt";
import { createRealmHost } from "./sandbox";
// Specific modules, not the "./render" index: MountView and the catalog load with the first mount (ui/mounts.tsx).
import { createMountInbox } from "./render/mountInbox";
import { createMountRegistry } from "./render/mountRegistry";
import { FileChooserContext } from "./render/fileChooser";
import { RemoteImagesContext } from "./render/RemoteImage";
import { setSensitiveValues } from "./render/sensitiveValues";
import { MountsContext, type MountsContextValue } from "./ui/mounts";
import { App } from "./ui/App";
import { preloadMarkdown } from "./ui/LazyMarkdown";
import { prepareTimeFormat } from "./ui/MessageActions";
import { SessionController } from "./ui/sessionController";
import { forgetKey, loadSettings, saveSettings, type Settings } from "./ui/settings";
import { createAttachmentService } from "./ui/attachmentService";
import { watchRealmStatus, withoutStartUpErrors, type RealmStatus } from "./ui/realmStatus";
import { createNetworkBroker } from "./sandbox/capabilities/createNetworkBroker";
import { FILE_ATTACHMENT, FILE_OFFER, FILE_READ, NET_FETCH, TOOL_CALL } from "./wire/capabilities";
import { createToolBroker } from "./sandbox/capabilities/createToolBroker";
import { CapabilityController } from "./ui/capabilityController";
import { CapabilitiesContext } from "./ui/capabilities";
import { CSP_HEADER_CHECKED_MARK, warnWithoutCspHeader } from "./ui/warnWithoutCspHeader";
import { installTestProbe } from "./testProbe";

// The database code is the first thing the session controller needs: its chunk is requested now, while the
// app's own code still runs, instead of after the first render (the controller imports the same module).
void import("./store/store").catch(() => {});

/**
 * The model's code: the demo model (with its scripts), or the HTTP providers (OpenAI's and the compatible
 * one, with their schemas), which the demo never needs. A failed load is tried again.
 */
function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
}
const loadDemoModel = loadOnce(() => import("./llm/demoModel"));
const loadProvider = loadOnce(() => import("./llm/provider"));

/** What a reply with these settings loads before its first token: the AI SDK (the agent's streamText) and the model's code. */
function preloadModel(settings: Settings): Promise<unknown> {
  return Promise.all([import("ai"), isDemo(settings) ? loadDemoModel() : loadProvider()]);
}

/**
 * Parts the first screen does not show load on first use (src/ui/App.tsx, mounts.tsx, LazyMarkdown.tsx).
 * Once the session is open and the page idle they are fetched ahead (the reply's code, preloadModel, first),
 * so a first reply, a first mount or a first click on Settings does not wait for the network. (Invite agent is left to its click: its chunk
 * brings the bridge's schemas.)
 */
function prefetchParts(preloadReply: () => Promise<unknown>): void {
  const fetchAll = () => {
    for (const load of [
      preloadReply,
      preloadMarkdown,
      () => import("./ui/mounts").then((module) => module.loadMountView()),
      () => import("./ui/SettingsDialog"),
      () => import("./ui/SessionModelSettings"),
      () => import("./ui/ShortcutsDialog"),
    ]) {
      load().catch(() => {});
    }
  };
  if (typeof requestIdleCallback === "function") requestIdleCallback(fetchAll, { timeout: 1_000 });
  else setTimeout(fetchAll, 200);
}

/**
 * Wires the app: one realm (sandbox) per page, one agent per open session,
 * sessions in IndexedDB, settings in this origin's storage. The key never
 * leaves this module except towards the configured base URL.
 */
function Root() {
  const [settings, setSettings] = useState<Settings>(loadSettings);
  const settingsRef = useRef(settings);
  settingsRef.current = settings;
  // Generated UIs hold back values that look like the key (render/sensitiveValues.ts).
  useEffect(() => setSensitiveValues([settings.apiKey]), [settings.apiKey]);
  const [realmStatus, setRealmStatus] = useState<RealmStatus>({ state: "starting" });

  const { controller, realm, mounts, capabilities } = useMemo(() => {
    const realm = createRealmHost();
    const unknownComponent = (name: string) =>
      controller
        .getState()
        .agent?.reportRenderProblem(`<${name}> is not a component this app can draw; it was shown as an error. Use the kit or plain HTML elements.`);
    const registry = createMountRegistry({
      onError: (mountId, error) => controller.getState().agent?.reportRenderProblem(`${mountId ? `mount ${mountId}: ` : ""}${error.message}`),
      onUnknownComponent: (_mountId, name) => unknownComponent(name),
    });
    // Validated once, at the port. Mount messages are applied in time slices under the session's caps
    // (render/mountInbox.ts); the agent hears only of what was applied.
    const inbox = createMountInbox({
      registry,
      // Inbox warnings name their mount already.
      onWarning: (mountId, message) => controller.getState().agent?.reportRenderProblem(mountId && !message.includes(mountId) ? `mount ${mountId}: ${message}` : message),
    });
    realm.subscribeMounts((message) => inbox.push(message));
    // A fresh realm has none of the old mounts: they stay visible, inert;
    // what the old one still had queued is dropped.
    realm.subscribe((event) => {
      if (event.type !== "realm-reset") return;
      inbox.clear();
      registry.closeAll();
    });
    // A realm that cannot start is shown by the page (status, Retry), not
    // written into the session by the agent; the host bounds console output
    // itself (agent/limitConsoleEvents.ts), whatever the realm sends.
    const quiet = withoutStartUpErrors(realm);
    const agentRealm = Object.assign(Object.create(quiet) as typeof realm, {
      subscribe: (listener: Parameters<typeof realm.subscribe>[0]) => quiet.subscribe(limitConsoleEvents({ forward: listener })),
      subscribeMounts: (listener: Parameters<typeof realm.subscribeMounts>[0]) => inbox.subscribe(listener),
    });
    /** The app's settings with the open session's own model and max tokens over them (Session settings → Model). */
    const effectiveSettings = (): Settings => {
      const chat = controller.getState().current?.chat;
      const base = settingsRef.current;
      return {
        ...base,
        ...(chat?.model ? { model: chat.model } : {}),
        ...(chat?.maxOutputTokens !== undefined ? { maxOutputTokens: chat.maxOutputTokens } : {}),
      };
    };
    const makeAgent = (messages: ChatMessage[]) =>
      new Agent(
        {
          model: async () => {
            const settings = effectiveSettings();
            // The demo's tools script brings the page's built-in demo MCP server.
            const demo: DemoModelOptions = { prepare: (script) => (script.usesDemoTools ? capabilities.addDemoServer() : undefined) };
            if (isDemo(settings)) return (await loadDemoModel()).createDemoModel(demo);
            return (await loadProvider()).createLanguageModel(settings, { demo });
          },
          // Read at each turn: the connected MCP tools are listed after the base prompt.
          system: () => SYSTEM_PROMPT + toolsPrompt(capabilities.toolDescriptors()),
          callSettings: () => {
            const chat = controller.getState().current?.chat;
            // An instruction applied from an imported file is the file's: it goes inside the untrusted bracket.
            return { temperature: chat?.temperature, instruction: chat?.instruction, importedInstruction: chat?.importedInstruction };
          },
          realm: agentRealm,
          createParser: createProtocolParser,
          describeError: (error) => {
            const current = effectiveSettings();
            // The key never reaches the timeline, the session store or an export, whatever the server echoed.
            return scrubDescription(describeLlmError(error, { baseURL: current.baseURL, model: current.model, pageProtocol: location.protocol }), current.apiKey);
          },
          // Output that follows outside content (a fetched body, a chosen file) is labelled untrusted.
          wrapFeedback: (body, source) => wrapFeedback(body, source, { untrusted: capabilities.takeUntrusted() }),
          maxTurns: settingsRef.current.maxTurns,
          // An imported session's messages are replayed as untrusted content: the agent reads the mark the
          // import put on each (never their dates, which the file chose), in a branch of one too.
        },
        messages,
      );
    // The open session's capabilities load (capabilities.open below): a message queued before the session opened is sent after.
    let capabilitiesOpened: Promise<void> = Promise.resolve();
    const controller: SessionController = new SessionController({
      realm,
      makeAgent,
      registry,
      href: location.href,
      sessionReady: () => capabilitiesOpened,
    });
    // The session's capabilities: the broker enforces them, the controller asks the person and keeps the records.
    const capabilities: CapabilityController = new CapabilityController({ agent: () => controller.getState().agent });
    const broker = createNetworkBroker({
      ask: capabilities.ask,
      audit: capabilities.recordNetwork,
      onChange: () => void capabilities.policyChanged(),
    });
    capabilities.attach(broker);
    realm.provide(NET_FETCH, broker.service);
    realm.provide(FILE_READ, capabilities.fileReadService);
    realm.provide(FILE_OFFER, capabilities.fileOfferService);
    // The person's MCP tools: the page holds the connections (and tokens); the realm gets their list and asks the broker.
    const toolBroker = createToolBroker({
      ask: capabilities.askTool,
      audit: capabilities.recordTool,
      onChange: () => void capabilities.policyChanged(),
    });
    capabilities.attachTools(
      toolBroker,
      () =>
        import("./sandbox/capabilities/createMcpServers").then(({ createMcpServers }) =>
          createMcpServers({ demoServer: () => import("./sandbox/capabilities/demoMcpServer").then((module) => module.createDemoMcpServer()) }),
        ),
      (tools) => realm.setTools(tools),
    );
    // The MCP servers this tab had before a reload come back (the SDK loads only if there were any), once the
    // session is open: the composer does not wait for them.
    const started = controller.start();
    void started.then(() => capabilities.restoreServers());
    // Back from an MCP server's OAuth sign-in: finish it (the code is single-use, so it leaves the address at once).
    if (/[?&]state=/.test(location.search) && /[?&](code|error)=/.test(location.search)) {
      const search = location.search;
      history.replaceState(history.state, "", location.pathname + location.hash);
      void capabilities.resumeSignIn(search);
    }
    realm.provide(TOOL_CALL, toolBroker.service);
    realm.provide(
      FILE_ATTACHMENT,
      createAttachmentService({ messages: () => controller.getState().agent?.getState().messages ?? [], chooser: capabilities.fileChooser }),
    );
    let openedSession: string | undefined | null = null;
    let replyPreloaded = false;
    controller.subscribe(() => {
      // A message sent while the sessions open: the code its reply needs loads meanwhile, not once the session is open.
      if (controller.getState().queued && !replyPreloaded) {
        replyPreloaded = true;
        preloadModel(effectiveSettings()).catch(() => {});
      }
      const { current } = controller.getState();
      if ((current?.id ?? undefined) === openedSession) return;
      openedSession = current?.id;
      capabilitiesOpened = capabilities.open(current, controller.storeHandle());
    });
    const mounts: MountsContextValue = {
      registry,
      sendEvent: (event) => {
        // The id travels with the event; what its handler causes comes back tagged with it.
        const eventId = controller.getState().agent?.noteUiEvent();
        realm.sendUiEvent({ type: "ui-event", ...event, ...(eventId === undefined ? {} : { eventId }) });
      },
      revive: () => void controller.revive(),
      onUnknownComponent: unknownComponent,
      pendingMounts: () => inbox.pending,
      snapshots: controller.mounts,
    };
    // Once the session is open (the composer works), what the first screen did not need is fetched ahead.
    void started.then(() => prefetchParts(() => preloadModel(effectiveSettings())));
    // Read-only status for the browser tests, only on a page opened with their flag (src/testProbe.ts).
    installTestProbe({ realm, inbox, restoring: () => controller.mounts.pending });
    return { controller, realm, mounts, capabilities };
  }, []);

  const watcher = useRef<{ refresh(): void }>(undefined);
  useEffect(() => {
    const watch = watchRealmStatus(realm, setRealmStatus);
    watcher.current = watch;
    return watch.unsubscribe;
  }, [controller, realm]);

  return (
    <CapabilitiesContext.Provider value={capabilities}>
    <RemoteImagesContext.Provider value={capabilities.imagePolicy}>
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
    </CapabilitiesContext.Provider>
  );
}

// The chosen theme is applied before the first render by the entry (src/boot.ts): an inline script would need a CSP exception.
createRoot(document.getElementById("root")!).render(<Root />);
// The first message shows its time: the formatter's locale data loads before anyone has typed it.
if (typeof requestIdleCallback === "function") requestIdleCallback(prepareTimeFormat, { timeout: 500 });
else setTimeout(prepareTimeFormat, 50);
// Installable and offline: the service worker registers a little after the page has loaded and gone idle
// (workbox-window loads then), so precaching never competes with the first reply for the network.
const registerLater = () =>
  setTimeout(() => {
    const register = () => void import("./ui/appUpdate").then((module) => module.registerServiceWorker()).catch(() => {});
    if (typeof requestIdleCallback === "function") requestIdleCallback(register, { timeout: 5_000 });
    else register();
  }, 2_000);
// A host that sends no Content-Security-Policy header is told once in the console (README "Hosting").
const checkCspHeaderLater = () => {
  if (!import.meta.env.PROD) return;
  const check = () => void warnWithoutCspHeader().finally(() => performance.mark(CSP_HEADER_CHECKED_MARK));
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
