/**
 * The reference meaning of MountOp (src/wire/mount.ts): applies ops to a
 * snapshot and returns the new snapshot, checking every id as a careful host
 * must. Pure; used by the tests to check that ops and snapshots agree, and a
 * model for the host's receiver. Throws on an op that breaks the contract.
 */
import {
  isSnapshotText,
  ROOT_NODE_ID,
  TEXT_NODE_TYPE,
  type MountOp,
  type MountSnapshot,
  type SnapshotNode,
  type WireProps,
} from "../../../src/wire/mount";

interface LiveNode {
  id: number;
  type: string;
  props: WireProps;
  text: string;
  parent: LiveNode | null;
  children: LiveNode[];
}

export function applyOps(snapshot: MountSnapshot, ops: readonly MountOp[]): MountSnapshot {
  return applyOpsKeepingDetached({ snapshot, detached: [] }, ops).snapshot;
}

/**
 * The same, for a host that applies one batch in several messages: nodes
 * created but not yet inserted (`detached`, each with its subtree) carry
 * over to the next call, as the host's store keeps them.
 */
export function applyOpsKeepingDetached(
  state: { snapshot: MountSnapshot; detached: readonly SnapshotNode[] },
  ops: readonly MountOp[],
): { snapshot: MountSnapshot; detached: SnapshotNode[] } {
  const { snapshot } = state;
  const root: LiveNode = { id: ROOT_NODE_ID, type: "#root", props: {}, text: "", parent: null, children: [] };
  const nodes = new Map<number, LiveNode>([[ROOT_NODE_ID, root]]);
  const load = (node: SnapshotNode, parent: LiveNode): LiveNode => {
    if (nodes.has(node.id)) throw new Error(`duplicate id ${node.id}`);
    const live: LiveNode = isSnapshotText(node)
      ? { id: node.id, type: node.type, props: {}, text: node.text, parent, children: [] }
      : { id: node.id, type: node.type, props: node.props, text: "", parent, children: [] };
    nodes.set(node.id, live);
    if (!isSnapshotText(node)) live.children = node.children.map((child) => load(child, live));
    return live;
  };
  root.children = snapshot.nodes.map((node) => load(node, root));
  const loose: LiveNode[] = state.detached.map((node) => load(node, root));
  for (const node of loose) node.parent = null;

  const get = (id: number): LiveNode => {
    const node = nodes.get(id);
    if (!node) throw new Error(`unknown node id ${id}`);
    return node;
  };
  const drop = (node: LiveNode): void => {
    nodes.delete(node.id);
    for (const child of node.children) drop(child);
  };

  for (const op of ops) {
    switch (op.op) {
      case "create": {
        if (nodes.has(op.id)) throw new Error(`create of existing id ${op.id}`);
        const created: LiveNode = {
          id: op.id,
          type: op.type,
          props: op.props ?? {},
          text: op.text ?? "",
          parent: null,
          children: [],
        };
        nodes.set(op.id, created);
        loose.push(created);
        break;
      }
      case "insert": {
        const parent = get(op.parent);
        const child = get(op.child);
        if (child === root) throw new Error("cannot insert the root");
        if (child.parent && child.parent !== parent) throw new Error(`node ${child.id} already has another parent`);
        if (child.parent) child.parent.children.splice(child.parent.children.indexOf(child), 1);
        const index = op.before === undefined ? parent.children.length : parent.children.indexOf(get(op.before));
        if (index < 0) throw new Error(`before ${op.before} is not a child of ${op.parent}`);
        parent.children.splice(index, 0, child);
        child.parent = parent;
        break;
      }
      case "remove": {
        const parent = get(op.parent);
        const child = get(op.child);
        const index = parent.children.indexOf(child);
        if (index < 0) throw new Error(`node ${op.child} is not a child of ${op.parent}`);
        parent.children.splice(index, 1);
        drop(child);
        break;
      }
      case "text": {
        const node = get(op.id);
        if (node.type !== TEXT_NODE_TYPE) throw new Error(`text op on element ${op.id}`);
        node.text = op.text;
        break;
      }
      case "props": {
        const node = get(op.id);
        if (node.type === TEXT_NODE_TYPE) throw new Error(`props op on text ${op.id}`);
        node.props = op.props;
        break;
      }
      default:
        throw new Error(`unknown op ${(op as { op: string }).op}`);
    }
  }

  const out = (node: LiveNode): SnapshotNode =>
    node.type === TEXT_NODE_TYPE
      ? { id: node.id, type: TEXT_NODE_TYPE, text: node.text }
      : { id: node.id, type: node.type, props: node.props, children: node.children.map(out) };
  return {
    snapshot: { nodes: root.children.map(out) },
    detached: loose.filter((node) => node.parent === null && nodes.has(node.id)).map(out),
  };
}

/** A compact HTML-like rendering of a snapshot for assertions: `<div className="x">hi</div>`; handlers as `onClick={fn}`. */
export function printSnapshot(snapshot: MountSnapshot): string {
  const print = (node: SnapshotNode): string => {
    if (isSnapshotText(node)) return node.text;
    const props = Object.entries(node.props)
      .map(([key, value]) =>
        typeof value === "object" && value !== null && (value as { $handler?: boolean }).$handler === true
          ? ` ${key}={fn}`
          : ` ${key}=${JSON.stringify(value)}`,
      )
      .join("");
    return `<${node.type}${props}>${node.children.map(print).join("")}</${node.type}>`;
  };
  return snapshot.nodes.map(print).join("");
}
