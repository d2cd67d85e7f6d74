/**
 * Test support (not part of the realm bundle): the reference way a host
 * rebuilds each mount from the realm's messages — its tree with
 * `applyOps.ts`, opens in parts included, and its status (error, form
 * errors, waiting, closed). The page's receiver (src/render/mountInbox.ts)
 * does the same in time slices; the tests' stand-in hosts (test/runReply.ts,
 * runtime/ui/uiTestHarness.ts) share this one copy.
 */
import {
  MOUNT_CLOSE,
  MOUNT_ERROR,
  MOUNT_FORM_ERRORS,
  MOUNT_OPEN,
  MOUNT_OPEN_PART,
  MOUNT_OPS,
  MOUNT_WAITING,
  type MountErrorInfo,
  type MountOp,
  type MountRealmMessage,
  type MountSnapshot,
  type SnapshotNode,
} from "../../../src/wire/mount";
import { applyOpsKeepingDetached } from "./applyOps";

type OpenMessage = Extract<MountRealmMessage, { kind: typeof MOUNT_OPEN }>;

/** What a host keeps of a mount. */
export interface RebuiltMount {
  snapshot: MountSnapshot;
  error: MountErrorInfo | null;
  formErrors: Record<string, string>;
  waiting: boolean;
  closed: boolean;
}

/**
 * `mounts`: the host's shown mounts; a mount whose first render comes in
 * parts joins it with its last part (the page shows it only then).
 */
export function rebuildOpenParts<M extends RebuiltMount>(mounts: Map<string, M>) {
  const opening = new Map<string, { mount: M; next: number; parts: number }>();
  /** Nodes created and not yet inserted, per mount: one batch may come in several messages. */
  const detached = new Map<string, SnapshotNode[]>();
  const apply = (mountId: string, snapshot: MountSnapshot, ops: MountOp[]): MountSnapshot => {
    const next = applyOpsKeepingDetached({ snapshot, detached: detached.get(mountId) ?? [] }, ops);
    detached.set(mountId, next.detached);
    return next.snapshot;
  };
  return {
    /**
     * Apply one validated message (`create` makes the host's record of a
     * mount from its MOUNT_OPEN). Throws when a part comes out of order, or
     * another message for a mount comes before its last part, or a message
     * names a mount the host does not show.
     */
    receive(message: MountRealmMessage, create: (open: OpenMessage) => M): void {
      if (message.kind !== MOUNT_OPEN_PART && opening.has(message.mountId))
        throw new Error(`mount-${message.kind} for ${message.mountId} before its last part`);
      if (message.kind === MOUNT_OPEN) {
        const opened = create(message);
        if (message.parts === undefined) mounts.set(message.mountId, opened);
        else opening.set(message.mountId, { mount: opened, next: 0, parts: message.parts });
        return;
      }
      if (message.kind === MOUNT_OPEN_PART) {
        const open = opening.get(message.mountId);
        if (!open || message.index !== open.next)
          throw new Error(`part ${message.index} of ${message.mountId} out of order`);
        open.mount.snapshot = apply(message.mountId, open.mount.snapshot, message.ops);
        open.next += 1;
        if (open.next === open.parts) {
          opening.delete(message.mountId);
          mounts.set(message.mountId, open.mount);
        }
        return;
      }
      const mount = mounts.get(message.mountId);
      if (!mount) throw new Error(`mount-${message.kind} for unknown mount ${message.mountId}`);
      switch (message.kind) {
        case MOUNT_OPS:
          mount.snapshot = apply(message.mountId, mount.snapshot, message.ops);
          return;
        case MOUNT_ERROR:
          mount.error = message.error;
          return;
        case MOUNT_FORM_ERRORS:
          mount.formErrors = message.errors;
          return;
        case MOUNT_WAITING:
          mount.waiting = message.waiting;
          return;
        case MOUNT_CLOSE:
          mount.closed = true;
          return;
        default: {
          const never: never = message;
          throw new Error(`unknown mount message ${JSON.stringify(never)}`);
        }
      }
    },
  };
}
