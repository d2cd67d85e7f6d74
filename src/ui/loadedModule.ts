import { useSyncExternalStore } from "react";

/**
 * A chunk the timeline draws with, loaded without suspending: a component
 * reads `use()` (undefined until the chunk is in) and draws its own stand-in
 * meanwhile, then draws the real thing in the render right after the chunk
 * arrives. Not `lazy` + `Suspense` for these: React reveals a suspended
 * boundary no sooner than 300 ms after the last fallback it showed (its
 * fallback throttle), so after a reload a session's replies stayed raw
 * Markdown, and its code blocks empty, for ~300 ms after their chunks were
 * there. A failed load leaves the stand-in and is tried again by the next
 * component that asks.
 */
export interface LoadedModule<M> {
  /** Start loading (once); resolves with the module. */
  preload(): Promise<M>;
  /** The module once loaded, else undefined (and loading starts). */
  use(): M | undefined;
}

export function loadedModule<M>(load: () => Promise<M>): LoadedModule<M> {
  let module: M | undefined;
  let pending: Promise<M> | undefined;
  const listeners = new Set<() => void>();
  const preload = () =>
    (pending ??= load().then(
      (loaded) => {
        module = loaded;
        for (const listener of [...listeners]) listener();
        return loaded;
      },
      (error: unknown) => {
        pending = undefined;
        throw error;
      },
    ));
  const subscribe = (listener: () => void) => {
    listeners.add(listener);
    if (module === undefined) void preload().catch(() => {});
    return () => void listeners.delete(listener);
  };
  const snapshot = () => module;
  return { preload, use: () => useSyncExternalStore(subscribe, snapshot, snapshot) };
}
