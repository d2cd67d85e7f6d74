import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../agent/types";
import { createMountRegistry } from "../render";
import type { SessionWriter } from "../store/sessionWriter";
import type { MountSnapshot, SnapshotNode } from "../wire/mount";
import { cutTree, MountSnapshots, type SavedMount } from "./mountSnapshots";

/** A list of `rows` rows, each a `li` with one text node: 2 × rows + 1 nodes. */
function bigTree(rows: number, label = "row"): MountSnapshot {
  const items: SnapshotNode[] = [];
  for (let index = 0; index < rows; index++) {
    items.push({
      id: 2 + index * 2,
      type: "li",
      props: { className: "p-1" },
      children: [{ id: 3 + index * 2, type: "#text", text: `${label} ${index}` }],
    });
  }
  return { nodes: [{ id: 1, type: "ul", props: {}, children: items }] };
}

function manualScheduler() {
  const tasks: (() => void)[] = [];
  return {
    schedule: (task: () => void) => void tasks.push(task),
    /** Run one task (one browser task). */
    runOne: () => tasks.shift()?.(),
    get queued() {
      return tasks.length;
    },
  };
}

function fakeWriter() {
  const written: { mountId: string; snapshot: SavedMount }[] = [];
  const writer = {
    markMountDirty: (entry: { mountId: string; snapshot: unknown }) => void written.push(entry as never),
  } as unknown as SessionWriter;
  return { writer, written };
}

function replyWithMounts(id: string, mountIds: string[]): ChatMessage {
  return {
    id,
    role: "assistant",
    text: "",
    state: "done",
    createdAt: 1,
    reply: {
      blocks: [],
      protocolErrors: [],
      notices: [],
      mounts: mountIds.map((mountId) => ({ mountId, title: mountId })),
    },
  } as unknown as ChatMessage;
}

describe("restoring saved mounts", () => {
  it("rebuilds a big session a slice at a time, never all at once, newest mount first", () => {
    const registry = createMountRegistry();
    const scheduler = manualScheduler();
    const snapshots = new MountSnapshots(registry, {
      schedule: scheduler.schedule,
      now: () => 0,
      limits: { sliceOps: 2_000 },
    });
    const mounts = Array.from({ length: 40 }, (_, index) => ({
      mountId: `r1:m${index + 1}`,
      snapshot: { title: `m${index + 1}`, tree: bigTree(2_450) },
    }));
    snapshots.restore(mounts);

    // Nothing was built in the calling task: every panel says it is being restored.
    expect(registry.ids()).toEqual([]);
    expect(mounts.every((mount) => snapshots.isRestoring(mount.mountId))).toBe(true);

    // Each task applies at most one slice of ops (about 2,000 of the 9,802 ops per mount).
    let tasks = 0;
    let previousNodes = 0;
    while (scheduler.queued > 0) {
      scheduler.runOne();
      tasks += 1;
      let nodes = 0;
      for (const id of registry.ids()) nodes += registry.get(id)!.nodeCount;
      expect(nodes - previousNodes).toBeLessThanOrEqual(4_901 * 2);
      previousNodes = nodes;
      if (tasks === 6) expect(registry.ids()).toEqual(["r1:m40"]);
    }
    expect(tasks).toBeGreaterThan(40 * 4);
    expect(registry.ids()).toHaveLength(40);
    expect(registry.get("r1:m1")!.nodeCount).toBe(4_901);
    expect(registry.get("r1:m1")!.getMeta()).toMatchObject({ title: "m1", inert: true });
    expect(snapshots.isRestoring("r1:m1")).toBe(false);
  });

  it("a realm that opens the same mount meanwhile wins over the restore", () => {
    const registry = createMountRegistry();
    const scheduler = manualScheduler();
    const snapshots = new MountSnapshots(registry, { schedule: scheduler.schedule, now: () => 0 });
    snapshots.restore([{ mountId: "r1:m1", snapshot: { title: "old", tree: bigTree(3_000, "old") } }]);
    registry.receive({ type: "mount", kind: "open", mountId: "r1:m1", title: "live", snapshot: bigTree(1, "live") });
    while (scheduler.queued > 0) scheduler.runOne();
    expect(registry.get("r1:m1")!.getMeta().title).toBe("live");
    expect(registry.get("r1:m1")!.nodeCount).toBe(3);
  });

  it("opening another session cancels the rest of a restore", () => {
    const registry = createMountRegistry();
    const scheduler = manualScheduler();
    const snapshots = new MountSnapshots(registry, { schedule: scheduler.schedule, now: () => 0 });
    snapshots.restore([
      { mountId: "r1:a", snapshot: { tree: bigTree(3_000) } },
      { mountId: "r1:b", snapshot: { tree: bigTree(3_000) } },
    ]);
    scheduler.runOne();
    snapshots.restore([{ mountId: "r2:c", snapshot: { tree: bigTree(2) } }]);
    while (scheduler.queued > 0) scheduler.runOne();
    expect(registry.ids()).toEqual(["r2:c"]);
  });

  it("a malformed saved snapshot is shown as an error, as before, without stopping the others", () => {
    const errors: string[] = [];
    const registry = createMountRegistry({ onError: (_id, error) => void errors.push(error.code) });
    const snapshots = new MountSnapshots(registry, { schedule: (task) => task(), now: () => 0 });
    snapshots.restore([
      { mountId: "r1:bad", snapshot: { tree: { nodes: "nope" } } },
      { mountId: "r1:good", snapshot: { tree: bigTree(2) } },
    ]);
    expect(registry.ids()).toEqual(["r1:good", "r1:bad"]);
    expect(errors).toContain("invalid-snapshot");
    expect(registry.get("r1:good")!.nodeCount).toBe(5);
  });
});

describe("saving", () => {
  it("saves many big changed mounts over several tasks, not in one, and finishes them all", async () => {
    const registry = createMountRegistry();
    const scheduler = manualScheduler();
    let clock = 0;
    // Each saved mount "takes" 3 ms: a slice of 8 ms saves at most three.
    const snapshots = new MountSnapshots(registry, {
      schedule: scheduler.schedule,
      now: () => clock,
      limits: { sliceMs: 8 },
    });
    const ids = Array.from({ length: 15 }, (_, index) => `r1:m${index}`);
    for (const id of ids) registry.receive({ type: "mount", kind: "open", mountId: id, snapshot: bigTree(500) });
    const written: string[] = [];
    const writer = {
      markMountDirty: (entry: { mountId: string }) => {
        written.push(entry.mountId);
        clock += 3;
      },
    } as unknown as SessionWriter;
    const done = snapshots.save([replyWithMounts("a1", ids)], writer);
    expect(written.length).toBeGreaterThan(0);
    expect(written.length).toBeLessThanOrEqual(3);
    while (scheduler.queued > 0) {
      const before = written.length;
      scheduler.runOne();
      expect(written.length - before).toBeLessThanOrEqual(3);
    }
    await done;
    expect(written).toEqual(ids);
  });
});

describe("the cap on saved snapshots", () => {
  it("cuts a mount's snapshot over its cap to its first nodes, says so to the person and (once) to the model, and keeps the live tree whole", () => {
    const registry = createMountRegistry();
    const told: string[] = [];
    const snapshots = new MountSnapshots(registry, {
      schedule: (task) => task(),
      now: () => 0,
      limits: { maxMountChars: 20_000 },
      onCut: (_id, message) => void told.push(message),
    });
    registry.receive({ type: "mount", kind: "open", mountId: "r1:m1", title: "big", snapshot: bigTree(2_000) });
    registry.receive({ type: "mount", kind: "open", mountId: "r1:m2", title: "small", snapshot: bigTree(3) });
    const { writer, written } = fakeWriter();
    const messages = [replyWithMounts("a1", ["r1:m1", "r1:m2"])];
    snapshots.save(messages, writer);

    const big = written.find((entry) => entry.mountId === "r1:m1")!.snapshot;
    expect(JSON.stringify(big).length).toBeLessThanOrEqual(20_000);
    expect(big.cut).toEqual({ kept: expect.any(Number), total: 4_001 });
    expect(big.cut!.kept).toBeGreaterThan(100);
    // The kept part is the start of the tree, in document order.
    const list = (big.tree as MountSnapshot).nodes[0] as { children: { children: { text: string }[] }[] };
    expect(list.children[0].children[0].text).toBe("row 0");
    expect(snapshots.note("r1:m1")).toMatch(/too large to save whole: only its first [\d,]+ of 4,001 parts were saved/);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/mount r1:m1: its saved snapshot was cut to the first \d+ of 4001 nodes/);
    // Nothing else is lost: the other mount is whole, the live tree too.
    expect(written.find((entry) => entry.mountId === "r1:m2")!.snapshot).toEqual({ title: "r1:m2", tree: bigTree(3) });
    expect(snapshots.note("r1:m2")).toBeUndefined();
    expect(registry.get("r1:m1")!.nodeCount).toBe(4_001);

    // A later change is cut again, but the model is not told twice.
    registry.receive({ type: "mount", kind: "ops", mountId: "r1:m1", ops: [{ op: "text", id: 3, text: "changed" }] });
    snapshots.save(messages, writer);
    expect(written.filter((entry) => entry.mountId === "r1:m1")).toHaveLength(2);
    expect(told).toHaveLength(1);
  });

  it("caps the session's snapshots together: the mount that would pass the total is cut, the saved ones stay", () => {
    const registry = createMountRegistry();
    const snapshots = new MountSnapshots(registry, {
      schedule: (task) => task(),
      now: () => 0,
      limits: { maxMountChars: 1_000_000, maxSessionChars: 250_000 },
    });
    const ids = ["r1:a", "r1:b", "r1:c"];
    for (const id of ids) registry.receive({ type: "mount", kind: "open", mountId: id, snapshot: bigTree(1_000, id) });
    const { writer, written } = fakeWriter();
    snapshots.save([replyWithMounts("a1", ids)], writer);
    const sizes = written.map((entry) => JSON.stringify(entry.snapshot).length);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeLessThanOrEqual(250_000);
    expect(written.map((entry) => entry.snapshot.cut === undefined)).toEqual([true, true, false]);
  });

  it("a restored cut snapshot keeps its note", () => {
    const registry = createMountRegistry();
    const snapshots = new MountSnapshots(registry, { schedule: (task) => task(), now: () => 0 });
    const cut = cutTree(bigTree(100), 2_000);
    snapshots.restore([{ mountId: "r1:m1", snapshot: { tree: cut.tree, cut: { kept: cut.kept, total: cut.total } } }]);
    expect(registry.get("r1:m1")!.nodeCount).toBe(cut.kept);
    expect(snapshots.note("r1:m1")).toMatch(/only its first \d+ of 201 parts were saved/);
  });
});
