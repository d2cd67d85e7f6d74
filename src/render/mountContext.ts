/**
 * What every node view of one mount shares: the store, how to send an event,
 * and how to report. Provided by MountView.
 */
import { createContext, useCallback, useContext, useSyncExternalStore, type ReactNode } from "react";
import type { UiEventPayload } from "./contract";
import type { HandlerKind } from "./componentSpecs";
import type { MountNode, MountStore } from "./mountStore";
import type { MountStyleSheet } from "./mountStyleSheet";
import type { DroppedProp } from "./sanitizeProps";

export interface MountRenderContext {
  store: MountStore;
  /** Prefix for ids rendered in this mount (sanitizeProps namespaces ids with it). */
  idPrefix: string;
  /**
   * No realm behind this mount: handlers do nothing, controls are disabled.
   * Read when used (a getter on the store's meta): the context object does
   * not change when a mount turns inert, so a realm reset does not re-render
   * every node view of every panel at once. What draws `inert` subscribes
   * with `useInert()`.
   */
  readonly inert: boolean;
  /** Send a ui-event for `nodeId` (a no-op when inert). */
  emit(nodeId: number, handler: string, payload: UiEventPayload): void;
  reportUnknown(type: string, reason: "unknown" | "not-allowed" | "outside-chart"): void;
  reportDropped(type: string, dropped: readonly DroppedProp[]): void;
  styleSheet: MountStyleSheet;
  /**
   * A field that masks its text (a password field, or one styled or found to
   * mask) is drawn in this mount: MountView then shows its warning, outside
   * the panel.
   */
  noteMaskedField?(present: boolean): void;
}

export const MountContext = createContext<MountRenderContext | null>(null);

export function useMount(): MountRenderContext {
  const context = useContext(MountContext);
  if (!context) throw new Error("mount views must render inside <MountView>");
  return context;
}

/** Whether the mount is inert now, re-rendering (only the caller) when that changes. For controls that draw it (`disabled`). */
export function useInert(): boolean {
  const { store } = useMount();
  const subscribe = useCallback((listener: () => void) => store.subscribeMeta(listener), [store]);
  const read = () => {
    const meta = store.getMeta();
    return meta.inert || meta.closed;
  };
  return useSyncExternalStore(subscribe, read, read);
}

/** What the catalog hands each component. */
export interface NodeComponentProps {
  node: MountNode;
  /** Sanitized props (sanitizeProps): no functions, no markers, ids namespaced. */
  props: Record<string, unknown>;
  /** Allowed handler markers on this node, by prop name. */
  handlers: Readonly<Record<string, HandlerKind>>;
  /** The node's children, already as views. */
  children: ReactNode;
}

/** The form error for a field name, re-rendering only when that message changes. */
export function useFieldError(name: unknown): string | undefined {
  const { store } = useMount();
  const subscribe = useCallback((listener: () => void) => store.subscribeMeta(listener), [store]);
  const read = () => (typeof name === "string" && name !== "" ? store.getMeta().formErrors[name] : undefined);
  return useSyncExternalStore(subscribe, read, read);
}

/** Re-render when anything under `id` changes; returns the subtree version. */
export function useSubtreeVersion(id: number): number {
  const { store } = useMount();
  const subscribe = useCallback((listener: () => void) => store.subscribeSubtree(id, listener), [store, id]);
  const read = () => store.getSubtreeVersion(id);
  return useSyncExternalStore(subscribe, read, read);
}

/** The `name` (and `value`) a DOM-like event payload carries for a node. */
export function targetPayload(props: Record<string, unknown>): UiEventPayload {
  const payload: UiEventPayload = {};
  if (typeof props.name === "string") payload.name = props.name;
  return payload;
}
