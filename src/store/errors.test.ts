import Dexie from "dexie";
import { describe, expect, it } from "vitest";
import { StoreError, storeError, toStoreError, type StoreErrorCode } from "./errors";

const dom = (name: string, message = name) => new DOMException(message, name);

describe("storage error mapping", () => {
  const cases: [string, unknown, StoreErrorCode][] = [
    ["a DOM quota error", dom("QuotaExceededError"), "quota-exceeded"],
    [
      "quota inside Dexie's AbortError",
      new Dexie.AbortError("Transaction aborted", dom("QuotaExceededError")),
      "quota-exceeded",
    ],
    [
      "quota inside a BulkError",
      new Dexie.BulkError("bulkPut failed", { 0: dom("QuotaExceededError") }),
      "quota-exceeded",
    ],
    ["Firefox's quota name", Object.assign(new Error("x"), { name: "NS_ERROR_DOM_QUOTA_REACHED" }), "quota-exceeded"],
    ["legacy quota code 22", Object.assign(new Error("x"), { name: "Error", code: 22 }), "quota-exceeded"],
    ["no IndexedDB", new Dexie.MissingAPIError(), "unavailable"],
    ["a sandboxed frame", dom("SecurityError"), "unavailable"],
    ["private mode refusing to open", new Dexie.OpenFailedError(dom("InvalidStateError")), "unavailable"],
    ["a newer database", new Dexie.VersionError("higher version"), "version-too-new"],
    ["another tab's upgrade", new Dexie.VersionChangeError(), "version-change"],
    ["a closed database", new Dexie.DatabaseClosedError(), "closed"],
    [
      "Safari's lost connection",
      dom("UnknownError", "Connection to Indexed Database server lost. Refresh the page to try again"),
      "connection-lost",
    ],
    ["a key collision", new Dexie.ConstraintError("Key already exists"), "conflict"],
    ["an uncloneable value", dom("DataCloneError"), "not-storable"],
    ["a bare abort", new Dexie.AbortError("Transaction aborted"), "aborted"],
    ["a timeout", new Dexie.TimeoutError(), "timeout"],
    ["anything else", new TypeError("boom"), "unknown"],
    ["not even an error", "a string", "unknown"],
    ["nothing", undefined, "unknown"],
  ];
  for (const [label, error, code] of cases) {
    it(`maps ${label} to ${code}, keeping the cause`, () => {
      const info = toStoreError(error);
      expect(info.code).toBe(code);
      expect(info.cause).toBe(error);
      expect(info.message.length).toBeGreaterThan(20);
    });
  }

  it("treats an InvalidStateError while opening as unavailable storage", () => {
    expect(toStoreError(dom("InvalidStateError"), "open").code).toBe("unavailable");
    expect(toStoreError(dom("InvalidStateError")).code).toBe("closed");
  });

  it("survives cyclic error chains", () => {
    const error: Record<string, unknown> = { name: "Error", message: "loop" };
    error.inner = error;
    error.cause = error;
    expect(toStoreError(error).code).toBe("unknown");
  });

  it("round-trips through StoreError", () => {
    const thrown = new StoreError(storeError("not-found"));
    expect(thrown).toBeInstanceOf(Error);
    expect(toStoreError(thrown)).toMatchObject({ code: "not-found", retryable: false });
  });

  it("says what to do next in every message", () => {
    const codes: StoreErrorCode[] = [
      "quota-exceeded",
      "unavailable",
      "version-too-new",
      "upgrade-blocked",
      "version-change",
      "closed",
      "connection-lost",
      "not-found",
      "conflict",
      "not-storable",
      "aborted",
      "timeout",
      "unknown",
    ];
    for (const code of codes) {
      const { message } = storeError(code);
      expect(message, code).toMatch(/\.$/);
      expect(message, code).not.toMatch(/IndexedDB|Dexie|transaction/i);
    }
  });
});
