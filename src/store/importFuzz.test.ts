import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportSession, importFile, serializeExport } from "./exportImport";
import { parseExportText, type SessionExport } from "./exportSchema";
import { FORBIDDEN_KEYS, formatPath, IMPORT_LIMITS, type ImportErrorCode, type PathSegment } from "./safeJson";
import { createSession, saveMessages, saveMounts } from "./sessions";
import type { Store } from "./store";
import { addAuditEntry, addGrant } from "./capabilities";
import { conversation, dumpDatabase, openTestStore, sampleSnapshot } from "./testSupport";

/**
 * Hostile and broken files: each must be refused with an error that names
 * where the problem is, and the database must be exactly as before.
 */

let store: Store;
let valid: SessionExport;
let validText: string;
let baseline: Record<string, unknown[]>;

beforeAll(async () => {
  store = await openTestStore();
  const session = await createSession(store, { title: "Fuzz base" });
  await saveMessages(store, session.id, conversation(12));
  await saveMounts(store, session.id, [{ mountId: "mount-1", messageId: "m1", snapshot: sampleSnapshot(1) }]);
  await addGrant(store, { sessionId: session.id, capability: "network", host: "api.example.com", grantedAt: 1 });
  await addAuditEntry(store, {
    sessionId: session.id,
    at: 2,
    capability: "network",
    method: "GET",
    url: "https://api.example.com/",
    decision: "allowed-host",
  });
  valid = await exportSession(store, session.id);
  validText = serializeExport(valid);
  baseline = await dumpDatabase(store.db);
});

afterAll(() => store.db.close());

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value));

function setAt(root: unknown, path: PathSegment[], value: unknown): void {
  let current = root as Record<PathSegment, unknown>;
  for (const segment of path.slice(0, -1)) current = current[segment] as Record<PathSegment, unknown>;
  current[path.at(-1)!] = value;
}

function deleteAt(root: unknown, path: PathSegment[]): void {
  let current = root as Record<PathSegment, unknown>;
  for (const segment of path.slice(0, -1)) current = current[segment] as Record<PathSegment, unknown>;
  delete current[path.at(-1)!];
}

async function expectRefused(text: string | Blob, code: ImportErrorCode, path?: string, pathInMessage = true) {
  const result = await importFile(store, text);
  expect(result.ok, "should be refused").toBe(false);
  if (result.ok) return;
  expect(result.error.code).toBe(code);
  if (path !== undefined) {
    expect(result.error.path).toBe(path);
    if (pathInMessage) expect(result.error.message).toContain(path);
  }
  expect(result.error.message).toMatch(/\S/);
  return result.error;
}

async function expectUnchanged() {
  expect(await dumpDatabase(store.db)).toEqual(baseline);
}

describe("import refuses broken and hostile files, changing nothing", () => {
  it("accepts the unmodified base file (control), then the database is reset", async () => {
    expect(parseExportText(validText).ok).toBe(true);
    expect(parseExportText("\uFEFF" + validText).ok).toBe(true);
  });

  it("names the format and the version of files it cannot read", async () => {
    const wrongVersion = { ...clone(valid), version: 7 };
    const error = await expectRefused(JSON.stringify(wrongVersion), "unsupported-version", "$.version", false);
    expect(error?.message).toBe(
      "This is a livemark.session version 7 file; this app reads version 1. Open it with a newer Livemark.",
    );
    await expectRefused(JSON.stringify({ ...clone(valid), version: "1" }), "unsupported-version", "$.version");
    await expectRefused(JSON.stringify({ ...clone(valid), version: 0 }), "unsupported-version", "$.version", false);
    await expectRefused(JSON.stringify({ ...clone(valid), format: "chatgpt.export" }), "wrong-format", "$.format");
    await expectRefused(JSON.stringify({ messages: [] }), "wrong-format", "$.format");
    for (const root of ["[]", '"text"', "null", "42", "true"]) await expectRefused(root, "wrong-format", "$", false);
    await expectUnchanged();
  });

  it("refuses empty, non-JSON and truncated files", async () => {
    await expectRefused("", "empty");
    await expectRefused("   \n ", "empty");
    const notJson = await expectRefused("format: livemark.session", "not-json");
    expect(notJson?.message).toMatch(/line 1, column 1/);
    const badComma = await expectRefused('{\n  "format": "livemark.session",\n}', "not-json");
    expect(badComma?.message).toMatch(/line 3, column 1/);
    for (const fraction of [0.01, 0.1, 0.33, 0.5, 0.77, 0.99]) {
      const cut = validText.slice(0, Math.floor(validText.length * fraction));
      const error = await expectRefused(cut, "truncated");
      expect(error?.message).toMatch(/cut off/);
    }
    await expectRefused(validText.slice(0, -1), "truncated");
    await expectUnchanged();
  });

  it("refuses oversized files before reading them", async () => {
    const huge = " ".repeat(IMPORT_LIMITS.maxLength + 1);
    const error = await expectRefused(huge, "too-large");
    expect(error?.message).toMatch(/50 MB/);
    await expectRefused(new Blob([huge]), "too-large");
    const longText = clone(valid);
    setAt(longText, ["messages", 0, "text"], "x".repeat(IMPORT_LIMITS.maxStringLength + 1));
    await expectRefused(JSON.stringify(longText), "string-too-long", "$.messages[0].text");
    const tooMany = clone(valid);
    tooMany.messages = Array.from({ length: 100_001 }, (_, index) => ({
      id: `u${index}`,
      role: "user",
      text: "",
      createdAt: 1,
    }));
    const error2 = await expectRefused(JSON.stringify(tooMany), "invalid", "$.messages");
    expect(error2?.message).toMatch(/at most 100000 items/);
    await expectUnchanged();
  }, 60_000);

  it("refuses prototype-pollution keys anywhere, and pollutes nothing", async () => {
    const places: [PathSegment[], string][] = [
      [[], "__proto__"],
      [["session"], "constructor"],
      [["messages", 2], "__proto__"],
      [["messages", 1, "reply", "blocks", 1], "prototype"],
      [["mounts", 0, "snapshot", "nodes", 3, "props"], "__proto__"],
      [["audit", 0], "constructor"],
    ];
    for (const [at, key] of places) {
      // Written as text: JSON.stringify of an object literal would drop a real __proto__.
      const marker = `"__marker__":1`;
      const document = clone(valid);
      setAt(document, [...at, "__marker__"], 1);
      const text = JSON.stringify(document).replace(marker, `${JSON.stringify(key)}:{"polluted":true,"isAdmin":true}`);
      await expectRefused(text, "forbidden-key", formatPath([...at, key]));
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(FORBIDDEN_KEYS.size).toBe(3);
    await expectUnchanged();
  });

  it("refuses script strings where only ids belong, and keeps them as inert text elsewhere", async () => {
    const script = "<script>alert(document.cookie)</script>";
    for (const path of [
      ["session", "id"],
      ["messages", 0, "id"],
      ["mounts", 0, "mountId"],
      ["mounts", 0, "messageId"],
    ] as PathSegment[][]) {
      const document = clone(valid);
      setAt(document, path, script);
      const error = await expectRefused(JSON.stringify(document), "invalid", formatPath(path));
      expect(error?.expected).toMatch(/letters, digits/);
    }
    const javascriptUrl = clone(valid);
    setAt(javascriptUrl, ["audit", 0, "method"], "<img src=x onerror=alert(1)>");
    await expectRefused(JSON.stringify(javascriptUrl), "invalid", "$.audit[0].method");
    await expectUnchanged();
    // In message text a script is just text the person may have asked about: imported, and marked as from outside.
    const inText = clone(valid);
    setAt(inText, ["messages", 0, "text"], script);
    expect(parseExportText(JSON.stringify(inText)).ok).toBe(true);
  });

  it("refuses deep nesting and non-finite numbers", async () => {
    const deep = clone(valid);
    setAt(deep, ["mounts", 0, "snapshot"], "__DEEP__");
    const text = JSON.stringify(deep).replace('"__DEEP__"', `${"[".repeat(10_000)}"bottom"${"]".repeat(10_000)}`);
    const error = await expectRefused(text, "too-deep");
    expect(error?.path).toMatch(/^\$\.mounts\[0\]\.snapshot(\[0\])+$/);
    const infinite = JSON.stringify(valid).replace(/"createdAt":\d+/, '"createdAt":1e999');
    await expectRefused(infinite, "invalid", "$.session.createdAt");
    await expectUnchanged();
  });

  it("refuses duplicate ids and mounts pointing nowhere", async () => {
    const duplicate = clone(valid);
    setAt(duplicate, ["messages", 5, "id"], duplicate.messages[2].id);
    const error = await expectRefused(JSON.stringify(duplicate), "duplicate-id", "$.messages[5].id");
    expect(error?.message).toContain("$.messages[2]");
    const dangling = clone(valid);
    setAt(dangling, ["mounts", 0, "messageId"], "no-such-message");
    await expectRefused(JSON.stringify(dangling), "unknown-reference", "$.mounts[0].messageId");
    await expectUnchanged();
  });

  it("names every field given the wrong type, and every required field left out", async () => {
    const leaves: PathSegment[][] = [];
    const walk = (value: unknown, path: PathSegment[]) => {
      if (path.includes("snapshot")) return; // the mount tree is free-form JSON
      if (value !== null && typeof value === "object") {
        for (const [key, child] of Object.entries(value))
          walk(child, [...path, Array.isArray(value) ? Number(key) : key]);
      } else {
        leaves.push(path);
      }
    };
    walk(valid, []);
    expect(leaves.length).toBeGreaterThan(100);
    const wrongFor = (value: unknown): unknown =>
      typeof value === "string" ? 42 : typeof value === "number" ? "42" : typeof value === "boolean" ? "yes" : 0;
    for (const path of leaves) {
      const document = clone(valid) as unknown;
      let original: unknown = document;
      for (const segment of path) original = (original as Record<PathSegment, unknown>)[segment];
      setAt(document, path, wrongFor(original));
      const result = parseExportText(JSON.stringify(document));
      expect(result.ok, formatPath(path)).toBe(false);
      if (result.ok) continue;
      expect(result.error.path, formatPath(path)).toBe(formatPath(path));
      expect(result.error.message).toContain(formatPath(path));
      expect(result.error.expected).toBeTruthy();
      // Only object fields can be left out; array items and optional fields are skipped.
      if (typeof path.at(-1) === "string") {
        const without = clone(valid) as unknown;
        deleteAt(without, path);
        const missing = parseExportText(JSON.stringify(without));
        if (!missing.ok) {
          expect(missing.error.path, `missing ${formatPath(path)}`).toBe(formatPath(path));
          expect(missing.error.message).toMatch(/missing|expected/);
        }
      }
    }
    // Required fields really are required (a sample that must fail when missing).
    for (const path of [
      ["session", "title"],
      ["messages", 0, "role"],
      ["messages", 1, "reply"],
      ["mounts", 0, "updatedAt"],
      ["exportedAt"],
    ] as PathSegment[][]) {
      const without = clone(valid) as unknown;
      deleteAt(without, path);
      const result = parseExportText(JSON.stringify(without));
      expect(result.ok, formatPath(path)).toBe(false);
      if (!result.ok) expect(result.error.path).toBe(formatPath(path));
    }
    // Wrong container types.
    for (const [path, value] of [
      [["messages"], {}],
      [["session"], []],
      [["messages", 1, "reply", "blocks"], "none"],
      [["session", "settings", "allowedHosts"], "all"],
    ] as [PathSegment[], unknown][]) {
      const document = clone(valid);
      setAt(document, path, value);
      const result = parseExportText(JSON.stringify(document));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.path).toBe(formatPath(path));
    }
    await expectUnchanged();
  });

  it("refuses unknown fields where the format is strict", async () => {
    for (const path of [[], ["session"], ["session", "settings"], ["mounts", 0]] as PathSegment[][]) {
      const document = clone(valid);
      setAt(document, [...path, "apiKey"], "sk-smuggled");
      const error = await expectRefused(JSON.stringify(document), "invalid", formatPath([...path, "apiKey"]));
      expect(error?.message).toMatch(/unexpected field "apiKey"/);
    }
    await expectUnchanged();
  });

  it("never throws and never writes, whatever JSON it is given", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), async (value) => {
        const result = await importFile(store, JSON.stringify(value) ?? "null");
        expect(result.ok).toBe(false);
      }),
      { numRuns: 300 },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (text) => {
        const result = await importFile(store, text);
        expect(result.ok).toBe(false);
      }),
      { numRuns: 300 },
    );
    await expectUnchanged();
  });

  it("never throws on random damage to a valid file, and changes nothing when it refuses", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), fc.string({ maxLength: 8 }), async (start, length, insert) => {
        const from = start % validText.length;
        const damaged = validText.slice(0, from) + insert + validText.slice(from + (length % 16));
        const before = await store.db.sessions.count();
        const result = await importFile(store, damaged);
        if (!result.ok) {
          expect(await store.db.sessions.count()).toBe(before);
          expect(result.error.message).toMatch(/\S/);
        } else {
          // Harmless damage (inside a text): it imported as a new session; undo that for the next run.
          for (const imported of result.sessions) {
            await store.db.transaction("rw", store.db.tables, async () => {
              await store.db.sessions.delete(imported.id);
              await store.db.messages
                .where("[sessionId+order]")
                .between([imported.id, 0], [imported.id, Infinity])
                .delete();
              await store.db.mounts.where("sessionId").equals(imported.id).delete();
              await store.db.audit.where("sessionId").equals(imported.id).delete();
              await store.db.searchText.where("sessionId").equals(imported.id).delete();
            });
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
