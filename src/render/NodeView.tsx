/**
 * One node of a mount. Subscribes to its own record only, so a change deep
 * in the tree re-renders that node and nothing above it (each record's
 * version changes only when the node itself does; see mountStore.ts).
 */
import { memo, useCallback, useEffect, useInsertionEffect, useMemo, useSyncExternalStore, type ReactNode } from "react";
import { REFUSED_TYPES, UnknownComponent, componentFor } from "./catalog";
import { specFor } from "./componentSpecs";
import { TEXT_NODE_TYPE } from "./contract";
import { useMount } from "./mountContext";
import { ROOT_TYPE, type MountNode } from "./mountStore";
import { useRenderBudget } from "./renderBudget";
import { sanitizeProps } from "./sanitizeProps";

export const NodeView = memo(function NodeView({ id }: { id: number }): ReactNode {
  const { store } = useMount();
  const subscribe = useCallback((listener: () => void) => store.subscribeNode(id, listener), [store, id]);
  const read = () => store.getNode(id);
  const node = useSyncExternalStore(subscribe, read, read);
  // Big trees draw over several tasks (renderBudget.ts), never in one long one.
  const ready = useRenderBudget();
  if (!node || !ready) return null;
  if (node.type === TEXT_NODE_TYPE) return node.text;
  if (node.type === ROOT_TYPE) return childViews(node);
  return <ElementView node={node} />;
});

/** The children of a node as views (also used for the mount root). */
export function childViews(node: MountNode): ReactNode[] {
  return node.children.map((child) => <NodeView key={child} id={child} />);
}

function ElementView({ node }: { node: MountNode }): ReactNode {
  const context = useMount();
  const spec = specFor(node.type);
  const Component = spec ? componentFor(node.type) : undefined;
  const sanitized = useMemo(
    () => (spec ? sanitizeProps(spec, node.props, { idPrefix: context.idPrefix }) : undefined),
    [spec, node.props, context.idPrefix],
  );
  // Utilities must exist before the class names paint; generation itself is
  // async, so the first paint of a new token can be unstyled for a frame.
  useInsertionEffect(() => {
    if (sanitized && sanitized.classTokens.length > 0) context.styleSheet.addTokens(sanitized.classTokens);
  }, [context.styleSheet, sanitized]);
  useEffect(() => {
    if (!Component)
      context.reportUnknown(node.type, REFUSED_TYPES.has(node.type.toLowerCase()) ? "not-allowed" : "unknown");
    else if (sanitized && sanitized.dropped.length > 0) context.reportDropped(node.type, sanitized.dropped);
  }, [context, Component, node.type, sanitized]);

  if (!Component || !sanitized) {
    return (
      <UnknownComponent
        type={node.type}
        reason={REFUSED_TYPES.has(node.type.toLowerCase()) ? "not-allowed" : "unknown"}
      />
    );
  }
  // `hidden` (Suspense in the realm, or the model's own) removes the node
  // from the page; host-owned values stay in the store.
  if (node.props.hidden === true) return null;
  return (
    <Component node={node} props={sanitized.props} handlers={sanitized.handlers}>
      {node.children.length > 0 ? childViews(node) : undefined}
    </Component>
  );
}
