import { afterEach, describe, expect, it } from "vitest";
import { exportSession } from "./exportImport";
import { createSession, saveMessages, saveMounts } from "./sessions";
import { MAX_SHARE_LENGTH, SHARE_PREFIX, createShareLink, decodeShare, encodeShare } from "./share";
import type { Store } from "./store";
import { conversation, dumpDatabase, openTestStore, sampleSnapshot, userMessage } from "./testSupport";

let store: Store | undefined;
afterEach(() => store?.db.close());

async function deflate(text: string): Promise<string> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  return Buffer.from(bytes).toString("base64url");
}

describe("share links", () => {
  it("round-trips a small session through the URL fragment, without touching the database", async () => {
    store = await openTestStore();
    const session = await createSession(store, { title: "Shared chart" });
    await saveMessages(store, session.id, conversation(8));
    await saveMounts(store, session.id, [{ mountId: "mount-1", messageId: "m1", snapshot: sampleSnapshot(1) }]);
    const document = await exportSession(store, session.id);
    const encoded = await encodeShare(document);
    if (!encoded.ok) throw new Error(encoded.error.message);
    expect(encoded.fragment.startsWith(SHARE_PREFIX)).toBe(true);
    expect(encoded.fragment).toMatch(/^#share=[A-Za-z0-9_-]+$/);

    const link = await createShareLink(store, session.id, "https://livemark.example/app/?x=1#old-fragment");
    if (!link.ok) throw new Error(link.error.message);
    expect(link.url.startsWith("https://livemark.example/app/?x=1#share=")).toBe(true);

    const before = await dumpDatabase(store.db);
    const decoded = await decodeShare(link.url);
    expect(decoded).toEqual({ ok: true, document: { ...document, exportedAt: expect.any(String) } });
    expect(await decodeShare(encoded.fragment)).toEqual({ ok: true, document });
    expect(await dumpDatabase(store.db)).toEqual(before);
  });

  it("says clearly when a session is too big for a link", async () => {
    store = await openTestStore();
    const session = await createSession(store);
    // Incompressible text: random characters.
    let noise = "";
    for (let index = 0; index < 60_000; index += 1) noise += String.fromCharCode(33 + Math.floor(Math.random() * 90));
    await saveMessages(store, session.id, [userMessage("u1", noise)]);
    const result = await encodeShare(await exportSession(store, session.id));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe("share-too-large");
      expect(result.error.message).toMatch(
        /too big for a share link: it takes \d+ KB compressed and a link holds at most 32 KB\. Use Export/,
      );
    }
  });

  it("refuses damaged, hostile and oversized links with a plain reason", async () => {
    const cases: [string, string][] = [
      ["https://livemark.example/#other", "share-invalid"],
      ["#share=", "share-invalid"],
      ["#share=abc$%", "share-invalid"],
      ["#share=A", "share-invalid"],
      ["#share=" + "A".repeat(MAX_SHARE_LENGTH + 1), "share-too-large"],
      ["#share=" + Buffer.from("not deflate at all").toString("base64url"), "share-invalid"],
    ];
    for (const [fragment, code] of cases) {
      const result = await decodeShare(fragment);
      expect(result.ok, fragment.slice(0, 40)).toBe(false);
      if (!result.ok) expect(result.error.code, fragment.slice(0, 40)).toBe(code);
    }
    // Valid compression, but not JSON / not a session / hostile: the import validator answers.
    const notJson = await decodeShare("#share=" + (await deflate("hello")));
    expect(notJson).toMatchObject({ ok: false, error: { code: "not-json" } });
    const backup = await decodeShare(
      "#share=" +
        (await deflate(
          JSON.stringify({ format: "livemark.backup", version: 1, exportedAt: "2025-01-01T00:00:00Z", sessions: [] }),
        )),
    );
    expect(backup).toMatchObject({ ok: false, error: { code: "wrong-format" } });
    const polluted = await decodeShare(
      "#share=" + (await deflate('{"format":"livemark.session","version":1,"__proto__":{"x":1}}')),
    );
    expect(polluted).toMatchObject({ ok: false, error: { code: "forbidden-key", path: "$.__proto__" } });
    const future = await decodeShare("#share=" + (await deflate('{"format":"livemark.session","version":7}')));
    expect(future).toMatchObject({ ok: false, error: { code: "unsupported-version" } });
    // A tiny link that inflates to megabytes is refused while inflating.
    const bomb = await deflate(" ".repeat(8 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(MAX_SHARE_LENGTH);
    expect(await decodeShare("#share=" + bomb)).toMatchObject({ ok: false, error: { code: "share-too-large" } });
    // Cut short while copying.
    const good = await deflate(JSON.stringify({ format: "livemark.session", version: 1 }).repeat(3));
    const cut = await decodeShare("#share=" + good.slice(0, Math.floor(good.length / 2)));
    expect(cut.ok).toBe(false);
  });
});
