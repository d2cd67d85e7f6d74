import { describe, expect, it } from "vitest";
import { CALL, CANCEL, EXEC_EVENT, HEARTBEAT, MAX_WIRE_STRING, READY, RESULT } from "../wire/constants";
import { MAX_OPS_PER_MESSAGE } from "../wire/mount";
import { validateRealmMessage } from "./validateRealmMessage";

const ok = (value: unknown) => {
  const result = validateRealmMessage(value);
  if (!result.ok) throw new Error(`expected valid: ${result.reason}`);
  return result.message;
};
const bad = (value: unknown) => {
  const result = validateRealmMessage(value);
  expect(result.ok).toBe(false);
  return result.ok ? "" : result.reason;
};

describe("validateRealmMessage", () => {
  it("accepts every message kind and rebuilds it", () => {
    const events = [
      { type: "statement-start", block: 0, statement: 1, line: 3, endLine: 4, source: "a()" },
      { type: "statement-end", block: 0, statement: 1, status: "done", durationMs: 1.5 },
      {
        type: "statement-end",
        block: 0,
        statement: 1,
        status: "error",
        durationMs: 0,
        error: {
          code: "runtime",
          name: "TypeError",
          message: "x is not a function",
          block: 0,
          line: 3,
          column: 1,
          lineText: "x()",
        },
      },
      { type: "console", block: 1, statement: 0, level: "warn", text: "careful" },
      { type: "console", block: 1, statement: 0, level: "log", text: "later", reply: 2 },
      { type: "skipped", block: 2, fromStatement: 3, count: 4, fromLine: 9, reason: "aborted" },
      { type: "error", error: { code: "syntax", name: "SyntaxError", message: "Unexpected token", block: 0 } },
      { type: "error", error: { code: "runtime", name: "Error", message: "late", block: 1 }, statement: 2, reply: 3 },
      { type: "block-done", block: 5 },
    ];
    for (const event of events) expect(ok({ type: EXEC_EVENT, event })).toEqual({ type: EXEC_EVENT, event });
    expect(ok({ type: READY, version: 1, loadMs: 300, setupMs: 12 })).toEqual({
      type: READY,
      version: 1,
      loadMs: 300,
      setupMs: 12,
    });
    expect(ok({ type: HEARTBEAT, seq: 7 })).toEqual({ type: HEARTBEAT, seq: 7 });
    expect(ok({ type: RESULT, id: 3, ok: true, value: null })).toEqual({ type: RESULT, id: 3, ok: true, value: null });
    expect(ok({ type: RESULT, id: 4, ok: false, error: { code: "failed", message: "x" } })).toEqual({
      type: RESULT,
      id: 4,
      ok: false,
      error: { code: "failed", message: "x" },
    });
    expect(ok({ type: CANCEL, id: 5 })).toEqual({ type: CANCEL, id: 5 });
  });

  it("drops unknown fields and shares nothing with the input", () => {
    const input = { type: EXEC_EVENT, event: { type: "block-done", block: 1, extra: { evil: true } }, more: 1 };
    const message = ok(input);
    expect(message).toEqual({ type: EXEC_EVENT, event: { type: "block-done", block: 1 } });
    expect(message).not.toBe(input);
    expect((message as { event: unknown }).event).not.toBe(input.event);
  });

  it("rejects malformed messages with a reason", () => {
    const cases: unknown[] = [
      null,
      42,
      "ready",
      [],
      new Map(),
      { type: "nope" },
      { type: READY },
      { type: READY, version: -1, loadMs: 0, setupMs: 0 },
      { type: READY, version: 1.5, loadMs: 0, setupMs: 0 },
      { type: READY, version: 1, setupMs: 0 },
      { type: READY, version: 1, loadMs: 0, warmupMs: 0 },
      { type: HEARTBEAT, seq: "1" },
      { type: RESULT, id: Number.NaN, ok: true, value: null },
      { type: RESULT, id: 2 ** 60, ok: true, value: null },
      { type: RESULT, id: 1, ok: "yes", value: null },
      { type: RESULT, id: 1, ok: true, value: () => 1 },
      { type: RESULT, id: 1, ok: false, error: { code: "Not A Code", message: "x" } },
      { type: CANCEL, id: -1 },
      { type: "flushed", id: 1 },
      // Tags this port no longer has: the mount kinds are a field now.
      { type: "mount-ops", mountId: "m1", ops: [] },
      { type: "mount", mountId: "m1", ops: [] },
      { type: "mount", kind: "toString", mountId: "m1" },
      { type: "service-request", id: 1, service: "echo", payload: null, timeoutMs: null },
      { type: EXEC_EVENT },
      { type: EXEC_EVENT, event: { type: "mount" } },
      { type: EXEC_EVENT, event: { type: "console", block: 0, statement: 0, level: "trace", text: "x" } },
      { type: EXEC_EVENT, event: { type: "console", block: 0, statement: 0, level: "log", text: 5 } },
      { type: EXEC_EVENT, event: { type: "statement-end", block: 0, statement: 0, status: "ok", durationMs: 1 } },
      {
        type: EXEC_EVENT,
        event: { type: "statement-end", block: 0, statement: 0, status: "done", durationMs: Infinity },
      },
      { type: EXEC_EVENT, event: { type: "error", error: { code: "pwned", name: "X", message: "y", block: 0 } } },
      { type: EXEC_EVENT, event: { type: "error", error: { code: "runtime", name: "X", message: "y", block: -1 } } },
      { type: EXEC_EVENT, event: { type: "block-done", block: 0 }, __proto__: { type: READY } },
      { type: EXEC_EVENT, event: Object.assign(Object.create({ polluted: true }), { type: "block-done", block: 0 }) },
    ];
    for (const value of cases) expect(bad(value)).toMatch(/./);
    expect(bad({ type: "mount", kind: "opened", mountId: "m1" })).toBe("kind has an unknown value");
  });

  it("caps long strings instead of rejecting them", () => {
    const text = "x".repeat(MAX_WIRE_STRING + 1000);
    const message = ok({ type: EXEC_EVENT, event: { type: "console", block: 0, statement: 0, level: "log", text } });
    const capped = (message as { event: { text: string } }).event.text;
    expect(capped.length).toBeLessThan(text.length);
    expect(capped.startsWith("x".repeat(MAX_WIRE_STRING))).toBe(true);
    expect(capped).toContain("1000 more characters dropped");
  });

  it("drops unknown fields of every kind of message, nested ones too", () => {
    expect(ok({ type: CALL, id: 1, method: "echo", payload: { a: 1 }, timeoutMs: null, port: "x" })).toEqual({
      type: CALL,
      id: 1,
      method: "echo",
      payload: { a: 1 },
      timeoutMs: null,
    });
    expect(ok({ type: RESULT, id: 2, ok: true, value: [1], allow: true })).toEqual({
      type: RESULT,
      id: 2,
      ok: true,
      value: [1],
    });
    expect(
      ok({
        type: "mount",
        kind: "ops",
        mountId: "m1",
        ops: [{ op: "insert", parent: 0, child: 1, evil: true }],
        extra: 1,
      }),
    ).toEqual({ type: "mount", kind: "ops", mountId: "m1", ops: [{ op: "insert", parent: 0, child: 1 }] });
  });

  it("refuses hostile requests and names where they fail", () => {
    expect(bad({ type: CALL, id: 1, method: "Net.Fetch", payload: null, timeoutMs: null })).toBe(
      "method is not a method name",
    );
    expect(bad({ type: CALL, id: 1, method: "echo", payload: { f: () => 1 }, timeoutMs: null })).toBe(
      "payload.f is not JSON",
    );
    expect(bad({ type: CALL, id: 1, method: "echo", payload: null, timeoutMs: -1 })).toBe(
      "timeoutMs is not a duration",
    );
    expect(
      bad({ type: EXEC_EVENT, event: { type: "console", block: 0, statement: 0, level: "trace", text: "x" } }),
    ).toBe("event.level has an unknown value");
    expect(
      bad({
        type: "mount",
        kind: "ops",
        mountId: "m1",
        ops: [{ op: "props", id: 1, props: { a: [1, { b: new Map() }] } }],
      }),
    ).toBe("ops[0].props.a[1].b is not a plain object");
  });

  it("caps long strings in mount messages the same way, saying so", () => {
    const text = "y".repeat(MAX_WIRE_STRING + 5);
    const message = ok({ type: "mount", kind: "ops", mountId: "m1", ops: [{ op: "text", id: 1, text }] });
    const capped = (message as { ops: { text: string }[] }).ops[0].text;
    expect(capped.startsWith("y".repeat(MAX_WIRE_STRING))).toBe(true);
    expect(capped).toContain("5 more characters dropped");
  });

  it("rejects a mount message bigger than one task should clone and check (the realm sends big first renders in parts)", () => {
    const creates = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ op: "create", id: index + 1, type: "span", props: {} }));
    expect(ok({ type: "mount", kind: "ops", mountId: "m1", ops: creates(MAX_OPS_PER_MESSAGE) })).toMatchObject({
      type: "mount",
      kind: "ops",
    });
    expect(bad({ type: "mount", kind: "ops", mountId: "m1", ops: creates(MAX_OPS_PER_MESSAGE + 1) })).toBe(
      "ops has too many entries",
    );
    expect(
      bad({ type: "mount", kind: "open-part", mountId: "m1", index: 0, ops: creates(MAX_OPS_PER_MESSAGE + 1) }),
    ).toBe("ops has too many entries");
    const wide = {
      id: 1,
      type: "div",
      props: {},
      children: Array.from({ length: MAX_OPS_PER_MESSAGE }, (_, index) => ({
        id: index + 2,
        type: "#text",
        text: "x",
      })),
    };
    expect(bad({ type: "mount", kind: "open", mountId: "m1", snapshot: { nodes: [wide] } })).toBe(
      "snapshot has too many nodes",
    );
  });
});
