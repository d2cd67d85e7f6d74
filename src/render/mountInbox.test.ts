import { describe, expect, test } from "vitest";
import { MOUNT_PAUSED_ERROR_NAME, MOUNT_PAUSED_NOTICE, ROOT_NODE_ID } from "./contract";
import { createMountInbox, DEFAULT_INBOX_LIMITS } from "./mountInbox";
import { createMountRegistry } from "./mountRegistry";

const open = (mountId: string, nodes = 0) => ({
  type: "mount-open",
  mountId,
  snapshot: { nodes: Array.from({ length: nodes }, (_, index) => ({ id: index + 1, type: "span", props: {}, children: [] })) },
});
const textOps = (count: number, first = 1) =>
  Array.from({ length: count }, (_, index) => [
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
    inbox.push({ type: "mount-ops", mountId: "m1", ops: textOps(250) });
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

  test("a big mount-open is applied over several tasks, shown only when whole, before the mount's next ops", () => {
    const { registry, inbox, tasks, runTask } = setup({ sliceOps: 100 });
    const opened: string[] = [];
    inbox.subscribe((message) => opened.push(message.type));
    // 1,000 nodes: 2,000 create/insert ops, 20 slices of 100.
    inbox.push(open("m1", 1000));
    inbox.push({ type: "mount-ops", mountId: "m1", ops: textOps(10, 5000) });
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
    for (let index = 0; index < 20; index += 1) inbox.push({ type: "mount-ops", mountId: "m1", ops: textOps(100, 1 + index * 100) });
    inbox.drain();
    expect(inbox.isSuspended("m1")).toBe(true);
    expect(registry.get("m1")?.getMeta().error).toEqual({ code: "render", name: MOUNT_PAUSED_ERROR_NAME, message: MOUNT_PAUSED_NOTICE });
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
    inbox.push({ type: "mount-ops", mountId: "m4", ops: textOps(1) });
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
    inbox.subscribe((message) => heard.push(`${message.type} ${message.mountId}`));
    inbox.push(open("m1"));
    inbox.push(open("m2"));
    inbox.push({ type: "mount-waiting", mountId: "m1", waiting: true });
    inbox.drain();
    expect(heard).toEqual(["mount-open m1", "mount-waiting m1"]);
  });
});
