import { describe, expect, it } from "vitest";
import type { MountOp, MountSnapshot } from "./contract";
import { validateMountMessage } from "../wire/mount";
import { createMountRegistry } from "./mountRegistry";
import { createMountStore, fromSnapshot, type MountStore } from "./mountStore";
import type { RenderError } from "./renderErrors";

const H = { $handler: true } as const;

function store(limits = {}): { store: MountStore; errors: RenderError[] } {
  const errors: RenderError[] = [];
  return { store: createMountStore({ mountId: "m1", limits, onError: (error) => errors.push(error) }), errors };
}

function codes(errors: RenderError[]): string[] {
  return errors.map((error) => error.code);
}

/** A compact view of the attached tree: `div(#"hi",span)`. */
function shape(s: MountStore, id = 0): string {
  const node = s.getNode(id)!;
  if (node.type === "#text") return JSON.stringify(node.text);
  const inner = node.children.map((child) => shape(s, child)).join(",");
  return id === 0 ? inner : inner ? `${node.type}(${inner})` : node.type;
}

const card: MountOp[] = [
  { op: "create", id: 1, type: "Card", props: { className: "p-4" } },
  { op: "create", id: 2, type: "#text", text: "hello" },
  { op: "insert", parent: 1, child: 2 },
  { op: "create", id: 3, type: "Button", props: { onClick: H } },
  { op: "insert", parent: 1, child: 3 },
  { op: "insert", parent: 0, child: 1 },
];

describe("createMountStore: valid ops", () => {
  it("builds a tree from creates and inserts", () => {
    const { store: s } = store();
    expect(s.apply(card)).toEqual([]);
    expect(shape(s)).toBe('Card("hello",Button)');
    expect(s.getNode(3)!.props.onClick).toEqual({ $handler: true });
    expect(s.nodeCount).toBe(3);
    expect(s.getParent(1)).toBe(0);
  });

  it("inserts before a sibling and moves an existing child (DOM insertBefore semantics)", () => {
    const { store: s } = store();
    s.apply([
      { op: "create", id: 1, type: "ul" },
      { op: "insert", parent: 0, child: 1 },
      ...[2, 3, 4].map((id) => ({ op: "create", id, type: "li" }) as MountOp),
      { op: "insert", parent: 1, child: 2 },
      { op: "insert", parent: 1, child: 4 },
      { op: "insert", parent: 1, child: 3, before: 4 },
    ]);
    expect(s.getNode(1)!.children).toEqual([2, 3, 4]);
    expect(s.apply([{ op: "insert", parent: 1, child: 4, before: 2 }])).toEqual([]);
    expect(s.getNode(1)!.children).toEqual([4, 2, 3]);
  });

  it("updates text and props, removes subtrees for good", () => {
    const { store: s } = store();
    s.apply(card);
    s.apply([
      { op: "text", id: 2, text: "bye" },
      { op: "props", id: 1, props: { className: "p-2" } },
    ]);
    expect(s.getNode(2)!.text).toBe("bye");
    expect(s.getNode(1)!.props).toEqual({ className: "p-2" });
    expect(s.apply([{ op: "remove", parent: 0, child: 1 }])).toEqual([]);
    expect(shape(s)).toBe("");
    expect(s.nodeCount).toBe(0);
    expect(codes(s.apply([{ op: "insert", parent: 0, child: 2 }]))).toEqual(["unknown-node"]);
  });

  it("gives untouched nodes the same record and bumps the version of changed ones", () => {
    const { store: s } = store();
    s.apply(card);
    const before = { card: s.getNode(1), text: s.getNode(2), button: s.getNode(3) };
    s.apply([{ op: "text", id: 2, text: "changed" }]);
    expect(s.getNode(1)).toBe(before.card);
    expect(s.getNode(3)).toBe(before.button);
    expect(s.getNode(2)).not.toBe(before.text);
    expect(s.getNode(2)!.version).toBeGreaterThan(before.text!.version);
  });

  it("notifies node listeners once per batch, and subtree listeners of every ancestor", () => {
    const { store: s } = store();
    s.apply(card);
    const calls: string[] = [];
    s.subscribeNode(2, () => calls.push("text"));
    s.subscribeNode(3, () => calls.push("button"));
    s.subscribeSubtree(1, () => calls.push("card-subtree"));
    s.subscribeSubtree(0, () => calls.push("root-subtree"));
    const rootVersion = s.getSubtreeVersion(0);
    s.apply([
      { op: "text", id: 2, text: "a" },
      { op: "text", id: 2, text: "b" },
    ]);
    expect(calls.sort()).toEqual(["card-subtree", "root-subtree", "text"]);
    expect(s.getSubtreeVersion(0)).toBe(rootVersion + 1);
  });
});

describe("a malformed op is refused once, at the gate, and never applied", () => {
  // The port (src/sandbox/validateRealmMessage.ts) validates every realm
  // message with `validateMountMessage`; the store trusts its output.
  // `registry.receive` is that same gate for messages that did not come
  // through the port. [name, setup ops, the bad op, what the refusal names].
  const cases: Array<[string, MountOp[], unknown, RegExp]> = [
    ["non-object op", [], 42, /ops\[0\] is not an object/],
    ["unknown op", [], { op: "explode", id: 1 }, /ops\[0\]\.op is unknown/],
    ["create without a positive id", [], { op: "create", id: 0, type: "div" }, /ops\[0\]\.id is not a node id/],
    ["create with a fractional id", [], { op: "create", id: 1.5, type: "div" }, /ops\[0\]\.id is not a node id/],
    ["create with a string id", [], { op: "create", id: "1", type: "div" }, /ops\[0\]\.id is not a node id/],
    ["create with a bad type", [], { op: "create", id: 1, type: "<script>" }, /ops\[0\]\.type is not a component name/],
    [
      "create with a non-string type",
      [],
      { op: "create", id: 1, type: 7 },
      /ops\[0\]\.type is not a short non-empty string/,
    ],
    [
      "insert of child 0 (the root)",
      [{ op: "create", id: 1, type: "div" }],
      { op: "insert", parent: 1, child: 0 },
      /ops\[0\]\.child is not a node id/,
    ],
    [
      "text op with a number",
      [{ op: "create", id: 1, type: "#text", text: "x" }],
      { op: "text", id: 1, text: 5 },
      /ops\[0\]\.text is not a string/,
    ],
    [
      "props that are not an object",
      [],
      { op: "create", id: 1, type: "div", props: [1] },
      /ops\[0\]\.props is not an object/,
    ],
    [
      "props holding a function",
      [],
      { op: "create", id: 1, type: "div", props: { onClick: () => 1 } },
      /ops\[0\]\.props\.onClick is not JSON/,
    ],
    [
      "props holding a class instance",
      [],
      { op: "create", id: 1, type: "div", props: { when: new Date(0) } },
      /ops\[0\]\.props\.when is not a plain object/,
    ],
    [
      "props with children",
      [],
      { op: "create", id: 1, type: "div", props: { children: "x" } },
      /ops\[0\]\.props\.children is not allowed/,
    ],
    ["a non-array batch", [], undefined, /ops is not an array/],
    [
      "a getter that throws",
      [],
      {
        op: "create",
        id: 1,
        type: "div",
        get props(): never {
          throw new Error("boom");
        },
      },
      /unreadable message: Error: boom/,
    ],
    [
      "a proxy whose traps throw",
      [],
      {
        op: "create",
        id: 2,
        type: "div",
        props: new Proxy(
          {},
          {
            ownKeys: () => {
              throw new Error("trap");
            },
          },
        ),
      },
      /unreadable message: Error: trap/,
    ],
  ];
  for (const [name, setup, bad, reason] of cases) {
    it(name, () => {
      const errors: RenderError[] = [];
      const registry = createMountRegistry({ onError: (_mountId, error) => errors.push(error) });
      registry.receive({ type: "mount", kind: "open", mountId: "m1", snapshot: { nodes: [] } });
      expect(registry.receive({ type: "mount", kind: "ops", mountId: "m1", ops: setup })).toEqual([]);
      const before = JSON.stringify(registry.get("m1")!.toSnapshot());
      const message = { type: "mount", kind: "ops", mountId: "m1", ops: bad === undefined ? "ops" : [bad] };
      const checked = validateMountMessage(message);
      expect(checked.ok).toBe(false);
      if (!checked.ok) expect(checked.reason).toMatch(reason);
      let returned: RenderError[] = [];
      expect(() => (returned = registry.receive(message))).not.toThrow();
      expect(codes(returned)).toEqual(["invalid-op"]);
      expect(returned[0].message).toMatch(reason);
      expect(codes(errors)).toContain("invalid-op");
      expect(JSON.stringify(registry.get("m1")!.toSnapshot())).toBe(before);
    });
  }

  it("agrees with the wire on non-finite numbers: they arrive as null, not as an error", () => {
    const registry = createMountRegistry();
    registry.receive({ type: "mount", kind: "open", mountId: "m1", snapshot: { nodes: [] } });
    expect(
      registry.receive({
        type: "mount",
        kind: "ops",
        mountId: "m1",
        ops: [{ op: "create", id: 1, type: "div", props: { x: Infinity } }],
      }),
    ).toEqual([]);
    expect(registry.get("m1")!.getNode(1)!.props).toEqual({ x: null });
  });
});

describe("createMountStore: every op the table refuses is reported, never thrown, never applied", () => {
  // [name, ops (setup then the bad op last), expected code]. The bad op must
  // leave the tree as the setup left it.
  const cases: Array<[string, MountOp[], string]> = [
    [
      "duplicate create",
      [
        { op: "create", id: 1, type: "div" },
        { op: "create", id: 1, type: "span" },
      ],
      "duplicate-node",
    ],
    ["insert of a node never created", [{ op: "insert", parent: 0, child: 99 }], "unknown-node"],
    [
      "insert into a node never created",
      [
        { op: "create", id: 1, type: "div" },
        { op: "insert", parent: 5, child: 1 },
      ],
      "unknown-node",
    ],
    [
      "insert into a text node",
      [
        { op: "create", id: 1, type: "#text", text: "x" },
        { op: "create", id: 2, type: "b" },
        { op: "insert", parent: 1, child: 2 },
      ],
      "wrong-node-kind",
    ],
    [
      "insert of a node under itself",
      [
        { op: "create", id: 1, type: "div" },
        { op: "insert", parent: 1, child: 1 },
      ],
      "cycle",
    ],
    [
      "insert making a cycle",
      [
        { op: "create", id: 1, type: "div" },
        { op: "create", id: 2, type: "div" },
        { op: "insert", parent: 1, child: 2 },
        { op: "insert", parent: 2, child: 1 },
      ],
      "cycle",
    ],
    [
      "insert before a non-child",
      [
        { op: "create", id: 1, type: "div" },
        { op: "create", id: 2, type: "div" },
        { op: "create", id: 3, type: "div" },
        { op: "insert", parent: 1, child: 2, before: 3 },
      ],
      "not-a-child",
    ],
    [
      "remove of a non-child",
      [
        { op: "create", id: 1, type: "div" },
        { op: "create", id: 2, type: "div" },
        { op: "insert", parent: 0, child: 1 },
        { op: "remove", parent: 1, child: 2 },
      ],
      "not-a-child",
    ],
    ["remove of an unknown node", [{ op: "remove", parent: 0, child: 3 }], "unknown-node"],
    [
      "text op on an element",
      [
        { op: "create", id: 1, type: "div" },
        { op: "text", id: 1, text: "x" },
      ],
      "wrong-node-kind",
    ],
    ["text op on an unknown node", [{ op: "text", id: 8, text: "x" }], "unknown-node"],
    [
      "props op on a text node",
      [
        { op: "create", id: 1, type: "#text", text: "x" },
        { op: "props", id: 1, props: {} },
      ],
      "wrong-node-kind",
    ],
    ["props op on an unknown node", [{ op: "props", id: 8, props: {} }], "unknown-node"],
  ];
  for (const [name, ops, code] of cases) {
    it(name, () => {
      const { store: s, errors } = store();
      s.apply(ops.slice(0, -1));
      const before = JSON.stringify(s.toSnapshot());
      errors.length = 0;
      let returned: RenderError[] = [];
      expect(() => (returned = s.apply(ops.slice(-1)))).not.toThrow();
      expect(codes(returned)).toContain(code);
      expect(codes(errors)).toContain(code);
      expect(JSON.stringify(s.toSnapshot())).toBe(before);
    });
  }

  it("keeps applying the rest of a batch after a bad op", () => {
    const { store: s } = store();
    const errors = s.apply([
      { op: "create", id: 1, type: "div" },
      { op: "insert", parent: 0, child: 42 },
      { op: "insert", parent: 0, child: 1 },
    ]);
    expect(codes(errors)).toEqual(["unknown-node"]);
    expect(shape(s)).toBe("div");
  });

  it("caps the node count", () => {
    const { store: s } = store({ maxNodes: 3 });
    const ops: MountOp[] = [1, 2, 3, 4].map((id) => ({ op: "create", id, type: "div" }));
    expect(codes(s.apply(ops))).toEqual(["too-many-nodes"]);
    expect(s.nodeCount).toBe(3);
  });

  it("caps the tree depth, whether built top-down or bottom-up", () => {
    const { store: s } = store({ maxDepth: 4 });
    const ops: MountOp[] = [];
    for (let id = 1; id <= 6; id++) ops.push({ op: "create", id, type: "div" });
    for (let id = 5; id >= 1; id--) ops.push({ op: "insert", parent: id, child: id + 1 });
    const errors = s.apply(ops);
    expect(codes(errors)).toContain("tree-too-deep");
    const { store: t } = store({ maxDepth: 4 });
    const down: MountOp[] = [];
    for (let id = 1; id <= 6; id++)
      down.push({ op: "create", id, type: "div" }, { op: "insert", parent: id - 1, child: id });
    // 5 cannot attach under 4; 6 then attaches under the detached 5, harmlessly.
    expect(codes(t.apply(down))).toEqual(["tree-too-deep"]);
    expect(shape(t)).toBe("div(div(div(div)))");
  });

  it("caps props size, text length and the mount's total size", () => {
    const { store: s } = store({ maxPropsSize: 1000, maxTextLength: 10, maxTotalSize: 3000 });
    expect(codes(s.apply([{ op: "create", id: 1, type: "div", props: { title: "x".repeat(2000) } }]))).toEqual([
      "props-too-large",
    ]);
    expect(codes(s.apply([{ op: "create", id: 2, type: "#text", text: "x".repeat(11) }]))).toEqual(["invalid-text"]);
    s.apply([{ op: "create", id: 3, type: "#text", text: "short" }]);
    expect(codes(s.apply([{ op: "text", id: 3, text: "x".repeat(11) }]))).toEqual(["invalid-text"]);
    expect(s.getNode(3)!.text).toBe("short");
    const big = (id: number): MountOp => ({ op: "create", id, type: "div", props: { title: "y".repeat(900) } });
    expect(codes(s.apply([big(10), big(11), big(12), big(13)]))).toEqual(["props-too-large"]);
    expect(codes(s.apply([{ op: "props", id: 10, props: { title: "z".repeat(2000) } }]))).toEqual(["props-too-large"]);
    expect(s.getNode(10)!.props.title).toBe("y".repeat(900));
  });

  it("lists at most maxErrorsPerBatch errors, then counts the rest", () => {
    const { store: s } = store({ maxErrorsPerBatch: 3 });
    const ops: MountOp[] = Array.from({ length: 10 }, (_, index) => ({ op: "insert", parent: 0, child: 100 + index }));
    const errors = s.apply(ops);
    expect(codes(errors)).toEqual(["unknown-node", "unknown-node", "unknown-node", "too-many-errors"]);
    expect(errors[3].details).toEqual({ omitted: 7 });
  });

  it("survives huge arrays in props (sized only up to the limit)", () => {
    const { store: s } = store();
    expect(codes(s.apply([{ op: "create", id: 3, type: "div", props: { rows: new Array(1e6).fill("xx") } }]))).toEqual([
      "props-too-large",
    ]);
  });
});

describe("snapshots", () => {
  const snapshot: MountSnapshot = {
    nodes: [
      {
        id: 1,
        type: "form",
        props: { onSubmit: H },
        children: [
          { id: 2, type: "Input", props: { name: "city", defaultValue: "Oslo" }, children: [] },
          { id: 3, type: "Button", props: { type: "submit" }, children: [{ id: 4, type: "#text", text: "Go" }] },
        ],
      },
      { id: 5, type: "#text", text: "after" },
    ],
  };

  it("loads a nested snapshot and writes the same tree back", () => {
    const { store: s } = store();
    expect(s.load(snapshot)).toEqual([]);
    expect(shape(s)).toBe('form(Input,Button("Go")),"after"');
    expect(s.toSnapshot({ includeLiveValues: false })).toEqual(snapshot);
  });

  it("round-trips through JSON, ops included", () => {
    const { store: s } = store();
    s.load(snapshot);
    s.apply([
      { op: "create", id: 6, type: "#text", text: "!" },
      { op: "insert", parent: 3, child: 6 },
      { op: "remove", parent: 0, child: 5 },
    ]);
    const json = JSON.parse(JSON.stringify(s.toSnapshot()));
    const { store: restored, errors } = fromSnapshot(json, { mountId: "m1" });
    expect(errors).toEqual([]);
    expect(shape(restored)).toBe(shape(s));
    expect(restored.toSnapshot()).toEqual(s.toSnapshot());
    expect(restored.getMeta().inert).toBe(true);
  });

  it("keeps what the person typed in the snapshot by default", () => {
    const { store: s } = store();
    s.load(snapshot);
    s.setControlValue(2, "Bergen", false);
    const node = s.toSnapshot().nodes[0] as { children: Array<{ props: Record<string, unknown> }> };
    expect(node.children[0].props.value).toBe("Bergen");
    const { store: restored } = fromSnapshot(s.toSnapshot(), { mountId: "m1" });
    expect(restored.getNode(2)!.live).toBe("Bergen");
  });

  it("rejects a malformed snapshot without throwing and renders nothing of it", () => {
    for (const bad of [
      null,
      5,
      { nodes: "x" },
      { nodes: [{ id: -1, type: "div", props: {}, children: [] }] },
      { nodes: [{ id: 1, type: "div" }] },
    ]) {
      const { store: s, errors } = fromSnapshot(bad, { mountId: "m1" });
      expect(codes(errors)).toEqual(["invalid-snapshot"]);
      expect(s.nodeCount).toBe(0);
    }
  });

  it("reports duplicate ids inside a snapshot and keeps the rest", () => {
    const { errors, store: s } = fromSnapshot(
      {
        nodes: [
          { id: 1, type: "p", props: {}, children: [] },
          { id: 1, type: "span", props: {}, children: [] },
          { id: 2, type: "b", props: {}, children: [] },
        ],
      },
      { mountId: "m1" },
    );
    expect(codes(errors)).toContain("duplicate-node");
    expect(shape(s)).toContain("b");
  });

  it("load replaces the previous tree", () => {
    const { store: s } = store();
    s.apply(card);
    s.load({ nodes: [{ id: 1, type: "p", props: {}, children: [] }] });
    expect(shape(s)).toBe("p");
    expect(s.nodeCount).toBe(1);
  });
});

describe("host-owned control values", () => {
  function input(props: Record<string, unknown> = {}): MountStore {
    const { store: s } = store();
    s.apply([
      { op: "create", id: 1, type: "input", props: { onChange: H, ...props } as never },
      { op: "insert", parent: 0, child: 1 },
    ]);
    return s;
  }

  it("starts from value, then defaultValue, then empty", () => {
    expect(input({ value: "a" }).getNode(1)!.live).toBe("a");
    expect(input({ defaultValue: "b" }).getNode(1)!.live).toBe("b");
    expect(input().getNode(1)!.live).toBe("");
    expect(input({ type: "checkbox" }).getNode(1)!.live).toBe(false);
  });

  it("ignores late echoes of values the host reported (fast typing)", () => {
    const s = input({ value: "" });
    s.setControlValue(1, "a", true);
    s.setControlValue(1, "ab", true);
    s.setControlValue(1, "abc", true);
    s.apply([{ op: "props", id: 1, props: { onChange: H, value: "a" } }]);
    expect(s.getNode(1)!.live).toBe("abc");
    s.apply([{ op: "props", id: 1, props: { onChange: H, value: "ab" } }]);
    s.apply([{ op: "props", id: 1, props: { onChange: H, value: "abc" } }]);
    expect(s.getNode(1)!.live).toBe("abc");
  });

  it("ignores props ops that repeat the realm's previous value", () => {
    const s = input({ value: "fixed" });
    s.setControlValue(1, "typed", false);
    s.apply([{ op: "props", id: 1, props: { onChange: H, value: "fixed", className: "x" } }]);
    expect(s.getNode(1)!.live).toBe("typed");
  });

  it("applies a value the realm chose (transform, clear after submit)", () => {
    const s = input({ value: "" });
    s.setControlValue(1, "ab", true);
    s.apply([{ op: "props", id: 1, props: { onChange: H, value: "AB" } }]);
    expect(s.getNode(1)!.live).toBe("AB");
    s.apply([{ op: "props", id: 1, props: { onChange: H, value: "" } }]);
    expect(s.getNode(1)!.live).toBe("");
  });

  it("unchecks the other radios of a group", () => {
    const { store: s } = store();
    s.apply([
      { op: "create", id: 1, type: "form" },
      { op: "create", id: 2, type: "input", props: { type: "radio", name: "size", value: "s" } },
      { op: "create", id: 3, type: "input", props: { type: "radio", name: "size", value: "m", defaultChecked: true } },
      { op: "insert", parent: 1, child: 2 },
      { op: "insert", parent: 1, child: 3 },
      { op: "insert", parent: 0, child: 1 },
    ]);
    s.setControlValue(2, true, false);
    expect(s.getNode(3)!.live).toBe(false);
    expect(s.collectFormValues(1)).toEqual({ size: "s" });
  });
});

describe("collectFormValues", () => {
  it("gathers named fields by kind, repeats as arrays, skips disabled and unnamed", () => {
    const { store: s } = store();
    const ops: MountOp[] = [
      { op: "create", id: 1, type: "form" },
      { op: "create", id: 2, type: "Input", props: { name: "email", defaultValue: "a@b.c" } },
      { op: "create", id: 3, type: "Checkbox", props: { name: "agree" } },
      { op: "create", id: 4, type: "Switch", props: { name: "news", defaultChecked: true } },
      { op: "create", id: 5, type: "Slider", props: { name: "volume", defaultValue: [30] } },
      { op: "create", id: 6, type: "Slider", props: { name: "range", defaultValue: [10, 90] } },
      { op: "create", id: 7, type: "Select", props: { name: "fruit", defaultValue: "apple" } },
      { op: "create", id: 8, type: "input", props: { name: "tag", defaultValue: "x" } },
      { op: "create", id: 9, type: "input", props: { name: "tag", defaultValue: "y" } },
      { op: "create", id: 10, type: "input", props: { name: "secret", defaultValue: "z", disabled: true } },
      { op: "create", id: 11, type: "fieldset", props: { disabled: true } },
      { op: "create", id: 12, type: "input", props: { name: "inside", defaultValue: "w" } },
      { op: "create", id: 13, type: "input", props: { defaultValue: "no name" } },
      { op: "create", id: 14, type: "input", props: { type: "checkbox", name: "native" } },
      { op: "create", id: 15, type: "textarea", props: { name: "notes", value: "hi" } },
      { op: "create", id: 16, type: "input", props: { type: "submit", name: "go", value: "Go" } },
      { op: "insert", parent: 11, child: 12 },
      ...[2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16].map(
        (child) => ({ op: "insert", parent: 1, child }) as MountOp,
      ),
      { op: "insert", parent: 0, child: 1 },
    ];
    expect(s.apply(ops)).toEqual([]);
    s.setControlValue(3, true, false);
    expect(s.collectFormValues(1)).toEqual({
      email: "a@b.c",
      agree: true,
      news: true,
      volume: 30,
      range: [10, 90],
      fruit: "apple",
      tag: ["x", "y"],
      native: false,
      notes: "hi",
    });
  });
});

describe("meta", () => {
  it("tracks title, waiting, errors, inert and close, notifying only on change", () => {
    const { store: s } = store();
    let calls = 0;
    s.subscribeMeta(() => calls++);
    s.setWaiting(true);
    s.setWaiting(true);
    s.setFormErrors({ email: "Invalid email", "": "Try again" });
    expect(s.getMeta().formErrors.email).toBe("Invalid email");
    s.clearFormErrors();
    expect(s.getMeta().formErrors).toEqual({});
    s.close();
    expect(s.getMeta()).toMatchObject({ closed: true, waiting: false });
    expect(calls).toBe(4);
  });

  it("report deduplicates by key", () => {
    const { store: s, errors } = store();
    expect(s.report({ code: "unknown-component", message: "x" }, "k")).toBe(true);
    expect(s.report({ code: "unknown-component", message: "x" }, "k")).toBe(false);
    expect(errors).toHaveLength(1);
  });
});
