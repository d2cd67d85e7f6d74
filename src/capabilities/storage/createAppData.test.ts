/**
 * The host half of `storage`: it trusts nothing in the payload (key, parts,
 * JSON, sizes are checked again), keeps each session's data to itself,
 * answers a write only once it is on disk, and commits the writes that
 * arrive together in one transaction.
 */
import { describe, expect, it, vi } from "vitest";
import * as appDataStore from "../../store/appData";
import { listAppData } from "../../store/appData";
import { openTestStore } from "../../store/testSupport";
import {
  MAX_STORAGE_SESSION_BYTES,
  MAX_STORAGE_VALUE_BYTES,
  STORAGE_DELETE,
  STORAGE_GET,
  STORAGE_KEYS,
  STORAGE_PART_CHARS,
  STORAGE_SET,
} from "../../wire/capabilities";
import type { JsonValue } from "../../wire/mount";
import { createAppData, uncommittedAppDataWrites, type AppData } from "./createAppData";

const context = (service: string) => ({ signal: new AbortController().signal, service });

function call(data: AppData, service: string, payload: unknown): Promise<JsonValue> {
  return Promise.resolve(data.services[service](payload as JsonValue, context(service)));
}

const set = (data: AppData, key: string, value: unknown) =>
  call(data, STORAGE_SET, { key, parts: [JSON.stringify(value)] });
const get = async (data: AppData, key: string) => {
  const { json } = (await call(data, STORAGE_GET, { key })) as { json: string | null };
  return json === null ? undefined : JSON.parse(json);
};

async function opened(sessionId = "s1") {
  const store = await openTestStore();
  const data = createAppData();
  await data.open({ sessionId, store });
  return { store, data };
}

describe("app data on the host", () => {
  it("keeps values per session, on disk, and answers get, keys and delete", async () => {
    const { store, data } = await opened();
    await set(data, "todos", ["milk", "eggs"]);
    await set(data, "todo:1", { done: false });
    expect(await get(data, "todos")).toEqual(["milk", "eggs"]);
    expect(await call(data, STORAGE_KEYS, { prefix: "todo:" })).toEqual({ keys: ["todo:1"] });
    expect(await call(data, STORAGE_KEYS, {})).toEqual({ keys: ["todo:1", "todos"] });
    expect((await listAppData(store, "s1")).map((row) => [row.key, JSON.parse(row.json)])).toEqual([
      ["todo:1", { done: false }],
      ["todos", ["milk", "eggs"]],
    ]);
    await call(data, STORAGE_DELETE, { key: "todos" });
    expect(await get(data, "todos")).toBeUndefined();
    expect((await listAppData(store, "s1")).map((row) => row.key)).toEqual(["todo:1"]);
    expect(data.getState()).toMatchObject({ sessionId: "s1", loaded: true, keys: [{ key: "todo:1" }] });

    // Another page (a reload) reads what is on disk.
    const reloaded = createAppData();
    await reloaded.open({ sessionId: "s1", store });
    expect(await get(reloaded, "todo:1")).toEqual({ done: false });
  });

  it("never lets a session reach another's data: the open session decides, never the payload", async () => {
    const store = await openTestStore();
    const data = createAppData();
    await data.open({ sessionId: "a", store });
    await set(data, "secret", "of a");
    await data.open({ sessionId: "b", store });
    expect(await get(data, "secret")).toBeUndefined();
    // A payload naming a session is read for its key only.
    await call(data, STORAGE_SET, { key: "x", parts: ['"of b"'], sessionId: "a" });
    expect((await listAppData(store, "a")).map((row) => row.key)).toEqual(["secret"]);
    expect((await listAppData(store, "b")).map((row) => row.key)).toEqual(["x"]);
    expect(await call(data, STORAGE_KEYS, { prefix: "" })).toEqual({ keys: ["x"] });
    await data.open(undefined);
    await expect(get(data, "x")).rejects.toMatchObject({ code: "no-session" });
  });

  it("keeps keys such as __proto__ and constructor as plain keys", async () => {
    const { store, data } = await opened();
    await set(data, "__proto__", { polluted: true });
    await set(data, "constructor", 1);
    expect(await get(data, "__proto__")).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await call(data, STORAGE_KEYS, {})).toEqual({ keys: ["__proto__", "constructor"] });
    expect((await listAppData(store, "s1")).map((row) => row.key)).toEqual(["__proto__", "constructor"]);
  });

  it("checks every payload again: keys, JSON text, parts the port cut, 1 MB a value, 10 MB a session", async () => {
    const { data } = await opened();
    await expect(call(data, STORAGE_SET, { key: 7, parts: ["1"] })).rejects.toMatchObject({ code: "invalid-key" });
    await expect(call(data, STORAGE_SET, { key: "k".repeat(257), parts: ["1"] })).rejects.toMatchObject({
      code: "invalid-key",
      message: expect.stringContaining("at most 256 characters"),
    });
    await expect(call(data, STORAGE_SET, { key: "a", parts: ["{not json"] })).rejects.toMatchObject({
      code: "not-json",
    });
    await expect(call(data, STORAGE_SET, { key: "a", parts: [{ toString: "1" }] })).rejects.toMatchObject({
      code: "not-json",
    });
    // A part longer than the realm ever sends is a part the port cut (or a lie).
    await expect(
      call(data, STORAGE_SET, { key: "a", parts: [`"${"x".repeat(STORAGE_PART_CHARS)}"`] }),
    ).rejects.toMatchObject({ code: "not-json" });
    // Over 1 MB in parts that each look fine.
    const big = `"${"é".repeat(MAX_STORAGE_VALUE_BYTES / 2)}"`;
    const parts: string[] = [];
    for (let start = 0; start < big.length; start += STORAGE_PART_CHARS)
      parts.push(big.slice(start, start + STORAGE_PART_CHARS));
    const error = await call(data, STORAGE_SET, { key: "big", parts }).catch((failure: unknown) => failure);
    expect(error).toMatchObject({ code: "too-large" });
    expect((error as Error).message).toMatch(
      /storage\.set\("big"\): the value is more than 1 MB as JSON; one value may be at most 1 MB.*storage\.delete\(key\)/,
    );

    // 10 values of ~1 MB fill the session; the eleventh is refused, naming the limit and storage.delete.
    const chunk = `"${"x".repeat(MAX_STORAGE_VALUE_BYTES - 100)}"`;
    const chunkParts: string[] = [];
    for (let start = 0; start < chunk.length; start += STORAGE_PART_CHARS)
      chunkParts.push(chunk.slice(start, start + STORAGE_PART_CHARS));
    for (let index = 0; index < 10; index += 1)
      await call(data, STORAGE_SET, { key: `part${index}`, parts: chunkParts });
    const full = await call(data, STORAGE_SET, { key: "part10", parts: chunkParts }).catch(
      (failure: unknown) => failure,
    );
    expect(full).toMatchObject({ code: "session-full" });
    expect((full as Error).message).toMatch(
      /at most 10 MB\. Remove keys you no longer need with storage\.delete\(key\)/,
    );
    expect(data.getState().bytes).toBeLessThanOrEqual(MAX_STORAGE_SESSION_BYTES);
    // Replacing a key counts its new size, not both.
    await call(data, STORAGE_SET, { key: "part9", parts: chunkParts });
    await call(data, STORAGE_DELETE, { key: "part9" });
    await call(data, STORAGE_SET, { key: "part10", parts: chunkParts });
  });

  it("sees a set at once, answers it once committed, and commits the writes that arrive together in one transaction", async () => {
    const store = await openTestStore();
    const commits: (() => void)[] = [];
    const data = createAppData({ schedule: (commit) => commits.push(commit) });
    await data.open({ sessionId: "s1", store });
    const write = vi.spyOn(appDataStore, "writeAppData");
    let answered = 0;
    const writes = [set(data, "a", 1), set(data, "b", 2), call(data, STORAGE_DELETE, { key: "a" })].map((promise) =>
      promise.then(() => (answered += 1)),
    );
    // Not committed yet: nothing is answered, but a get already sees the writes.
    expect(await get(data, "b")).toBe(2);
    expect(await get(data, "a")).toBeUndefined();
    expect(answered).toBe(0);
    expect(commits).toHaveLength(1);
    commits.shift()!();
    await Promise.all(writes);
    expect(answered).toBe(3);
    expect(write).toHaveBeenCalledTimes(1);
    expect((await listAppData(store, "s1")).map((row) => row.key)).toEqual(["b"]);
    write.mockRestore();
  });

  it("Erase app data removes every key of the open session, after the writes already queued", async () => {
    const store = await openTestStore();
    const data = createAppData();
    await data.open({ sessionId: "other", store });
    await set(data, "kept", true);
    await data.open({ sessionId: "s1", store });
    await set(data, "a", 1);
    const late = set(data, "b", 2);
    const erasing = data.erase();
    // Pending until on disk: the test probe (and so a reload in a browser test) waits for it.
    expect(uncommittedAppDataWrites()).toBeGreaterThan(0);
    await erasing;
    await late;
    expect(uncommittedAppDataWrites()).toBe(0);
    expect(await listAppData(store, "s1")).toEqual([]);
    expect(data.getState()).toMatchObject({ keys: [], bytes: 0 });
    expect(await get(data, "b")).toBeUndefined();
    expect((await listAppData(store, "other")).map((row) => row.key)).toEqual(["kept"]);
  });
});
