import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { reopenHinted, watchReopenHint } from "./reopenHint";

const KEY = "livemark:reopen";

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, String(value)),
  };
}

/** A stand-in for the session controller and its agents: only what the hint reads. */
function sessions() {
  type Listener = () => void;
  const listeners = new Set<Listener>();
  const agent = (messages: unknown[]) => {
    const agentListeners = new Set<(state: { messages: unknown[] }) => void>();
    let state = { messages };
    return {
      getState: () => state,
      subscribe(listener: (state: { messages: unknown[] }) => void) {
        agentListeners.add(listener);
        return () => void agentListeners.delete(listener);
      },
      record(message: unknown) {
        state = { messages: [...state.messages, message] };
        for (const listener of agentListeners) listener(state);
      },
      listeners: agentListeners,
    };
  };
  let state: { starting: boolean; preview?: unknown; agent?: ReturnType<typeof agent> } = { starting: true };
  return {
    agent,
    subscribe(listener: Listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    getState: () => state,
    set(next: typeof state) {
      state = next;
      for (const listener of listeners) listener();
    },
  };
}

describe("the hint that there is a session to reopen", () => {
  let storage: Storage;
  beforeEach(() => {
    storage = memoryStorage();
    vi.stubGlobal("localStorage", storage);
  });
  afterEach(() => void vi.unstubAllGlobals());

  it("is absent on a fresh profile", () => {
    expect(reopenHinted()).toBe(false);
  });

  it("is left once the open session has a message, and read back by the next start", () => {
    const app = sessions();
    watchReopenHint(app);
    const agent = app.agent([]);
    app.set({ starting: false, agent });
    expect(reopenHinted()).toBe(false);
    agent.record({ id: "m0" });
    expect(storage.getItem(KEY)).toBe("1");
    expect(reopenHinted()).toBe(true);
  });

  it("a stale hint (the session that opens has no message: none was left, or the store was deleted) is cleared", () => {
    storage.setItem(KEY, "1");
    const app = sessions();
    watchReopenHint(app);
    // Nothing is said while the sessions are still opening.
    expect(reopenHinted()).toBe(true);
    app.set({ starting: false, agent: app.agent([]) });
    expect(reopenHinted()).toBe(false);
  });

  it("follows the session that is open: switching to an empty one clears it, and stops hearing the one left", () => {
    const app = sessions();
    watchReopenHint(app);
    const long = app.agent([{ id: "m0" }]);
    app.set({ starting: false, agent: long });
    expect(reopenHinted()).toBe(true);
    app.set({ starting: false, agent: app.agent([]) });
    expect(reopenHinted()).toBe(false);
    expect(long.listeners.size).toBe(0);
  });

  it("ignores a share link's preview", () => {
    const app = sessions();
    watchReopenHint(app);
    app.set({ starting: false, preview: {}, agent: app.agent([{ id: "m0" }]) });
    expect(reopenHinted()).toBe(false);
  });

  it("a storage that refuses leaves the usual order and breaks nothing", () => {
    vi.stubGlobal("localStorage", {
      ...memoryStorage(),
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => {
        throw new Error("denied");
      },
    });
    const app = sessions();
    watchReopenHint(app);
    expect(() => app.set({ starting: false, agent: app.agent([{ id: "m0" }]) })).not.toThrow();
    expect(reopenHinted()).toBe(false);
  });
});
