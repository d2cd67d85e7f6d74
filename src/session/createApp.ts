/**
 * The composition root: one realm (sandbox) per page, one agent per open
 * session, sessions in IndexedDB, the capabilities installed once. The key
 * (in `settings()`) never leaves this module except towards the configured
 * base URL. src/main.tsx renders what this returns; nothing here is React.
 */
import { Agent, type ChatMessage } from "../agent/agent";
import { limitConsoleEvents } from "../agent/limitConsoleEvents";
import type { Capability, CapabilityHost, InstalledCapability, SessionModel } from "../capabilities/Capability";
// Specific modules, not "../llm": the provider (and the AI SDK) load lazily; so do the error descriptions.
import type * as LlmErrors from "../llm/errors";
import { scrubDescription } from "../llm/scrubSecret";
import { DEFAULT_MODEL, isDemo, type LlmSettings } from "../llm/settings";
import type { DemoModelOptions } from "../llm/demoModel";
import { wrapFeedback } from "../llm/feedbackMessage";
import { createRealmHost, type RealmHost } from "../sandbox";
// Specific modules, not the "../render" index: MountView and the catalog load with the first mount (ui/mounts.tsx).
import { createMountInbox, type MountInbox } from "../render/mountInbox";
import { createMountRegistry } from "../render/mountRegistry";
import type { MountRegistry, UiEvent } from "../render";
import type { RemoteImagePolicy } from "../render/RemoteImage";
import type { ToolDescriptor } from "../wire/capabilities";
import type { MountSnapshots } from "./mountSnapshots";
import { SessionController } from "./sessionController";
import { CapabilityController } from "./capabilityController";
import { withoutStartUpErrors } from "./realmStatus";

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
const loadDemoModel = loadOnce(() => import("../llm/demoModel"));
const loadProvider = loadOnce(() => import("../llm/provider"));
/**
 * What a failed model call is told as (llm/errors.ts, with the AI SDK's error classes): loaded with the model's
 * code, before any call can fail, so the agent's description stays synchronous.
 */
let llmErrors: typeof LlmErrors | undefined;
const loadErrors = loadOnce(() => import("../llm/errors").then((module) => (llmErrors = module)));
/** Only when the errors' code itself could not load (no network, no service worker): the model's code did not either. */
const UNLOADED_ERROR = {
  code: "network",
  message: "The app's code for this reply could not be loaded. Check the connection, then try again.",
  retryable: true,
} as const;

/** What a reply with these settings loads before its first token: the AI SDK (the agent's streamText) and the model's code. */
function preloadModel(settings: AppSettings): Promise<unknown> {
  return Promise.all([
    import("ai"),
    isDemo(settings) ? loadDemoModel() : loadProvider(),
    loadErrors(),
    import("../llm/systemPrompt"),
  ]);
}

/**
 * The system prompt as the model reads it at each call: the base prompt
 * with each capability's fixed lines at their places, built once in the
 * list's order, then the lines each computes at that call (the connected tools).
 */
export function systemPrompt(capabilities: readonly Capability[], host: () => CapabilityHost): () => Promise<string> {
  // Its text (the protocol, the examples) is a chunk of its own, loaded with the first turn's model.
  let fixed: Promise<string> | undefined;
  return async () => {
    fixed ??= import("../llm/systemPrompt").then(({ buildSystemPrompt }) =>
      buildSystemPrompt(capabilities.map((capability) => capability.prompt ?? {})),
    );
    return (await fixed) + capabilities.map((capability) => capability.prompt?.after?.(host()) ?? "").join("");
  };
}

/** What the app reads of the person's settings (src/ui/settings.ts keeps them). */
export type AppSettings = LlmSettings & { maxTurns: number };

export interface AppOptions {
  /** The app's settings as they are now (read at each use: a change applies to the next reply). */
  settings: () => AppSettings;
  /** The capabilities to install, in order (src/capabilities/index.ts). */
  capabilities: readonly Capability[];
  /** The page's realm; tests pass a stand-in. */
  realm?: RealmHost;
  /** Settles when the sessions may open (src/main.tsx: after the realm's READY, afterRealmStart.ts); at once by default. */
  startAfter?: (realm: RealmHost) => Promise<void>;
  /** The page's address and history (the session link, an MCP sign-in's return); tests pass a stand-in. */
  page?: {
    location: Pick<Location, "href" | "search" | "pathname" | "hash" | "protocol">;
    history: Pick<History, "state" | "replaceState">;
  };
}

/** A capability's section of Session settings, bound to its installed instance. */
export interface CapabilitySection {
  readonly name: string;
  readonly Settings: NonNullable<InstalledCapability["Settings"]>;
}

/** What the page renders (src/ui/mounts.tsx's MountsContextValue is built from `mounts`). */
export interface App {
  controller: SessionController;
  realm: RealmHost;
  capabilities: CapabilityController;
  /** The capabilities' own sections of Session settings, in the list's order. */
  sections: readonly CapabilitySection[];
  /** What the capabilities show in the timeline (tools: MCP App panels), in the list's order. */
  timeline: readonly NonNullable<InstalledCapability["Timeline"]>[];
  /** Remote images in replies: the policy of the capability that covers them (network), if one is installed. */
  imagePolicy?: RemoteImagePolicy;
  /** Mount messages waiting to be applied (the test probe reads its count). */
  inbox: MountInbox;
  mounts: {
    registry: MountRegistry;
    /** A UI event from a mounted view; its id travels with it, and what its handler causes comes back tagged with it. */
    sendEvent: (event: UiEvent) => void;
    revive: () => void;
    onUnknownComponent: (name: string) => void;
    mountsApplied: () => Promise<void>;
    snapshots: MountSnapshots;
  };
  /** The session is open (the composer works). */
  started: Promise<void>;
  /** Loads the code the next reply needs (the AI SDK and the model's code). */
  preloadReply: () => Promise<unknown>;
}

/**
 * Install each capability once on the page's realm (its host services) and with the person's side; the app view
 * (src/session/appView.ts) installs them the same way.
 */
export function installCapabilities(
  list: readonly Capability[],
  host: CapabilityHost,
  realm: Pick<RealmHost, "provide">,
  person: CapabilityController,
): { installed: InstalledCapability[]; sections: CapabilitySection[] } {
  const installed: InstalledCapability[] = [];
  const sections: CapabilitySection[] = [];
  for (const capability of list) {
    const module = capability.install(host);
    for (const [name, service] of Object.entries(module.services)) realm.provide(name, service);
    person.install(capability.name, module);
    installed.push(module);
    if (module.Settings) sections.push({ name: capability.name, Settings: module.Settings });
  }
  return { installed, sections };
}

/** The model calls from code (`ai`) use with these settings: the demo's, or the provider's with the person's key. */
export async function languageModelFor(settings: LlmSettings): Promise<SessionModel> {
  const { describeLlmError } = await loadErrors();
  const failure = (error: unknown) => describeLlmError(error, { baseURL: settings.baseURL }).code;
  if (isDemo(settings)) return { model: "demo", failure };
  return { model: (await loadProvider()).createLanguageModel(settings), failure };
}

export function createApp(options: AppOptions): App {
  const realm = options.realm ?? createRealmHost();
  const { location, history } = options.page ?? globalThis;
  const unknownComponent = (name: string) =>
    controller
      .getState()
      .agent?.reportRenderProblem(
        `<${name}> is not a component this app can draw; it was shown as an error. Use the kit or plain HTML elements.`,
      );
  const registry = createMountRegistry({
    onError: (mountId, error) =>
      controller.getState().agent?.reportRenderProblem(`${mountId ? `mount ${mountId}: ` : ""}${error.message}`),
    onUnknownComponent: (_mountId, name) => unknownComponent(name),
  });
  // Validated once, at the port. Mount messages are applied in time slices under the session's caps
  // (render/mountInbox.ts); the agent hears only of what was applied.
  const inbox = createMountInbox({
    registry,
    // Inbox warnings name their mount already.
    onWarning: (mountId, message) =>
      controller
        .getState()
        .agent?.reportRenderProblem(mountId && !message.includes(mountId) ? `mount ${mountId}: ${message}` : message),
  });
  realm.subscribeMounts((message) => inbox.push(message));
  // What a mount shows is on disk within 0.5 s of the change (SessionController.mountsChanged).
  inbox.subscribe((message) => {
    if (message.kind === "open" || message.kind === "ops") controller.mountsChanged();
  });
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
    subscribe: (listener: Parameters<typeof realm.subscribe>[0]) =>
      quiet.subscribe(limitConsoleEvents({ forward: listener })),
    subscribeMounts: (listener: Parameters<typeof realm.subscribeMounts>[0]) => inbox.subscribe(listener),
    // Settled means applied: the mounts the code opened have been placed (Revive replaces a reply's restored
    // mounts only while it runs that reply), not merely sent.
    flush: async (...args: Parameters<typeof realm.flush>) => {
      await realm.flush(...args);
      await inbox.idle();
    },
  });
  /** The app's settings with the open session's own model and max tokens over them (Session settings → Model). */
  const effectiveSettings = (): AppSettings => {
    const chat = controller.getState().current?.chat;
    const base = options.settings();
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
          // The demo's tools script brings the page's built-in demo MCP server (the tools capability's).
          const demo: DemoModelOptions = {
            prepare: () => Promise.all(installed.map((capability) => capability.prepareDemo?.())).then(() => undefined),
          };
          if (isDemo(settings)) return (await Promise.all([loadDemoModel(), loadErrors()]))[0].createDemoModel(demo);
          return (await Promise.all([loadProvider(), loadErrors()]))[0].createLanguageModel(settings, { demo });
        },
        // Read at each turn: the lines each capability computes then (the connected MCP tools) follow the prompt.
        system: systemPrompt(options.capabilities, () => host),
        callSettings: () => {
          const chat = controller.getState().current?.chat;
          // An instruction applied from an imported file is the file's: it goes inside the untrusted bracket.
          return {
            temperature: chat?.temperature,
            instruction: chat?.instruction,
            importedInstruction: chat?.importedInstruction,
          };
        },
        realm: agentRealm,
        // Loaded with the first reply, like the AI SDK: out of the app's initial JavaScript.
        createParser: () => import("../protocol/parser").then((module) => module.createProtocolParser()),
        describeError: (error) => {
          if (!llmErrors) return UNLOADED_ERROR;
          const { describeLlmError } = llmErrors;
          const current = effectiveSettings();
          // The key never reaches the timeline, the session store or an export, whatever the server echoed.
          return scrubDescription(
            describeLlmError(error, {
              baseURL: current.baseURL,
              model: current.model,
              pageProtocol: location.protocol,
            }),
            current.apiKey,
          );
        },
        // Output that follows outside content (a fetched body, a chosen file) is labelled untrusted.
        wrapFeedback: (body, source) => wrapFeedback(body, source, { untrusted: capabilities.takeUntrusted() }),
        maxTurns: options.settings().maxTurns,
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
  // The session's capabilities: each broker enforces its rules, the controller asks the person and keeps the records.
  const capabilities: CapabilityController = new CapabilityController({ agent: () => controller.getState().agent });
  let tools: readonly ToolDescriptor[] = [];
  const host: CapabilityHost = {
    person: capabilities,
    messages: () => controller.getState().agent?.getState().messages ?? [],
    // The person's MCP tools: the page holds the connections (and tokens); the realm gets their list.
    tellRealm: (method, payload) => realm.tell(method, payload),
    setTools: (list) => {
      tools = list;
      realm.setTools(list);
    },
    tools: () => tools,
    // Model calls from code (`ai`): the session's model with the person's key, which stays in the provider.
    languageModel: () => languageModelFor(effectiveSettings()),
    modelName: () => {
      const settings = effectiveSettings();
      return isDemo(settings) ? "the offline demo model" : settings.model.trim() || DEFAULT_MODEL;
    },
  };
  const { installed, sections } = installCapabilities(options.capabilities, host, realm, capabilities);
  // What a capability started before the page left (an MCP server's sign-in) finishes; its single-use code
  // leaves the address at once.
  const search = location.search;
  if (installed.map((module) => module.pageOpened?.(search) === true).includes(true))
    history.replaceState(history.state, "", location.pathname + location.hash);
  // Once the session is open, what the capabilities restore follows (tools: the servers this tab had before a
  // reload): the composer does not wait for them.
  const started = (options.startAfter?.(realm) ?? Promise.resolve()).then(() => controller.start());
  // A reply from another source (an invited agent) calls no model: the error descriptions load once the session is open.
  void started.then(() => loadErrors()).catch(() => {});
  void started.then(() => {
    for (const module of installed) module.started?.();
  });
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
  const mounts: App["mounts"] = {
    registry,
    sendEvent: (event) => {
      // The id travels with the event; what its handler causes comes back tagged with it.
      const eventId = controller.getState().agent?.noteUiEvent();
      realm.sendUiEvent({ type: "ui-event", ...event, ...(eventId === undefined ? {} : { eventId }) });
    },
    revive: () => void controller.revive(),
    onUnknownComponent: unknownComponent,
    mountsApplied: () => inbox.idle(),
    snapshots: controller.mounts,
  };
  return {
    controller,
    realm,
    capabilities,
    sections,
    timeline: installed.flatMap((module) => (module.Timeline ? [module.Timeline] : [])),
    imagePolicy: installed.find((module) => module.remoteImages)?.remoteImages,
    inbox,
    mounts,
    started,
    preloadReply: () => preloadModel(effectiveSettings()),
  };
}
