/**
 * The app view without its view (issue 29 §1): one reply's UIs on their own.
 * A fresh realm re-runs the code of the session's replies up to that reply
 * (Revive's `reviveSession`, through the same block router as a turn),
 * without the model; the capabilities are installed as in the chat
 * (`installCapabilities`) and opened with the app's session — the session
 * itself for a reply of this browser, a hidden one (never in the session
 * list) for an app link — so app data, asks and grants are this browser's.
 * The mounts the app's reply opens (and those its UIs open later) are the
 * app; what fails is said in plain words, since no model hears it.
 */
import { reviveSession, type ReviveTarget } from "../agent/revive";
import type { ChatMessage } from "../agent/types";
import type { Capability, CapabilityHost } from "../capabilities/Capability";
import { createMountInbox, type MountInbox } from "../render/mountInbox";
import { createMountRegistry } from "../render/mountRegistry";
import type { MountRegistry, UiEvent } from "../render";
import { createRealmHost, type RealmHost } from "../sandbox";
import type { Store } from "../store/store";
import type { Session } from "../store/types";
import { DEFAULT_MODEL, isDemo } from "../llm/settings";
import type { ToolDescriptor } from "../wire/capabilities";
import { CapabilityController } from "./capabilityController";
import { installCapabilities, languageModelFor, type AppSettings } from "./createApp";

export interface AppViewState {
  /** `running`: the code is being re-run; `live`: it ran (the UIs respond); `stopped`: the realm was reset. */
  phase: "idle" | "running" | "live" | "stopped";
  /** The app's mounts, in the order they opened. */
  mounts: readonly string[];
  /** What went wrong, in plain words. */
  problems: readonly string[];
}

export interface AppRuntime {
  realm: RealmHost;
  registry: MountRegistry;
  inbox: MountInbox;
  capabilities: CapabilityController;
  sendEvent(event: UiEvent): void;
  getState(): AppViewState;
  subscribe(listener: () => void): () => void;
  /** Re-run `messages` (the last one is the app's reply) under `session`'s rights and app data. */
  run(input: RunInput): Promise<void>;
  /** **Run again** after the sandbox was reset: the same replies in the fresh realm. */
  runAgain(): Promise<void>;
}

interface RunInput {
  messages: readonly ChatMessage[];
  session: Session;
  store: Store | undefined;
}

/** At most this many problems are kept (a UI that throws on every click says so once per kind). */
const MAX_PROBLEMS = 20;

export function createAppRuntime(options: {
  settings: () => AppSettings;
  capabilities: readonly Capability[];
  realm?: RealmHost;
}): AppRuntime {
  const realm = options.realm ?? createRealmHost();
  let state: AppViewState = { phase: "idle", mounts: [], problems: [] };
  const listeners = new Set<() => void>();
  const set = (patch: Partial<AppViewState>) => {
    state = { ...state, ...patch };
    for (const listener of listeners) listener();
  };
  const report = (text: string) => {
    if (state.problems.includes(text) || state.problems.length >= MAX_PROBLEMS) return;
    set({ problems: [...state.problems, text] });
  };
  const registry = createMountRegistry({
    onError: (_mountId, error) => report(`The app's UI could not be drawn: ${error.message}`),
    onUnknownComponent: (_mountId, name) => report(`The app uses <${name}>, which Livemark cannot draw.`),
  });
  const inbox = createMountInbox({ registry, onWarning: (_mountId, message) => report(message) });
  realm.subscribeMounts((message) => inbox.push(message));

  /** The reply Revive runs now; undefined once it is over (mounts that open then are the app's too). */
  let running: string | undefined;
  let appReply: string | undefined;
  inbox.subscribe((message) => {
    if (message.kind === "open" && (running === undefined || running === appReply)) {
      if (!state.mounts.includes(message.mountId)) set({ mounts: [...state.mounts, message.mountId] });
    } else if (message.kind === "close" && state.mounts.includes(message.mountId)) {
      set({ mounts: state.mounts.filter((id) => id !== message.mountId) });
    }
  });
  realm.subscribe((event) => {
    // During the re-run Revive collects the failures; afterwards a UI's handler can still throw.
    if (event.type === "error" && state.phase === "live") {
      report(`The app ran into an error: ${event.error.message}`);
    }
    if (event.type === "realm-reset") {
      inbox.clear();
      registry.closeAll();
      set({ phase: "stopped", mounts: [] });
      report(`The app stopped: its sandbox was reset (${event.detail ?? event.reason}). Run again to start it anew.`);
    }
  });

  const capabilities = new CapabilityController({ agent: () => undefined });
  let tools: readonly ToolDescriptor[] = [];
  const host: CapabilityHost = {
    person: capabilities,
    messages: () => [],
    tellRealm: (method, payload) => realm.tell(method, payload),
    setTools: (list) => {
      tools = list;
      realm.setTools(list);
    },
    tools: () => tools,
    // `ai` uses this browser's settings (the viewer's key, or the demo model): never anything from the app.
    languageModel: () => languageModelFor(options.settings()),
    modelName: () => {
      const settings = options.settings();
      return isDemo(settings) ? "the offline demo model" : settings.model.trim() || DEFAULT_MODEL;
    },
  };
  installCapabilities(options.capabilities, host, realm, capabilities);

  // Settled means applied: the mounts the code opened have been placed.
  const reviveRealm = Object.assign(Object.create(realm) as RealmHost, {
    flush: async (...args: Parameters<RealmHost["flush"]>) => {
      await realm.flush(...args);
      await inbox.idle();
    },
  });

  let last: RunInput | undefined;
  const run = async (input: RunInput) => {
    last = input;
    const { messages, session, store } = input;
    appReply = [...messages].reverse().find((message) => message.role === "assistant")?.id;
    set({ phase: "running", mounts: [], problems: [] });
    await capabilities.open(session, store);
    const controller = new AbortController();
    const result = await reviveSession({
      realm: reviveRealm,
      messages,
      signal: controller.signal,
      target: (target: ReviveTarget | undefined) => {
        running = target?.replyId;
      },
    });
    for (const failure of result.failures) report(`A block of the app's code failed: ${failure}`);
    if (state.phase === "running") set({ phase: "live" });
  };

  return {
    realm,
    registry,
    inbox,
    capabilities,
    sendEvent: (event) => realm.sendUiEvent({ type: "ui-event", ...event }),
    getState: () => state,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    run,
    runAgain: () => (last && state.phase === "stopped" ? run(last) : Promise.resolve()),
  };
}
