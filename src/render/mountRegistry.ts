/**
 * All mounts of a session on the host: routes each realm → host mount
 * message (src/wire/mount.ts) to its store. Pure apart from the listeners.
 *
 * Every message is validated here (validateMountMessage rebuilds it from
 * scratch), so callers may hand over whatever arrived on the port.
 */
import {
  MOUNT_CLOSE, MOUNT_ERROR, MOUNT_FORM_ERRORS, MOUNT_OPEN, MOUNT_OPS, MOUNT_WAITING, TEXT_NODE_TYPE,
  validateMountMessage, type MountRealmMessage, type SnapshotNode,
} from "./contract";
import { isSnapshotText } from "../wire/mount";
import { REFUSED_TYPES, componentFor } from "./catalog";
import { reportUnknownComponent } from "./MountView";
import { createMountStore, fromSnapshot, type MountLimits, type MountStore } from "./mountStore";
import { snapshotOps } from "./mountSnapshot";
import type { MountOp, MountSnapshot } from "./contract";
import { renderError, type RenderError } from "./renderErrors";

export interface MountRegistryOptions {
  limits?: Partial<MountLimits>;
  /** Every error of every mount (ops, snapshot, rendering), and messages for unknown mounts. */
  onError?(mountId: string | undefined, error: RenderError): void;
  /**
   * A type the host cannot draw arrived (once per mount and type). Reported
   * when the message arrives, not when it is drawn, so the problem reaches
   * the turn whose code mounted it: the realm answers a flush only after it
   * has sent its pending mount messages.
   */
  onUnknownComponent?(mountId: string, type: string): void;
}

export interface MountRegistry {
  /**
   * Handle one mount message the port has validated already (src/sandbox
   * validates every realm message once, there). Never throws; returns the
   * errors it caused.
   */
  apply(message: MountRealmMessage): RenderError[];
  /** Validate, then `apply`: for messages that did not come through the port (tests, tools). */
  receive(message: unknown): RenderError[];
  get(mountId: string): MountStore | undefined;
  /** Mount ids in the order they opened. */
  ids(): readonly string[];
  /** Notified when a mount opens, is restored, replaced or deleted. */
  subscribe(listener: () => void): () => void;
  /** Show a persisted snapshot, inert until a realm opens the same id again. */
  restore(mountId: string, snapshot: unknown, title?: string): { store: MountStore; errors: RenderError[] };
  /**
   * The same, in steps (src/ui/mountSnapshots.ts restores a session in time
   * slices): the snapshot is checked once, then each `step(maxOps)` applies
   * at most `maxOps` of the ops that rebuild it, off the registry; the store
   * is shown when complete. Returns true when done. A realm that opened the
   * same id meanwhile wins: the restored tree is dropped, never shown over it.
   */
  beginRestore(mountId: string, snapshot: unknown, title?: string): { step(maxOps: number): boolean; readonly opCount: number };
  /**
   * A port-validated mount-open, in steps (src/render/mountInbox.ts applies a
   * big snapshot over several time slices): each `step(maxOps)` applies up to
   * `maxOps` ops to a store kept aside; the step that finishes installs it
   * (replacing the mount's old store) and returns true. `apply` of a
   * mount-open is the same in one step. `errors` grows as steps apply.
   */
  beginOpen(message: Extract<MountRealmMessage, { type: typeof MOUNT_OPEN }>): { step(maxOps: number): boolean; readonly opCount: number; readonly errors: RenderError[] };
  /** The realm is gone (reset, crash): live mounts stay visible, inert. */
  closeAll(): void;
  delete(mountId: string): void;
}

export function createMountRegistry(options: MountRegistryOptions = {}): MountRegistry {
  const stores = new Map<string, MountStore>();
  const listeners = new Set<() => void>();
  let order: readonly string[] = [];

  const changed = () => {
    order = [...stores.keys()];
    listeners.forEach((listener) => listener());
  };

  const storeOptions = (mountId: string, title?: string) => ({
    mountId,
    title,
    limits: options.limits,
    onError: (error: RenderError) => options.onError?.(mountId, error),
  });

  const checkTypes = (mountId: string, store: MountStore, types: readonly string[]) => {
    for (const type of types) {
      if (type === TEXT_NODE_TYPE || componentFor(type)) continue;
      const reason = REFUSED_TYPES.has(type.toLowerCase()) ? "not-allowed" : "unknown";
      if (reportUnknownComponent(store, type, reason)) options.onUnknownComponent?.(mountId, type);
    }
  };

  const registry: MountRegistry = {
    receive(raw) {
      const checked = validateMountMessage(raw);
      if (!checked.ok) {
        const error = renderError("invalid-op", `mount message rejected: ${checked.reason}`);
        options.onError?.(undefined, error);
        return [error];
      }
      return registry.apply(checked.message);
    },
    apply(message) {
      if (message.type === MOUNT_OPEN) {
        const opening = registry.beginOpen(message);
        while (!opening.step(Infinity));
        return opening.errors;
      }
      const store = stores.get(message.mountId);
      if (!store) {
        const error = renderError("unknown-mount", `no mount "${message.mountId.slice(0, 64)}"`, { mountId: message.mountId });
        options.onError?.(message.mountId, error);
        return [error];
      }
      switch (message.type) {
        case MOUNT_OPS: {
          const errors = store.apply(message.ops);
          checkTypes(message.mountId, store, message.ops.flatMap((op) => (op.op === "create" ? [op.type] : [])));
          return errors;
        }
        case MOUNT_CLOSE:
          store.close();
          return [];
        case MOUNT_ERROR:
          store.setRenderError(message.error);
          return [];
        case MOUNT_FORM_ERRORS:
          store.setFormErrors(message.errors);
          return [];
        case MOUNT_WAITING:
          store.setWaiting(message.waiting);
          return [];
        default: {
          const exhaustive: never = message;
          return exhaustive;
        }
      }
    },
    get: (mountId) => stores.get(mountId),
    ids: () => order,
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    restore(mountId, snapshot, title) {
      const result = fromSnapshot(snapshot, storeOptions(mountId, title));
      stores.set(mountId, result.store);
      changed();
      return result;
    },
    beginOpen(message) {
      // A (re)open starts from its snapshot, built aside in steps; the old
      // tree (if any) stays shown until the new one is whole. A view holding
      // the old store re-reads the registry on `subscribe`.
      const store = createMountStore(storeOptions(message.mountId, message.title));
      const ops: MountOp[] = snapshotOps(message.snapshot.nodes);
      const errors: RenderError[] = [];
      let offset = 0;
      let done = false;
      return {
        opCount: ops.length,
        errors,
        step(maxOps) {
          if (done) return true;
          if (offset < ops.length) {
            const end = Math.min(ops.length, offset + Math.max(1, maxOps));
            errors.push(...store.apply(offset === 0 && end === ops.length ? ops : ops.slice(offset, end)));
            offset = end;
          }
          if (offset < ops.length) return false;
          done = true;
          stores.delete(message.mountId);
          stores.set(message.mountId, store);
          changed();
          const types: string[] = [];
          const visit = (nodes: readonly SnapshotNode[]) => {
            for (const node of nodes) {
              types.push(node.type);
              if (!isSnapshotText(node)) visit(node.children);
            }
          };
          visit(message.snapshot.nodes);
          checkTypes(message.mountId, store, types);
          return true;
        },
      };
    },
    beginRestore(mountId, snapshot, title) {
      const checked = validateMountMessage({ type: MOUNT_OPEN, mountId, snapshot });
      if (!checked.ok) {
        // Reported and shown as the one-shot path shows it (an empty, inert panel with the error).
        const result = fromSnapshot(snapshot, storeOptions(mountId, title));
        return {
          opCount: 0,
          step() {
            if (!stores.has(mountId)) {
              stores.set(mountId, result.store);
              changed();
            }
            return true;
          },
        };
      }
      const store = createMountStore({ inert: true, ...storeOptions(mountId, title) });
      const ops: MountOp[] = snapshotOps((checked.message as { snapshot: MountSnapshot }).snapshot.nodes);
      let offset = 0;
      return {
        opCount: ops.length,
        step(maxOps) {
          if (offset < ops.length) {
            const end = Math.min(ops.length, offset + Math.max(1, maxOps));
            store.apply(offset === 0 && end === ops.length ? ops : ops.slice(offset, end));
            offset = end;
          }
          if (offset < ops.length) return false;
          if (!stores.has(mountId)) {
            stores.set(mountId, store);
            changed();
          }
          return true;
        },
      };
    },
    closeAll() {
      for (const store of stores.values()) store.close();
    },
    delete(mountId) {
      if (stores.delete(mountId)) changed();
    },
  };
  return registry;
}
