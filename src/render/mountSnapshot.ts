/**
 * A mount's tree as JSON and back (persistence, export, mount-open): the
 * snapshot of the attached nodes with the live control values folded in,
 * and the ops that rebuild a store from a snapshot. Pure.
 */
import {
  ROOT_NODE_ID,
  TEXT_NODE_TYPE,
  type MountOp,
  type MountSnapshot,
  type SnapshotNode,
  type WireProps,
} from "./contract";
import { valuePropOf, type ControlState } from "./controls";

export interface MountSnapshotOptions {
  /**
   * Write the host-owned values of controls into their `value`/`checked`
   * props, so a restored mount shows what the person had entered.
   * Default true.
   */
  includeLiveValues?: boolean;
}

/** What a snapshot reads of a store node. */
export interface SnapshotSourceNode {
  id: number;
  type: string;
  props: WireProps;
  text: string;
  children: readonly number[];
}

/** The snapshot of the nodes under the root, in order. */
export function buildSnapshot(
  rootChildren: readonly number[],
  nodeOf: (id: number) => SnapshotSourceNode,
  controlOf: (id: number) => ControlState | undefined,
  options?: MountSnapshotOptions,
): MountSnapshot {
  const includeLive = options?.includeLiveValues !== false;
  const build = (id: number): SnapshotNode => {
    const node = nodeOf(id);
    if (node.type === TEXT_NODE_TYPE) return { id, type: TEXT_NODE_TYPE, text: node.text };
    let props = node.props;
    const control = controlOf(id);
    if (includeLive && control && control.kind !== "tabs") {
      props = { ...props, [valuePropOf(control.kind)]: control.live as WireProps[string] };
    }
    return { id, type: node.type, props: { ...props }, children: node.children.map(build) };
  };
  return { nodes: rootChildren.map(build) };
}

/** The create/insert ops that build `nodes` under the root, parents before children, in document order. */
export function snapshotOps(nodes: readonly SnapshotNode[]): MountOp[] {
  const ops: MountOp[] = [];
  const stack: Array<{ node: SnapshotNode; parent: number }> = nodes
    .map((node) => ({ node, parent: ROOT_NODE_ID }))
    .reverse();
  while (stack.length > 0) {
    const { node, parent } = stack.pop()!;
    if (node.type === TEXT_NODE_TYPE)
      ops.push({ op: "create", id: node.id, type: node.type, text: (node as { text: string }).text });
    else ops.push({ op: "create", id: node.id, type: node.type, props: (node as { props: WireProps }).props });
    ops.push({ op: "insert", parent, child: node.id });
    const children = "children" in node ? node.children : [];
    for (let index = children.length - 1; index >= 0; index--) stack.push({ node: children[index], parent: node.id });
  }
  return ops;
}

/** Nodes in a snapshot, every level (what a mount-open will hold). */
export function snapshotNodeCount(nodes: readonly SnapshotNode[]): number {
  let total = 0;
  const stack: (readonly SnapshotNode[])[] = [nodes];
  while (stack.length > 0) {
    const level = stack.pop()!;
    total += level.length;
    for (const node of level)
      if (node.type !== TEXT_NODE_TYPE && "children" in node && node.children.length > 0) stack.push(node.children);
  }
  return total;
}
