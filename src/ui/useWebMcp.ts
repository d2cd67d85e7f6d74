import { useCallback, useContext, useEffect, useState, useSyncExternalStore } from "react";
import type { WebMcpState, WebMcpTools } from "../agent/webMcp";
import type { SessionController } from "../session/sessionController";
import type { Session } from "../store/types";
import { CapabilitiesContext } from "./capabilities";
import { MountsContext } from "./mounts";
import { whenMountsApplied } from "./whenMountsApplied";

/**
 * The session offered to in-browser agents (WebMCP, src/agent/webMcp.ts).
 * Feature-detected on this page only (the app's document, never the
 * realm's frame): where neither `document.modelContext` nor
 * `navigator.modelContext` exists, the module is never loaded and nothing
 * is registered. No polyfill ships: the browser's own API or nothing.
 */

/** The session's switch, saved with it (`settings.capabilities.webmcp`); absent: off. */
export const WEBMCP_SETTING = "webmcp";

export function webMcpEnabled(session: Session | undefined): boolean {
  const saved = session?.settings.capabilities?.[WEBMCP_SETTING];
  return typeof saved === "object" && saved !== null && !Array.isArray(saved) && saved.enabled === true;
}

/** The browser offers WebMCP to this page. */
export function hasModelContext(): boolean {
  return (
    (typeof document !== "undefined" && "modelContext" in document && Boolean(document.modelContext)) ||
    (typeof navigator !== "undefined" && "modelContext" in navigator && Boolean(navigator.modelContext))
  );
}

declare global {
  interface Document {
    readonly modelContext?: unknown;
  }
  interface Navigator {
    readonly modelContext?: unknown;
  }
}

const EMPTY: WebMcpState = { registeredFor: undefined, pendingRuns: [] };

export interface WebMcpLink {
  tools: WebMcpTools | undefined;
  state: WebMcpState;
  /** The browser offers WebMCP. */
  available: boolean;
  /** The open session's switch. */
  enabled: boolean;
  setEnabled(on: boolean): void;
}

export function useWebMcp(controller: SessionController): WebMcpLink {
  const mounts = useContext(MountsContext);
  const capabilities = useContext(CapabilitiesContext);
  const [tools, setTools] = useState<WebMcpTools | undefined>();
  const [available] = useState(hasModelContext);
  const sessions = useSyncExternalStore(controller.subscribe, controller.getState);
  const session = sessions.current;
  const enabled = webMcpEnabled(session);

  useEffect(() => {
    if (!available) return;
    let made: WebMcpTools | undefined;
    let cancelled = false;
    void import("../agent/webMcp").then(({ WebMcpTools, findModelContext }) => {
      if (cancelled) return;
      made = new WebMcpTools({
        modelContext: findModelContext({ document, navigator }),
        agent: () => controller.getState().agent,
        session: () => controller.getState().current?.id,
        mountSnapshot: (mountId) => mounts?.registry.get(mountId)?.toSnapshot(),
        mountsApplied: () => whenMountsApplied(mounts?.mountsApplied),
        audit: (entry) => capabilities?.record({ ...entry }),
      });
      setTools(made);
    });
    // Unload: the tools go with the page (a page kept for Back/Forward offers them again when it shows).
    const onHide = () => made?.dispose();
    const onShow = (event: PageTransitionEvent) => {
      if (event.persisted) made?.resume();
    };
    addEventListener("pagehide", onHide);
    addEventListener("pageshow", onShow);
    return () => {
      cancelled = true;
      removeEventListener("pagehide", onHide);
      removeEventListener("pageshow", onShow);
      made?.dispose();
    };
  }, [available, controller, mounts, capabilities]);

  // Registered only for the open session, while its switch is on and this tab may write to it.
  const sessionId = session?.id;
  const writable = !sessions.readOnly;
  const [shown, setShown] = useState(0);
  useEffect(() => {
    const onShow = () => setShown((count) => count + 1);
    addEventListener("pageshow", onShow);
    return () => removeEventListener("pageshow", onShow);
  }, []);
  useEffect(() => {
    tools?.update({ sessionId, enabled: enabled && writable });
  }, [tools, sessionId, enabled, writable, shown]);

  const state = useSyncExternalStore(
    useCallback((listener: () => void) => tools?.subscribe(listener) ?? (() => undefined), [tools]),
    () => tools?.getState() ?? EMPTY,
  );

  const setEnabled = useCallback(
    (on: boolean) => {
      // The person's decision, in the audit list like every decision about this session's agents.
      capabilities?.record({
        at: Date.now(),
        capability: "agent",
        method: "Let agents in this browser use this session",
        url: "WebMCP",
        decision: on ? "on" : "off",
        agent: "the person",
      });
      void controller.saveSessionSetting(WEBMCP_SETTING, { enabled: on });
    },
    [capabilities, controller],
  );

  return { tools, state, available, enabled, setEnabled };
}
