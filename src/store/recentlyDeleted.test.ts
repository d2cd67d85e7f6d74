/**
 * Recently deleted (issue 33 §5): a deleted session is kept 30 days, then
 * purged; **Delete forever** removes a session and every row of it at once,
 * also while the store is full (writes fail with QuotaExceededError), and a
 * writer that failed on the full store writes as soon as it is asked to
 * retry, without waiting out its backoff.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  createSession,
  deleteSession,
  deleteSessionForever,
  getSession,
  KEEP_DELETED_MS,
  listDeletedSessions,
  listSessions,
  loadSession,
  purgeExpired,
  saveMessages,
  saveMounts,
} from "./sessions";
import { createSessionWriter } from "./sessionWriter";
import type { Store } from "./store";
import { dumpDatabase, ManualTimer, openTestStore, quotaFault, sampleSnapshot, userMessage } from "./testSupport";

const DAY = 24 * 60 * 60 * 1000;
let store: Store | undefined;
let fault: ReturnType<typeof quotaFault> | undefined;

afterEach(() => {
  fault?.restore();
  fault = undefined;
  store?.db.close();
  store = undefined;
});

/** A store whose clock the test sets. */
async function storeAt(start: number) {
  const clock = { time: start };
  store = await openTestStore({ now: () => clock.time });
  return { store, clock };
}

function rowsOf(dump: Record<string, unknown[]>, id: string): string[] {
  return Object.entries(dump)
    .filter(([, rows]) => rows.some((row) => JSON.stringify(row).includes(id)))
    .map(([table]) => table);
}

describe("recently deleted", () => {
  it("keeps a deleted session for 30 days, then purges it with every row", async () => {
    const { store, clock } = await storeAt(1_700_000_000_000);
    const doomed = await createSession(store, { title: "Old notes" });
    const kept = await createSession(store, { title: "Kept" });
    await saveMessages(store, doomed.id, [userMessage("d1", "doomed words")]);
    await saveMounts(store, doomed.id, [{ mountId: "m1", messageId: "d1", snapshot: sampleSnapshot(1) }]);
    await saveMessages(store, kept.id, [userMessage("k1", "kept words")]);
    await deleteSession(store, doomed.id);

    clock.time += KEEP_DELETED_MS - 1;
    expect(await purgeExpired(store)).toBe(0);
    expect((await listDeletedSessions(store)).map((session) => session.id)).toEqual([doomed.id]);
    expect((await loadSession(store, doomed.id))?.messages.map((message) => message.id)).toEqual(["d1"]);

    clock.time += 2;
    expect(await purgeExpired(store)).toBe(1);
    expect(await listDeletedSessions(store)).toEqual([]);
    expect(rowsOf(await dumpDatabase(store.db), doomed.id)).toEqual([]);
    expect((await listSessions(store)).map((session) => session.id)).toEqual([kept.id]);
    expect((await loadSession(store, kept.id))?.messages).toHaveLength(1);
    expect(KEEP_DELETED_MS).toBe(30 * DAY);
  });

  it("Delete forever removes the session and its rows while every write fails with QuotaExceededError", async () => {
    const { store } = await storeAt(1_700_000_000_000);
    const big = await createSession(store, { title: "Big" });
    const other = await createSession(store, { title: "Other" });
    await saveMessages(store, big.id, [userMessage("b1", "x".repeat(10_000))]);
    await saveMounts(store, big.id, [{ mountId: "m1", messageId: "b1", snapshot: sampleSnapshot(2) }]);
    fault = quotaFault();
    fault.full = true;

    // A soft delete is a write: on a full store it fails, with the code the app shows.
    const error = await deleteSession(store, big.id).catch((caught) => caught);
    expect(error.code).toBe("quota-exceeded");
    expect((await getSession(store, big.id))?.deletedAt).toBeUndefined();

    // Delete forever only deletes.
    expect(await deleteSessionForever(store, big.id)).toBe(true);
    expect(rowsOf(await dumpDatabase(store.db), big.id)).toEqual([]);
    expect((await listSessions(store)).map((session) => session.id)).toEqual([other.id]);
    expect(await deleteSessionForever(store, big.id)).toBe(false);
  });

  it("a writer failing on a full store writes at once on retry, not after its backoff", async () => {
    const { store } = await storeAt(1_700_000_000_000);
    const session = await createSession(store, { title: "Chat" });
    const timer = new ManualTimer();
    const errors: string[] = [];
    let recovered = 0;
    const writer = createSessionWriter(store, session.id, {
      timer,
      onError: (info) => errors.push(info.code),
      onRecovered: () => (recovered += 1),
    });
    fault = quotaFault();
    fault.full = true;
    writer.markDirty(userMessage("u1", "first"));
    expect((await writer.flush()).ok).toBe(false);
    writer.markDirty(userMessage("u2", "second"));
    expect((await writer.flush()).ok).toBe(false);
    expect(errors).toEqual(["quota-exceeded", "quota-exceeded"]);
    expect(writer.failing).toBe(true);

    // Still full: a retry fails again and keeps the changes.
    expect((await writer.retry()).ok).toBe(false);
    expect(writer.pendingCount).toBe(2);

    // Space is back; no timer has fired (the backoff is seconds away), the retry writes now.
    fault.full = false;
    const scheduledBefore = timer.now();
    expect(await writer.retry()).toEqual({ ok: true });
    expect(timer.now()).toBe(scheduledBefore);
    expect(writer.failing).toBe(false);
    expect(recovered).toBe(1);
    expect((await loadSession(store, session.id))?.messages.map((message) => message.id)).toEqual(["u1", "u2"]);
    // Nothing failed: a retry has nothing to do.
    expect(await writer.retry()).toEqual({ ok: true });
    await writer.close();
  });
});
