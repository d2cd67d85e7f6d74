/**
 * What one capability is to the app (DESIGN.md §4): its host services, the
 * realm globals that call them, its lines in the system prompt and the ask
 * the person answers. The composition root (src/session/createApp.ts) iterates
 * the list in `index.ts`; the page draws each ask with the view its
 * capability names. See README.md for the files a capability consists of.
 */
import type { ComponentType } from "react";
import type { ChatMessage } from "../agent/agent";
import type { PromptLines } from "../llm/systemPrompt";
import type { FileChooser } from "../render/fileChooser";
import type { HostService } from "../sandbox/types";
import type { ToolDescriptor } from "../wire/capabilities";
import type { NetworkAuditRecord, NetworkBroker, PermissionAsk } from "./network/createNetworkBroker";
import type { PersonAnswer } from "./network/networkPolicy";
import type { McpServers } from "./tools/createMcpServers";
import type { ToolAuditRecord, ToolBroker, ToolPermissionAsk } from "./tools/createToolBroker";
import type { ToolAnswer } from "./tools/toolPolicy";

/**
 * The person's side of the capabilities, as the capabilities use it: asks,
 * audit records, the session's rules, chosen files
 * (src/session/capabilityController.ts implements it). Brokers enforce,
 * this side asks, shows and saves.
 */
export interface PersonSide {
  ask(request: PermissionAsk, signal: AbortSignal): Promise<PersonAnswer>;
  askTool(request: ToolPermissionAsk, signal: AbortSignal): Promise<ToolAnswer>;
  recordNetwork(record: NetworkAuditRecord): void;
  recordTool(record: ToolAuditRecord): void;
  /** A broker's rules changed (an answer, a revoke): the session saves them. */
  policyChanged(): Promise<void>;
  attach(broker: NetworkBroker): void;
  attachTools(broker: ToolBroker, loadServers: () => Promise<McpServers>, publish: (tools: ToolDescriptor[]) => void): void;
  toolDescriptors(): ToolDescriptor[];
  readonly fileChooser: FileChooser;
  readonly fileReadService: HostService;
  readonly fileOfferService: HostService;
}

/** What the app hands each capability when it installs it. */
export interface CapabilityHost {
  readonly person: PersonSide;
  /** The open session's messages (a `FILE_ATTACHMENT` is looked up in them). */
  messages(): readonly ChatMessage[];
  /** Sends the realm the tool list (`TOOLS`), now and to every realm started later. */
  setTools(tools: ToolDescriptor[]): void;
}

/** The props of an ask's view: the ask (with its place in the timeline) and what answers it. */
export interface AskViewProps<Ask> {
  ask: Ask & { id: string; replyId?: string; afterBlock: number };
  controller: { answer(askId: string, answer: PersonAnswer | ToolAnswer): void };
}

export interface CapabilityPrompt extends PromptLines {
  /** Lines after the whole prompt, read at each model call (the connected tools). */
  after?(host: CapabilityHost): string;
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
   * Registers its broker with the person's side and returns its host
   * services by wire name (src/wire/capabilities.ts); the app provides each
   * to the realm (`realm.provide(name, service)`). Called once per page.
   */
  install(host: CapabilityHost): Readonly<Record<string, HostService>>;
  /**
   * Its lines in the system prompt: fixed ones at the prompt's named places
   * (`PromptLines`: the globals line, "Reaching outside", the examples;
   * src/llm/systemPrompt.ts assembles them in the order of the list), and
   * `after`, read at each model call and appended after the whole prompt.
   */
  readonly prompt?: CapabilityPrompt;
  /**
   * Its ask, drawn above the composer: the `capability` tag its asks carry
   * and their view (typed by its own ask; the page picks the view by the tag).
   */
  readonly ask?: { readonly capability: string; readonly View: ComponentType<AskViewProps<any>> };
}
