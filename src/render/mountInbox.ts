/**
 * Between the realm's port and the mount registry: applies incoming mount
 * messages in time slices and enforces the session's caps, so that no mount
 * (buggy or hostile) can freeze the page.
 *
 * - **Time slices.** Messages are queued and applied in tasks of at most
 *   `sliceMs`; a big `mount-ops` batch is split so one task never applies
 *   more than `sliceOps` ops. React renders what a slice changed before the
 *   next one starts (the store's subscriptions are synchronous), so a click
 *   on Stop waits at most one slice.
 * - **Throttle, then suspend.** A mount whose queued ops exceed
 *   `maxBacklogOps` (it commits faster than the page can draw), or which
 *   sends more than `maxOpsPerMountPerSecond`, is suspended: its queued and
 *   later ops are dropped, the panel keeps its last tree and shows
 *   PAUSED_NOTICE, and the model is warned once.
 * - **Caps across the session:** live mounts (`maxMounts`), nodes over all
 *   mounts (`maxTotalNodes`), mount messages per second (`maxMessagesPerSecond`),
 *   and ops per second (`maxOpsPerSecond`). Past a cap the message is refused
 *   (a mount whose ops were refused is suspended: its tree would diverge).
 *
 * Pure apart from the scheduler and the clock, both injectable.
 */
import {
  MAX_OPEN_MOUNTS, MOUNT_CLOSE, MOUNT_OPEN, MOUNT_OPS, MOUNT_PAUSED_ERROR_NAME, MOUNT_PAUSED_NOTICE, type MountRealmMessage,
} from "./contract";
import type { MountRegistry } from "./mountRegistry";

/** The notice a suspended mount shows (exact words; the realm sends the same). */
export const PAUSED_NOTICE = MOUNT_PAUSED_NOTICE;
/** The MountErrorInfo name that marks a pause (MountView draws it as a notice over the last tree). */
export const PAUSED_ERROR_NAME = MOUNT_PAUSED_ERROR_NAME;

export interface MountInboxLimits {
  sliceMs: number;
  sliceOps: number;
  maxBacklogOps: number;
  maxOpsPerMountPerSecond: number;
  maxOpsPerSecond: number;
  maxMessagesPerSecond: number;
  maxMounts: number;
  maxTotalNodes: number;
}

export const DEFAULT_INBOX_LIMITS: Readonly<MountInboxLimits> = Object.freeze({
  sliceMs: 8,
  sliceOps: 500,
  maxBacklogOps: 20_000,
  maxOpsPerMountPerSecond: 40_000,
  maxOpsPerSecond: 80_000,
  maxMessagesPerSecond: 2_000,
  maxMounts: MAX_OPEN_MOUNTS,
  maxTotalNodes: 150_000,
});

export interface MountInboxOptions {
  registry: MountRegistry;
  /** Something the model should hear (a paused mount, a refused mount). Once per cause. */
  onWarning?(mountId: string | undefined, message: string): void;
  limits?: Partial<MountInboxLimits>;
  now?(): number;
  /** Run `task` in a later task (default: a MessageChannel post, which does not clamp like setTimeout). */
  schedule?(task: () => void): void;
}

export interface MountInbox {
  /** A message from the realm (unvalidated: the registry validates it). */
  push(message: unknown): void;
  /** Messages the inbox applied, in order (the agent listens here, not on the raw port). */
  subscribe(listener: (message: MountRealmMessage) => void): () => void;
  /** Drop everything queued and every counter (the realm was reset, another session opened). */
  clear(): void;
  isSuspended(mountId: string): boolean;
  /** Queued messages (tests, benches). */
  readonly pending: number;
  /** Apply everything queued now, ignoring slices (tests). */
  drain(): void;
}

interface Entry {
  mountId: string;
  type: string;
  message: Record<string, unknown>;
  /** For mount-ops: the next op to apply; for a mount-open, the snapshot ops applied so far. */
  offset: number;
  ops: number;
  /** For a mount-open under way: its snapshot, being applied over several slices. */
  opening?: { step(maxOps: number): boolean; readonly opCount: number };
}

/** Run a task in a later task: a MessageChannel post, which does not clamp like setTimeout. */
export function defaultSchedule(): (task: () => void) => void {
  if (typeof MessageChannel === "undefined") return (task) => void setTimeout(task, 0);
  const channel = new MessageChannel();
  const tasks: (() => void)[] = [];
  channel.port1.onmessage = () => tasks.shift()?.();
  return (task) => {
    tasks.push(task);
    channel.port2.postMessage(null);
  };
}

function snapshotSize(message: Record<string, unknown>): number {
  const nodes = (message.snapshot as { nodes?: unknown } | undefined)?.nodes;
  return Array.isArray(nodes) ? nodes.length : 0;
}

export function createMountInbox(options: MountInboxOptions): MountInbox {
  const limits: MountInboxLimits = { ...DEFAULT_INBOX_LIMITS, ...options.limits };
  const { registry } = options;
  const now = options.now ?? (() => performance.now());
  const schedule = options.schedule ?? defaultSchedule();
  const listeners = new Set<(message: MountRealmMessage) => void>();
  let queue: Entry[] = [];
  let head = 0;
  let scheduled = false;
  /** Bumped by clear(): a slice scheduled before it does nothing. */
  let generation = 0;
  const suspended = new Set<string>();
  const backlog = new Map<string, number>();
  const warned = new Set<string>();
  let windowStart = -Infinity;
  let windowMessages = 0;
  let windowOps = 0;
  const windowOpsByMount = new Map<string, number>();

  const warn = (mountId: string | undefined, key: string, message: string) => {
    if (warned.has(key)) return;
    warned.add(key);
    options.onWarning?.(mountId, message);
  };

  const suspend = (mountId: string, why: string) => {
    if (suspended.has(mountId)) return;
    suspended.add(mountId);
    backlog.delete(mountId);
    registry.get(mountId)?.setRenderError({ code: "render", name: PAUSED_ERROR_NAME, message: PAUSED_NOTICE });
    warn(
      mountId,
      `paused:${mountId}`,
      `mount ${mountId} was paused: ${why}. Its panel keeps its last state. Do not set state on every render (useEffect without dependencies that calls a setter), and batch updates (at most a few per second).`,
    );
  };

  const roll = () => {
    const time = now();
    if (time - windowStart < 1000) return;
    windowStart = time;
    windowMessages = 0;
    windowOps = 0;
    windowOpsByMount.clear();
  };

  const totalNodes = () => {
    let total = 0;
    for (const id of registry.ids()) total += registry.get(id)?.nodeCount ?? 0;
    return total;
  };

  const emit = (message: MountRealmMessage) => {
    for (const listener of [...listeners]) listener(message);
  };

  /** Ops applied in the current slice. */
  let sliceUsed = 0;

  /** Apply one entry (or part of it, up to the slice's op budget); false when the entry is not finished. The port validated the message once: the registry applies it as it is. */
  const apply = (entry: Entry): boolean => {
    const { mountId, type, message } = entry;
    if (entry.opening) return stepOpen(entry, entry.opening);
    if (type === MOUNT_OPEN) {
      const live = registry.ids().length - (registry.get(mountId) ? 1 : 0);
      if (live >= limits.maxMounts) {
        suspended.add(mountId);
        warn(mountId, "max-mounts", `mount ${mountId} was not shown: the session already shows ${limits.maxMounts} mounts (the limit). Update existing mounts instead of mounting new ones.`);
        return true;
      }
      const nodes = snapshotSize(message);
      if (totalNodes() - (registry.get(mountId)?.nodeCount ?? 0) + nodes > limits.maxTotalNodes) {
        suspended.add(mountId);
        warn(mountId, "max-nodes", `mount ${mountId} was not shown: the session's mounts would hold more than ${limits.maxTotalNodes} nodes (the limit). Show fewer rows (paginate) or summarise.`);
        return true;
      }
      // A big snapshot is applied over several slices (its ops count against
      // each slice's budget) and shown only when whole.
      entry.opening = registry.beginOpen(message as unknown as Extract<MountRealmMessage, { type: typeof MOUNT_OPEN }>);
      return stepOpen(entry, entry.opening);
    } else if (suspended.has(mountId)) {
      if (type === MOUNT_CLOSE) registry.apply(message as unknown as MountRealmMessage);
      return true;
    }
    if (type === MOUNT_OPS) {
      const ops = message.ops as unknown[];
      const end = Math.min(ops.length, entry.offset + Math.max(1, limits.sliceOps - sliceUsed));
      sliceUsed += end - entry.offset;
      const part = entry.offset === 0 && end === ops.length ? ops : ops.slice(entry.offset, end);
      registry.apply((entry.offset === 0 && end === ops.length ? message : { ...message, ops: part }) as unknown as MountRealmMessage);
      backlog.set(mountId, Math.max(0, (backlog.get(mountId) ?? 0) - part.length));
      entry.offset = end;
      if (totalNodes() > limits.maxTotalNodes) {
        suspend(mountId, `the session's mounts hold more than ${limits.maxTotalNodes} nodes`);
        return true;
      }
      return end >= ops.length;
    }
    registry.apply(message as unknown as MountRealmMessage);
    if (registry.get(mountId) || type === MOUNT_CLOSE) emit(message as unknown as MountRealmMessage);
    return true;
  };

  /** Apply the next part of a mount-open's snapshot; true (and the open is announced) once it is whole. */
  const stepOpen = (entry: Entry, opening: { step(maxOps: number): boolean; readonly opCount: number }): boolean => {
    const { mountId, message } = entry;
    const budget = Math.max(1, limits.sliceOps - sliceUsed);
    const finished = opening.step(budget);
    const applied = Math.min(budget, opening.opCount - entry.offset);
    entry.offset += applied;
    sliceUsed += Math.max(1, applied);
    if (!finished) return false;
    entry.opening = undefined;
    // Opened while already over a rate (its ops were refused): shown, but paused.
    if (suspended.has(mountId)) {
      registry.get(mountId)?.setRenderError({ code: "render", name: PAUSED_ERROR_NAME, message: PAUSED_NOTICE });
    }
    if (registry.get(mountId)) emit(message as unknown as MountRealmMessage);
    return true;
  };

  const slice = (ticket: number) => {
    if (ticket !== generation) return;
    scheduled = false;
    const deadline = now() + limits.sliceMs;
    sliceUsed = 0;
    while (head < queue.length) {
      if (apply(queue[head])) head += 1;
      if (now() >= deadline || sliceUsed >= limits.sliceOps) break;
    }
    if (head >= queue.length) {
      queue = [];
      head = 0;
    } else if (head > 1024) {
      queue = queue.slice(head);
      head = 0;
    }
    if (head < queue.length) requestSlice();
  };

  const requestSlice = () => {
    if (scheduled) return;
    scheduled = true;
    const ticket = generation;
    schedule(() => slice(ticket));
  };

  return {
    push(raw) {
      if (typeof raw !== "object" || raw === null) return;
      const message = raw as Record<string, unknown>;
      const { type, mountId } = message;
      if (typeof type !== "string" || typeof mountId !== "string") {
        registry.receive(raw); // reports it as invalid
        return;
      }
      roll();
      windowMessages += 1;
      const ops = type === MOUNT_OPS && Array.isArray(message.ops) ? message.ops.length : 0;
      if (windowMessages > limits.maxMessagesPerSecond) {
        warn(undefined, "max-messages", `the sandbox sent more than ${limits.maxMessagesPerSecond} UI messages in a second; the excess was dropped.`);
        if (type === MOUNT_OPS) suspend(mountId, "it sent more UI messages than the page accepts per second");
        return;
      }
      if (type !== MOUNT_OPEN && suspended.has(mountId)) {
        if (type === MOUNT_CLOSE) queue.push({ mountId, type, message, offset: 0, ops: 0 });
        else return;
      } else if (type === MOUNT_OPS) {
        windowOps += ops;
        const mine = (windowOpsByMount.get(mountId) ?? 0) + ops;
        windowOpsByMount.set(mountId, mine);
        const queued = (backlog.get(mountId) ?? 0) + ops;
        if (mine > limits.maxOpsPerMountPerSecond || queued > limits.maxBacklogOps) {
          suspend(mountId, "it changes faster than the page can draw");
          return;
        }
        if (windowOps > limits.maxOpsPerSecond) {
          suspend(mountId, `the session's mounts sent more than ${limits.maxOpsPerSecond} changes in a second`);
          return;
        }
        backlog.set(mountId, queued);
        queue.push({ mountId, type, message, offset: 0, ops });
      } else {
        queue.push({ mountId, type, message, offset: 0, ops: 0 });
      }
      requestSlice();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    clear() {
      generation += 1;
      scheduled = false;
      queue = [];
      head = 0;
      suspended.clear();
      backlog.clear();
      warned.clear();
      windowStart = -Infinity;
    },
    isSuspended: (mountId) => suspended.has(mountId),
    get pending() {
      return queue.length - head;
    },
    drain() {
      while (head < queue.length) {
        sliceUsed = 0;
        if (apply(queue[head])) head += 1;
      }
      queue = [];
      head = 0;
    },
  };
}
