import "./ui/styles.css";
import { createRoot } from "react-dom/client";
import { useEffect, useMemo, useRef, useState } from "react";
import { Agent, type ChatMessage } from "./agent/agent";
import { createProtocolParser } from "./protocol/parser";
// Specific modules, not "./llm": the provider (and the AI SDK) load lazily.
import { describeLlmError } from "./llm/errors";
import { isDemo } from "./llm/settings";
import { SYSTEM_PROMPT, wrapFeedback } from "./llm/systemPrompt";
import { createRealmHost } from "./sandbox";
import { App } from "./ui/App";
import { SessionController } from "./ui/sessionController";
import { loadSettings, saveSettings, type Settings } from "./ui/settings";

/**
 * Wires the app: one realm (sandbox) per page, one agent per open session,
 * sessions in IndexedDB, settings in this origin's storage. The key never
 * leaves this module except towards the configured base URL.
 */
function Root() {
  const [settings, setSettings] = useState<Settings>(loadSettings);
  const settingsRef = useRef(settings);
  settingsRef.current = settings;
  const [realmStatus, setRealmStatus] = useState<"starting" | "ready" | "failed">("starting");

  const { controller, realm } = useMemo(() => {
    const realm = createRealmHost();
    const makeAgent = (messages: ChatMessage[]) =>
      new Agent(
        {
          model: async () => (await import("./llm/provider")).createLanguageModel(settingsRef.current),
          system: SYSTEM_PROMPT,
          realm,
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
    const controller = new SessionController({ realm, makeAgent, href: location.href });
    return { controller, realm };
  }, []);

  useEffect(() => {
    let live = true;
    void controller.start();
    realm.ready().then(
      () => live && setRealmStatus("ready"),
      () => live && setRealmStatus("failed"),
    );
    return () => {
      live = false;
    };
  }, [controller, realm]);

  return (
    <App
      controller={controller}
      settings={settings}
      usingDemo={isDemo(settings)}
      realmStatus={realmStatus}
      onSaveSettings={(next) => {
        saveSettings(next);
        controller.getState().agent?.setMaxTurns(next.maxTurns);
        setSettings(next);
      }}
    />
  );
}

createRoot(document.getElementById("root")!).render(<Root />);
