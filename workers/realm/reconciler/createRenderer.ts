/**
 * A react-reconciler instance over the host config, and roots (one per
 * mount). Works the same in a worker and in Node: React's own scheduler
 * (MessageChannel or setImmediate) drives non-sync work; everything the
 * runtime initiates (a mount, a frame's re-render, a UI event) renders on the
 * sync lane and is committed before the call returns.
 */
import * as React from "react";
import type { ErrorInfo, OpaqueRoot, Reconciler } from "react-reconciler";
import { DiscreteEventPriority, NoEventPriority } from "react-reconciler/constants";
import { createHostConfig, type MountContainer, type PriorityState } from "./hostConfig";
import { loadCreateReconciler } from "./reconcilerModule";

export interface RootErrorHandlers {
  /** An error no error boundary caught: the root is unmounted by React. */
  onUncaughtError(error: unknown, info: ErrorInfo): void;
  /** An error an error boundary caught (the boundary reports it too). */
  onCaughtError?(error: unknown, info: ErrorInfo): void;
}

export interface RendererRoot {
  /** Renders `element` on the sync lane and commits before returning. */
  renderSync(element: React.ReactNode): void;
  /** Unmounts everything (the table ends up empty) synchronously. */
  unmount(): void;
}

export interface Renderer {
  createRoot(container: MountContainer, handlers: RootErrorHandlers): RendererRoot;
  /**
   * Runs `fn` as a discrete event, as react-dom does for a click: state
   * updates inside it take the sync lane, and they are rendered and committed
   * before this returns (even when `fn` throws).
   */
  discreteEvent<T>(fn: () => T): T;
  /** Renders and commits any pending sync-lane work now. */
  flushSync(): void;
}

export function createRenderer(): Renderer {
  const priority: PriorityState = { current: NoEventPriority };
  // Built on first use: react-reconciler's factory compiles and runs one very
  // large function (~10 ms when the bundle loads), which a realm whose code
  // never mounts a UI should not pay before it can say READY; in the bundle
  // the reconciler is text until then (reconcilerModule.ts).
  let instance: Reconciler<MountContainer> | undefined;
  const reconciler = () => (instance ??= loadCreateReconciler(React)<MountContainer>(createHostConfig(priority)));
  let identifier = 0;

  return {
    createRoot(container, handlers) {
      const root: OpaqueRoot = reconciler().createContainer(
        container,
        1,
        null,
        false,
        null,
        `m${++identifier}-`,
        (error, info) => handlers.onUncaughtError(error, info),
        (error, info) => handlers.onCaughtError?.(error, info),
        // Recoverable errors (React retried and succeeded) are not the model's concern.
        () => {},
        () => {},
      );
      return {
        renderSync(element) {
          reconciler().updateContainerSync(element, root, null, null);
          reconciler().flushSyncWork();
        },
        unmount() {
          reconciler().updateContainerSync(null, root, null, null);
          reconciler().flushSyncWork();
        },
      };
    },
    discreteEvent(fn) {
      const previous = priority.current;
      priority.current = DiscreteEventPriority;
      try {
        return fn();
      } finally {
        priority.current = previous;
        // No reconciler yet: nothing was ever rendered, so nothing is pending.
        instance?.flushSyncWork();
      }
    },
    flushSync() {
      instance?.flushSyncWork();
    },
  };
}
