/**
 * The part of react-reconciler 0.34 (React 19.3) this renderer uses. The
 * package ships no types and @types/react-reconciler is not installed; these
 * signatures were read off cjs/react-reconciler.development.js.
 */
declare module "react-reconciler" {
  import type { ReactNode } from "react";

  export interface ErrorInfo {
    componentStack?: string | null;
  }

  export interface Reconciler<Container> {
    /** `tag` is ignored by 0.34: every root is concurrent. */
    createContainer(
      containerInfo: Container,
      tag: number,
      hydrationCallbacks: null,
      isStrictMode: boolean,
      concurrentUpdatesByDefaultOverride: boolean | null,
      identifierPrefix: string,
      onUncaughtError: (error: unknown, info: ErrorInfo) => void,
      onCaughtError: (error: unknown, info: ErrorInfo) => void,
      onRecoverableError: (error: unknown, info: ErrorInfo) => void,
      onDefaultTransitionIndicator: () => void | (() => void),
    ): OpaqueRoot;
    updateContainer(
      element: ReactNode,
      root: OpaqueRoot,
      parentComponent: null,
      callback?: (() => void) | null,
    ): number;
    /** Schedules on the sync lane; `flushSyncWork()` then renders and commits. */
    updateContainerSync(
      element: ReactNode,
      root: OpaqueRoot,
      parentComponent: null,
      callback?: (() => void) | null,
    ): number;
    flushSyncWork(): boolean;
    flushSyncFromReconciler<T>(fn?: () => T): T;
    flushPassiveEffects(): boolean;
    discreteUpdates<T>(fn: () => T): T;
    batchedUpdates<T>(fn: () => T): T;
  }

  export type OpaqueRoot = { readonly __brand: "OpaqueRoot" };

  export default function createReconciler<Container>(config: object): Reconciler<Container>;
}

declare module "react-reconciler/constants" {
  export const ConcurrentRoot: 1;
  export const LegacyRoot: 0;
  export const NoEventPriority: 0;
  export const DiscreteEventPriority: 2;
  export const ContinuousEventPriority: 8;
  export const DefaultEventPriority: 32;
  export const IdleEventPriority: 268435456;
}
