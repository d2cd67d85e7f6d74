/* eslint-disable @typescript-eslint/no-explicit-any */
/**
 * Code written for the prototype runs unchanged: `ui` gets
 * `{ data, streamedData, output, callbacks }` with `streamedData` the current
 * plain value; what mount would ignore is reported to the model as a warning.
 */
import { describe, expect, test } from "vitest";
import type { MountHandle, MountOptions, Ui } from "./createMountRuntime";
import { streamIdle } from "./StreamedData";
import { createUiHarness } from "./uiTestHarness";

const Button: any = "Button";

function setup() {
  const harness = createUiHarness();
  const g = harness.globals as any;
  return {
    harness,
    mount: g.mount as (options: MountOptions | Ui | Record<string, unknown>) => MountHandle,
    StreamedData: g.StreamedData as new (id: string) => any,
  };
}

const warnings = (harness: ReturnType<typeof createUiHarness>) =>
  harness.errors.filter((error) => error.code === "mount-warning").map((error) => error.message);

describe("the prototype's mount API", () => {
  test("streamedData is the current plain value: Array.isArray and .map work while it streams", async () => {
    const { harness, mount, StreamedData } = setup();
    const items = new StreamedData("items");
    mount({
      streamedData: items,
      ui: ({ streamedData }: any) => {
        const rows = Array.isArray(streamedData) ? streamedData : [];
        return (
          <ul>
            {rows.map((row: { name: string }, index: number) => (
              <li key={index}>{row.name}</li>
            ))}
          </ul>
        );
      },
    });
    await harness.settle();
    expect(harness.html("m1")).toBe("<ul></ul>");
    const sink = harness.ui.openDataTarget("items")!;
    sink.push('[{"name": "apple"}, {"name": "pe');
    await streamIdle(items);
    await harness.settle();
    expect(harness.html("m1")).toContain("<li>apple</li>");
    sink.push('ar"}]');
    sink.end(false);
    await harness.settle();
    expect(harness.html("m1")).toBe("<ul><li>apple</li><li>pear</li></ul>");
    expect(warnings(harness)).toEqual([]);
  });

  test("an object of StreamedData gives an object of their values", async () => {
    const { harness, mount, StreamedData } = setup();
    const sales = new StreamedData("sales");
    mount({ streamedData: { sales }, ui: ({ streamedData }: any) => <p>{JSON.stringify(streamedData)}</p> });
    const sink = harness.ui.openDataTarget("sales")!;
    sink.push("[1, 2]");
    sink.end(false);
    await harness.settle();
    expect(harness.html("m1")).toBe('<p>{"sales":[1,2]}</p>');
  });

  test("output(values) resolves result like submit", async () => {
    const { harness, mount } = setup();
    const handle = mount({ ui: ({ output }: any) => <Button onClick={() => output({ pick: "b" })}>Pick</Button> });
    await harness.settle();
    harness.fire("m1", "Button", "onClick");
    await expect(handle.result).resolves.toEqual({ pick: "b" });
  });
});

describe("what mount would ignore is reported as a warning", () => {
  test("an unknown mount option", async () => {
    const { harness, mount } = setup();
    mount({ ui: () => <p>hi</p>, initialData: [1, 2] });
    await harness.settle();
    expect(harness.html("m1")).toBe("<p>hi</p>");
    const [warning, ...rest] = warnings(harness);
    expect(rest).toEqual([]);
    expect(warning).toContain('"initialData"');
    expect(warning).toContain("mount m1");
    expect(harness.errors.find((error) => error.code === "mount-warning")?.name).toBe("MountWarning");
  });

  test("a prop ui destructures that mount never passes, and streamedData.value", async () => {
    const { harness, mount, StreamedData } = setup();
    const rows = new StreamedData("rows");
    mount({
      ui: ({ data, rows: list }: any) => (
        <p>
          {String(data)}
          {String(list)}
        </p>
      ),
    });
    mount({ streamedData: rows, ui: ({ streamedData }: any) => <p>{(streamedData?.value ?? []).length}</p> });
    await harness.settle();
    const found = warnings(harness);
    expect(found).toHaveLength(2);
    expect(found[0]).toContain('"rows"');
    expect(found[0]).toContain("mount m1");
    expect(found[1]).toContain("streamedData.value");
    expect(found[1]).toContain("mount m2");
  });

  test("known options and props say nothing", async () => {
    const { harness, mount, StreamedData } = setup();
    const rows = new StreamedData("known");
    mount({
      title: "t",
      data: { a: 1 },
      streamedData: rows,
      callbacks: {},
      ui: ({ data, streamedData, output, callbacks, errors, submit }: any) => (
        <p>{[data, streamedData, output, callbacks, errors, submit].length}</p>
      ),
    });
    await harness.settle();
    expect(warnings(harness)).toEqual([]);
  });
});
