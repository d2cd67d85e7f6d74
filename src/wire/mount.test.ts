import { describe, expect, test } from "vitest";
import {
  MOUNT,
  HANDLER_MARKER,
  MAX_OPEN_PARTS,
  MAX_OPS_PER_MESSAGE,
  MAX_TREE_DEPTH,
  MOUNT_ERROR,
  MOUNT_OPEN,
  MOUNT_OPEN_PART,
  MOUNT_OPS,
  UI_EVENT,
  isMountKind,
  validateMountMessage,
  validateUiEvent,
  type MountRealmMessage,
} from "./mount";

const open: MountRealmMessage = {
  type: MOUNT,
  kind: MOUNT_OPEN,
  mountId: "m1",
  title: "Sales",
  snapshot: {
    nodes: [
      {
        id: 2,
        type: "Card",
        props: { className: "p-4", onClick: HANDLER_MARKER },
        children: [{ id: 1, type: "#text", text: "hi" }],
      },
    ],
  },
};

describe("validateMountMessage", () => {
  test("accepts every realm message and rebuilds it (nothing shared with the input)", () => {
    const messages: MountRealmMessage[] = [
      open,
      {
        type: MOUNT,
        kind: MOUNT_OPS,
        mountId: "m1",
        ops: [
          { op: "create", id: 3, type: "svg:rect", props: { style: { width: 1 } } },
          { op: "create", id: 4, type: "#text", text: "x" },
          { op: "insert", parent: 0, child: 3, before: 2 },
          { op: "remove", parent: 0, child: 3 },
          { op: "text", id: 1, text: "y" },
          { op: "props", id: 2, props: {} },
        ],
      },
      { type: "mount", kind: "close", mountId: "m1" },
      {
        type: MOUNT,
        kind: MOUNT_ERROR,
        mountId: "m1",
        error: { code: "render", name: "TypeError", message: "x", component: "Chart", line: 3 },
      },
      { type: MOUNT, kind: MOUNT_ERROR, mountId: "m1", error: null },
      {
        type: "mount",
        kind: "form-errors",
        mountId: "m1",
        errors: { "address.city": "Required", "": "Passwords differ" },
      },
      { type: "mount", kind: "waiting", mountId: "m1", waiting: true },
    ];
    for (const message of messages) {
      const result = validateMountMessage(message);
      expect(result).toEqual({ ok: true, message });
      if (result.ok && result.message.kind === MOUNT_OPEN && message.kind === MOUNT_OPEN) {
        expect(result.message.snapshot.nodes[0]).not.toBe(message.snapshot.nodes[0]);
      }
    }
    expect(isMountKind(MOUNT_OPS)).toBe(true);
    expect(isMountKind("exec-event")).toBe(false);
  });

  test("rejects what a hostile realm could send", () => {
    const bad: unknown[] = [
      null,
      { type: "mount", kind: "open", mountId: "", snapshot: { nodes: [] } },
      { type: "mount", kind: "open", mountId: "m".repeat(65), snapshot: { nodes: [] } },
      { type: "mount", kind: "ops", mountId: "m1", ops: [{ op: "create", id: 0, type: "div" }] },
      { type: "mount", kind: "ops", mountId: "m1", ops: [{ op: "create", id: 1.5, type: "div" }] },
      { type: "mount", kind: "ops", mountId: "m1", ops: [{ op: "create", id: 1, type: "<script>" }] },
      {
        type: "mount",
        kind: "ops",
        mountId: "m1",
        ops: [{ op: "create", id: 1, type: "div", props: { children: "x" } }],
      },
      {
        type: "mount",
        kind: "ops",
        mountId: "m1",
        ops: [{ op: "create", id: 1, type: "div", props: { when: new Date() } }],
      },
      { type: "mount", kind: "ops", mountId: "m1", ops: [{ op: "explode" }] },
      { type: "mount", kind: "ops", mountId: "m1", ops: [{ op: "insert", parent: -1, child: 1 }] },
      { type: "mount", kind: "error", mountId: "m1", error: { code: "weird", name: "x", message: "y" } },
      { type: "mount", kind: "waiting", mountId: "m1", waiting: "yes" },
      { type: "mount", kind: "form-errors", mountId: "m1", errors: { a: 1 } },
      { type: "exec-event", event: {} },
    ];
    for (const message of bad) expect(validateMountMessage(message).ok, JSON.stringify(message)).toBe(false);
  });

  test("deep trees and cycles are rejected, never a stack overflow", () => {
    let node: Record<string, unknown> = { id: 1, type: "div", props: {}, children: [] };
    for (let depth = 2; depth < MAX_TREE_DEPTH + 10; depth++)
      node = { id: depth, type: "div", props: {}, children: [node] };
    expect(validateMountMessage({ type: MOUNT, kind: MOUNT_OPEN, mountId: "m1", snapshot: { nodes: [node] } }).ok).toBe(
      false,
    );
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(
      validateMountMessage({
        type: MOUNT,
        kind: MOUNT_OPS,
        mountId: "m1",
        ops: [{ op: "props", id: 1, props: { cycle } }],
      }).ok,
    ).toBe(false);
  });

  test("__proto__ keys are dropped, handler markers normalized, non-finite numbers nulled", () => {
    const props = JSON.parse('{"__proto__": {"x": 1}, "onClick": {"$handler": true, "extra": 1}, "n": 1}');
    props.inf = Infinity;
    const result = validateMountMessage({
      type: MOUNT,
      kind: MOUNT_OPS,
      mountId: "m1",
      ops: [{ op: "props", id: 1, props }],
    });
    expect(result).toEqual({
      ok: true,
      message: {
        type: MOUNT,
        kind: MOUNT_OPS,
        mountId: "m1",
        ops: [{ op: "props", id: 1, props: { onClick: { $handler: true }, n: 1, inf: null } }],
      },
    });
  });

  test("MOUNT_OPS keeps the UI event id that caused it; a malformed id is refused", () => {
    const ops = [{ op: "text", id: 2, text: "count 1" }];
    expect(validateMountMessage({ type: MOUNT, kind: MOUNT_OPS, mountId: "m1", ops, eventId: 7 })).toEqual({
      ok: true,
      message: { type: MOUNT, kind: MOUNT_OPS, mountId: "m1", ops, eventId: 7 },
    });
    for (const eventId of ["7", -1, 1.5, null]) {
      expect(validateMountMessage({ type: MOUNT, kind: MOUNT_OPS, mountId: "m1", ops, eventId }).ok).toBe(false);
    }
  });
});

describe("validateUiEvent", () => {
  test("accepts handler events with JSON payloads", () => {
    const event = {
      type: UI_EVENT,
      mountId: "m1",
      nodeId: 3,
      handler: "onSubmit",
      payload: { values: { a: "1", b: true, c: ["x", 2] } },
    };
    expect(validateUiEvent(event)).toEqual({ ok: true, message: event });
    expect(
      validateUiEvent({ type: UI_EVENT, mountId: "m1", nodeId: 3, handler: "onValueChange", payload: { value: [50] } })
        .ok,
    ).toBe(true);
  });

  test("rejects non-handler names, bad ids and non-JSON payloads", () => {
    for (const event of [
      { type: UI_EVENT, mountId: "m1", nodeId: 3, handler: "click", payload: {} },
      { type: UI_EVENT, mountId: "m1", nodeId: 3, handler: "on__proto__", payload: {} },
      { type: UI_EVENT, mountId: "m1", nodeId: 0, handler: "onClick", payload: {} },
      { type: UI_EVENT, mountId: "m1", nodeId: 3, handler: "onClick" },
      { type: UI_EVENT, mountId: "m1", nodeId: 3, handler: "onClick", payload: { values: { a: {} } } },
    ])
      expect(validateUiEvent(event).ok, JSON.stringify(event)).toBe(false);
  });
});

describe("validateMountMessage: bounded realm messages", () => {
  const span = (id: number) => ({ id, type: "span", props: {}, children: [] });
  const creates = (count: number) =>
    Array.from({ length: count }, (_, index) => ({ op: "create", id: index + 1, type: "span", props: {} }));
  const realm = { maxEntries: MAX_OPS_PER_MESSAGE };

  test("a realm message carries at most MAX_OPS_PER_MESSAGE ops or snapshot nodes; saved snapshots may be bigger", () => {
    const ops = { type: MOUNT, kind: MOUNT_OPS, mountId: "m1", ops: creates(MAX_OPS_PER_MESSAGE) };
    expect(validateMountMessage(ops, realm).ok).toBe(true);
    expect(validateMountMessage({ ...ops, ops: creates(MAX_OPS_PER_MESSAGE + 1) }, realm)).toEqual({
      ok: false,
      reason: "ops has too many entries",
    });
    const tree = {
      type: MOUNT,
      kind: MOUNT_OPEN,
      mountId: "m1",
      snapshot: {
        nodes: [{ ...span(1), children: Array.from({ length: MAX_OPS_PER_MESSAGE }, (_, index) => span(index + 2)) }],
      },
    };
    expect(validateMountMessage(tree, realm)).toEqual({ ok: false, reason: "snapshot has too many nodes" });
    expect(validateMountMessage(tree).ok).toBe(true);
  });

  test("an open in parts announces 1..MAX_OPEN_PARTS parts and its node count; each part is bounded and numbered", () => {
    const announce = { type: MOUNT, kind: MOUNT_OPEN, mountId: "m1", snapshot: { nodes: [] }, parts: 3, nodes: 1200 };
    expect(validateMountMessage(announce, realm)).toEqual({ ok: true, message: announce });
    for (const parts of [0, MAX_OPEN_PARTS + 1, 1.5, "3"])
      expect(validateMountMessage({ ...announce, parts }, realm).ok, String(parts)).toBe(false);
    expect(validateMountMessage({ ...announce, nodes: undefined }, realm).ok).toBe(false);
    expect(validateMountMessage({ ...announce, nodes: -1 }, realm).ok).toBe(false);
    const part = { type: MOUNT, kind: MOUNT_OPEN_PART, mountId: "m1", index: 0, ops: creates(MAX_OPS_PER_MESSAGE) };
    const checked = validateMountMessage(part, realm);
    expect(checked).toEqual({ ok: true, message: part });
    if (checked.ok && checked.message.kind === MOUNT_OPEN_PART) expect(checked.message.ops[0]).not.toBe(part.ops[0]);
    expect(validateMountMessage({ ...part, ops: creates(MAX_OPS_PER_MESSAGE + 1) }, realm).ok).toBe(false);
    for (const index of [-1, MAX_OPEN_PARTS, 0.5, null])
      expect(validateMountMessage({ ...part, index }, realm).ok, String(index)).toBe(false);
    expect(isMountKind(MOUNT_OPEN_PART)).toBe(true);
  });
});
