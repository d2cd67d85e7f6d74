import { describe, expect, test } from "vitest";
import { HANDLER_MARKER, type MountSnapshot, type WireProps } from "../../../src/wire/mount";
import { applyOps } from "./applyOps";
import { createNodeTable, wireTypeName } from "./nodeTable";
import { toWireProps } from "./toWireProps";

function table() {
  let notified = 0;
  const nodes = createNodeTable({ serialize: (type, props) => toWireProps(type, props), onOps: () => notified++ });
  return { nodes, notified: () => notified };
}

describe("createNodeTable", () => {
  test("a detached subtree reaches the host only when it attaches, as creates then inserts", () => {
    const { nodes, notified } = table();
    const card = nodes.createElement("Card", { className: "p-2" });
    const text = nodes.createText("hello");
    nodes.appendChild(card, text);
    expect(nodes.hasOps()).toBe(false);
    nodes.appendChild(nodes.root, card);
    expect(nodes.takeOps()).toEqual([
      { op: "create", id: card.id, type: "Card", props: { className: "p-2" } },
      { op: "create", id: text.id, type: "#text", text: "hello" },
      { op: "insert", parent: card.id, child: text.id },
      { op: "insert", parent: 0, child: card.id },
    ]);
    expect(notified()).toBe(1);
    expect(nodes.takeOps()).toEqual([]);
  });

  test("insertBefore, move, remove, text and props ops on attached nodes", () => {
    const { nodes } = table();
    const list = nodes.createElement("ul", {});
    nodes.appendChild(nodes.root, list);
    const a = nodes.createElement("li", { id: "a" });
    const b = nodes.createElement("li", { id: "b" });
    nodes.appendChild(list, a);
    nodes.insertBefore(list, b, a);
    const before = nodes.snapshot();
    nodes.takeOps();
    nodes.insertBefore(list, a, b); // move a before b
    nodes.updateProps(b, { id: "b", title: "B" });
    nodes.updateProps(b, { id: "b", title: "B" }); // no change: no op
    const label = nodes.createText("x");
    nodes.appendChild(a, label);
    nodes.updateText(label, "y");
    nodes.removeChild(list, b);
    const ops = nodes.takeOps();
    expect(ops).toEqual([
      { op: "insert", parent: list.id, child: a.id, before: b.id },
      { op: "props", id: b.id, props: { id: "b", title: "B" } },
      { op: "create", id: label.id, type: "#text", text: "x" },
      { op: "insert", parent: a.id, child: label.id },
      { op: "text", id: label.id, text: "y" },
      { op: "remove", parent: list.id, child: b.id },
    ]);
    expect(applyOps(before, ops)).toEqual(nodes.snapshot());
    expect(nodes.get(b.id)).toBeUndefined();
  });

  test("ids are stable and never reused", () => {
    const { nodes } = table();
    const a = nodes.createElement("div", {});
    nodes.appendChild(nodes.root, a);
    nodes.removeChild(nodes.root, a);
    const b = nodes.createElement("div", {});
    expect(b.id).toBeGreaterThan(a.id);
  });

  test("function props are handler markers; handlers stay in the realm props", () => {
    const { nodes } = table();
    const click = () => {};
    const button = nodes.createElement("Button", { onClick: click, children: "Go" });
    expect(button.wireProps).toEqual({ onClick: HANDLER_MARKER });
    expect(button.props.onClick).toBe(click);
  });

  test("hidden subtrees (Suspense) send hidden props and empty text", () => {
    const { nodes } = table();
    const div = nodes.createElement("div", { className: "a" });
    const text = nodes.createText("t");
    nodes.appendChild(div, text);
    nodes.appendChild(nodes.root, div);
    nodes.takeOps();
    nodes.setHidden(div, true);
    nodes.setHidden(text, true);
    expect(nodes.takeOps()).toEqual([
      { op: "props", id: div.id, props: { className: "a", hidden: true } },
      { op: "text", id: text.id, text: "" },
    ]);
  });

  test("clear removes every top-level node", () => {
    const { nodes } = table();
    nodes.appendChild(nodes.root, nodes.createElement("a", {}));
    nodes.appendChild(nodes.root, nodes.createText("b"));
    const before: MountSnapshot = nodes.snapshot();
    nodes.takeOps();
    nodes.clear();
    expect(applyOps(before, nodes.takeOps())).toEqual({ nodes: [] });
  });

  test("any type name is accepted and made wire-safe", () => {
    expect(wireTypeName("Card")).toBe("Card");
    expect(wireTypeName("svg:rect")).toBe("svg:rect");
    expect(wireTypeName("my widget")).toBe("my_widget");
    expect(wireTypeName("1abc")).toBe("x1abc");
    expect(wireTypeName("A".repeat(100))).toHaveLength(64);
    const { nodes } = table();
    expect(nodes.createElement("<script>", {}).type).toBe("x_script_");
  });
});

describe("op coalescing", () => {
  test("a node updated many times between frames sends one text op and one props op, and the ops still rebuild the tree", () => {
    const table = createNodeTable({ serialize: (_type, props) => ({ ...props }) as WireProps });
    const span = table.createElement("span", { title: "a" });
    const text = table.createText("0");
    table.appendChild(span, text);
    table.appendChild(table.root, span);
    const before = table.snapshot();
    table.takeOps();
    for (let index = 1; index <= 200; index += 1) {
      table.updateText(text, String(index));
      table.updateProps(span, { title: `t${index}` });
    }
    const other = table.createElement("b", {});
    table.appendChild(table.root, other);
    table.updateText(text, "final");
    const ops = table.takeOps();
    expect(ops.filter((op) => op.op === "text")).toEqual([{ op: "text", id: text.id, text: "final" }]);
    expect(ops.filter((op) => op.op === "props")).toEqual([{ op: "props", id: span.id, props: { title: "t200" } }]);
    expect(applyOps(before, ops)).toEqual(table.snapshot());
  });
});
