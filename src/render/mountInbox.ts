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
 * - **A person's answer at once.** A `mount-ops` caused by a UI event (it
 *   carries the event's `eventId`) that finds nothing queued is applied in
 *   the task it arrived in, up to one slice (the rest is queued as usual):
 *   the click's result does not wait for a slice task behind the page's
 *   other work (a streaming reply's renders). Every cap applies as before,
 *   and no task applies more than one slice: the port delivers each message
 *   in a task of its own, so a realm that tags everything gains nothing.
 * - **Throttle, then suspend.** A mount whose queued ops exceed
 *   `maxBacklogOps` (it commits faster than the page can draw), or which
 *   sends more than `maxOpsPerMountPerSecond`, is suspended: its queued and
 *   later ops are dropped, the panel keeps its last tree and shows
 *   PAUSED_NOTICE, and the model is warned once.
 * - **Caps across the session:** live mounts (`maxMounts`), nodes over all
 *   mounts (`maxTotalNodes`), mount messages per second (`maxMessagesPerSecond`),
 *   and ops per second (`maxOpsPerSecond`). Past a cap the message is refused
 *   (a mount whose ops were refused is suspended: its tree would diverge).
 *   A first render under way reserves what it announced (one mount, its
 *   nodes) until it is shown or abandoned.
 * - **First renders, whole or not at all.** A mount-open (and the parts of a
 *   big one, MOUNT_OPEN_PART) is built aside over as many slices as it needs
 *   and shown when whole (MountRegistry.beginOpen). A part dropped here (over
 *   the message rate), out of order, or with no open under way abandons the
 *   open: never shown, the model is told. An open that never gets its last
 *   part stays unshown and keeps its reservation until the mount is closed or
 *   opened again, or the realm goes (`clear`).
 *
 * Pure apart from the scheduler and the clock, both injectable.
 */
import {
  MAX_OPEN_MOUNTS,
  MOUNT_CLOSE,
  MOUNT_OPEN,
  MOUNT_OPS,
  MOUNT_PAUSED_ERROR_NAME,
  MOUNT_PAUSED_NOTICE,
  type MountRealmMessage,
} from "./contract";
import { MOUNT_OPEN_PART } from "../wire/mount";
import type { MountOpening, MountRegistry } from "./mountRegistry";
import { snapshotNodeCount } from "./mountSnapshot";

type OpenMessage = Extract<MountRealmMessage, { kind: typeof MOUNT_OPEN }>;

/** One mount-open as it arrived: its parts (queued after it) find their open by this object, not by the mount's id. */
interface Announcement {
  /** A part was dropped before it was queued: the open can never be whole. */
  broken: boolean;
  /** Set when the open is applied (not refused). */
  opening?: MountOpening;
}

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
  /** A mount message from the realm, checked at the port (src/wire/types.ts). */
  push(message: MountRealmMessage): void;
  /** Messages the inbox applied, in order (the agent listens here, not on the raw port). */
  subscribe(listener: (message: MountRealmMessage) => void): () => void;
  /** Drop everything queued and every counter (the realm was reset, another session opened). */
  clear(): void;
  isSuspended(mountId: string): boolean;
  /** Queued messages (tests, benches). */
  readonly pending: number;
  /** Apply everything queued now, ignoring slices (tests). */
  drain(): void;
  /**
   * Resolves once nothing is queued (at once when nothing is): what the realm
   * sent so far has been applied and its listeners have heard of it. A
   * `clear()` resolves it too.
   */
  idle(): Promise<void>;
}

interface Entry {
  mountId: string;
  kind: MountRealmMessage["kind"];
  message: MountRealmMessage;
  /** For mount-ops: the next op to apply; for a part: 1 once it was handed to its open. */
  offset: number;
  ops: number;
  /** For a mount-open and its parts. */
  announcement?: Announcement;
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

/** Nodes a port-validated mount-open announces: `nodes` when parts follow, else its snapshot's. */
function announcedNodes(message: OpenMessage): number {
  return message.parts !== undefined ? (message.nodes ?? 0) : snapshotNodeCount(message.snapshot.nodes);
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
  /** Push side: the latest mount-open of each mount, which its parts join. */
  const announced = new Map<string, Announcement>();
  /** Apply side: first renders under way (applied, not yet shown or abandoned). */
  const building = new Map<string, MountOpening>();

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

  /** Callers of idle() waiting for the queue to empty. */
  let idleWaiters: (() => void)[] = [];
  const settleIdle = () => {
    if (idleWaiters.length === 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  /** Apply one entry (or part of it, up to the slice's op budget); false when the entry is not finished. The port validated the message once: the registry applies it as it is. */
  const apply = (entry: Entry): boolean => {
    const { mountId, kind, message } = entry;
    if (kind === MOUNT_OPEN) return applyOpen(entry);
    if (kind === MOUNT_OPEN_PART) return applyPart(entry);
    if (suspended.has(mountId)) {
      if (kind === MOUNT_CLOSE) {
        registry.apply(message);
        forget(mountId);
      }
      return true;
    }
    if (message.kind === MOUNT_OPS) {
      const ops = message.ops;
      const end = Math.min(ops.length, entry.offset + Math.max(1, limits.sliceOps - sliceUsed));
      sliceUsed += end - entry.offset;
      const part = entry.offset === 0 && end === ops.length ? ops : ops.slice(entry.offset, end);
      registry.apply(entry.offset === 0 && end === ops.length ? message : { ...message, ops: part });
      forget(mountId);
      backlog.set(mountId, Math.max(0, (backlog.get(mountId) ?? 0) - part.length));
      entry.offset = end;
      // Applied whole: listeners hear it once, with its eventId (the agent notes which mounts a UI event changed).
      if (end >= ops.length) emit(message);
      if (totalNodes() > limits.maxTotalNodes) {
        suspend(mountId, `the session's mounts hold more than ${limits.maxTotalNodes} nodes`);
        return true;
      }
      return end >= ops.length;
    }
    registry.apply(message);
    forget(mountId);
    if (registry.get(mountId) || kind === MOUNT_CLOSE) emit(message);
    return true;
  };

  /** An open the registry abandoned (a message for the mount came before its last part) is no longer under way. */
  const forget = (mountId: string) => {
    const opening = building.get(mountId);
    if (opening && opening.state !== "building") building.delete(mountId);
  };

  const applyOpen = (entry: Entry): boolean => {
    const { mountId } = entry;
    const message = entry.message as OpenMessage;
    const announcement = entry.announcement!;
    if (!announcement.opening) {
      // Caps: a first render under way counts as a mount and reserves the nodes it announced.
      const others = [...building.values()].filter((opening) => opening.mountId !== mountId);
      const live =
        registry.ids().length -
        (registry.get(mountId) ? 1 : 0) +
        others.filter((opening) => !registry.get(opening.mountId)).length;
      if (live >= limits.maxMounts) {
        refuse(
          mountId,
          "max-mounts",
          `mount ${mountId} was not shown: the session already shows ${limits.maxMounts} mounts (the limit). Update existing mounts instead of mounting new ones.`,
        );
        return true;
      }
      const nodes = announcedNodes(message);
      const reserved = others.reduce((sum, opening) => sum + opening.nodes, 0);
      if (totalNodes() - (registry.get(mountId)?.nodeCount ?? 0) + reserved + nodes > limits.maxTotalNodes) {
        refuse(
          mountId,
          "max-nodes",
          `mount ${mountId} was not shown: the session's mounts would hold more than ${limits.maxTotalNodes} nodes (the limit). Show fewer rows (paginate) or summarise.`,
        );
        return true;
      }
      if (announcement.broken) {
        refuse(
          mountId,
          `dropped:${mountId}`,
          `mount ${mountId} was not shown: part of its first render was dropped (the sandbox sent more than ${limits.maxMessagesPerSecond} UI messages in a second).`,
        );
        return true;
      }
      announcement.opening = registry.beginOpen(message);
      building.set(mountId, announcement.opening);
    }
    // Its snapshot (if any) now; its parts as they come.
    return stepOpening(mountId, announcement.opening);
  };

  const applyPart = (entry: Entry): boolean => {
    const { mountId } = entry;
    const opening = entry.announcement?.opening;
    // Its open was refused, abandoned or replaced: nothing to build.
    if (!opening || opening.state !== "building") {
      sliceUsed += 1;
      return true;
    }
    if (entry.announcement!.broken) {
      opening.abandon(
        `part of its first render was dropped (the sandbox sent more than ${limits.maxMessagesPerSecond} UI messages in a second)`,
      );
      return stepOpening(mountId, opening);
    }
    if (entry.offset === 0) {
      entry.offset = 1;
      const part = entry.message as Extract<MountRealmMessage, { kind: typeof MOUNT_OPEN_PART }>;
      opening.addPart(part.index, part.ops);
    }
    return stepOpening(mountId, opening);
  };

  /** Apply what the slice's budget allows of an open; true when nothing of it is left to apply now. */
  const stepOpening = (mountId: string, opening: MountOpening): boolean => {
    const applied = opening.step(Math.max(1, limits.sliceOps - sliceUsed));
    sliceUsed += Math.max(1, applied);
    if (opening.state === "abandoned") {
      building.delete(mountId);
      const reason = opening.errors[opening.errors.length - 1]?.message ?? `mount ${mountId} was not shown`;
      refuse(mountId, `abandoned:${mountId}`, reason);
      return true;
    }
    if (opening.state === "shown") {
      building.delete(mountId);
      // Opened while already over a rate (its ops were refused): shown, but paused.
      if (suspended.has(mountId)) {
        registry.get(mountId)?.setRenderError({ code: "render", name: PAUSED_ERROR_NAME, message: PAUSED_NOTICE });
      }
      emit(opening.message);
      return true;
    }
    return opening.pendingOps === 0;
  };

  /** Not shown (a cap, a broken sequence): the mount's later messages are dropped, the model told once. */
  const refuse = (mountId: string, key: string, message: string) => {
    sliceUsed += 1;
    suspended.add(mountId);
    warn(mountId, key, message);
  };

  const slice = (ticket: number) => {
    if (ticket !== generation) return;
    scheduled = false;
    applySlice();
  };

  /** Apply queued entries for at most one slice (time and ops); ask for another slice if any are left. */
  const applySlice = () => {
    const deadline = now() + limits.sliceMs;
    sliceUsed = 0;
    while (head < queue.length) {
      if (apply(queue[head])) head += 1;
      if (now() >= deadline || sliceUsed >= limits.sliceOps) break;
    }
    if (head >= queue.length) {
      queue = [];
      head = 0;
      settleIdle();
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
    push(message) {
      const { kind, mountId } = message;
      roll();
      windowMessages += 1;
      const ops = message.kind === MOUNT_OPS ? message.ops.length : 0;
      if (windowMessages > limits.maxMessagesPerSecond) {
        warn(
          undefined,
          "max-messages",
          `the sandbox sent more than ${limits.maxMessagesPerSecond} UI messages in a second; the excess was dropped.`,
        );
        if (kind === MOUNT_OPS) suspend(mountId, "it sent more UI messages than the page accepts per second");
        // A first render missing a part can never be whole.
        if (kind === MOUNT_OPEN) announced.delete(mountId);
        if (kind === MOUNT_OPEN_PART) {
          const announcement = announced.get(mountId);
          if (announcement) announcement.broken = true;
        }
        return;
      }
      if (kind === MOUNT_OPEN) {
        const announcement: Announcement = { broken: false };
        announced.set(mountId, announcement);
        queue.push({ mountId, kind, message, offset: 0, ops: 0, announcement });
      } else if (kind === MOUNT_OPEN_PART) {
        // Joins the latest open of its mount, whatever happens to the mount meanwhile; with none, it has nothing to build.
        const announcement = announced.get(mountId);
        if (!announcement) {
          warn(
            mountId,
            `orphan-part:${mountId}`,
            `mount ${mountId}: the sandbox sent part of a first render that was never announced; it was dropped.`,
          );
          return;
        }
        queue.push({ mountId, kind, message, offset: 0, ops: 0, announcement });
      } else if (suspended.has(mountId)) {
        if (kind === MOUNT_CLOSE) queue.push({ mountId, kind, message, offset: 0, ops: 0 });
        else return;
      } else if (kind === MOUNT_OPS) {
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
        queue.push({ mountId, kind, message, offset: 0, ops });
        // A UI event's answer with nothing ahead of it: now, in this task (one slice at most).
        if (message.eventId !== undefined && queue.length - head === 1) return applySlice();
      } else {
        queue.push({ mountId, kind, message, offset: 0, ops: 0 });
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
      announced.clear();
      building.clear();
      windowStart = -Infinity;
      settleIdle();
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
      settleIdle();
    },
    idle() {
      if (head >= queue.length) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
}
