/**
 * A session opens on its newest messages (issue 34 §1): `openSession` reads
 * the last OPEN_NEWEST in one short read, `readOlder` hands the rest over a
 * page at a time, the newest page first. Together they are what
 * `loadSession` reads, rows left behind by versions included, and an export
 * taken while the older ones are still being read has every message.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "../agent/types";
import { editedTimeline } from "../agent/messageActions";
import { exportSession } from "./exportImport";
import { createSession, loadSession, openSession, OPEN_NEWEST, saveMessages, saveMounts } from "./sessions";
import type { Store } from "./store";
import { conversation, openTestStore, sampleSnapshot, userMessage } from "./testSupport";

let store: Store | undefined;
afterEach(() => store?.db.close());

async function fresh(): Promise<Store> {
  store = await openTestStore();
  return store;
}

const ids = (messages: readonly ChatMessage[]) => messages.map((message) => message.id);

/** Every page `readOlder` hands over, in the order it does. */
async function olderPages(opened: NonNullable<Awaited<ReturnType<typeof openSession>>>): Promise<ChatMessage[][]> {
  const pages: ChatMessage[][] = [];
  await opened.readOlder((page) => void pages.push(page));
  return pages;
}

describe("openSession", () => {
  it("reads the newest messages first, then the older ones newest page first; together they are loadSession's", async () => {
    const s = await fresh();
    const other = await createSession(s);
    await saveMessages(s, other.id, conversation(5, "o"));
    const session = await createSession(s);
    const messages = conversation(450);
    await saveMessages(s, session.id, messages);
    await saveMounts(s, session.id, [{ mountId: "mount-1", messageId: "m3", snapshot: sampleSnapshot(1) }]);

    const opened = (await openSession(s, session.id))!;
    expect(opened.session.id).toBe(session.id);
    expect(ids(opened.messages)).toEqual(ids(messages.slice(-OPEN_NEWEST)));
    expect(opened.messages).toEqual(messages.slice(-OPEN_NEWEST));
    // Mount snapshots come with the first read, for any message.
    expect(opened.mounts.map((mount) => mount.mountId)).toEqual(["mount-1"]);
    expect(opened.hasOlder).toBe(true);

    const pages = await olderPages(opened);
    // 410 older messages, 200 a request, the newest first: 210-409, 10-209, 0-9.
    expect(pages.map((page) => [page[0].id, page.length])).toEqual([
      ["m210", 200],
      ["m10", 200],
      ["m0", 10],
    ]);
    const whole = [...pages.reverse().flat(), ...opened.messages];
    expect(whole).toEqual((await loadSession(s, session.id))!.messages);
    expect(whole).toEqual(messages);
    // What was handed over counts as saved: handing it all back writes nothing.
    expect(await saveMessages(s, session.id, whole)).toBe(0);
    expect(await openSession(s, "nope")).toBeUndefined();
  });

  it("a session no longer than OPEN_NEWEST is whole in the first read", async () => {
    const s = await fresh();
    for (const count of [0, 1, OPEN_NEWEST]) {
      const session = await createSession(s);
      await saveMessages(s, session.id, conversation(count));
      const opened = (await openSession(s, session.id))!;
      expect(ids(opened.messages)).toEqual(ids(conversation(count)));
      expect(opened.hasOlder).toBe(false);
      expect(await olderPages(opened)).toEqual([]);
    }
  });

  it("a message written while the older ones are read goes after the others, and an export then has every message", async () => {
    const s = await fresh();
    const session = await createSession(s);
    const messages = conversation(300);
    await saveMessages(s, session.id, messages);
    const opened = (await openSession(s, session.id))!;
    // The person sends at once: the write-behind saves the new message before any older one is read.
    await saveMessages(s, session.id, [...opened.messages, userMessage("new", "sent while opening")]);
    // Export while the older messages are still being read (one page read, the rest not yet).
    const firstPage: ChatMessage[][] = [];
    await opened.readOlder((page) => {
      firstPage.push(page);
      return false;
    });
    expect(firstPage.map((page) => page.length)).toEqual([200]);
    const exported = await exportSession(s, session.id);
    expect(ids(exported.messages)).toEqual([...ids(messages), "new"]);
    expect(ids((await loadSession(s, session.id))!.messages)).toEqual([...ids(messages), "new"]);
  });

  it("reads past rows a later row keeps as a version, as loadSession does, wherever the page boundary falls", async () => {
    const s = await fresh();
    const session = await createSession(s);
    const original = conversation(30);
    await saveMessages(s, session.id, original);
    const edited = editedTimeline(original, "m2", "edited", () => ({ id: "e2", createdAt: 50 }))!;
    // Written, but the page went before the rows it hides were removed: rows m2…m29 are still there.
    await saveMessages(s, session.id, edited);
    const loaded = (await loadSession(s, session.id))!;
    expect(ids(loaded.messages)).toEqual(["m0", "m1", "e2"]);
    for (const newest of [1, 2, 5, 40]) {
      const opened = (await openSession(s, session.id, newest))!;
      const whole = [...(await olderPages(opened)).reverse().flat(), ...opened.messages];
      expect(whole).toEqual(loaded.messages);
    }
  });
});
