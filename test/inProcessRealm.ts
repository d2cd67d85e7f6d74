/**
 * The agent's RealmPort over the real executor and UI runtime, in the same
 * process: lets Node tests run the whole loop (model → parser → agent →
 * executor → mounts → feedback) without a browser. The browser path adds
 * only the wire, the sandbox and the page's drawing of mounts, which e2e/
 * covers. `host` stands in for the page: it keeps each mount's tree and
 * builds the UI events a person's submit or click would send.
 */
import type { HostRequests } from "../workers/realm/runtime/createHostRequests";
import type { RealmTools } from "../workers/realm/runtime/capabilities/tools";
import type { RealmEvent, RealmPort } from "../src/agent/agent";
import type { MountRealmMessage, UiEventMessage } from "../src/wire/mount";
import { createRealmParts, type MountHost } from "./runReply";

export interface InProcessRealm extends RealmPort {
  subscribeMounts(listener: (message: MountRealmMessage) => void): () => void;
  /** What the page does when the person acts on a mount; false when the realm dropped the event. */
  sendUiEvent(event: UiEventMessage): boolean;
  host: MountHost;
}

export function createInProcessRealm(options: { loopBudgetMs?: number; requests?: HostRequests; tools?: RealmTools } = {}): InProcessRealm {
  const listeners = new Set<(event: RealmEvent) => void>();
  const { executor, ui, host } = createRealmParts({
    onEvent: (event) => {
      for (const listener of listeners) listener(event);
    },
    loopBudgetMs: options.loopBudgetMs ?? 300,
    requests: options.requests,
    tools: options.tools,
  });
  return {
    beginReply: () => executor.beginReply(),
    sendBlock: (event) => executor.handleBlock(event),
    // As serveRealm's `settle`: batched mount frames go out before the flush answers.
    flush: () => executor.idle().then(() => ui.frame()),
    abort: () => executor.abort(),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    subscribeMounts: (listener) => host.subscribe(listener),
    // As workers/realm/index.ts does: the handler runs under the event's id.
    sendUiEvent: (event) => (event.eventId === undefined ? ui.handleUiEvent(event) : executor.runCaused(event.eventId, () => ui.handleUiEvent(event))),
    host,
  };
}
