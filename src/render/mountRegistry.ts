/**
 * All mounts of a session on the host: routes each realm → host mount
 * message (src/wire/mount.ts) to its store. Pure apart from the listeners.
 *
 * Every message is validated here (validateMountMessage rebuilds it from
 * scratch), so callers may hand over whatever arrived on the port.
 */
import {
  MOUNT_CLOSE,
  MOUNT_ERROR,
  MOUNT_FORM_ERRORS,
  MOUNT_OPEN,
  MOUNT_OPS,
  MOUNT_WAITING,
  TEXT_NODE_TYPE,
  validateMountMessage,
  type MountRealmMessage,
} from "./contract";
import { MOUNT, MOUNT_OPEN_PART } from "../wire/mount";
// Not the catalog or MountView: they load with the first mount drawn (drawable.ts).
import { REFUSED_TYPES, isDrawableType, reportUnknownComponent } from "./drawable";
import { createMountStore, fromSnapshot, type MountLimits, type MountStore } from "./mountStore";
import { snapshotNodeCount, snapshotOps } from "./mountSnapshot";
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
   * The same, in steps (src/session/mountSnapshots.ts restores a session in time
   * slices): the snapshot is checked once, then each `step(maxOps)` applies
   * at most `maxOps` of the ops that rebuild it, off the registry; the store
   * is shown when complete. Returns true when done. A realm that opened the
   * same id meanwhile wins: the restored tree is dropped, never shown over it.
   */
  beginRestore(
    mountId: string,
    snapshot: unknown,
    title?: string,
  ): { step(maxOps: number): boolean; readonly opCount: number };
  /**
   * A port-validated mount-open, built in steps (src/render/mountInbox.ts
   * applies it over several time slices, its parts as they come): the tree
   * is built in a store kept aside and shown (replacing the mount's old
   * store) only when whole. Replaces an open of the same id under way.
   * `apply` of a mount-open or a part is the same in one step.
   */
  beginOpen(message: Extract<MountRealmMessage, { kind: typeof MOUNT_OPEN }>): MountOpening;
  /** The open of `mountId` under way (announced, not yet shown), if any. */
  opening(mountId: string): MountOpening | undefined;
  /** The realm is gone (reset, crash): live mounts stay visible, inert. */
  closeAll(): void;
  delete(mountId: string): void;
}

/** A first render being built aside (MountRegistry.beginOpen). */
export interface MountOpening {
  readonly mountId: string;
  /** The message that announced it (the agent hears of it once it is shown). */
  readonly message: Extract<MountRealmMessage, { kind: typeof MOUNT_OPEN }>;
  /** Nodes announced: the snapshot's, or `nodes` when parts follow. The session's caps reserve them. */
  readonly nodes: number;
  /** Ops received and not yet applied. */
  readonly pendingOps: number;
  /** Parts announced and not yet received. */
  readonly partsLeft: number;
  readonly state: "building" | "shown" | "abandoned";
  /** Every error so far (also reported through `onError`). */
  readonly errors: readonly RenderError[];
  /** The next part. Out of order, or none expected: the open is abandoned (reported) and false returned. */
  addPart(index: number, ops: readonly MountOp[]): boolean;
  /**
   * Apply up to `maxOps` received ops to the tree kept aside; once every part
   * has come and every op is applied, show the tree. Returns the ops applied.
   */
  step(maxOps: number): number;
  /** Give up (reported with `reason`); the tree is never shown. */
  abandon(reason: string): void;
}

export function createMountRegistry(options: MountRegistryOptions = {}): MountRegistry {
  const stores = new Map<string, MountStore>();
  const openings = new Map<string, MountOpening>();
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
      if (type === TEXT_NODE_TYPE || isDrawableType(type)) continue;
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
      if (message.kind === MOUNT_OPEN) {
        const opening = registry.beginOpen(message);
        opening.step(Infinity);
        return [...opening.errors];
      }
      const opening = openings.get(message.mountId);
      if (message.kind === MOUNT_OPEN_PART) {
        if (!opening) {
          const error = renderError(
            "open-abandoned",
            `mount ${message.mountId.slice(0, 64)}: part ${message.index} of a first render that is not under way`,
            { mountId: message.mountId },
          );
          options.onError?.(message.mountId, error);
          return [error];
        }
        const before = opening.errors.length;
        if (opening.addPart(message.index, message.ops)) opening.step(Infinity);
        return opening.errors.slice(before);
      }
      // Parts come all at once, before anything else for their mount.
      if (opening) opening.abandon(`mount-${message.kind} came before the last part of its first render`);
      const store = stores.get(message.mountId);
      if (!store) {
        const error = renderError("unknown-mount", `no mount "${message.mountId.slice(0, 64)}"`, {
          mountId: message.mountId,
        });
        options.onError?.(message.mountId, error);
        return [error];
      }
      switch (message.kind) {
        case MOUNT_OPS: {
          const errors = store.apply(message.ops);
          checkTypes(
            message.mountId,
            store,
            message.ops.flatMap((op) => (op.op === "create" ? [op.type] : [])),
          );
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
          store.setWaiting(message.waiting, message.stopped);
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
      openings.get(message.mountId)?.abandon("opened again");
      const { mountId } = message;
      const store = createMountStore(storeOptions(mountId, message.title));
      const batches: (readonly MountOp[])[] = [];
      let batch = 0;
      let offset = 0;
      let pendingOps = 0;
      const snapshot = snapshotOps(message.snapshot.nodes);
      if (snapshot.length > 0) {
        batches.push(snapshot);
        pendingOps = snapshot.length;
      }
      let partsLeft = message.parts ?? 0;
      let nextPart = 0;
      let state: MountOpening["state"] = "building";
      const errors: RenderError[] = [];
      const types = new Set<string>();
      const report = (reason: string) => {
        const error = renderError("open-abandoned", `mount ${mountId.slice(0, 64)} was not shown: ${reason}`, {
          mountId,
        });
        errors.push(error);
        options.onError?.(mountId, error);
      };
      const opening: MountOpening = {
        mountId,
        message,
        nodes: message.parts === undefined ? snapshotNodeCount(message.snapshot.nodes) : (message.nodes ?? 0),
        get pendingOps() {
          return pendingOps;
        },
        get partsLeft() {
          return partsLeft;
        },
        get state() {
          return state;
        },
        errors,
        addPart(index, ops) {
          if (state !== "building" || partsLeft === 0 || index !== nextPart) {
            if (state === "building")
              opening.abandon(
                partsLeft === 0
                  ? `part ${index} was not announced`
                  : `part ${index} came when part ${nextPart} was due`,
              );
            return false;
          }
          nextPart += 1;
          partsLeft -= 1;
          if (ops.length > 0) {
            batches.push(ops);
            pendingOps += ops.length;
          }
          return true;
        },
        step(maxOps) {
          if (state !== "building") return 0;
          let applied = 0;
          while (pendingOps > 0 && applied < maxOps) {
            const ops = batches[batch];
            const end = Math.min(ops.length, offset + Math.max(1, maxOps - applied));
            const part = offset === 0 && end === ops.length ? ops : ops.slice(offset, end);
            for (const op of part) if (op.op === "create") types.add(op.type);
            errors.push(...store.apply(part));
            applied += part.length;
            pendingOps -= part.length;
            offset = end;
            if (offset >= ops.length) {
              batches[batch] = [];
              batch += 1;
              offset = 0;
            }
          }
          // An announced size is a promise the caps rely on.
          if (message.parts !== undefined && store.nodeCount > opening.nodes) {
            opening.abandon(`its parts built ${store.nodeCount} nodes, more than the ${opening.nodes} announced`);
            return applied;
          }
          if (pendingOps > 0 || partsLeft > 0) return applied;
          state = "shown";
          openings.delete(mountId);
          // A view holding the old store re-reads the registry on `subscribe`.
          stores.delete(mountId);
          stores.set(mountId, store);
          changed();
          checkTypes(mountId, store, [...types]);
          return applied;
        },
        abandon(reason) {
          if (state !== "building") return;
          state = "abandoned";
          batches.length = 0;
          pendingOps = 0;
          if (openings.get(mountId) === opening) openings.delete(mountId);
          report(reason);
        },
      };
      openings.set(mountId, opening);
      return opening;
    },
    opening: (mountId) => openings.get(mountId),
    beginRestore(mountId, snapshot, title) {
      const checked = validateMountMessage({ type: MOUNT, kind: MOUNT_OPEN, mountId, snapshot });
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
      // What a gone realm had not finished sending is dropped, never shown.
      openings.clear();
      for (const store of stores.values()) store.close();
    },
    delete(mountId) {
      openings.delete(mountId);
      if (stores.delete(mountId)) changed();
    },
  };
  return registry;
}
