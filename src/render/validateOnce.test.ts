/**
 * Realm messages are validated once, at the port (src/sandbox); the
 * registry and the store trust that gate and agree with it.
 */
import { describe, expect, it } from "vitest";
import { validateMountMessage, type MountRealmMessage } from "../wire/mount";
import { createMountRegistry } from "./mountRegistry";

describe("one gate for mount messages", () => {
  it("a type name the wire accepts (with `:`) is accepted by the store too, and drawn as unknown", () => {
    const message = {
      type: "mount",
      kind: "open",
      mountId: "r1:m1",
      snapshot: { nodes: [{ id: 1, type: "svg:rect", props: {}, children: [] }] },
    };
    const checked = validateMountMessage(message);
    expect(checked.ok).toBe(true);
    const unknown: string[] = [];
    const registry = createMountRegistry({ onUnknownComponent: (_mountId, type) => void unknown.push(type) });
    const errors = registry.apply((checked as { ok: true; message: MountRealmMessage }).message);
    expect(errors.map((error) => error.code)).toEqual([]);
    expect(registry.get("r1:m1")?.getNode(1)?.type).toBe("svg:rect");
    expect(unknown).toEqual(["svg:rect"]);
  });

  it("`receive` (no port in front) still refuses what the gate refuses; `apply` takes the gate's output as it is", () => {
    const registry = createMountRegistry();
    expect(
      registry.receive({ type: "mount", kind: "ops", mountId: "m1", ops: "nope" }).map((error) => error.code),
    ).toEqual(["invalid-op"]);
    expect(registry.apply({ type: "mount", kind: "open", mountId: "m1", title: "T", snapshot: { nodes: [] } })).toEqual(
      [],
    );
    expect(registry.ids()).toEqual(["m1"]);
  });
});
