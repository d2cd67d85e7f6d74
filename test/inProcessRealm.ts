/**
 * The agent's RealmPort over the real executor, in the same process: lets
 * Node tests run the whole loop (model → parser → agent → executor →
 * feedback) without a browser. The browser path adds only the wire and the
 * sandbox, which e2e/ covers.
 */
import type { RealmEvent, RealmPort } from "../src/agent/agent";
import { createExecutor } from "../workers/realm/executor/executor";

export function createInProcessRealm(options: { loopBudgetMs?: number } = {}): RealmPort {
  const listeners = new Set<(event: RealmEvent) => void>();
  const executor = createExecutor({
    globals: { sleep: (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)) },
    onEvent: (event) => {
      for (const listener of listeners) listener(event);
    },
    loopBudgetMs: options.loopBudgetMs ?? 300,
  });
  return {
    beginReply: () => executor.beginReply(),
    openCode: (block, line) => executor.openCode(block, line),
    pushCode: (block, delta) => executor.pushCode(block, delta),
    endCode: (block, unterminated) => executor.endCode(block, unterminated),
    openData: (block, id, line) => executor.openData(block, id, line),
    pushData: (block, delta) => executor.pushData(block, delta),
    endData: (block, unterminated) => executor.endData(block, unterminated),
    flush: () => executor.idle(),
    abort: () => executor.abort(),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
