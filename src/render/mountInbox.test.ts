import { describe, expect, test } from "vitest";
import { MOUNT_PAUSED_ERROR_NAME, MOUNT_PAUSED_NOTICE, ROOT_NODE_ID } from "./contract";
import { createMountInbox, DEFAULT_INBOX_LIMITS } from "./mountInbox";
import { createMountRegistry } from "./mountRegistry";
import type { MountOp, MountRealmMessage } from "../wire/mount";

const open = (mountId: string, nodes = 0): MountRealmMessage => ({
  type: "mount",
  kind: "open",
  mountId,
  snapshot: {
    nodes: Array.from({ length: nodes }, (_, index) => ({ id: index + 1, type: "span", props: {}, children: [] })),
  },
});
const textOps = (count: number, first = 1): MountOp[] =>
  Array.from({ length: count }, (_, index): MountOp[] => [
    { op: "create", id: first + index, type: "span", props: {} },
    { op: "insert", parent: ROOT_NODE_ID, child: first + index },
  ]).flat();

function setup(limits: Partial<typeof DEFAULT_INBOX_LIMITS> = {}) {
  const registry = createMountRegistry();
  const warnings: string[] = [];
  const tasks: (() => void)[] = [];
  let clock = 0;
  const inbox = createMountInbox({
    registry,
    limits,
    onWarning: (mountId, message) => warnings.push(`${mountId}: ${message}`),
    schedule: (task) => tasks.push(task),
    now: () => clock,
  });
  const runTask = () => tasks.shift()?.();
  return { registry, inbox, warnings, tasks, runTask, advance: (ms: number) => (clock += ms) };
}

describe("createMountInbox", () => {
  test("applies nothing synchronously and a big batch over several tasks", () => {
    const { registry, inbox, tasks, runTask } = setup({ sliceOps: 100 });
    inbox.push(open("m1"));
    inbox.push({ type: "mount", kind: "ops", mountId: "m1", ops: textOps(250) });
    expect(registry.get("m1")).toBeUndefined();
    runTask();
    // One slice: the open and the first 100 ops.
    expect(registry.get("m1")?.nodeCount).toBeLessThanOrEqual(100);
    let slices = 1;
    while (tasks.length > 0) {
      runTask();
      slices += 1;
    }
    expect(slices).toBeGreaterThanOrEqual(5);
    expect(registry.get("m1")?.getNode(ROOT_NODE_ID)?.children).toHaveLength(250);
  });

  test("idle() resolves once everything queued was applied and heard (at once when nothing is queued; clear() too)", async () => {
    const { inbox, runTask, tasks } = setup({ sliceOps: 100 });
    await inbox.idle();
    const heard: string[] = [];
    inbox.subscribe((message) => heard.push(message.kind));
    inbox.push(open("m1"));
    inbox.push({ type: "mount", kind: "ops", mountId: "m1", ops: textOps(150) });
    let idle = false;
    void inbox.idle().then(() => (idle = true));
    runTask();
    await Promise.resolve();
    // One slice applied the open and part of the ops: not idle yet.
    expect(idle).toBe(false);
    while (tasks.length > 0) runTask();
    await Promise.resolve();
    expect(idle).toBe(true);
    expect(heard).toEqual(["open", "ops"]);

    inbox.push(open("m2"));
    let cleared = false;
    void inbox.idle().then(() => (cleared = true));
    inbox.clear();
    await Promise.resolve();
    expect(cleared).toBe(true);
  });

  test("a big mount-open is applied over several tasks, shown only when whole, before the mount's next ops", () => {
    const { registry, inbox, tasks, runTask } = setup({ sliceOps: 100 });
    const opened: string[] = [];
    inbox.subscribe((message) => opened.push(`${message.type}-${message.kind}`));
    // 1,000 nodes: 2,000 create/insert ops, 20 slices of 100.
    inbox.push(open("m1", 1000));
    inbox.push({ type: "mount", kind: "ops", mountId: "m1", ops: textOps(10, 5000) });
    runTask();
    // Never a partial tree: nothing shown (nor announced) until the snapshot is applied whole.
    expect(registry.get("m1")).toBeUndefined();
    expect(opened).toEqual([]);
    let slices = 1;
    while (registry.get("m1") === undefined && tasks.length > 0) {
      runTask();
      slices += 1;
    }
    expect(slices).toBeGreaterThanOrEqual(20);
    expect(registry.get("m1")?.nodeCount).toBe(1000);
    expect(opened).toEqual(["mount-open"]);
    while (tasks.length > 0) runTask();
    expect(registry.get("m1")?.getNode(ROOT_NODE_ID)?.children).toHaveLength(1010);
  });

  test("a re-open keeps the old tree shown until the new snapshot is whole", () => {
    const { registry, inbox, tasks, runTask } = setup({ sliceOps: 100 });
    inbox.push(open("m1", 3));
    inbox.drain();
    const old = registry.get("m1");
    inbox.push(open("m1", 500));
    runTask();
    expect(registry.get("m1")).toBe(old);
    while (tasks.length > 0) runTask();
    expect(registry.get("m1")).not.toBe(old);
    expect(registry.get("m1")?.nodeCount).toBe(500);
  });

  test("a mount that sends more than the page can draw is paused with the notice, once, and its later ops dropped", () => {
    const { registry, inbox, warnings } = setup({ maxBacklogOps: 1000 });
    inbox.push(open("m1"));
    inbox.drain();
    for (let index = 0; index < 20; index += 1)
      inbox.push({ type: "mount", kind: "ops", mountId: "m1", ops: textOps(100, 1 + index * 100) });
    inbox.drain();
    expect(inbox.isSuspended("m1")).toBe(true);
    expect(registry.get("m1")?.getMeta().error).toEqual({
      code: "render",
      name: MOUNT_PAUSED_ERROR_NAME,
      message: MOUNT_PAUSED_NOTICE,
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^m1: mount m1 was paused/);
    expect(inbox.pending).toBe(0);
  });

  test("20,000 raw mount-opens show at most the mount cap, cost bounded tasks, and clear() drops the rest", () => {
    const { registry, inbox, warnings, tasks, runTask } = setup();
    for (let index = 0; index < 20_000; index += 1) inbox.push(open(`x${index}`, 1));
    // The message rate is capped too: most were refused at the door.
    expect(inbox.pending).toBeLessThanOrEqual(DEFAULT_INBOX_LIMITS.maxMessagesPerSecond);
    for (let index = 0; index < 3 && tasks.length > 0; index += 1) runTask();
    inbox.clear();
    while (tasks.length > 0) runTask();
    expect(inbox.pending).toBe(0);
    expect(registry.ids().length).toBeLessThanOrEqual(DEFAULT_INBOX_LIMITS.maxMounts);
    expect(warnings.some((warning) => /UI messages in a second/.test(warning))).toBe(true);
  });

  test("the mount cap refuses new mounts and says so once; their later messages are dropped silently", () => {
    const { registry, inbox, warnings, advance } = setup({ maxMounts: 3 });
    for (let index = 0; index < 5; index += 1) inbox.push(open(`m${index}`));
    advance(2000);
    inbox.push({ type: "mount", kind: "ops", mountId: "m4", ops: textOps(1) });
    inbox.drain();
    expect(registry.ids()).toEqual(["m0", "m1", "m2"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/3 mounts \(the limit\)/);
  });

  test("the node cap across the session refuses a mount that would exceed it", () => {
    const { registry, inbox, warnings } = setup({ maxTotalNodes: 100 });
    inbox.push(open("m1", 60));
    inbox.push(open("m2", 60));
    inbox.drain();
    expect(registry.ids()).toEqual(["m1"]);
    expect(warnings[0]).toMatch(/more than 100 nodes/);
  });

  test("listeners hear only what was applied", () => {
    const { inbox } = setup({ maxMounts: 1 });
    const heard: string[] = [];
    inbox.subscribe((message) => heard.push(`${message.type}-${message.kind} ${message.mountId}`));
    inbox.push(open("m1"));
    inbox.push(open("m2"));
    inbox.push({ type: "mount", kind: "waiting", mountId: "m1", waiting: true });
    inbox.drain();
    expect(heard).toEqual(["mount-open m1", "mount-waiting m1"]);
  });
});

describe("createMountInbox: its listeners (the agent)", () => {
  test("hear each mount-ops once it is applied whole, with its eventId; a batch cut into slices once, after its last slice", () => {
    const { inbox, tasks, runTask } = setup({ sliceOps: 100 });
    const heard: { type: string; kind: string; mountId: string; eventId?: number; ops?: number }[] = [];
    inbox.subscribe((message) =>
      heard.push({
        type: message.type,
        kind: message.kind,
        mountId: message.mountId,
        ...(message.kind === "ops" ? { eventId: message.eventId, ops: message.ops.length } : {}),
      }),
    );
    inbox.push(open("m1"));
    inbox.push({ type: "mount", kind: "ops", mountId: "m1", ops: textOps(5), eventId: 7 });
    inbox.push({ type: "mount", kind: "ops", mountId: "m1", ops: textOps(150, 100) });
    runTask();
    // The open and the small batch are applied; the big one (300 ops) has only begun.
    expect(heard).toEqual([
      { type: "mount", kind: "open", mountId: "m1" },
      { type: "mount", kind: "ops", mountId: "m1", eventId: 7, ops: 10 },
    ]);
    while (tasks.length > 0) runTask();
    expect(heard.slice(2)).toEqual([{ type: "mount", kind: "ops", mountId: "m1", eventId: undefined, ops: 300 }]);
  });

  test("do not hear ops the inbox dropped: a batch cut short, or any batch of a paused mount", () => {
    const { inbox, registry } = setup({ maxTotalNodes: 10, sliceOps: 20 });
    const heard: string[] = [];
    inbox.subscribe((message) =>
      heard.push(
        `${message.type}-${message.kind} ${message.mountId}${message.kind === "ops" ? ` ${message.eventId}` : ""}`,
      ),
    );
    inbox.push(open("m1"));
    inbox.push({ type: "mount", kind: "ops", mountId: "m1", ops: textOps(4), eventId: 2 });
    // Over the session's node cap within its first slice: the mount is paused and the rest of this batch dropped.
    inbox.push({ type: "mount", kind: "ops", mountId: "m1", ops: textOps(30, 10), eventId: 3 });
    inbox.push({ type: "mount", kind: "ops", mountId: "m1", ops: textOps(1, 50), eventId: 4 });
    inbox.drain();
    expect(inbox.isSuspended("m1")).toBe(true);
    expect(registry.get("m1")!.nodeCount).toBeLessThan(34);
    expect(heard).toEqual(["mount-open m1", "mount-ops m1 2"]);
  });
});

/** A first render in parts, as the realm sends one too big for a message: the open (announcing parts and nodes), then the parts. */
function partsOpen(mountId: string, nodes: number, partOps: number) {
  const ops = textOps(nodes);
  const parts: Extract<MountRealmMessage, { type: "mount"; kind: "open-part" }>[] = [];
  for (let index = 0; index * partOps < ops.length; index += 1)
    parts.push({
      type: "mount",
      kind: "open-part",
      mountId,
      index,
      ops: ops.slice(index * partOps, (index + 1) * partOps),
    });
  const open: Extract<MountRealmMessage, { type: "mount"; kind: "open" }> = {
    type: "mount",
    kind: "open",
    mountId,
    snapshot: { nodes: [] },
    parts: parts.length,
    nodes,
  };
  return { open, parts };
}

describe("createMountInbox: first renders in parts", () => {
  test("an open in parts is built over several tasks, shown once whole and announced once, before the mount's later ops", () => {
    const { registry, inbox, tasks, runTask } = setup({ sliceOps: 100 });
    const heard: string[] = [];
    inbox.subscribe((message) => heard.push(`${message.type}-${message.kind}`));
    const { open: announce, parts } = partsOpen("m1", 500, 200);
    inbox.push(announce);
    for (const part of parts) inbox.push(part);
    inbox.push({
      type: "mount",
      kind: "ops",
      mountId: "m1",
      ops: [{ op: "props", id: 1, props: { className: "later" } }],
    });
    let slices = 0;
    while (registry.get("m1") === undefined && tasks.length > 0) {
      runTask();
      slices += 1;
    }
    // 1,000 ops in slices of 100: never a partial tree on the page.
    expect(slices).toBeGreaterThanOrEqual(10);
    expect(registry.get("m1")?.nodeCount).toBe(500);
    expect(heard[0]).toBe("mount-open");
    while (tasks.length > 0) runTask();
    expect(registry.get("m1")?.getNode(1)?.props).toEqual({ className: "later" });
    // Announced once, and before the later ops (which listeners hear once applied).
    expect(heard).toEqual(["mount-open", "mount-ops"]);
  });

  test("a part out of order abandons the open: never shown, the model told once, its later parts and ops dropped", () => {
    const { registry, inbox, warnings } = setup();
    const { open: announce, parts } = partsOpen("m1", 30, 20);
    inbox.push(announce);
    inbox.push(parts[1]);
    inbox.push(parts[0]);
    inbox.push(parts[2]);
    inbox.push({ type: "mount", kind: "ops", mountId: "m1", ops: textOps(1, 100) });
    inbox.drain();
    expect(registry.get("m1")).toBeUndefined();
    expect(registry.opening("m1")).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^m1: mount m1 was not shown: part 1 came when part 0 was due/);
  });

  test("a part with no open announced is dropped and reported once; a part beyond the announced count changes nothing", () => {
    const { registry, inbox, warnings } = setup();
    inbox.push({ type: "mount", kind: "open-part", mountId: "m9", index: 0, ops: textOps(3) });
    inbox.push({ type: "mount", kind: "open-part", mountId: "m9", index: 1, ops: textOps(3, 4) });
    expect(inbox.pending).toBe(0);
    const { open: announce, parts } = partsOpen("m1", 10, 20);
    inbox.push(announce);
    inbox.push(parts[0]);
    inbox.push({ type: "mount", kind: "open-part", mountId: "m1", index: 1, ops: textOps(1, 50) });
    inbox.drain();
    // Shown when its one announced part was in; the extra part cannot change it.
    expect(registry.get("m1")?.nodeCount).toBe(10);
    expect(registry.get("m9")).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/^m9: .*never announced/)]);
  });

  test("an open that never gets its last part is not shown, keeps its reservation against the caps, and goes with a close or clear()", () => {
    const { registry, inbox, warnings } = setup({ maxTotalNodes: 100, maxMounts: 2 });
    const { open: announce, parts } = partsOpen("m1", 80, 40);
    inbox.push(announce);
    inbox.push(parts[0]);
    inbox.drain();
    expect(registry.get("m1")).toBeUndefined();
    expect(registry.opening("m1")?.state).toBe("building");
    // Its 80 announced nodes count: a 30-node mount would pass the session's 100.
    inbox.push(open("m2", 30));
    inbox.push(open("m3", 10));
    inbox.drain();
    expect(registry.ids()).toEqual(["m3"]);
    expect(warnings[0]).toMatch(/^m2: .*more than 100 nodes/);
    // It counts as a mount too: with m3 shown, a third is refused.
    inbox.push(open("m4", 1));
    inbox.drain();
    expect(registry.ids()).toEqual(["m3"]);
    expect(warnings[1]).toMatch(/^m4: .*2 mounts \(the limit\)/);
    // A close ends it (nothing shown), and frees its reservation.
    inbox.push({ type: "mount", kind: "close", mountId: "m1" });
    inbox.drain();
    expect(registry.opening("m1")).toBeUndefined();
    inbox.push(open("m5", 80));
    inbox.drain();
    expect(registry.ids()).toEqual(["m3", "m5"]);
  });

  test("clear() (the realm went) drops an open under way: its late parts build nothing", () => {
    const { registry, inbox } = setup();
    const next = partsOpen("m6", 5, 5);
    inbox.push(next.open);
    inbox.drain();
    expect(registry.opening("m6")?.state).toBe("building");
    inbox.clear();
    registry.closeAll();
    expect(registry.opening("m6")).toBeUndefined();
    inbox.push(next.parts[0]);
    inbox.drain();
    expect(registry.get("m6")).toBeUndefined();
  });

  test("parts that build more nodes than announced abandon the open", () => {
    const { registry, inbox, warnings } = setup();
    const { open: announce, parts } = partsOpen("m1", 50, 40);
    inbox.push({ ...announce, nodes: 10 });
    for (const part of parts) inbox.push(part);
    inbox.drain();
    expect(registry.get("m1")).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/more than the 10 announced/)]);
  });

  test("another message for the mount before its last part abandons the open", () => {
    const { registry, inbox } = setup();
    const { open: announce, parts } = partsOpen("m1", 30, 20);
    inbox.push(announce);
    inbox.push(parts[0]);
    inbox.push({ type: "mount", kind: "waiting", mountId: "m1", waiting: true });
    inbox.push(parts[1]);
    inbox.drain();
    expect(registry.get("m1")).toBeUndefined();
    expect(registry.opening("m1")).toBeUndefined();
  });

  test("a part dropped over the message rate abandons its open, and the model is told", () => {
    const { registry, inbox, warnings } = setup({ maxMessagesPerSecond: 3 });
    const { open: announce, parts } = partsOpen("m1", 40, 20);
    inbox.push(announce);
    inbox.push(parts[0]);
    inbox.push({ type: "mount", kind: "open", mountId: "m2", snapshot: { nodes: [] } });
    inbox.push(parts[1]); // the fourth message in a second: dropped
    inbox.drain();
    expect(registry.get("m1")).toBeUndefined();
    expect(registry.ids()).toEqual(["m2"]);
    expect(
      warnings.some((warning) => /^m1: mount m1 was not shown: part of its first render was dropped/.test(warning)),
    ).toBe(true);
  });
  describe("a UI event's answer (mount-ops with an eventId)", () => {
    const children = (registry: ReturnType<typeof createMountRegistry>) =>
      registry.get("m1")?.getNode(ROOT_NODE_ID)?.children.length;

    test("is applied in the task it arrives in when nothing is queued: it waits for no later task", () => {
      const { registry, inbox, tasks, runTask } = setup();
      inbox.push(open("m1"));
      while (tasks.length > 0) runTask();
      inbox.push({ type: "mount", kind: "ops", mountId: "m1", ops: textOps(3), eventId: 7 });
      expect(children(registry)).toBe(3);
      expect(inbox.pending).toBe(0);
      expect(tasks).toHaveLength(0);
    });

    test("is applied one slice at a time: the rest of a big answer waits for later tasks", () => {
      const { registry, inbox, tasks, runTask } = setup({ sliceOps: 100 });
      inbox.push(open("m1"));
      while (tasks.length > 0) runTask();
      inbox.push({ type: "mount", kind: "ops", mountId: "m1", ops: textOps(150), eventId: 7 });
      // 300 ops: one slice of 100 now (50 create/insert pairs), the rest in two later tasks.
      expect(children(registry)).toBe(50);
      expect(tasks).toHaveLength(1);
      runTask();
      runTask();
      expect(children(registry)).toBe(150);
      expect(tasks).toHaveLength(0);
    });

    test("waits its turn behind queued messages, in order", () => {
      const { registry, inbox, tasks, runTask } = setup();
      inbox.push(open("m1"));
      while (tasks.length > 0) runTask();
      inbox.push({ type: "mount", kind: "ops", mountId: "m1", ops: textOps(2) });
      inbox.push({
        type: "mount",
        kind: "ops",
        mountId: "m1",
        ops: [{ op: "remove", parent: ROOT_NODE_ID, child: 1 }],
        eventId: 7,
      });
      expect(children(registry)).toBe(0);
      runTask();
      expect(registry.get("m1")?.getNode(ROOT_NODE_ID)?.children).toEqual([2]);
    });

    test("is capped like any other: a mount over its ops rate is paused and the answer dropped", () => {
      const { registry, inbox, warnings, tasks, runTask } = setup({ maxOpsPerMountPerSecond: 10 });
      inbox.push(open("m1"));
      while (tasks.length > 0) runTask();
      inbox.push({ type: "mount", kind: "ops", mountId: "m1", ops: textOps(20), eventId: 7 });
      expect(children(registry)).toBe(0);
      expect(inbox.isSuspended("m1")).toBe(true);
      expect(warnings[0]).toMatch(/^m1: mount m1 was paused/);
    });
  });
});
