/**
 * The realm's `storage` over its real request path (createHostRequests)
 * and the real host half (createAppData over a fake IndexedDB): values
 * JSON cannot keep are refused before anything is sent, with where and
 * why; a value over 1 MB too; a `get` right after a `set` sees it; big
 * values cross in parts.
 */
import { describe, expect, it } from "vitest";
import { createAppData } from "../../../../src/capabilities/storage/createAppData";
import { openTestStore } from "../../../../src/store/testSupport";
import { MAX_STORAGE_VALUE_BYTES, STORAGE_PART_CHARS } from "../../../../src/wire/capabilities";
import { CALL, RESULT } from "../../../../src/wire/constants";
import type { JsonValue } from "../../../../src/wire/mount";
import type { RealmMessage } from "../../../../src/wire/types";
import { createHostRequests, type HostRequests } from "../createHostRequests";
import { createRealmStorage, jsonProblem, StorageError } from "./storage";

async function setUp() {
  const store = await openTestStore();
  const data = createAppData();
  await data.open({ sessionId: "s1", store });
  const sent: { service: string; payload: JsonValue }[] = [];
  let requests: HostRequests;
  requests = createHostRequests((message: RealmMessage) => {
    if (message.type !== CALL) return;
    sent.push({ service: message.method, payload: message.payload });
    void Promise.resolve(
      data.services[message.method](message.payload, { signal: new AbortController().signal, service: message.method }),
    ).then(
      (value) => requests.receive({ type: RESULT, id: message.id, ok: true, value }),
      (error: { code: string; message: string }) =>
        requests.receive({
          type: RESULT,
          id: message.id,
          ok: false,
          error: { code: error.code, message: error.message },
        }),
    );
  });
  const { storage } = createRealmStorage(
    () => requests,
    () => undefined,
  );
  return { storage, sent, data, store };
}

describe("storage in the realm", () => {
  it("sets, gets, lists and deletes JSON values; undefined when absent", async () => {
    const { storage } = await setUp();
    expect(await storage.get("todos")).toBeUndefined();
    await storage.set("todos", [{ text: "milk", done: false }]);
    await storage.set("count", 3);
    expect(await storage.get("todos")).toEqual([{ text: "milk", done: false }]);
    expect(await storage.keys()).toEqual(["count", "todos"]);
    expect(await storage.keys("to")).toEqual(["todos"]);
    await storage.delete("count");
    expect(await storage.get("count")).toBeUndefined();
    expect(await storage.keys()).toEqual(["todos"]);
  });

  it("a get right after a set that was not awaited sees it (and keys too)", async () => {
    const { storage } = await setUp();
    void storage.set("draft", "v1");
    expect(await storage.get("draft")).toBe("v1");
    void storage.set("draft", "v2");
    void storage.delete("other");
    expect(await storage.get("draft")).toBe("v2");
    expect(await storage.keys()).toEqual(["draft"]);
  });

  it("gives each get its own copy", async () => {
    const { storage } = await setUp();
    await storage.set("list", [1]);
    const first = (await storage.get("list")) as number[];
    first.push(2);
    expect(await storage.get("list")).toEqual([1]);
  });

  it.each([
    ["a function", { onDone: () => 1 }, /value\.onDone is a function, which JSON cannot keep/],
    ["undefined", { note: undefined }, /value\.note is undefined, which JSON cannot keep \(use null/],
    ["NaN", [1, Number.NaN], /value\[1\] is NaN, which JSON cannot keep/],
    [
      "a Date",
      { due: new Date(0) },
      /value\.due is a Date, which JSON does not keep as it is \(store date\.toISOString\(\)/,
    ],
    ["a Map", new Map([["a", 1]]), /value is a Map, .*Object\.fromEntries\(map\)/],
    ["a BigInt", 10n, /value is a BigInt/],
  ])("refuses %s at set, saying where and why, and sends nothing", async (_, value, message) => {
    const { storage, sent } = await setUp();
    const error = await storage.set("k", value).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ code: "not-json" });
    expect((error as Error).message).toMatch(/^storage\.set\("k"\): /);
    expect((error as Error).message).toMatch(message);
    expect(sent).toEqual([]);
  });

  it("refuses a cycle", () => {
    const node: Record<string, unknown> = { name: "a" };
    node.self = node;
    expect(jsonProblem(node)).toMatch(/value\.self refers back to an object that contains it \(a cycle\)/);
    // The same object twice is not a cycle.
    const shared = { x: 1 };
    expect(jsonProblem({ a: shared, b: shared })).toBeUndefined();
  });

  it("refuses a value over 1 MB before sending it, naming the limit and storage.delete; keys are checked too", async () => {
    const { storage, sent } = await setUp();
    const error = await storage.set("big", "x".repeat(MAX_STORAGE_VALUE_BYTES)).catch((failure: unknown) => failure);
    expect(error).toMatchObject({ code: "too-large" });
    expect((error as Error).message).toMatch(/one value may be at most 1 MB\. .*storage\.delete\(key\)/);
    await expect(storage.set("k".repeat(257), 1)).rejects.toMatchObject({ code: "invalid-key" });
    await expect(storage.get(42 as unknown as string)).rejects.toThrow(/a key must be a string/);
    expect(sent).toEqual([]);
  });

  it("sends a large value in parts the port keeps whole, and reads it back", async () => {
    const { storage, sent } = await setUp();
    const value = { text: "y".repeat(700_000) };
    await storage.set("large", value);
    const parts = (sent[0].payload as { parts: string[] }).parts;
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(STORAGE_PART_CHARS);
    expect(await storage.get("large")).toEqual(value);
  });

  it("the host's refusal (the session's 10 MB) reaches the code with its words", async () => {
    const { storage } = await setUp();
    const chunk = "z".repeat(MAX_STORAGE_VALUE_BYTES - 100);
    for (let index = 0; index < 10; index += 1) await storage.set(`chunk${index}`, chunk);
    const error = await storage.set("one-more", chunk).catch((failure: unknown) => failure);
    expect(error).toMatchObject({ code: "session-full", name: "StorageError" });
    expect((error as Error).message).toMatch(/a session may keep at most 10 MB\. .*storage\.delete\(key\)/);
    // What the host refused is not what the realm shows.
    expect(await storage.get("one-more")).toBeUndefined();
  });
});
