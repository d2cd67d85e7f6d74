import "./ui/styles.css";
import { createRoot } from "react-dom/client";
import { useEffect, useMemo, useRef, useState } from "react";
import { Agent, type ChatMessage } from "./agent/agent";
import { limitConsoleEvents } from "./agent/limitConsoleEvents";
import { createProtocolParser } from "./protocol/parser";
// Specific modules, not "./llm": the provider (and the AI SDK) load lazily.
import { describeLlmError } from "./llm/errors";
import { isDemo } from "./llm/settings";
import { SYSTEM_PROMPT, wrapFeedback } from "./llm/systemPrompt";
import { createRealmHost } from "./sandbox";
import { createMountInbox, createMountRegistry, setSensitiveValues } from "./render";
import { MountsContext, type MountsContextValue } from "./ui/mounts";
import { App } from "./ui/App";
import { SessionController } from "./ui/sessionController";
import { loadSettings, saveSettings, type Settings } from "./ui/settings";
import { watchRealmStatus, withoutStartUpErrors, type RealmStatus } from "./ui/realmStatus";

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

  const { controller, realm, mounts } = useMemo(() => {
    const realm = createRealmHost();
    const registry = createMountRegistry({
      onError: (mountId, error) => controller.getState().agent?.reportRenderProblem(`${mountId ? `mount ${mountId}: ` : ""}${error.message}`),
    });
    // Mount messages are applied in time slices under the session's caps
    // (render/mountInbox.ts); the agent hears only of what was applied.
    const inbox = createMountInbox({
      registry,
      onWarning: (mountId, message) => controller.getState().agent?.reportRenderProblem(`${mountId ? `mount ${mountId}: ` : ""}${message}`),
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
    const makeAgent = (messages: ChatMessage[]) =>
      new Agent(
        {
          model: async () => (await import("./llm/provider")).createLanguageModel(settingsRef.current),
          system: SYSTEM_PROMPT,
          realm: agentRealm,
          createParser: createProtocolParser,
          describeError: (error) => {
            const current = settingsRef.current;
            return describeLlmError(error, { baseURL: current.baseURL, model: current.model, pageProtocol: location.protocol });
          },
          wrapFeedback: (body, source) => wrapFeedback(body, source),
          maxTurns: settingsRef.current.maxTurns,
        },
        messages,
      );
    const controller = new SessionController({ realm, makeAgent, registry, href: location.href });
    const mounts: MountsContextValue = {
      registry,
      sendEvent: (event) => {
        controller.getState().agent?.noteUiEvent();
        realm.sendUiEvent({ type: "ui-event", ...event });
      },
      revive: () => void controller.revive(),
      onUnknownComponent: (name) =>
        controller
          .getState()
          .agent?.reportRenderProblem(`<${name}> is not a component this app can draw; it was shown as an error. Use the kit or plain HTML elements.`),
    };
    return { controller, realm, mounts };
  }, []);

  const watcher = useRef<{ refresh(): void }>(undefined);
  useEffect(() => {
    void controller.start();
    const watch = watchRealmStatus(realm, setRealmStatus);
    watcher.current = watch;
    return watch.unsubscribe;
  }, [controller, realm]);

  return (
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
      onSaveSettings={(next) => {
        saveSettings(next);
        controller.getState().agent?.setMaxTurns(next.maxTurns);
        setSettings(next);
      }}
    />
    </MountsContext.Provider>
  );
}

createRoot(document.getElementById("root")!).render(<Root />);
