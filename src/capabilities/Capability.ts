/**
 * What one capability is to the app (DESIGN.md §4): its host services, the
 * realm globals that call them, its lines in the system prompt and the ask
 * the person answers. The composition root (src/session/createApp.ts) iterates
 * the list in `index.ts`; the page draws each ask with the view its
 * capability names. See README.md for the files a capability consists of.
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { ComponentType } from "react";
import type { ChatMessage } from "../agent/agent";
import type { PromptLines } from "../llm/systemPrompt";
import type { FileChooser } from "../render/fileChooser";
import type { RemoteImagePolicy } from "../render/RemoteImage";
import type { HostService } from "../sandbox/types";
import type { RealmCapabilityMethod, ToolDescriptor } from "../wire/capabilities";
import type { AuditEntry, Session } from "../store/types";
import type { Store } from "../store/store";
import type { JsonValue } from "../wire/mount";

/** An ask as a broker raises it: its id, and the tag its kind is known by. */
export interface AskRequest {
  readonly id: string;
  readonly capability: string;
}

/** What the person answers an ask: Allow once, Deny, or the kind's own "always" (`host`, `tool`). */
export type AskAnswer<Always extends string = string> = "once" | "deny" | Always;

/**
 * One kind of ask (a network request, a tool call): the person's side keeps
 * every kind's asks in one queue and needs no more than this to draw,
 * answer, refuse and remember them.
 */
export interface AskKind<Ask extends AskRequest = AskRequest, Always extends string = string> {
  /** The tag its asks carry (`network`, `tool`); also the `capability` of the grants an "always" saves. */
  readonly capability: string;
  /** Its "always" answer (`host`, `tool`): accepted for its own asks only, and confirmed first (AskActions.tsx). */
  readonly always: Always;
  /** The call in a few words, for the timeline's record: `GET https://…`, `tool server/tool`. */
  action(ask: Ask): string;
  /** The call as a refusal names it ("… was refused without asking"): `GET https://…`, `the call of server/tool`. */
  refused(ask: Ask): string;
  /** What "always" covers, as the record says it ("Always allowed …:"): the host, `server/tool`. */
  covers(ask: Ask): string;
  /** The grant key an "always" saves with the session (the broker applied it already): the host, the tool's key. */
  grant(ask: Ask): string;
  /** Its view, drawn above the composer. */
  readonly View: ComponentType<AskViewProps<Ask>>;
}

/** An audit line as a capability records it (the session adds the session's id). */
export type AuditInput = Pick<AuditEntry, "at" | "capability" | "method" | "url" | "decision"> &
  Record<string, unknown>;

/**
 * The person's side of the capabilities, as the capabilities use it: asks,
 * audit records, the session's rules, chosen files
 * (src/session/capabilityController.ts implements it). Brokers enforce,
 * this side asks, shows and saves.
 */
export interface PersonSide {
  /** Registers a kind of ask (once per page) and returns how its broker asks the person. */
  asker<Ask extends AskRequest, Always extends string>(
    kind: AskKind<Ask, Always>,
  ): (request: Ask, signal: AbortSignal) => Promise<AskAnswer<Always>>;
  /** One line of the session's audit list. */
  record(entry: AuditInput): void;
  /** Outside content reached the code (a response, a file, a tool result): the next feedback is labelled untrusted. */
  noteUntrusted(source: string): void;
  /** Where the running code is in the timeline (its reply, the code block running): what it opens shows there. */
  place?(): { replyId?: string; afterBlock: number };
  readonly fileChooser: FileChooser;
  readonly fileReadService: HostService;
  readonly fileOfferService: HostService;
}

/** The open session's model, for calls from code (`ai`): the person's key and base URL stay inside it. */
export interface SessionModel {
  /** An AI SDK model, or "demo": the offline demo model (the capability answers with its own responder). */
  readonly model: LanguageModelV3 | "demo";
  /** What went wrong with a call, as a code (`auth`, `rate-limit`, …): never the server's words. */
  failure(error: unknown): string;
}

/** What the app hands each capability when it installs it. */
export interface CapabilityHost {
  readonly person: PersonSide;
  /** The open session's messages (a `FILE_ATTACHMENT` is looked up in them). */
  messages(): readonly ChatMessage[];
  /** Sends the realm the tool list (`TOOLS`), now and to every realm started later. */
  setTools(tools: ToolDescriptor[]): void;
  /** Calls a method its realm half serves on the current realm, answer ignored (storage: `storage.erased`). */
  tellRealm?(method: RealmCapabilityMethod, payload?: JsonValue): void;
  /** The tool list last sent with `setTools` (empty before), for the prompt's lines read at each model call (createApp provides it). */
  tools?(): readonly ToolDescriptor[];
  /** The open session's model (its settings over the app's), loaded lazily, as the agent's. */
  languageModel(): Promise<SessionModel>;
  /** That model's name, as the person reads it. */
  modelName(): string;
}

/** A place in the timeline: a reply, after its code block `afterBlock` (or, with `rest`, after none of those blocks). */
export interface TimelinePlaceProps {
  replyId: string;
  afterBlock?: number;
  rest?: readonly number[];
}

/** The props of an ask's view: the ask (with its place in the timeline) and what answers it. */
export interface AskViewProps<Ask> {
  ask: Ask & { id: string; replyId?: string; afterBlock: number };
  controller: { answer(askId: string, answer: AskAnswer): void };
}

export interface CapabilityPrompt extends PromptLines {
  /** Lines after the whole prompt, read at each model call (the connected tools). */
  after?(host: CapabilityHost): string;
}

/**
 * The open session as one capability sees it (`InstalledCapability.open`):
 * the session, the store it lives in, and this capability's own settings
 * saved with it (`settings.capabilities[name]`: a mode, a budget, …).
 */
export interface OpenSession {
  readonly session: Session;
  readonly store: Store;
  /** This capability's settings as saved with the session (undefined: never saved, or imported). */
  readonly saved: JsonValue | undefined;
  /** Strict mode as the session saved it (Session settings; later changes come through `setStrict`); absent: off. */
  readonly strict?: boolean;
  /** Saves this capability's settings with the session (replacing what was saved); exported with it, never imported. */
  save(value: JsonValue): Promise<void>;
}

/**
 * A capability installed on the page (`Capability.install`, once per page):
 * what the app wires for it. Everything but `services` is optional.
 */
export interface InstalledCapability {
  /** Its host services by wire name (src/wire/capabilities.ts): createApp provides each to the realm. */
  readonly services: Readonly<Record<string, HostService>>;
  /**
   * Another session is open (`undefined`: none): drop what belonged to the
   * previous one at once, then load this one's rules or data. A message sent
   * meanwhile waits for the returned promise before its reply starts.
   */
  open?(session: OpenSession | undefined): void | Promise<void>;
  /** Strict mode changed for the open session (Session settings): ask for every call, whatever was granted. */
  setStrict?(strict: boolean): void;
  /** Its section of **Session settings** (drawn in the list's order, before the audit list). */
  readonly Settings?: ComponentType;
  /** What it shows in the timeline at a place (tools: MCP App panels), drawn with the asks' records there. */
  readonly Timeline?: ComponentType<TimelinePlaceProps>;
  /**
   * The page's address as it loaded (once, before any session opens): true
   * when it is a return to this capability (an MCP server's sign-in,
   * `?code&state`); the page then takes the query out of its address at
   * once (the code is single-use) and the capability finishes in the background.
   */
  pageOpened?(search: string): boolean;
  /** The first session is open (the composer works): what the tab had before a reload can come back (tools: its servers). */
  started?(): void;
  /** The demo model's script that uses the page's demo capabilities is about to run (tools: the built-in demo server). */
  prepareDemo?(): Promise<void>;
  /** Remote images in replies (src/render/RemoteImage.tsx): the capability whose rules cover them (network). */
  readonly remoteImages?: RemoteImagePolicy;
}

export interface Capability {
  /** The folder's name: `network`, `files`, `tools`. */
  readonly name: string;
  /**
   * The realm globals its realm half defines
   * (workers/realm/runtime/capabilities/<name>.ts; checked by
   * capabilities.test.ts against the realm's globals).
   */
  readonly realmGlobals: readonly string[];
  /**
   * Registers its broker with the person's side and returns what the app
   * wires: its host services by wire name (provided to the realm,
   * `realm.provide(name, service)`), and, if it has them, what it does when
   * a session opens and its Session settings section. Called once per page.
   */
  install(host: CapabilityHost): InstalledCapability;
  /**
   * Its words in the interaction summary ("network: 2 requests (1 denied)"),
   * from the audit lines the interaction recorded (every capability's: it
   * picks its own tag); undefined when it was not used.
   */
  summary?(used: readonly AuditEntry[]): string | undefined;
  /**
   * Its lines in the system prompt: fixed ones at the prompt's named places
   * (`PromptLines`: the globals line, "Reaching outside", the examples;
   * src/llm/systemPrompt.ts assembles them in the order of the list), and
   * `after`, read at each model call and appended after the whole prompt.
   */
  readonly prompt?: CapabilityPrompt;
  /**
   * Its kind of ask, when it asks the person (the same object its `install`
   * passes to `person.asker`): the page draws each ask with its kind's view,
   * picked by the ask's tag.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kind is typed by its own ask
  readonly ask?: AskKind<any, string>;
}
