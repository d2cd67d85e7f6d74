import fc from "fast-check";
import { useState, type ReactNode } from "react";
import { describe, expect, test } from "vitest";
import { isSnapshotText, type SnapshotElement, type SnapshotNode } from "../../../src/wire/mount";
import { applyOps, printSnapshot } from "./applyOps";
import { createRenderer } from "./createRenderer";
import { createNodeTable } from "./nodeTable";
import { toWireProps } from "./toWireProps";

const shared = createRenderer();

function setup(renderer = shared) {
  const table = createNodeTable({ serialize: (type, props) => toWireProps(type, props) });
  const errors: unknown[] = [];
  const root = renderer.createRoot(
    { table, onRenderStart() {}, onRenderEnd() {} },
    { onUncaughtError: (error) => errors.push(error) },
  );
  let shown = table.snapshot();
  /** Applies pending ops to the previous snapshot and checks the result equals the table's snapshot. */
  const sync = () => {
    const ops = table.takeOps();
    shown = applyOps(shown, ops);
    expect(shown).toEqual(table.snapshot());
    return ops;
  };
  return { renderer, table, root, errors, sync, html: () => printSnapshot(table.snapshot()) };
}

function idsByKey(nodes: SnapshotNode[]): Record<string, number> {
  const list = nodes[0];
  if (!list || isSnapshotText(list)) return {};
  return Object.fromEntries(list.children.map((child) => [(child as SnapshotElement).props.id as string, child.id]));
}

const List = ({ items }: { items: string[] }) => (
  <ul>
    {items.map((item) => (
      <li key={item} id={item}>
        {item}
      </li>
    ))}
  </ul>
);

describe("react-reconciler host config", () => {
  test("insert, remove and reorder keep ids stable", () => {
    const { root, table, sync } = setup();
    root.renderSync(<List items={["a", "b", "c"]} />);
    sync();
    const before = idsByKey(table.snapshot().nodes);
    root.renderSync(<List items={["c", "a", "d"]} />);
    const ops = sync();
    const after = idsByKey(table.snapshot().nodes);
    expect(after.a).toBe(before.a);
    expect(after.c).toBe(before.c);
    expect(after.d).toBeGreaterThan(Math.max(...Object.values(before)));
    expect(ops.some((op) => op.op === "remove" && op.child === before.b)).toBe(true);
    expect(ops.filter((op) => op.op === "create").map((op) => op.op === "create" && op.type)).toEqual(["li", "#text"]);
  });

  test("text and props updates are minimal ops", () => {
    const { root, sync, html } = setup();
    const View = ({ n, cls }: { n: number; cls: string }) => <div className={cls}>count {n}</div>;
    root.renderSync(<View n={1} cls="a" />);
    sync();
    root.renderSync(<View n={2} cls="a" />);
    expect(sync().map((op) => op.op)).toEqual(["text"]);
    root.renderSync(<View n={2} cls="b" />);
    expect(sync()).toEqual([{ op: "props", id: expect.any(Number), props: { className: "b" } }]);
    expect(html()).toBe('<div className="b">count 2</div>');
  });

  test("a handler prop is always the current closure; hooks state survives re-renders", () => {
    const { root, table, renderer, sync, html } = setup();
    function Counter({ step }: { step: number }) {
      const [count, setCount] = useState(0);
      return <button onClick={() => setCount(count + step)}>{count}</button>;
    }
    root.renderSync(<Counter step={1} />);
    sync();
    const click = () => {
      const button = table.root.children[0];
      renderer.discreteEvent(() => (button.props.onClick as () => void)());
    };
    click();
    click();
    expect(html()).toBe("<button onClick={fn}>2</button>");
    root.renderSync(<Counter step={10} />); // new closure over step
    click();
    expect(html()).toBe("<button onClick={fn}>12</button>");
    expect(sync().every((op) => op.op === "text")).toBe(true); // the marker never changes: no props op
  });

  test("any host type name renders (the host reports unknown ones)", () => {
    const { root, html, errors } = setup();
    const Unknown = "FancyWidget" as unknown as (props: { children: ReactNode }) => ReactNode;
    root.renderSync(<Unknown>x</Unknown>);
    expect(html()).toBe("<FancyWidget>x</FancyWidget>");
    expect(errors).toEqual([]);
  });

  test("unmount empties the table", () => {
    const { root, sync, table } = setup();
    root.renderSync(<List items={["a"]} />);
    sync();
    root.unmount();
    sync();
    expect(table.snapshot()).toEqual({ nodes: [] });
  });

  test("property: any sequence of keyed lists → ops replay to the same tree, kept keys keep ids", () => {
    const keys = fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e", "f", "g"), { maxLength: 7 });
    fc.assert(
      fc.property(fc.array(keys, { minLength: 1, maxLength: 8 }), (lists) => {
        const { root, table, sync } = setup();
        let previous: Record<string, number> = {};
        for (const items of lists) {
          root.renderSync(<List items={items} />);
          sync();
          const ids = idsByKey(table.snapshot().nodes);
          expect(Object.keys(ids)).toEqual(items);
          for (const key of items) if (previous[key] !== undefined) expect(ids[key]).toBe(previous[key]);
          previous = ids;
        }
      }),
      { numRuns: 100 },
    );
  });
});
