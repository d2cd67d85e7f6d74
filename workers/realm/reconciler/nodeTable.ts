/**
 * One mount's flat node table and the op builder: the pure core under the
 * react-reconciler host config (each host-config method is one call here).
 * No React, no timers, no messages.
 *
 * Invariants:
 *   1. Ids are positive, assigned at creation, never reused; ROOT_NODE_ID is
 *      the root and never a node.
 *   2. Ops describe only *attached* nodes (reachable from the root). React
 *      builds new subtrees detached (appendInitialChild) and attaches them in
 *      the commit; the op for a detached node is emitted when it attaches,
 *      as creates of its whole subtree followed by the insert. A subtree React
 *      abandons before attaching (a render that threw) never reaches the host.
 *   3. `takeOps()` applied in order to the previous `snapshot()` yields the
 *      current `snapshot()`.
 *   4. A removed node and its subtree are dead: their ids leave the table.
 *   5. A props op is emitted only when the wire props actually change
 *      (React calls commitUpdate for every re-rendered host element).
 *   6. Between two `takeOps()`, a node has at most one `text` and one `props`
 *      op: a later one replaces the earlier in place (both carry the whole
 *      value, and no other op depends on them). A component that re-renders
 *      200 times between frames sends one batch the size of its tree, not
 *      200 of them.
 */
import {
  MAX_TYPE_LENGTH,
  ROOT_NODE_ID,
  TEXT_NODE_TYPE,
  type MountOp,
  type MountSnapshot,
  type SnapshotNode,
  type WireProps,
} from "../../../src/wire/mount";
import { jsonEqual } from "./toWireProps";

export interface TableNode {
  readonly id: number;
  /** HTML tag, kit name, any other name, or "#text". */
  readonly type: string;
  readonly table: NodeTable;
  /** The realm props of the last commit: handlers are looked up here, so they are always current. */
  props: Record<string, unknown>;
  wireProps: WireProps;
  text: string;
  parent: TableNode | null;
  children: TableNode[];
  attached: boolean;
  hidden: boolean;
}

export interface NodeTableOptions {
  /** Realm props → wire props (toWireProps with the runtime's hooks). */
  serialize(type: string, props: Record<string, unknown>): WireProps;
  /** Called when ops become pending (schedule a flush). */
  onOps?(): void;
}

export interface NodeTable {
  readonly root: TableNode;
  createElement(type: string, props: Record<string, unknown>): TableNode;
  createText(text: string): TableNode;
  appendChild(parent: TableNode, child: TableNode): void;
  insertBefore(parent: TableNode, child: TableNode, before: TableNode): void;
  removeChild(parent: TableNode, child: TableNode): void;
  updateProps(node: TableNode, props: Record<string, unknown>): void;
  updateText(node: TableNode, text: string): void;
  setHidden(node: TableNode, hidden: boolean): void;
  /** Removes every top-level node. */
  clear(): void;
  get(id: number): TableNode | undefined;
  hasOps(): boolean;
  /** The ops since the last call, in order; clears them. */
  takeOps(): MountOp[];
  snapshot(): MountSnapshot;
}

export function createNodeTable(options: NodeTableOptions): NodeTable {
  let nextId = 1;
  let ops: MountOp[] = [];
  /** Index in `ops` of each node's pending text/props op (invariant 6), keyed `t<id>` / `p<id>`. */
  let replaceable = new Map<string, number>();
  const nodes = new Map<number, TableNode>();

  const table: NodeTable = {
    root: undefined as unknown as TableNode,
    createElement: (type, props) => createNode(wireTypeName(type), props, ""),
    createText: (text) => createNode(TEXT_NODE_TYPE, {}, text),
    appendChild: (parent, child) => insert(parent, child, null),
    insertBefore: (parent, child, before) => insert(parent, child, before),
    removeChild,
    updateProps(node, props) {
      node.props = props;
      const wireProps = wirePropsOf(node.type, props, node.hidden);
      if (jsonEqual(wireProps, node.wireProps)) return;
      node.wireProps = wireProps;
      if (node.attached) emit({ op: "props", id: node.id, props: wireProps });
    },
    updateText(node, text) {
      if (node.text === text) return;
      node.text = text;
      if (node.attached && !node.hidden) emit({ op: "text", id: node.id, text });
    },
    setHidden(node, hidden) {
      if (node.hidden === hidden) return;
      node.hidden = hidden;
      if (node.type === TEXT_NODE_TYPE) {
        if (node.attached) emit({ op: "text", id: node.id, text: hidden ? "" : node.text });
        return;
      }
      node.wireProps = wirePropsOf(node.type, node.props, hidden);
      if (node.attached) emit({ op: "props", id: node.id, props: node.wireProps });
    },
    clear() {
      for (const child of [...table.root.children]) removeChild(table.root, child);
    },
    get: (id) => nodes.get(id),
    hasOps: () => ops.length > 0,
    takeOps() {
      const taken = ops;
      ops = [];
      replaceable = new Map();
      return taken;
    },
    snapshot: () => ({ nodes: table.root.children.map(snapshotOf) }),
  };
  (table as { root: TableNode }).root = {
    id: ROOT_NODE_ID,
    type: "#root",
    table,
    props: {},
    wireProps: {},
    text: "",
    parent: null,
    children: [],
    attached: true,
    hidden: false,
  };
  return table;

  function wirePropsOf(type: string, props: Record<string, unknown>, hidden: boolean): WireProps {
    if (type === TEXT_NODE_TYPE) return {};
    const wireProps = options.serialize(type, props);
    // Suspense hides a subtree while a fallback shows; the host renders `hidden` as display:none.
    if (hidden) wireProps.hidden = true;
    return wireProps;
  }

  function createNode(type: string, props: Record<string, unknown>, text: string): TableNode {
    const node: TableNode = {
      id: nextId++,
      type,
      table,
      props,
      wireProps: wirePropsOf(type, props, false),
      text,
      parent: null,
      children: [],
      attached: false,
      hidden: false,
    };
    nodes.set(node.id, node);
    return node;
  }

  function emit(op: MountOp): void {
    const wasEmpty = ops.length === 0;
    if (op.op === "text" || op.op === "props") {
      const key = `${op.op === "text" ? "t" : "p"}${op.id}`;
      const index = replaceable.get(key);
      if (index !== undefined) {
        ops[index] = op;
        return;
      }
      replaceable.set(key, ops.length);
    }
    ops.push(op);
    if (wasEmpty) options.onOps?.();
  }

  function insert(parent: TableNode, child: TableNode, before: TableNode | null): void {
    assertOwn(parent);
    assertOwn(child);
    const moving = child.parent === parent;
    if (child.parent) unlink(child);
    const index = before ? parent.children.indexOf(before) : -1;
    if (before && index < 0) throw new Error(`node ${before.id} is not a child of ${parent.id}`);
    if (index < 0) parent.children.push(child);
    else parent.children.splice(index, 0, child);
    child.parent = parent;
    if (!parent.attached) return;
    if (!moving) {
      if (child.attached) throw new Error(`node ${child.id} is already attached elsewhere`);
      emitSubtree(child);
    }
    const op: MountOp = { op: "insert", parent: parent.id, child: child.id };
    if (before) op.before = before.id;
    emit(op);
  }

  /** Creates for a detached subtree about to attach: the node, then each child's subtree and its insert. */
  function emitSubtree(node: TableNode): void {
    node.attached = true;
    if (node.type === TEXT_NODE_TYPE) {
      emit({ op: "create", id: node.id, type: node.type, text: node.hidden ? "" : node.text });
      return;
    }
    emit({ op: "create", id: node.id, type: node.type, props: node.wireProps });
    for (const child of node.children) {
      emitSubtree(child);
      emit({ op: "insert", parent: node.id, child: child.id });
    }
  }

  function removeChild(parent: TableNode, child: TableNode): void {
    assertOwn(parent);
    if (child.parent !== parent) throw new Error(`node ${child.id} is not a child of ${parent.id}`);
    unlink(child);
    if (parent.attached) emit({ op: "remove", parent: parent.id, child: child.id });
    destroy(child);
  }

  function unlink(child: TableNode): void {
    const siblings = child.parent!.children;
    siblings.splice(siblings.indexOf(child), 1);
    child.parent = null;
  }

  function destroy(node: TableNode): void {
    node.attached = false;
    nodes.delete(node.id);
    for (const child of node.children) destroy(child);
  }

  function assertOwn(node: TableNode): void {
    if (node.table !== table) throw new Error("node belongs to another mount");
  }
}

const TYPE_NAME = /^[A-Za-z][A-Za-z0-9_.:-]*$/;

/**
 * Any string is a valid React host type; the wire accepts names like
 * `div`, `Card`, `my-widget`, `svg:rect` (≤ MAX_TYPE_LENGTH). Anything else
 * is rewritten to such a name, which the host then reports as unknown.
 */
export function wireTypeName(type: string): string {
  if (type.length <= MAX_TYPE_LENGTH && TYPE_NAME.test(type)) return type;
  const cleaned = type.replace(/[^A-Za-z0-9_.:-]/g, "_");
  return (/^[A-Za-z]/.test(cleaned) ? cleaned : `x${cleaned}`).slice(0, MAX_TYPE_LENGTH);
}

function snapshotOf(node: TableNode): SnapshotNode {
  if (node.type === TEXT_NODE_TYPE) return { id: node.id, type: TEXT_NODE_TYPE, text: node.hidden ? "" : node.text };
  return { id: node.id, type: node.type, props: node.wireProps, children: node.children.map(snapshotOf) };
}
