import { describe, expect, it } from "vitest";
import { ManualTimer, drainJobs } from "./testSupport";
import { createWriteBehind } from "./writeBehind";

interface Item {
  id: string;
  text: string;
}

function recorder(timer: ManualTimer) {
  const writes: { at: number; items: Item[] }[] = [];
  let failNext = 0;
  return {
    writes,
    failTimes(times: number) {
      failNext = times;
    },
    write: async (items: Item[]) => {
      await Promise.resolve();
      if (failNext > 0) {
        failNext -= 1;
        throw new DOMException("quota", "QuotaExceededError");
      }
      writes.push({ at: timer.now(), items: items.map((item) => ({ ...item })) });
    },
  };
}

describe("write-behind", () => {
  it("spacingMs: after a batch that asks for a longer gap, the next timed write waits that gap; flush and urgent changes do not", async () => {
    const timer = new ManualTimer();
    const sink = recorder(timer);
    const writer = createWriteBehind<Item>({
      key: (item) => item.id,
      write: sink.write,
      timer,
      intervalMs: 500,
      // 1 ms per character, as a size-bound cadence would ask.
      spacingMs: (items) => items.reduce((sum, item) => sum + item.text.length, 0),
    });
    writer.markDirty({ id: "reply", text: "x".repeat(100) });
    await timer.advanceTo(500);
    await drainJobs();
    expect(sink.writes.map((write) => write.at)).toEqual([500]);
    // A short batch: the ordinary 500 ms cadence.
    writer.markDirty({ id: "reply", text: "x".repeat(2_000) });
    await timer.advanceTo(999);
    expect(sink.writes).toHaveLength(1);
    await timer.advanceTo(1_000);
    await drainJobs();
    expect(sink.writes.map((write) => write.at)).toEqual([500, 1_000]);
    // That batch held 2,000 characters: changes marked meanwhile wait until 2 s after its start.
    writer.markDirty({ id: "reply", text: "x".repeat(2_100) });
    await timer.advanceTo(1_600);
    writer.markDirty({ id: "reply", text: "x".repeat(2_200) });
    await timer.advanceTo(2_999);
    expect(sink.writes).toHaveLength(2);
    await timer.advanceTo(3_000);
    await drainJobs();
    expect(sink.writes.map((write) => write.at)).toEqual([500, 1_000, 3_000]);
    expect(sink.writes[2].items[0].text).toHaveLength(2_200);
    // An urgent change is not held by the gap.
    writer.markDirty({ id: "mount", text: "count 1" }, 100);
    await timer.advanceTo(3_100);
    await drainJobs();
    expect(sink.writes.map((write) => write.at)).toEqual([500, 1_000, 3_000, 3_100]);
    // Nor is flush.
    writer.markDirty({ id: "reply", text: "x".repeat(2_300) });
    await timer.advanceTo(3_200);
    expect(await writer.flush()).toEqual({ ok: true });
    expect(sink.writes.map((write) => write.at)).toEqual([500, 1_000, 3_000, 3_100, 3_200]);
    writer.dispose();
  });

  it("an urgent change (withinMs) starts its write within that time, also while a slower write is armed or one is in flight", async () => {
    const timer = new ManualTimer();
    const sink = recorder(timer);
    const writer = createWriteBehind<Item>({ key: (item) => item.id, write: sink.write, timer, intervalMs: 500 });
    // A streamed message arms the 500 ms cadence; a mount change 10 ms later wants its write within 100 ms.
    writer.markDirty({ id: "reply", text: "a" });
    await timer.advanceTo(10);
    writer.markDirty({ id: "mount", text: "count 1" }, 100);
    await timer.advanceTo(109);
    expect(sink.writes).toHaveLength(0);
    await timer.advanceTo(110);
    await drainJobs();
    expect(sink.writes).toHaveLength(1);
    expect(sink.writes[0].items.map((item) => item.id)).toEqual(["reply", "mount"]);
    // Back to the cadence for ordinary changes: the next plain one waits its 500 ms from the last start.
    writer.markDirty({ id: "reply", text: "ab" });
    await timer.advanceTo(200);
    expect(sink.writes).toHaveLength(1);
    // An urgent one pulls it forward again.
    writer.markDirty({ id: "mount", text: "count 2" }, 100);
    await timer.advanceTo(300);
    await drainJobs();
    expect(sink.writes).toHaveLength(2);
    expect(sink.writes[1].at).toBe(300);
    expect(sink.writes[1].items).toEqual([
      { id: "reply", text: "ab" },
      { id: "mount", text: "count 2" },
    ]);
    expect(timer.scheduled).toBe(0);
  });

  it("coalesces a 20k-token reply over 100 s into at most 2 writes per second, and flushes the end", async () => {
    const timer = new ManualTimer();
    const sink = recorder(timer);
    const writer = createWriteBehind<Item>({ key: (item) => item.id, write: sink.write, timer });
    const tokens = 20_000;
    const perToken = 5; // 200 tokens per second
    let text = "";
    for (let index = 0; index < tokens; index += 1) {
      await timer.advanceTo(index * perToken);
      text += `t${index} `;
      writer.markDirty({ id: "reply", text });
    }
    // The reply ends: the app flushes right away.
    await timer.advanceTo(tokens * perToken);
    const result = await writer.flush();
    expect(result).toEqual({ ok: true });

    const seconds = (tokens * perToken) / 1000;
    expect(sink.writes.length).toBeLessThanOrEqual(2 * seconds);
    expect(sink.writes.length).toBeGreaterThanOrEqual(seconds); // it did write while streaming
    const perSecond = new Map<number, number>();
    for (const write of sink.writes)
      perSecond.set(Math.floor(write.at / 1000), (perSecond.get(Math.floor(write.at / 1000)) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(2);
    // Never more than half a second of text only in memory while streaming.
    for (let index = 1; index < sink.writes.length; index += 1) {
      expect(sink.writes[index].at - sink.writes[index - 1].at).toBeLessThanOrEqual(510);
    }
    expect(sink.writes.at(-1)!.items).toEqual([{ id: "reply", text }]);
    expect(writer.pendingCount).toBe(0);
    expect(timer.scheduled).toBe(0);
  });

  it("writes each key's latest value once per batch, in first-marked order", async () => {
    const timer = new ManualTimer();
    const sink = recorder(timer);
    const writer = createWriteBehind<Item>({ key: (item) => item.id, write: sink.write, timer });
    writer.markDirty({ id: "user", text: "hi" });
    writer.markDirty({ id: "reply", text: "a" });
    writer.markDirty({ id: "reply", text: "ab" });
    await timer.advance(499);
    expect(sink.writes).toHaveLength(0);
    await timer.advance(1);
    expect(sink.writes).toEqual([
      {
        at: 500,
        items: [
          { id: "user", text: "hi" },
          { id: "reply", text: "ab" },
        ],
      },
    ]);
  });

  it("flush writes at once, after the write in flight, and resolves when done", async () => {
    const timer = new ManualTimer();
    let release: () => void = () => undefined;
    const started: Item[][] = [];
    const writer = createWriteBehind<Item>({
      key: (item) => item.id,
      timer,
      write: (items) => {
        started.push(items);
        return new Promise<void>((resolve) => (release = resolve));
      },
    });
    writer.markDirty({ id: "a", text: "1" });
    await timer.advance(500);
    expect(started).toHaveLength(1);
    writer.markDirty({ id: "a", text: "2" });
    const flushed = writer.flush();
    await drainJobs();
    expect(started).toHaveLength(1); // waits for the write in flight
    release();
    await drainJobs();
    expect(started).toHaveLength(2);
    expect(started[1]).toEqual([{ id: "a", text: "2" }]);
    release();
    expect(await flushed).toEqual({ ok: true });
    expect(await writer.flush()).toEqual({ ok: true }); // nothing pending: no write
    expect(started).toHaveLength(2);
  });

  it("keeps failed items, lets newer values win, retries with backoff, and reports", async () => {
    const timer = new ManualTimer();
    const sink = recorder(timer);
    const errors: number[] = [];
    let recovered = 0;
    const writer = createWriteBehind<Item>({
      key: (item) => item.id,
      write: sink.write,
      timer,
      onError: (_error, failures) => errors.push(failures),
      onRecovered: () => (recovered += 1),
    });
    sink.failTimes(2);
    writer.markDirty({ id: "a", text: "1" });
    writer.markDirty({ id: "b", text: "1" });
    await timer.advance(500); // first attempt fails
    expect(writer.failing).toBe(true);
    expect(writer.pendingCount).toBe(2);
    writer.markDirty({ id: "a", text: "2" }); // newer value while failing
    writer.markDirty({ id: "c", text: "1" });
    await timer.advance(999);
    expect(errors).toEqual([1]); // backoff: 1000 ms after the first failure
    await timer.advance(1);
    expect(errors).toEqual([1, 2]);
    await timer.advance(2000); // then 2000 ms
    expect(sink.writes).toEqual([
      {
        at: 3500,
        items: [
          { id: "a", text: "2" },
          { id: "b", text: "1" },
          { id: "c", text: "1" },
        ],
      },
    ]);
    expect(writer.failing).toBe(false);
    expect(recovered).toBe(1);
  });

  it("flush reports a failure and keeps the items for the retry", async () => {
    const timer = new ManualTimer();
    const sink = recorder(timer);
    const writer = createWriteBehind<Item>({ key: (item) => item.id, write: sink.write, timer });
    sink.failTimes(1);
    writer.markDirty({ id: "a", text: "1" });
    const result = await writer.flush();
    expect(result.ok).toBe(false);
    expect(writer.pendingItems()).toEqual([{ id: "a", text: "1" }]);
    expect(await writer.flush()).toEqual({ ok: true });
    expect(sink.writes).toHaveLength(1);
  });

  it("does not retry on the timer when told the error will not heal, but keeps the items", async () => {
    const timer = new ManualTimer();
    const sink = recorder(timer);
    const writer = createWriteBehind<Item>({
      key: (item) => item.id,
      write: sink.write,
      timer,
      shouldRetry: () => false,
    });
    sink.failTimes(1);
    writer.markDirty({ id: "a", text: "1" });
    await timer.advance(500);
    expect(writer.failing).toBe(true);
    expect(timer.scheduled).toBe(0);
    await timer.advance(60_000);
    expect(sink.writes).toHaveLength(0);
    writer.markDirty({ id: "b", text: "1" }); // new activity tries again, with both
    await timer.advance(1_000);
    expect(sink.writes).toEqual([
      {
        at: 61_500,
        items: [
          { id: "a", text: "1" },
          { id: "b", text: "1" },
        ],
      },
    ]);
  });

  it("survives a throwing error listener without losing the batch", async () => {
    const timer = new ManualTimer();
    const sink = recorder(timer);
    const writer = createWriteBehind<Item>({
      key: (item) => item.id,
      write: sink.write,
      timer,
      onError: () => {
        throw new Error("listener bug");
      },
    });
    sink.failTimes(1);
    writer.markDirty({ id: "a", text: "1" });
    expect((await writer.flush()).ok).toBe(false);
    expect(writer.pendingCount).toBe(1);
  });

  it("dispose stops the timer but a later flush still writes what is pending", async () => {
    const timer = new ManualTimer();
    const sink = recorder(timer);
    const writer = createWriteBehind<Item>({ key: (item) => item.id, write: sink.write, timer });
    writer.markDirty({ id: "a", text: "1" });
    writer.dispose();
    await timer.advance(5_000);
    expect(sink.writes).toHaveLength(0);
    expect(await writer.flush()).toEqual({ ok: true });
    expect(sink.writes).toHaveLength(1);
  });
});
