import type { ChatMessage } from "../agent/types";
import type { MountRegistry } from "../render";
import { defaultSchedule } from "../render/mountInbox";
import type { SessionWriter } from "../store/sessionWriter";
import { ROOT_NODE_ID, TEXT_NODE_TYPE, type MountSnapshot, type SnapshotNode } from "../wire/mount";

/**
 * The open session's mount snapshots (DESIGN.md §3 "Mount trees"): shown
 * inert from storage when a session opens, and saved when they change. Mount
 * ids are the host's qualified ids (src/sandbox), so a snapshot is saved
 * under the mount its reply names and no other.
 *
 * - **Restored in time slices.** A session saved with dozens of big mounts
 *   is rebuilt a slice at a time (at most `sliceMs` / `sliceOps` per task,
 *   newest mount first), never in one long task; a panel shows "Restoring
 *   this UI…" until its tree is complete. The panels themselves draw only
 *   near the viewport (src/render/useDeferredDraw.ts).
 * - **Saved in time slices** too: one changed mount per step, a slice of
 *   steps per task.
 * - **Capped when saved.** A snapshot is at most `maxMountChars` characters of
 *   JSON, and a session's snapshots together at most `maxSessionChars`. A
 *   snapshot over its share is cut to the first nodes (document order) that
 *   fit, and says so (`cut: { kept, total }`): the person sees a note under
 *   the panel, the model is told once per mount. Nothing else is dropped: the
 *   live panel keeps its whole tree, and other mounts keep their snapshots.
 */

export interface MountSnapshotLimits {
  maxMountChars: number;
  maxSessionChars: number;
  sliceMs: number;
  sliceOps: number;
}

export const DEFAULT_SNAPSHOT_LIMITS: Readonly<MountSnapshotLimits> = Object.freeze({
  maxMountChars: 2_000_000,
  maxSessionChars: 12_000_000,
  sliceMs: 8,
  sliceOps: 2_000,
});

/** What is stored per mount (src/store keeps it as an opaque JSON value). */
export interface SavedMount {
  title?: string;
  tree?: unknown;
  /** Present when the tree was cut to fit the caps: nodes kept of the live tree's total. */
  cut?: { kept: number; total: number };
}

export interface MountSnapshotsOptions {
  limits?: Partial<MountSnapshotLimits>;
  /** The model should hear of a cut snapshot (once per mount). */
  onCut?(mountId: string, message: string): void;
  schedule?(task: () => void): void;
  now?(): number;
}

/** The note a person reads under a panel whose saved snapshot was cut. */
export function cutNote(cut: { kept: number; total: number }): string {
  return `This UI was too large to save whole: only its first ${cut.kept.toLocaleString("en-US")} of ${cut.total.toLocaleString("en-US")} parts were saved, and only they come back after a reload.`;
}

function countNodes(nodes: readonly SnapshotNode[]): number {
  let count = 0;
  const stack = [...nodes];
  while (stack.length > 0) {
    const node = stack.pop()!;
    count += 1;
    if (node.type !== TEXT_NODE_TYPE && "children" in node) stack.push(...node.children);
  }
  return count;
}

/**
 * The first nodes of `tree`, in document order, whose JSON fits in about
 * `budget` characters (a parent is kept before its children; a node that does
 * not fit ends the walk).
 */
export function cutTree(tree: MountSnapshot, budget: number): { tree: MountSnapshot; kept: number; total: number } {
  const total = countNodes(tree.nodes);
  let used = 20;
  let kept = 0;
  let full = false;
  const copy = (nodes: readonly SnapshotNode[]): SnapshotNode[] => {
    const out: SnapshotNode[] = [];
    for (const node of nodes) {
      if (full) break;
      const cost =
        node.type === TEXT_NODE_TYPE
          ? 40 + JSON.stringify((node as { text: string }).text).length
          : 60 + node.type.length + JSON.stringify((node as { props: unknown }).props).length;
      if (used + cost > budget) {
        full = true;
        break;
      }
      used += cost;
      kept += 1;
      if (node.type === TEXT_NODE_TYPE) out.push(node);
      else out.push({ ...node, children: copy((node as { children: SnapshotNode[] }).children) } as SnapshotNode);
    }
    return out;
  };
  return { tree: { nodes: copy(tree.nodes) }, kept, total };
}

interface RestoreJob {
  mountId: string;
  saved: SavedMount | null;
  step?: (maxOps: number) => boolean;
}

export class MountSnapshots {
  /** Last snapshot text saved per mount, to write only what changed (and to count the session's total). */
  private saved = new Map<string, string>();
  private savedVersions = new WeakMap<object, number>();
  private notes = new Map<string, string>();
  private told = new Set<string>();
  private restoring = new Set<string>();
  private jobs: RestoreJob[] = [];
  private generation = 0;
  private saveGeneration = 0;
  private listeners = new Set<() => void>();
  private readonly limits: MountSnapshotLimits;
  private readonly schedule: (task: () => void) => void;
  private readonly now: () => number;

  constructor(
    private readonly registry: MountRegistry | undefined,
    private readonly options: MountSnapshotsOptions = {},
  ) {
    this.limits = { ...DEFAULT_SNAPSHOT_LIMITS, ...options.limits };
    this.schedule = options.schedule ?? defaultSchedule();
    this.now = options.now ?? (() => performance.now());
  }

  /** A mount whose saved tree is still being rebuilt. */
  isRestoring = (mountId: string): boolean => this.restoring.has(mountId);

  /** The note under a panel whose saved snapshot was cut, if any. */
  note = (mountId: string): string | undefined => this.notes.get(mountId);

  /** Notified when a restore finishes a mount or a note changes. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  /** Restores still queued (tests). */
  get pending(): number {
    return this.jobs.length;
  }

  /** Show a session's mounts as they were last saved: inert until revived, rebuilt in time slices. */
  restore(mounts: readonly { mountId: string; snapshot: unknown }[]): void {
    const registry = this.registry;
    if (!registry) return;
    this.generation += 1;
    for (const id of [...registry.ids()]) registry.delete(id);
    this.saved = new Map();
    this.notes = new Map();
    this.told = new Set();
    // Newest first: a session opens at its end.
    this.jobs = [...mounts]
      .reverse()
      .map((mount) => ({ mountId: mount.mountId, saved: mount.snapshot as SavedMount | null }));
    this.restoring = new Set(this.jobs.map((job) => job.mountId));
    for (const job of this.jobs) {
      const cut = job.saved?.cut;
      if (cut && Number.isFinite(cut.kept) && Number.isFinite(cut.total)) this.notes.set(job.mountId, cutNote(cut));
    }
    this.notify();
    if (this.jobs.length > 0) this.requestSlice();
  }

  /** Finish every queued restore now (tests, and before a save that needs the texts). */
  drain(): void {
    while (this.jobs.length > 0) this.runJob(this.jobs[0], Infinity);
  }

  private requestSlice(): void {
    const ticket = this.generation;
    this.schedule(() => this.slice(ticket));
  }

  private slice(ticket: number): void {
    if (ticket !== this.generation) return;
    const deadline = this.now() + this.limits.sliceMs;
    let budget = this.limits.sliceOps;
    while (this.jobs.length > 0 && budget > 0) {
      const job = this.jobs[0];
      budget -= this.runJob(job, budget);
      if (this.now() >= deadline) break;
    }
    if (this.jobs.length > 0) this.requestSlice();
  }

  /** One step of `job`; returns the ops it cost (the text of a snapshot counts as its ops). */
  private runJob(job: RestoreJob, budget: number): number {
    const registry = this.registry!;
    if (!job.step) {
      const text = JSON.stringify(job.saved);
      this.saved.set(job.mountId, text);
      const restore = registry.beginRestore(job.mountId, job.saved?.tree, job.saved?.title);
      job.step = restore.step;
      // Reading the text cost about as much as its ops: let the next slice build the tree.
      return Math.max(1, Math.min(budget, Math.ceil(restore.opCount / 2)));
    }
    const ops = Math.max(1, Math.min(budget, this.limits.sliceOps));
    if (job.step(ops)) {
      this.jobs.shift();
      this.restoring.delete(job.mountId);
      this.notify();
    }
    return ops;
  }

  /**
   * Mark the current tree of each mount of `messages` that changed since the
   * last save. Walking and copying a big tree costs time: the changed mounts
   * are saved one per step, a slice of steps per task (like the restore), so
   * a session of many big mounts never saves in one long task. A save while
   * one is under way starts over with the newer messages.
   */
  save(messages: readonly ChatMessage[], writer: SessionWriter): Promise<void> {
    const registry = this.registry;
    if (!registry) return Promise.resolve();
    const queue: { mountId: string; title?: string; messageId: string }[] = [];
    for (const message of messages) {
      if (message.role !== "assistant" || !message.reply.mounts) continue;
      for (const mount of message.reply.mounts)
        queue.push({ mountId: mount.mountId, title: mount.title, messageId: message.id });
    }
    const ticket = ++this.saveGeneration;
    return new Promise<void>((resolve) => {
      const run = () => {
        // Superseded: the newer save walks every mount again.
        if (ticket !== this.saveGeneration) return resolve();
        const deadline = this.now() + this.limits.sliceMs;
        let nodes = 0;
        while (queue.length > 0) {
          nodes += this.saveOne(queue.shift()!, writer);
          if (this.now() >= deadline || nodes >= this.limits.sliceOps * 2) break;
        }
        if (queue.length > 0) this.schedule(run);
        else resolve();
      };
      run();
    });
  }

  /**
   * Mark every changed mount now, in this task (the page is being hidden or
   * left: a sliced save would never reach its next slice). Cancels a sliced
   * save under way; what it had left is walked here.
   */
  saveNow(messages: readonly ChatMessage[], writer: SessionWriter): void {
    if (!this.registry) return;
    ++this.saveGeneration;
    for (const message of messages) {
      if (message.role !== "assistant" || !message.reply.mounts) continue;
      for (const mount of message.reply.mounts)
        this.saveOne({ mountId: mount.mountId, title: mount.title, messageId: message.id }, writer);
    }
  }

  /** Save one mount if it changed; returns the nodes it walked. */
  private saveOne(mount: { mountId: string; title?: string; messageId: string }, writer: SessionWriter): number {
    // A mount still being restored has its saved snapshot already.
    if (this.restoring.has(mount.mountId)) return 0;
    const store = this.registry!.get(mount.mountId);
    if (!store) return 0;
    // Unchanged since the last save: skip the walk.
    const version = store.getSubtreeVersion(ROOT_NODE_ID);
    if (this.savedVersions.get(store) === version) return 0;
    this.savedVersions.set(store, version);
    const tree = store.toSnapshot();
    let snapshot: SavedMount = { title: mount.title, tree };
    let text = JSON.stringify(snapshot);
    const previous = this.saved.get(mount.mountId);
    const budget = Math.min(
      this.limits.maxMountChars,
      this.limits.maxSessionChars - (this.totalChars() - (previous?.length ?? 0)),
    );
    if (text.length > budget) {
      const cut = cutTree(tree, Math.max(0, budget - 200 - (mount.title?.length ?? 0)));
      snapshot = { title: mount.title, tree: cut.tree, cut: { kept: cut.kept, total: cut.total } };
      text = JSON.stringify(snapshot);
      this.setNote(mount.mountId, cutNote(snapshot.cut!));
      if (!this.told.has(mount.mountId)) {
        this.told.add(mount.mountId);
        this.options.onCut?.(
          mount.mountId,
          `mount ${mount.mountId}: its saved snapshot was cut to the first ${cut.kept} of ${cut.total} nodes (a mount keeps at most ${this.limits.maxMountChars.toLocaleString("en-US")} characters of saved UI, a session ${this.limits.maxSessionChars.toLocaleString("en-US")}); the live panel is whole, but after a reload it shows only that part. Show fewer rows (paginate) or summarise.`,
        );
      }
    } else {
      this.setNote(mount.mountId, undefined);
    }
    if (previous !== text) {
      this.saved.set(mount.mountId, text);
      writer.markMountDirty({ mountId: mount.mountId, messageId: mount.messageId, snapshot });
    }
    return store.nodeCount;
  }

  private totalChars(): number {
    let total = 0;
    for (const text of this.saved.values()) total += text.length;
    return total;
  }

  private setNote(mountId: string, note: string | undefined): void {
    if (this.notes.get(mountId) === note) return;
    if (note === undefined) this.notes.delete(mountId);
    else this.notes.set(mountId, note);
    this.notify();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
