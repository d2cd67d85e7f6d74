/**
 * The react-reconciler 0.34 host config: a thin shell where every mutation
 * method is one call into the mount's NodeTable (nodeTable.ts).
 *
 * Requirements read off cjs/react-reconciler.development.js (React 19.3):
 * - `commitUpdate(instance, type, oldProps, newProps, fiber)`: no
 *   `prepareUpdate`/update payload any more.
 * - The reconciler asks the renderer for the update priority
 *   (`getCurrentUpdatePriority`/`setCurrentUpdatePriority`/`resolveUpdatePriority`).
 * - Commit suspension (`maySuspendCommit`, `preloadInstance`,
 *   `startSuspendingCommit`, `suspendInstance`, `waitForCommitToBeReady`)
 *   must exist even when nothing suspends.
 * - `HostTransitionContext` must be a React context and `NotPendingTransition`
 *   a value, read by form actions.
 * - Hydration, persistence, resources, singletons, view transitions and
 *   fragment refs are off or no-ops.
 */
import { createContext } from "react";
import { DefaultEventPriority, NoEventPriority } from "react-reconciler/constants";
import type { NodeTable, TableNode } from "./nodeTable";

export interface MountContainer {
  readonly table: NodeTable;
  /** A render of this root begins: reads from now on belong to this mount. */
  onRenderStart(): void;
  /** The render is over and about to commit. */
  onRenderEnd(): void;
  /** A commit of this root finished (the runtime counts them: see commitLimiter.ts). */
  onCommit?(): void;
}

/** What `ref.current` sees for a host element: an inert facade, never the table node. */
export interface HostInstanceHandle {
  readonly nodeId: number;
  readonly type: string;
  focus(): void;
  blur(): void;
  click(): void;
  scrollIntoView(): void;
}

const publicInstances = new WeakMap<TableNode, HostInstanceHandle>();

function publicInstanceOf(node: TableNode): HostInstanceHandle {
  let handle = publicInstances.get(node);
  if (!handle) {
    const noop = (): void => {};
    handle = Object.freeze({
      nodeId: node.id,
      type: node.type,
      focus: noop,
      blur: noop,
      click: noop,
      scrollIntoView: noop,
    });
    publicInstances.set(node, handle);
  }
  return handle;
}

type Props = Record<string, unknown>;

export interface PriorityState {
  current: number;
}

const noop = (): void => {};

export function createHostConfig(priority: PriorityState): object {
  const rootHostContext = {};
  return {
    rendererPackageName: "livemark-realm",
    rendererVersion: "1.0.0",
    extraDevToolsConfig: null,
    isPrimaryRenderer: true,
    supportsMutation: true,
    supportsPersistence: false,
    supportsHydration: false,
    supportsMicrotasks: true,
    supportsTestSelectors: false,
    supportsResources: false,
    supportsSingletons: false,
    warnsIfNotActing: false,
    noTimeout: -1,
    scheduleTimeout: (callback: () => void, delay?: number) => setTimeout(callback, delay),
    cancelTimeout: (handle: ReturnType<typeof setTimeout>) => clearTimeout(handle),
    scheduleMicrotask: (callback: () => void) => queueMicrotask(callback),

    // ---- tree building (render phase)
    createInstance: (type: string, props: Props, container: MountContainer) =>
      container.table.createElement(type, props),
    createTextInstance: (text: string, container: MountContainer) => container.table.createText(text),
    appendInitialChild: (parent: TableNode, child: TableNode) => parent.table.appendChild(parent, child),
    finalizeInitialChildren: () => false,
    // String children become #text nodes: the host renders one kind of text.
    shouldSetTextContent: () => false,
    getRootHostContext: (container: MountContainer) => (container.onRenderStart(), rootHostContext),
    getChildHostContext: (parentContext: object) => parentContext,
    getPublicInstance: (node: TableNode) => publicInstanceOf(node),
    cloneMutableInstance: (node: TableNode) => node,
    cloneMutableTextInstance: (node: TableNode) => node,

    // ---- commit phase
    prepareForCommit: (container: MountContainer) => (container.onRenderEnd(), null),
    resetAfterCommit: (container: MountContainer) => container.onCommit?.(),
    preparePortalMount: noop,
    commitMount: noop,
    appendChild: (parent: TableNode, child: TableNode) => parent.table.appendChild(parent, child),
    appendChildToContainer: (container: MountContainer, child: TableNode) =>
      container.table.appendChild(container.table.root, child),
    insertBefore: (parent: TableNode, child: TableNode, before: TableNode) =>
      parent.table.insertBefore(parent, child, before),
    insertInContainerBefore: (container: MountContainer, child: TableNode, before: TableNode) =>
      container.table.insertBefore(container.table.root, child, before),
    removeChild: (parent: TableNode, child: TableNode) => parent.table.removeChild(parent, child),
    removeChildFromContainer: (container: MountContainer, child: TableNode) =>
      container.table.removeChild(container.table.root, child),
    commitUpdate: (node: TableNode, _type: string, _oldProps: Props, newProps: Props) =>
      node.table.updateProps(node, newProps),
    commitTextUpdate: (node: TableNode, _oldText: string, newText: string) => node.table.updateText(node, newText),
    resetTextContent: noop,
    clearContainer: (container: MountContainer) => container.table.clear(),
    hideInstance: (node: TableNode) => node.table.setHidden(node, true),
    unhideInstance: (node: TableNode) => node.table.setHidden(node, false),
    hideTextInstance: (node: TableNode) => node.table.setHidden(node, true),
    unhideTextInstance: (node: TableNode) => node.table.setHidden(node, false),
    detachDeletedInstance: noop,
    resetFormInstance: noop,

    // ---- priorities and events
    getCurrentUpdatePriority: () => priority.current,
    setCurrentUpdatePriority: (value: number) => {
      priority.current = value;
    },
    resolveUpdatePriority: () => (priority.current !== NoEventPriority ? priority.current : DefaultEventPriority),
    resolveEventType: () => null,
    resolveEventTimeStamp: () => -1.1,
    trackSchedulerEvent: noop,
    shouldAttemptEagerTransition: () => false,
    requestPostPaintCallback: noop,
    getInstanceFromNode: () => null,
    getInstanceFromScope: () => null,
    prepareScopeUpdate: noop,
    beforeActiveInstanceBlur: noop,
    afterActiveInstanceBlur: noop,
    setFocusIfFocusable: () => false,

    // ---- commit suspension: nothing here suspends
    maySuspendCommit: () => false,
    maySuspendCommitOnUpdate: () => false,
    maySuspendCommitInSyncRender: () => false,
    preloadInstance: () => true,
    startSuspendingCommit: noop,
    suspendInstance: noop,
    suspendResource: noop,
    waitForCommitToBeReady: () => null,
    getSuspendedCommitReason: () => null,
    mayResourceSuspendCommit: () => false,
    preloadResource: () => true,

    // ---- form actions
    NotPendingTransition: null,
    HostTransitionContext: createContext<unknown>(null),

    // ---- view transitions and fragment refs (unused features; no-ops so a stray call is harmless)
    applyViewTransitionName: noop,
    restoreViewTransitionName: noop,
    cancelViewTransitionName: noop,
    cancelRootViewTransitionName: noop,
    restoreRootViewTransitionName: noop,
    cloneRootViewTransitionContainer: noop,
    removeRootViewTransitionClone: noop,
    measureInstance: () => null,
    measureClonedInstance: () => null,
    wasInstanceInViewport: () => false,
    hasInstanceChanged: () => false,
    hasInstanceAffectedParent: () => false,
    startViewTransition: () => null,
    startGestureTransition: () => null,
    stopViewTransition: noop,
    addViewTransitionFinishedListener: noop,
    createViewTransitionInstance: () => null,
    getCurrentGestureOffset: () => 0,
    suspendOnActiveViewTransition: noop,
    createFragmentInstance: () => null,
    updateFragmentInstanceFiber: noop,
    commitNewChildToFragmentInstance: noop,
    deleteChildFromFragmentInstance: noop,
  };
}
