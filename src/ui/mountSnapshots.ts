import type { ChatMessage } from "../agent/agent";
import type { MountRegistry } from "../render";
import type { SessionWriter } from "../store/sessionWriter";
import { ROOT_NODE_ID } from "../wire/mount";

/**
 * The open session's mount snapshots (DESIGN.md §3 "Mount trees"): shown
 * inert from storage when a session opens, and saved when they change. Mount
 * ids are the host's qualified ids (src/sandbox), so a snapshot is saved
 * under the mount its reply names and no other.
 */
export class MountSnapshots {
  /** Last snapshot text saved per mount, to write only what changed. */
  private saved = new Map<string, string>();
  private savedVersions = new WeakMap<object, number>();

  constructor(private readonly registry: MountRegistry | undefined) {}

  /** Show a session's mounts as they were last saved: inert until revived. */
  restore(mounts: readonly { mountId: string; snapshot: unknown }[]): void {
    const registry = this.registry;
    if (!registry) return;
    for (const id of [...registry.ids()]) registry.delete(id);
    this.saved = new Map();
    for (const mount of mounts) {
      const saved = mount.snapshot as { title?: string; tree?: unknown } | null;
      registry.restore(mount.mountId, saved?.tree, saved?.title);
      this.saved.set(mount.mountId, JSON.stringify(saved));
    }
  }

  /** Mark the current tree of each mount of `messages` that changed since the last save. */
  save(messages: readonly ChatMessage[], writer: SessionWriter): void {
    const registry = this.registry;
    if (!registry) return;
    for (const message of messages) {
      if (message.role !== "assistant" || !message.reply.mounts) continue;
      for (const mount of message.reply.mounts) {
        const store = registry.get(mount.mountId);
        if (!store) continue;
        // Unchanged since the last save: skip the walk.
        const version = store.getSubtreeVersion(ROOT_NODE_ID);
        if (this.savedVersions.get(store) === version) continue;
        this.savedVersions.set(store, version);
        const snapshot = { title: mount.title, tree: store.toSnapshot() };
        const text = JSON.stringify(snapshot);
        if (this.saved.get(mount.mountId) === text) continue;
        this.saved.set(mount.mountId, text);
        writer.markMountDirty({ mountId: mount.mountId, messageId: message.id, snapshot });
      }
    }
  }
}
