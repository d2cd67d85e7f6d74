/**
 * The agent's RealmPort over the realm the worker runs (createRealm), in the
 * same process: lets Node tests run the whole loop (model → parser → agent →
 * executor → mounts → feedback) without a browser. The browser path adds
 * only the wire, the sandbox and the page's drawing of mounts, which e2e/
 * covers. `host` stands in for the page: it keeps each mount's tree and
 * builds the UI events a person's submit or click would send.
 */
import type { HostRequests } from "../workers/realm/runtime/createHostRequests";
import { createRealm, type RealmTimers } from "../workers/realm/createRealm";
import type { RealmEvent, RealmPort } from "../src/agent/agent";
import type { ToolDescriptor } from "../src/wire/capabilities";
import type { MountRealmMessage, UiEventMessage } from "../src/wire/mount";
import { createMountHost, type MountHost } from "./runReply";

export interface InProcessRealm extends RealmPort {
  subscribeMounts(listener: (message: MountRealmMessage) => void): () => void;
  /** What the page does when the person acts on a mount; false when the realm dropped the event. */
  sendUiEvent(event: UiEventMessage): boolean;
  /** The host's TOOLS: the realm's `tools` global shows exactly these. */
  setTools(tools: readonly ToolDescriptor[]): void;
  host: MountHost;
}

/** `timers`: the clock the model's timers and sleep run on (test/virtualClock.ts; default real time). */
export function createInProcessRealm(
  options: { loopBudgetMs?: number; requests?: HostRequests; timers?: RealmTimers } = {},
): InProcessRealm {
  const listeners = new Set<(event: RealmEvent) => void>();
  const host = createMountHost();
  const realm = createRealm({ loopBudgetMs: options.loopBudgetMs ?? 300, timers: options.timers });
  const executor = realm.attach({
    onEvent: (event) => {
      for (const listener of listeners) listener(event);
    },
    post: (message) => void host.receive(message),
    requests: options.requests,
  });
  return {
    beginReply: () => executor.beginReply(),
    sendBlock: (event) => executor.handleBlock(event),
    // As serveRealm's FLUSH: the realm settles (batched mount frames go out) before the flush answers.
    flush: () => executor.idle().then(() => realm.settle()),
    abort: () => executor.abort(),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    subscribeMounts: (listener) => host.subscribe(listener),
    sendUiEvent: (event) => realm.handleUiEvent(event),
    setTools: (tools) => realm.setTools(tools),
    host,
  };
}
