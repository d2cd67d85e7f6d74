import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../agent/types";
import type { StoreErrorInfo } from "./errors";
import { createSession, loadSession } from "./sessions";
import { STREAMING_SAVE_CHARS_PER_SECOND, createSessionWriter, flushOnPageHide } from "./sessionWriter";
import { openStore, type Store } from "./store";
import { ManualTimer, assistantMessage, drainJobs, sampleSnapshot, testStoreOptions, userMessage } from "./testSupport";

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.db.close();
});

async function open(options = testStoreOptions()): Promise<Store> {
  const opened = await openStore(options);
  if (!opened.ok) throw new Error(opened.error.message);
  stores.push(opened.store);
  return opened.store;
}

describe("session writer", () => {
  it("saves a long streaming reply less often (STREAMING_SAVE_CHARS_PER_SECOND), and at once when it ends", async () => {
    const store = await open(testStoreOptions());
    const session = await createSession(store);
    const timer = new ManualTimer();
    const writer = createSessionWriter(store, session.id, { timer });
    const settle = async () => {
      await drainJobs();
      await writer.whenIdle();
    };
    const long = "word ".repeat((2 * STREAMING_SAVE_CHARS_PER_SECOND) / 5);
    let reply = assistantMessage("a1", long, { state: "streaming" });
    writer.markDirty(reply);
    // 6 s of a 200k-character reply growing every 50 ms: a write every 2 s (the first after 500 ms), not every 500 ms.
    for (let at = 50; at <= 6_000; at += 50) {
      await timer.advanceTo(at, settle);
      reply = { ...reply, text: reply.text + "more " } as ChatMessage;
      writer.markDirty(reply);
    }
    expect(writer.writeCount).toBe(3);
    const midway = await loadSession(store, session.id);
    expect((midway?.messages[0] as { text: string }).text.length).toBeGreaterThan(long.length);
    reply = { ...reply, state: "done" } as ChatMessage;
    writer.markDirty(reply);
    expect(await writer.flush()).toEqual({ ok: true });
    expect(writer.writeCount).toBe(4);
    expect((await loadSession(store, session.id))?.messages[0]).toEqual(reply);
    expect(await writer.close()).toEqual({ ok: true });
  });

  it("saves a streaming reply every 500 ms; a tab closed mid-stream reopens it as interrupted", async () => {
    const options = testStoreOptions();
    const store = await open(options);
    const session = await createSession(store);
    const timer = new ManualTimer();
    const writer = createSessionWriter(store, session.id, { timer });
    const settle = async () => {
      await drainJobs();
      await writer.whenIdle();
    };

    const user = userMessage("u1", "make a chart");
    writer.markDirty(user);
    let reply = assistantMessage("a1", "", { state: "streaming" });
    writer.markDirty(reply);
    for (let index = 0; index < 400; index += 1) {
      await timer.advanceTo(index * 5, settle);
      reply = { ...reply, text: reply.text + `w${index} ` } as ChatMessage;
      writer.markDirty(reply);
    }
    await timer.advanceTo(2_000, settle);
    expect(writer.writeCount).toBe(4); // 2 s of streaming
    writer.markMountDirty({ mountId: "mount-1", messageId: "a1", snapshot: sampleSnapshot(1) });
    // Before the reply ends, another tab (or a reload) opens the session.
    const other = await open({ ...options });
    const midway = await loadSession(other, session.id);
    expect(midway?.messages[0]).toEqual(user);
    expect(midway?.messages[1]).toMatchObject({ id: "a1", state: "interrupted" });
    expect((midway?.messages[1] as { text: string }).text).toBe(reply.text);

    // The reply ends: state done, flush at once.
    reply = { ...reply, state: "done" } as ChatMessage;
    writer.markDirty(reply);
    expect(await writer.flush()).toEqual({ ok: true });
    const final = await loadSession(other, session.id);
    expect(final?.messages[1]).toEqual(reply);
    expect(final?.mounts.map((mount) => mount.mountId)).toEqual(["mount-1"]);
    expect(writer.writeCount).toBe(5);
    expect(await writer.close()).toEqual({ ok: true });
  });

  it("keeps changes in memory when the disk is full, says so, and writes them once space is back", async () => {
    const store = await open();
    const session = await createSession(store);
    const timer = new ManualTimer();
    const errors: StoreErrorInfo[] = [];
    let recovered = false;
    const writer = createSessionWriter(store, session.id, {
      timer,
      onError: (error) => errors.push(error),
      onRecovered: () => (recovered = true),
    });
    const original = store.db.messages.bulkPut.bind(store.db.messages);
    let full = true;
    store.db.messages.bulkPut = ((...args: Parameters<typeof original>) => {
      if (full) return Promise.reject(new DOMException("The quota has been exceeded.", "QuotaExceededError"));
      return original(...args);
    }) as typeof original;

    const message = userMessage("u1", "do not lose me");
    writer.markDirty(message);
    const result = await writer.flush();
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe("quota-exceeded");
      expect(result.error.message).toMatch(/storage .* is full/);
      expect(result.error.retryable).toBe(true);
    }
    expect(errors.map((error) => error.code)).toEqual(["quota-exceeded"]);
    expect(writer.pendingCount).toBe(1);
    expect(writer.failing).toBe(true);
    expect((await loadSession(store, session.id))?.messages).toEqual([]);
    // The failed transaction left nothing half-written.
    expect(await store.db.searchText.count()).toBe(0);

    full = false;
    await timer.advance(1_000, async () => {
      await drainJobs();
      await writer.whenIdle();
    });
    expect(writer.pendingCount).toBe(0);
    expect(recovered).toBe(true);
    expect((await loadSession(store, session.id))?.messages).toEqual([message]);
  });

  it("marks only changed messages from a whole list", async () => {
    const store = await open();
    const session = await createSession(store);
    const timer = new ManualTimer();
    const writer = createSessionWriter(store, session.id, { timer });
    const first = [userMessage("u1", "hi"), assistantMessage("a1", "yo", { state: "streaming" })];
    writer.markChanged(first);
    expect(writer.pendingCount).toBe(2);
    await writer.flush();
    writer.markChanged(first);
    expect(writer.pendingCount).toBe(0);
    const second = [first[0], { ...first[1], text: "yo!" } as ChatMessage];
    writer.markChanged(second);
    expect(writer.pendingCount).toBe(1);
    await writer.flush();
    // Messages handed out by loadSession are already on disk.
    const loaded = await loadSession(store, session.id);
    const reopened = createSessionWriter(store, session.id, { timer });
    reopened.markChanged(loaded!.messages);
    expect(reopened.pendingCount).toBe(0);
  });

  it("writeNow puts what is not on disk in one transaction of its own, aborting a write under way, quietly", async () => {
    const store = await open();
    const session = await createSession(store);
    const timer = new ManualTimer();
    const errors: StoreErrorInfo[] = [];
    const writer = createSessionWriter(store, session.id, { timer, onError: (error) => errors.push(error) });
    const first = [userMessage("u1", "hi"), assistantMessage("a1", "yo")];
    writer.markChanged(first);
    await writer.flush();
    // A new exchange: its save has started (the reply just ended) when the page goes.
    const user = userMessage("u2", "and now?");
    const reply = assistantMessage("a2", "now this", { state: "done" });
    writer.markChanged([...first, user, reply]);
    const flushing = writer.flush();
    for (let turn = 0; turn < 100 && store.writing.size === 0; turn += 1) await Promise.resolve();
    expect(store.writing.size).toBe(1);
    expect(writer.pendingCount).toBe(0);
    writer.writeNow();
    expect(store.writing.size).toBe(0);
    // The write under way was aborted: not reported as a failure to the person, and kept for a retry.
    expect((await flushing).ok).toBe(false);
    expect(errors).toEqual([]);
    expect(writer.pendingCount).toBe(2);
    // writeNow's own transaction carried both messages, after the saved ones.
    const loaded = await loadSession(store, session.id);
    expect(loaded?.messages.map((message) => message.id)).toEqual(["u1", "a1", "u2", "a2"]);
    expect(loaded?.messages[3]).toMatchObject({ text: "now this", state: "done" });
    // The retry writes the same places again: nothing doubled or reordered.
    expect((await writer.flush()).ok).toBe(true);
    expect((await loadSession(store, session.id))?.messages.map((message) => message.id)).toEqual([
      "u1",
      "a1",
      "u2",
      "a2",
    ]);
    expect(errors).toEqual([]);
  });

  it("writeNow places new messages after those of a session opened from disk, and leaves a session it does not know to the next flush", async () => {
    const options = testStoreOptions();
    const store = await open(options);
    const session = await createSession(store);
    const seed = createSessionWriter(store, session.id);
    seed.markChanged([userMessage("u1", "one"), assistantMessage("a1", "two")]);
    await seed.close();
    // Another tab (a fresh store on the same database) opens it and adds a message, then its page goes.
    const other = await open({ ...options, name: options.name });
    const reopened = await loadSession(other, session.id);
    const writer = createSessionWriter(other, session.id);
    writer.markChanged([...reopened!.messages, userMessage("u3", "three")]);
    // A message already on disk changes after it (an edit of the reply): it keeps its place.
    writer.markChanged([reopened!.messages[0], { ...reopened!.messages[1], text: "two, edited" } as ChatMessage]);
    writer.writeNow();
    await drainJobs();
    const after = await loadSession(store, session.id);
    expect(after?.messages.map((message) => message.id)).toEqual(["u1", "a1", "u3"]);
    expect(after?.messages[1].text).toBe("two, edited");
    // A store that never opened or wrote this session does not know its places: nothing is guessed.
    const unknown = await open({ ...options, name: options.name });
    const blind = createSessionWriter(unknown, session.id);
    blind.markChanged([userMessage("u4", "four")]);
    blind.writeNow();
    await drainJobs();
    expect((await loadSession(store, session.id))?.messages.map((message) => message.id)).toEqual(["u1", "a1", "u3"]);
    expect((await blind.close()).ok).toBe(true);
    expect((await loadSession(store, session.id))?.messages.map((message) => message.id)).toEqual([
      "u1",
      "a1",
      "u3",
      "u4",
    ]);
  });

  it("flushes when the page is hidden or goes away", async () => {
    const listeners = new Map<string, () => void>();
    const target = {
      addEventListener: (type: string, listener: () => void) => listeners.set(type, listener),
      removeEventListener: (type: string) => listeners.delete(type),
    };
    const document = { ...target, visibilityState: "visible" };
    let flushes = 0;
    const stop = flushOnPageHide(() => (flushes += 1), { window: target, document });
    listeners.get("visibilitychange")!();
    expect(flushes).toBe(0);
    document.visibilityState = "hidden";
    listeners.get("visibilitychange")!();
    listeners.get("pagehide")!();
    expect(flushes).toBe(2);
    stop();
    expect(listeners.size).toBe(0);
  });
});
