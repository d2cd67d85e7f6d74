/**
 * `storage` and `useStored` in the realm (issue 28 §1): app data the host
 * keeps for the session in IndexedDB, through its host services
 * (STORAGE_GET/SET/DELETE/KEYS). Values are JSON: `set` checks the value
 * here first (a function, a cycle, `undefined`, NaN, a Map… is refused with
 * where it is and why; over 1 MB too) and sends its JSON text; the host
 * checks everything again and answers once the write is on disk.
 *
 * Consistency: what this realm set or deleted is known here at once (a
 * `get` right after a `set` that was not awaited sees it), and every
 * `useStored` of the key, in every mount, re-renders with it.
 */
import {
  STORAGE_DELETE,
  STORAGE_GET,
  STORAGE_KEYS,
  STORAGE_PART_CHARS,
  STORAGE_SET,
  MAX_STORAGE_VALUE_BYTES,
  type StorageGetResponse,
  type StorageKeysResponse,
  type StorageSetPayload,
} from "../../../../src/wire/capabilities";
import { keyProblem, storageCall, utf8Bytes, valueTooLarge, type StorageErrorCode } from "../../../../src/wire/appData";
import type { JsonValue } from "../../../../src/wire/mount";
import type { HostRequests } from "../createHostRequests";

/** What a failed `storage` call rejects with; `code` says how (branch on it, not on the message). */
export class StorageError extends Error {
  override readonly name = "StorageError";
  constructor(
    readonly code: StorageErrorCode | (string & {}),
    message: string,
  ) {
    super(message);
  }
}

/** Why `value` would not come back the same from JSON, with where it is (`value.items[2].due`); undefined when it would. */
export function jsonProblem(value: unknown): string | undefined {
  const seen = new Set<object>();
  const visit = (item: unknown, path: string): string | undefined => {
    switch (typeof item) {
      case "string":
      case "boolean":
        return undefined;
      case "number":
        return Number.isFinite(item) ? undefined : `${path} is ${item}, which JSON cannot keep (it becomes null)`;
      case "undefined":
        return `${path} is undefined, which JSON cannot keep (use null, or leave the field out)`;
      case "function":
        return `${path} is a function, which JSON cannot keep (store data, not code)`;
      case "symbol":
        return `${path} is a symbol, which JSON cannot keep`;
      case "bigint":
        return `${path} is a BigInt, which JSON cannot keep (store it as a string)`;
    }
    if (item === null) return undefined;
    const object = item as object;
    if (seen.has(object)) return `${path} refers back to an object that contains it (a cycle), which JSON cannot keep`;
    if (Array.isArray(object)) {
      seen.add(object);
      for (let index = 0; index < object.length; index += 1) {
        if (!(index in object)) return `${path}[${index}] is an empty slot, which JSON cannot keep (it becomes null)`;
        const found = visit(object[index], `${path}[${index}]`);
        if (found) return found;
      }
      seen.delete(object);
      return undefined;
    }
    const prototype = Object.getPrototypeOf(object) as object | null;
    if (prototype !== Object.prototype && prototype !== null) {
      const kind = (object as { constructor?: { name?: unknown } }).constructor?.name;
      const name = typeof kind === "string" && kind !== "" ? kind : "an object with a class";
      const hint =
        object instanceof Date
          ? " (store date.toISOString() and rebuild it with new Date(…) when you read it)"
          : object instanceof Map
            ? " (store Object.fromEntries(map) or [...map])"
            : object instanceof Set
              ? " (store [...set])"
              : " (store a plain object or array)";
      return `${path} is a ${name}, which JSON does not keep as it is${hint}`;
    }
    seen.add(object);
    for (const key of Object.keys(object)) {
      const found = visit(
        (object as Record<string, unknown>)[key],
        `${path}${/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`}`,
      );
      if (found) return found;
    }
    seen.delete(object);
    return undefined;
  };
  return visit(value, "value");
}

/** The value's JSON text, checked; throws the StorageError `set` rejects with. */
export function toStoredJson(key: string, value: unknown): string {
  const problem = jsonProblem(value);
  if (problem) throw new StorageError("not-json", `${storageCall("set", key)}: ${problem}`);
  const json = JSON.stringify(value);
  // A cheap bound first: UTF-8 has at least one byte a character.
  const bytes = json.length > MAX_STORAGE_VALUE_BYTES ? json.length : utf8Bytes(json);
  if (bytes > MAX_STORAGE_VALUE_BYTES) throw new StorageError("too-large", valueTooLarge(key, utf8Bytes(json)));
  return json;
}

function parts(json: string): string[] {
  const cut: string[] = [];
  for (let start = 0; start < json.length; start += STORAGE_PART_CHARS)
    cut.push(json.slice(start, start + STORAGE_PART_CHARS));
  return cut;
}

/** React's `useState`, `useEffect`, `useRef` as the realm's UI gives them (their setters note the UI event that calls them). */
export interface StorageHooks {
  useState<S>(initial: S | (() => S)): [S, (next: S | ((previous: S) => S)) => void];
  useEffect(effect: () => void | (() => void), deps?: readonly unknown[]): void;
}

export interface RealmStorage {
  /** The host erased the session's app data: forget what this realm knew, redraw every `useStored` (not a global). */
  erased(): void;
  storage: {
    get(key: string): Promise<unknown>;
    set(key: string, value: unknown): Promise<void>;
    delete(key: string): Promise<void>;
    keys(prefix?: string): Promise<string[]>;
  };
  useStored: <T>(key: string, initial: T) => [T, (next: T | ((previous: T) => T)) => void];
}

/** What is known here of a key: its JSON text, or absent (`null`). */
type Known = { json: string | null };

export function createRealmStorage(
  requests: () => HostRequests | undefined,
  hooks: () => StorageHooks | undefined,
): RealmStorage {
  /** Keys this realm set or deleted, or loaded for a `useStored`: their latest value as this realm knows it. */
  const known = new Map<string, Known>();
  /** Writes sent and not yet answered, by key (a count: several may be in flight). */
  const inFlight = new Map<string, number>();
  /** Each key's `useStored` subscribers. */
  const watchers = new Map<string, Set<() => void>>();
  /** Parsed values, so a render reads the same object while the text is the same. */
  const parsed = new Map<string, { json: string; value: unknown }>();
  /** Keys whose value is being fetched for a `useStored`. */
  const loading = new Set<string>();

  const host = (method: string, key: unknown): HostRequests => {
    const connected = requests();
    if (!connected) throw new StorageError("failed", `${storageCall(method, key)}: the realm is not connected`);
    return connected;
  };

  const failure = (method: string, key: unknown, error: unknown): StorageError => {
    const { code, message } = error as { code?: string; message?: string };
    return new StorageError(code ?? "failed", message ?? `${storageCall(method, key)} failed: ${String(error)}`);
  };

  function checkKey(method: string, key: unknown): string {
    const problem = keyProblem(method, key);
    if (problem) throw new StorageError("invalid-key", problem);
    return key as string;
  }

  function learn(key: string, value: Known): void {
    known.set(key, value);
    for (const watcher of watchers.get(key) ?? []) watcher();
  }

  function valueOf(key: string, json: string): unknown {
    const cached = parsed.get(key);
    if (cached?.json === json) return cached.value;
    const value: unknown = JSON.parse(json);
    parsed.set(key, { json, value });
    return value;
  }

  async function write(method: "set" | "delete", key: string, send: () => Promise<unknown>): Promise<void> {
    inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
    let refused = false;
    try {
      await send();
    } catch (error) {
      refused = true;
      throw failure(method, key, error);
    } finally {
      const left = (inFlight.get(key) ?? 1) - 1;
      if (left > 0) inFlight.set(key, left);
      else {
        inFlight.delete(key);
        // Nobody shows it, or the host refused it: what the host has is the truth again.
        if (!watchers.has(key)) known.delete(key);
        else if (refused) {
          known.delete(key);
          load(key);
        }
      }
    }
  }

  const storage: RealmStorage["storage"] = {
    async get(key) {
      checkKey("get", key);
      // A write of this realm not yet answered is newer than anything the host could say; otherwise the
      // host's answer is the truth (the person may have erased the data meanwhile).
      const local = inFlight.has(key) ? known.get(key) : undefined;
      if (local) return local.json === null ? undefined : JSON.parse(local.json);
      let answer: StorageGetResponse;
      try {
        answer = (await host("get", key).request(STORAGE_GET, { key })) as unknown as StorageGetResponse;
      } catch (error) {
        throw failure("get", key, error);
      }
      // A write sent meanwhile is newer than this answer.
      const newer = inFlight.has(key) ? known.get(key) : undefined;
      if (newer) return newer.json === null ? undefined : JSON.parse(newer.json);
      return answer.json === null ? undefined : JSON.parse(answer.json);
    },
    async set(key, value) {
      checkKey("set", key);
      const json = toStoredJson(key, value);
      const connected = host("set", key);
      learn(key, { json });
      const payload: StorageSetPayload = { key, parts: parts(json) };
      await write("set", key, () => connected.request(STORAGE_SET, payload as unknown as JsonValue));
    },
    async delete(key) {
      checkKey("delete", key);
      const connected = host("delete", key);
      learn(key, { json: null });
      await write("delete", key, () => connected.request(STORAGE_DELETE, { key }));
    },
    async keys(prefix = "") {
      if (typeof prefix !== "string")
        throw new StorageError(
          "invalid-key",
          "storage.keys(prefix): prefix must be a string (or left out for every key)",
        );
      let answer: StorageKeysResponse;
      try {
        answer = (await host("keys", prefix).request(STORAGE_KEYS, { prefix })) as unknown as StorageKeysResponse;
      } catch (error) {
        throw failure("keys", prefix, error);
      }
      // What this realm wrote and the host has not answered yet counts already.
      const keys = new Set(answer.keys);
      for (const [key, value] of known) {
        if (!key.startsWith(prefix) || !inFlight.has(key)) continue;
        if (value.json === null) keys.delete(key);
        else keys.add(key);
      }
      return [...keys].sort();
    },
  };

  /** Fetch a key for the hooks that show it (once; a write meanwhile wins). */
  function load(key: string): void {
    if (known.has(key) || loading.has(key)) return;
    const connected = requests();
    if (!connected) return;
    loading.add(key);
    connected.request(STORAGE_GET, { key }).then(
      (answer) => {
        loading.delete(key);
        if (!known.has(key)) learn(key, { json: (answer as unknown as StorageGetResponse).json });
      },
      () => loading.delete(key),
    );
  }

  function useStored<T>(key: string, initial: T): [T, (next: T | ((previous: T) => T)) => void] {
    const react = hooks();
    if (!react) throw new StorageError("failed", "useStored(key, initial) works inside a mounted UI's component");
    checkKey("get", key);
    const [, setVersion] = react.useState(0);
    react.useEffect(() => {
      let set = watchers.get(key);
      if (!set) watchers.set(key, (set = new Set()));
      const watcher = () => setVersion((version) => version + 1);
      set.add(watcher);
      load(key);
      // Loaded before this effect subscribed: show it.
      if (known.has(key)) watcher();
      return () => {
        set.delete(watcher);
        if (set.size === 0) {
          watchers.delete(key);
          if (!inFlight.has(key)) known.delete(key);
        }
      };
    }, [key]);
    const local = known.get(key);
    const value = local === undefined || local.json === null ? initial : (valueOf(key, local.json) as T);
    const setStored = (next: T | ((previous: T) => T)) => {
      const current = known.get(key);
      const previous = current === undefined || current.json === null ? initial : (valueOf(key, current.json) as T);
      const resolved = typeof next === "function" ? (next as (previous: T) => T)(previous) : next;
      // A value JSON cannot keep throws here, in the handler that set it; a refusal from the host
      // (the session's 10 MB) rejects unhandled and reaches the model as an uncaught error.
      toStoredJson(key, resolved);
      void storage.set(key, resolved);
    };
    return [value, setStored];
  }

  function erased(): void {
    parsed.clear();
    // Writes still in flight are newer than the erase (the host commits them after it): they stay.
    for (const key of [...known.keys()]) if (!inFlight.has(key)) known.delete(key);
    for (const key of watchers.keys()) if (!inFlight.has(key)) learn(key, { json: null });
  }

  return { storage, useStored, erased };
}
