/**
 * The receiver: one mount's node table on the host. Pure (no DOM, no React,
 * no timers), Node-testable.
 *
 * Shapes are checked once, before anything reaches a store: realm messages
 * at the port (src/sandbox/validateRealmMessage.ts → src/wire/mount.ts
 * `validateMountMessage`, which rebuilds every op), saved snapshots by the
 * same validator in `load`. `apply` therefore takes typed `MountOp`s and
 * checks only what depends on the table: ids the host never created (or
 * already destroyed), duplicate creates, text nodes used as parents, `before`
 * and `remove` against the actual children, cycles, tree depth, node count,
 * per-node props/text size and the mount's total size. A bad op is reported
 * and skipped — never thrown, never rendered.
 *
 * Invariants (the view relies on them):
 *   1. Node records are immutable; any change to a node (props, text,
 *      children, live value) replaces its record and bumps `version`, so a
 *      memoised view of an untouched node never re-renders.
 *   2. Listeners run once per batch (`apply`), after the whole batch.
 *   3. Every id in a `children` list names a live node whose parent is the
 *      owner of that list; the attached tree is acyclic and at most
 *      `maxDepth` deep.
 *   4. `remove` destroys the whole subtree (src/wire/mount.ts: removed ids are
 *      dead for good).
 */
import {
  ROOT_NODE_ID,
  TEXT_NODE_TYPE,
  isHandlerMarker,
  validateMountMessage,
  MOUNT,
  MOUNT_OPEN,
  MAX_TREE_DEPTH,
  type FormValues,
  type MountErrorInfo,
  type MountOp,
  type MountSnapshot,
  type WireProps,
} from "./contract";
import {
  applyRequestedValue,
  controlKind,
  createControlState,
  setLiveValue,
  type ControlState,
  type ControlValue,
} from "./controls";
import { collectFormValues } from "./mountFormValues";
import { buildSnapshot, snapshotOps, type MountSnapshotOptions } from "./mountSnapshot";
import { renderError, type RenderError, type RenderErrorCode } from "./renderErrors";

export const ROOT_TYPE = "#root";

export interface MountNode {
  readonly id: number;
  readonly type: string;
  /** The realm's props, checked as JSON (not yet sanitized for rendering). */
  readonly props: WireProps;
  /** Text of a `#text` node; "" otherwise. */
  readonly text: string;
  readonly children: readonly number[];
  /** Bumped on every change of this record. */
  readonly version: number;
  /** The host-owned value of a form control (see controls.ts). */
  readonly live?: ControlValue;
}

export interface MountMeta {
  readonly title: string | undefined;
  /** Code awaits this mount's result. */
  readonly waiting: boolean;
  /**
   * Its `result` is no longer wanted: "sent" once a submit was accepted,
   * "stopped" when Stop ended the code that awaited it. Its forms are shown
   * so (disabled), never as live forms whose submit goes nowhere.
   */
  readonly answered?: "sent" | "stopped";
  /** The realm failed to render the ui; the panel shows this instead of the tree. */
  readonly error: MountErrorInfo | null;
  /** Field name → message, until the next submit. `FORM_ERROR_KEY` holds whole-form errors. */
  readonly formErrors: Readonly<Record<string, string>>;
  /** Rendered from a snapshot with no live realm behind it: handlers do nothing, inputs are disabled. */
  readonly inert: boolean;
  /** The realm unmounted it; the last tree stays visible, inert. */
  readonly closed: boolean;
}

export interface MountLimits {
  /** Live nodes (attached or not). */
  maxNodes: number;
  /** Depth of the attached tree (top-level nodes are depth 1). */
  maxDepth: number;
  /** Serialized size of one node's props, in UTF-16 units (about bytes for ASCII). */
  maxPropsSize: number;
  /** Length of one text node. */
  maxTextLength: number;
  /** Props plus text of all live nodes. */
  maxTotalSize: number;
  /** Errors returned from one batch; the rest are counted in a final `too-many-errors`. */
  maxErrorsPerBatch: number;
}

export const DEFAULT_MOUNT_LIMITS: Readonly<MountLimits> = Object.freeze({
  maxNodes: 10_000,
  maxDepth: MAX_TREE_DEPTH,
  maxPropsSize: 512 * 1024,
  maxTextLength: 100_000,
  maxTotalSize: 8 * 1024 * 1024,
  maxErrorsPerBatch: 20,
});

export interface MountStoreOptions {
  mountId: string;
  title?: string;
  /** Start inert (a restored snapshot). */
  inert?: boolean;
  limits?: Partial<MountLimits>;
  /** Every error: from ops, from the snapshot, and those the view reports (unknown components, unsafe props). */
  onError?: (error: RenderError) => void;
}

export type { MountSnapshotOptions } from "./mountSnapshot";

type Listener = () => void;

export interface MountStore {
  readonly mountId: string;
  /** Apply a batch of ops the gate has validated; returns the errors (also sent to `onError`). Never throws. */
  apply(ops: readonly MountOp[]): RenderError[];
  /** Replace the whole tree with a snapshot from outside (storage, a test): its shape is checked first. */
  load(snapshot: unknown): RenderError[];
  /** Replace the whole tree with a mount-open's snapshot the port has validated already. */
  loadValidated(snapshot: MountSnapshot): RenderError[];
  /** The record for `id`; `ROOT_NODE_ID` gives the root (type `#root`). */
  getNode(id: number): MountNode | undefined;
  /** Parent of a live node (`ROOT_NODE_ID` for top-level nodes), or undefined when detached/unknown. */
  getParent(id: number): number | undefined;
  readonly nodeCount: number;
  subscribeNode(id: number, listener: Listener): () => void;
  /** Notified when anything in `id`'s subtree changes (charts and selects read their descendants). */
  subscribeSubtree(id: number, listener: Listener): () => void;
  /** Changes whenever anything in `id`'s subtree changes. */
  getSubtreeVersion(id: number): number;

  getMeta(): MountMeta;
  subscribeMeta(listener: Listener): () => void;
  setTitle(title: string | undefined): void;
  /** MOUNT_WAITING: `false` is a submit the realm accepted, or with `stopped` the end of the code that awaited. */
  setWaiting(waiting: boolean, stopped?: boolean): void;
  setRenderError(error: MountErrorInfo | null): void;
  setFormErrors(errors: Record<string, string>): void;
  /** A submit clears shown field errors until the realm answers. */
  clearFormErrors(): void;
  setInert(inert: boolean): void;
  close(): void;

  /**
   * The person changed a control. `reported`: the new value goes to the realm
   * (a handler is attached), so its echo must not be re-applied. Radios
   * uncheck the other radios of their group.
   */
  setControlValue(id: number, value: ControlValue, reported: boolean): void;
  /** The named fields under a form node (src/wire/mount.ts "Forms"). */
  collectFormValues(formId: number): FormValues;

  /** Report an error found while rendering; deduplicated by `key` (default code + message). True when new. */
  report(error: RenderError, key?: string): boolean;

  /** The attached tree as JSON (persistence, export). */
  toSnapshot(options?: MountSnapshotOptions): MountSnapshot;
}

interface MutableNode {
  id: number;
  type: string;
  props: WireProps;
  text: string;
  children: number[];
  version: number;
  live?: ControlValue;
}

const EMPTY_PROPS: WireProps = Object.freeze({}) as WireProps;

/** Size of a JSON value the gate rebuilt (UTF-16 units of its JSON text, roughly), counted only up to `budget`. */
function jsonSize(value: unknown, budget: number): number {
  switch (typeof value) {
    case "string":
      return value.length + 2;
    case "number":
      return 8;
    case "boolean":
      return 5;
    case "object": {
      if (value === null) return 4;
      let size = 2;
      if (Array.isArray(value)) {
        for (const item of value) {
          size += jsonSize(item, budget - size) + 1;
          if (size > budget) return size;
        }
        return size;
      }
      for (const key of Object.keys(value)) {
        size += key.length + 3 + jsonSize((value as Record<string, unknown>)[key], budget - size) + 1;
        if (size > budget) return size;
      }
      return size;
    }
    default:
      return 0;
  }
}

/** Props within the node's size limit, frozen; their shape is the gate's (JSON, markers only at the top). */
function sizedProps(
  props: WireProps | undefined,
  maxSize: number,
): { props: WireProps; size: number } | { code: RenderErrorCode; reason: string } {
  if (props === undefined) return { props: EMPTY_PROPS, size: 0 };
  let size = 2;
  for (const key of Object.keys(props)) {
    const value = props[key];
    size += key.length + 3 + (isHandlerMarker(value) ? 13 : jsonSize(value, maxSize - size));
    if (size > maxSize) return { code: "props-too-large", reason: `props exceed ${maxSize} characters` };
  }
  return { props: Object.isFrozen(props) ? props : Object.freeze(props), size };
}

export function createMountStore(options: MountStoreOptions): MountStore {
  const limits: MountLimits = { ...DEFAULT_MOUNT_LIMITS, ...options.limits };
  const mountId = options.mountId;
  const nodes = new Map<number, MutableNode>();
  const parents = new Map<number, number>();
  const sizes = new Map<number, number>();
  const controls = new Map<number, ControlState>();
  let totalSize = 0;

  const records = new Map<number, MountNode>();
  const nodeListeners = new Map<number, Set<Listener>>();
  const subtreeListeners = new Map<number, Set<Listener>>();
  const subtreeVersions = new Map<number, number>();
  const metaListeners = new Set<Listener>();
  const reported = new Set<string>();

  let meta: MountMeta = Object.freeze({
    title: options.title,
    waiting: false,
    error: null,
    formErrors: Object.freeze({}),
    inert: options.inert === true,
    closed: false,
  });

  const root: MutableNode = {
    id: ROOT_NODE_ID,
    type: ROOT_TYPE,
    props: EMPTY_PROPS,
    text: "",
    children: [],
    version: 0,
  };
  nodes.set(ROOT_NODE_ID, root);

  // Per batch.
  let changed = new Set<number>();
  let batchErrors: RenderError[] = [];
  let droppedErrors = 0;

  function fail(code: RenderErrorCode, message: string, details?: Record<string, unknown>): void {
    if (batchErrors.length < limits.maxErrorsPerBatch) batchErrors.push(renderError(code, message, details));
    else droppedErrors++;
  }

  function touch(node: MutableNode): void {
    node.version++;
    changed.add(node.id);
  }

  function record(id: number): MountNode | undefined {
    const node = nodes.get(id);
    if (!node) return undefined;
    let cached = records.get(id);
    if (!cached || cached.version !== node.version) {
      cached = Object.freeze({
        id: node.id,
        type: node.type,
        props: node.props,
        text: node.text,
        children: Object.freeze([...node.children]),
        version: node.version,
        ...(node.live !== undefined ? { live: node.live } : {}),
      });
      records.set(id, cached);
    }
    return cached;
  }

  function depthOf(id: number): number {
    let depth = 0;
    for (
      let current: number | undefined = id;
      current !== undefined && current !== ROOT_NODE_ID;
      current = parents.get(current)
    ) {
      depth++;
      if (depth > limits.maxDepth + 1) break;
    }
    return depth;
  }

  /** Whether `id` is attached under the root (detached subtrees are built bottom-up before an insert). */
  function rootOf(id: number): number {
    let current = id;
    for (let steps = 0; steps <= limits.maxDepth + 1; steps++) {
      const parent = parents.get(current);
      if (parent === undefined) return current;
      current = parent;
    }
    return current;
  }

  /** Height of a subtree, stopping early once it exceeds `limit`. */
  function heightOf(id: number, limit: number): number {
    const node = nodes.get(id);
    if (!node || node.children.length === 0) return 1;
    if (limit <= 1) return 2;
    let height = 0;
    for (const child of node.children) {
      height = Math.max(height, heightOf(child, limit - 1));
      if (height >= limit) break;
    }
    return height + 1;
  }

  function isAncestor(candidate: number, of: number): boolean {
    for (let current: number | undefined = of; current !== undefined; current = parents.get(current)) {
      if (current === candidate) return true;
    }
    return false;
  }

  function destroy(id: number): void {
    const stack = [id];
    while (stack.length > 0) {
      const current = stack.pop()!;
      const node = nodes.get(current);
      if (!node) continue;
      stack.push(...node.children);
      nodes.delete(current);
      parents.delete(current);
      records.delete(current);
      controls.delete(current);
      totalSize -= sizes.get(current) ?? 0;
      sizes.delete(current);
      changed.add(current);
    }
  }

  function detach(id: number): void {
    const parentId = parents.get(id);
    if (parentId === undefined) return;
    const parent = nodes.get(parentId)!;
    const index = parent.children.indexOf(id);
    if (index >= 0) parent.children.splice(index, 1);
    parents.delete(id);
    touch(parent);
  }

  function setProps(node: MutableNode, props: WireProps): void {
    node.props = props;
    const kind = node.type === TEXT_NODE_TYPE ? undefined : controlKind(node.type, props);
    let control = controls.get(node.id);
    if (kind === undefined) {
      if (control) controls.delete(node.id);
      delete node.live;
      return;
    }
    if (!control || control.kind !== kind) {
      control = createControlState(kind, props);
      controls.set(node.id, control);
    } else {
      applyRequestedValue(control, props);
    }
    node.live = control.live;
  }

  function opCreate(op: Extract<MountOp, { op: "create" }>): void {
    const { id, type } = op;
    if (nodes.has(id)) return fail("duplicate-node", `node ${id} already exists`, { id });
    if (nodes.size - 1 >= limits.maxNodes)
      return fail("too-many-nodes", `a mount holds at most ${limits.maxNodes} nodes`, { id, limit: limits.maxNodes });
    let size: number;
    const node: MutableNode = { id, type, props: EMPTY_PROPS, text: "", children: [], version: 1 };
    if (type === TEXT_NODE_TYPE) {
      const text = op.text ?? "";
      if (text.length > limits.maxTextLength)
        return fail("invalid-text", `text exceeds ${limits.maxTextLength} characters`, { id, length: text.length });
      node.text = text;
      size = text.length;
    } else {
      const checked = sizedProps(op.props, limits.maxPropsSize);
      if ("code" in checked) return fail(checked.code, checked.reason, { id, type });
      size = checked.size;
      setProps(node, checked.props);
    }
    if (totalSize + size > limits.maxTotalSize)
      return fail("props-too-large", `the mount exceeds ${limits.maxTotalSize} characters of props and text`, { id });
    totalSize += size;
    sizes.set(id, size);
    nodes.set(id, node);
    changed.add(id);
  }

  function opInsert(op: Extract<MountOp, { op: "insert" }>): void {
    const { parent: parentId, child: childId, before } = op;
    const parent = nodes.get(parentId);
    if (!parent) return fail("unknown-node", `insert into node ${parentId}, which does not exist`, { id: parentId });
    const child = nodes.get(childId);
    if (!child) return fail("unknown-node", `insert of node ${childId}, which does not exist`, { id: childId });
    if (parent.type === TEXT_NODE_TYPE)
      return fail("wrong-node-kind", `node ${parentId} is text and cannot have children`, { id: parentId });
    if (isAncestor(childId, parentId))
      return fail("cycle", `inserting ${childId} under ${parentId} would make a cycle`, {
        parent: parentId,
        child: childId,
      });
    if (before !== undefined) {
      if (before === childId || !parent.children.includes(before)) {
        return fail("not-a-child", `node ${before} is not a child of ${parentId}`, { parent: parentId, before });
      }
    }
    if (rootOf(parentId) === ROOT_NODE_ID) {
      const depth = depthOf(parentId) + heightOf(childId, limits.maxDepth + 1);
      if (depth > limits.maxDepth)
        return fail("tree-too-deep", `the tree would be deeper than ${limits.maxDepth}`, {
          parent: parentId,
          child: childId,
        });
    } else if (heightOf(childId, limits.maxDepth + 1) + depthOf(parentId) > limits.maxDepth) {
      return fail("tree-too-deep", `the tree would be deeper than ${limits.maxDepth}`, {
        parent: parentId,
        child: childId,
      });
    }
    detach(childId);
    const index = before === undefined ? parent.children.length : parent.children.indexOf(before);
    parent.children.splice(index, 0, childId);
    parents.set(childId, parentId);
    touch(parent);
  }

  function opRemove(op: Extract<MountOp, { op: "remove" }>): void {
    const { parent: parentId, child: childId } = op;
    if (!nodes.has(parentId))
      return fail("unknown-node", `remove from node ${parentId}, which does not exist`, { id: parentId });
    if (!nodes.has(childId))
      return fail("unknown-node", `remove of node ${childId}, which does not exist`, { id: childId });
    if (parents.get(childId) !== parentId)
      return fail("not-a-child", `node ${childId} is not a child of ${parentId}`, { parent: parentId, child: childId });
    detach(childId);
    destroy(childId);
  }

  function opText(op: Extract<MountOp, { op: "text" }>): void {
    const { id, text } = op;
    const node = nodes.get(id);
    if (!node) return fail("unknown-node", `text for node ${id}, which does not exist`, { id });
    if (node.type !== TEXT_NODE_TYPE) return fail("wrong-node-kind", `node ${id} is not a text node`, { id });
    if (text.length > limits.maxTextLength)
      return fail("invalid-text", `text exceeds ${limits.maxTextLength} characters`, { id, length: text.length });
    const old = sizes.get(id) ?? 0;
    if (totalSize - old + text.length > limits.maxTotalSize)
      return fail("props-too-large", `the mount exceeds ${limits.maxTotalSize} characters of props and text`, { id });
    if (node.text === text) return;
    totalSize += text.length - old;
    sizes.set(id, text.length);
    node.text = text;
    touch(node);
  }

  function opProps(op: Extract<MountOp, { op: "props" }>): void {
    const { id } = op;
    const node = nodes.get(id);
    if (!node) return fail("unknown-node", `props for node ${id}, which does not exist`, { id });
    if (node.type === TEXT_NODE_TYPE)
      return fail("wrong-node-kind", `node ${id} is a text node and has no props`, { id });
    const checked = sizedProps(op.props, limits.maxPropsSize);
    if ("code" in checked) return fail(checked.code, checked.reason, { id, type: node.type });
    const old = sizes.get(id) ?? 0;
    if (totalSize - old + checked.size > limits.maxTotalSize)
      return fail("props-too-large", `the mount exceeds ${limits.maxTotalSize} characters of props and text`, { id });
    totalSize += checked.size - old;
    sizes.set(id, checked.size);
    setProps(node, checked.props);
    touch(node);
  }

  function applyOne(op: MountOp): void {
    switch (op.op) {
      case "create":
        return opCreate(op);
      case "insert":
        return opInsert(op);
      case "remove":
        return opRemove(op);
      case "text":
        return opText(op);
      case "props":
        return opProps(op);
    }
  }

  function notify(): void {
    const dirty = changed;
    changed = new Set();
    if (dirty.size === 0) return;
    const subtreeDirty = new Set<number>();
    for (const id of dirty) {
      // Destroyed nodes have no parent chain left; their former parent is in `dirty` too.
      for (let current: number | undefined = id; current !== undefined; current = parents.get(current)) {
        if (subtreeDirty.has(current)) break;
        subtreeDirty.add(current);
      }
    }
    for (const id of subtreeDirty) subtreeVersions.set(id, (subtreeVersions.get(id) ?? 0) + 1);
    for (const id of dirty) nodeListeners.get(id)?.forEach((listener) => listener());
    for (const id of subtreeDirty) subtreeListeners.get(id)?.forEach((listener) => listener());
  }

  function finishBatch(): RenderError[] {
    if (droppedErrors > 0) {
      batchErrors.push(
        renderError("too-many-errors", `${droppedErrors} more errors in this batch were not listed`, {
          omitted: droppedErrors,
        }),
      );
    }
    const errors = batchErrors;
    batchErrors = [];
    droppedErrors = 0;
    notify();
    for (const error of errors) options.onError?.(error);
    return errors;
  }

  function applyOps(ops: readonly MountOp[]): void {
    for (const op of ops) {
      try {
        applyOne(op);
      } catch (error) {
        // A bug here must cost one op, not the batch: report it.
        fail("invalid-op", "op could not be applied", { reason: String(error).slice(0, 200) });
      }
    }
  }

  function updateMeta(patch: Partial<MountMeta>): void {
    const next = { ...meta, ...patch };
    if (Object.keys(patch).every((key) => Object.is(next[key as keyof MountMeta], meta[key as keyof MountMeta])))
      return;
    meta = Object.freeze(next);
    metaListeners.forEach((listener) => listener());
  }

  function subscribe(map: Map<number, Set<Listener>>, id: number, listener: Listener): () => void {
    let set = map.get(id);
    if (!set) map.set(id, (set = new Set()));
    set.add(listener);
    return () => {
      set!.delete(listener);
      if (set!.size === 0 && map.get(id) === set) map.delete(id);
    };
  }

  /** Drop the whole tree (before a snapshot replaces it). */
  function clear(): void {
    for (const child of [...root.children]) {
      detach(child);
      destroy(child);
    }
    // Orphans (created, never inserted) go too.
    for (const id of [...nodes.keys()]) if (id !== ROOT_NODE_ID && !parents.has(id)) destroy(id);
    controls.clear();
  }

  const store: MountStore = {
    mountId,
    apply(ops) {
      applyOps(ops);
      return finishBatch();
    },
    load(snapshot) {
      // Shape first, with the wire's own validator (it rebuilds the value);
      // then the same checked path as ops.
      const checked = validateMountMessage({ type: MOUNT, kind: MOUNT_OPEN, mountId, snapshot });
      clear();
      if (!checked.ok) {
        fail("invalid-snapshot", `snapshot rejected: ${checked.reason}`, {});
        return finishBatch();
      }
      const message = checked.message as { snapshot: MountSnapshot };
      applyOps(snapshotOps(message.snapshot.nodes));
      return finishBatch();
    },
    loadValidated(snapshot) {
      clear();
      applyOps(snapshotOps(snapshot.nodes));
      return finishBatch();
    },
    getNode: record,
    getParent(id) {
      return parents.get(id);
    },
    get nodeCount() {
      return nodes.size - 1;
    },
    subscribeNode: (id, listener) => subscribe(nodeListeners, id, listener),
    subscribeSubtree: (id, listener) => subscribe(subtreeListeners, id, listener),
    getSubtreeVersion: (id) => subtreeVersions.get(id) ?? 0,

    getMeta: () => meta,
    subscribeMeta(listener) {
      metaListeners.add(listener);
      return () => void metaListeners.delete(listener);
    },
    setTitle: (title) => updateMeta({ title }),
    setWaiting: (waiting, stopped) =>
      updateMeta({ waiting, answered: waiting ? undefined : stopped ? "stopped" : "sent" }),
    setRenderError: (error) => updateMeta({ error }),
    setFormErrors(errors) {
      const clean: Record<string, string> = {};
      for (const [key, value] of Object.entries(errors)) if (typeof value === "string") clean[key] = value;
      updateMeta({ formErrors: Object.freeze(clean) });
    },
    clearFormErrors() {
      if (Object.keys(meta.formErrors).length > 0) updateMeta({ formErrors: Object.freeze({}) });
    },
    setInert: (inert) => updateMeta({ inert }),
    close: () => updateMeta({ closed: true, waiting: false }),

    setControlValue(id, value, reported) {
      const control = controls.get(id);
      const node = nodes.get(id);
      if (!control || !node) return;
      setLiveValue(control, value, reported);
      node.live = control.live;
      touch(node);
      if (
        node.type === "input" &&
        node.props.type === "radio" &&
        value === true &&
        typeof node.props.name === "string"
      ) {
        // Radios of one group: checking one unchecks the others in the same form (or the mount).
        const scope = closestForm(id) ?? ROOT_NODE_ID;
        for (const other of descendants(scope)) {
          const otherNode = nodes.get(other)!;
          if (
            other === id ||
            otherNode.type !== "input" ||
            otherNode.props.type !== "radio" ||
            otherNode.props.name !== node.props.name
          )
            continue;
          const otherControl = controls.get(other);
          if (!otherControl || otherControl.live !== true) continue;
          setLiveValue(otherControl, false, false);
          otherNode.live = false;
          touch(otherNode);
        }
      }
      notify();
    },

    collectFormValues(formId) {
      return collectFormValues(
        formId,
        (id) => nodes.get(id),
        (id) => controls.get(id),
      );
    },

    report(error, key) {
      const dedupe = key ?? `${error.code}:${error.message}`;
      if (reported.has(dedupe)) return false;
      reported.add(dedupe);
      options.onError?.(error);
      return true;
    },

    toSnapshot(snapshotOptions) {
      return buildSnapshot(
        root.children,
        (id) => nodes.get(id)!,
        (id) => controls.get(id),
        snapshotOptions,
      );
    },
  };

  function closestForm(id: number): number | undefined {
    for (
      let current = parents.get(id);
      current !== undefined && current !== ROOT_NODE_ID;
      current = parents.get(current)
    ) {
      if (nodes.get(current)?.type === "form") return current;
    }
    return undefined;
  }

  function descendants(id: number): number[] {
    const result: number[] = [];
    const stack = [...(nodes.get(id)?.children ?? [])];
    while (stack.length > 0) {
      const current = stack.pop()!;
      result.push(current);
      stack.push(...(nodes.get(current)?.children ?? []));
    }
    return result;
  }

  return store;
}

/**
 * A store re-created from a persisted snapshot: inert until revived (handlers
 * do nothing, inputs are disabled). Errors in the snapshot are reported via
 * `onError` and returned; what is valid still renders.
 */
export function fromSnapshot(
  snapshot: unknown,
  options: MountStoreOptions,
): { store: MountStore; errors: RenderError[] } {
  const store = createMountStore({ inert: true, ...options });
  const errors = store.load(snapshot);
  return { store, errors };
}
