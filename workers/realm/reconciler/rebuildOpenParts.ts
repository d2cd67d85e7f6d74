/**
 * Test support (not part of the realm bundle): the reference way a host
 * rebuilds mount trees from the realm's messages, opens in parts included,
 * with `applyOps.ts`. The page's receiver (src/render/mountInbox.ts) does the
 * same in time slices; the tests' stand-in hosts (test/runReply.ts,
 * runtime/ui/uiTestHarness.ts) share this one copy.
 */
import {
  MOUNT_OPEN, MOUNT_OPEN_PART, MOUNT_OPS,
  type MountOp, type MountRealmMessage, type MountSnapshot, type SnapshotNode,
} from "../../../src/wire/mount";
import { applyOpsKeepingDetached } from "./applyOps";

/** The messages that build a mount's tree. */
export type TreeMessage = Extract<MountRealmMessage, { type: typeof MOUNT_OPEN | typeof MOUNT_OPEN_PART | typeof MOUNT_OPS }>;
type OpenMessage = Extract<MountRealmMessage, { type: typeof MOUNT_OPEN }>;

/**
 * `mounts`: the host's shown mounts; a mount whose first render comes in
 * parts joins it with its last part (the page shows it only then).
 */
export function rebuildOpenParts<M extends { snapshot: MountSnapshot }>(mounts: Map<string, M>) {
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
     * Take a validated message's part in building trees: true for MOUNT_OPEN
     * (`create` makes the host's record of the mount), MOUNT_OPEN_PART and
     * MOUNT_OPS, which it applied; false for any other message. Throws when a
     * part comes out of order, or another message for a mount comes before
     * its last part.
     */
    receive(message: MountRealmMessage, create: (open: OpenMessage) => M): message is TreeMessage {
      if (message.type !== MOUNT_OPEN_PART && opening.has(message.mountId)) throw new Error(`${message.type} for ${message.mountId} before its last part`);
      switch (message.type) {
        case MOUNT_OPEN: {
          const opened = create(message);
          if (message.parts === undefined) mounts.set(message.mountId, opened);
          else opening.set(message.mountId, { mount: opened, next: 0, parts: message.parts });
          return true;
        }
        case MOUNT_OPEN_PART: {
          const open = opening.get(message.mountId);
          if (!open || message.index !== open.next) throw new Error(`part ${message.index} of ${message.mountId} out of order`);
          open.mount.snapshot = apply(message.mountId, open.mount.snapshot, message.ops);
          open.next += 1;
          if (open.next === open.parts) {
            opening.delete(message.mountId);
            mounts.set(message.mountId, open.mount);
          }
          return true;
        }
        case MOUNT_OPS: {
          const mount = mounts.get(message.mountId);
          if (!mount) throw new Error(`${message.type} for unknown mount ${message.mountId}`);
          mount.snapshot = apply(message.mountId, mount.snapshot, message.ops);
          return true;
        }
        default:
          return false;
      }
    },
  };
}
