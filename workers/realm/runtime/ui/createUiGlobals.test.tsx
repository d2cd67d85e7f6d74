/* eslint-disable @typescript-eslint/no-explicit-any */
import { describe, expect, test, vi } from "vitest";
import { createUiGlobals } from "./createUiGlobals";
import {
  MOUNT,
  KIT_COMPONENTS,
  MAX_OPS_PER_MESSAGE,
  MOUNT_OPEN,
  MOUNT_OPEN_PART,
  MOUNT_OPS,
  UI_EVENT,
} from "../../../../src/wire/mount";
import type { MountHandle, MountOptions, Ui, UiProps } from "./createMountRuntime";
import { streamIdle } from "./StreamedData";
import { createUiHarness } from "./uiTestHarness";

// What model code sees: kit names are strings (host types).
const Card: any = "Card";
const CardContent: any = "CardContent";
const Button: any = "Button";
const Input: any = "Input";
const Checkbox: any = "Checkbox";
const LineChart: any = "LineChart";
const Line: any = "Line";
const Skeleton: any = "Skeleton";

function globalsOf(harness: ReturnType<typeof createUiHarness>) {
  const g = harness.globals as any;
  return {
    mount: g.mount as (options: MountOptions | Ui) => MountHandle,
    Data: g.Data as new <T extends object>(initial: T) => T,
    StreamedData: g.StreamedData as new (id: string) => any,
    Slot: g.Slot as any,
    z: g.z as typeof import("zod").z,
    React: g.React as typeof import("react"),
  };
}

async function pushFence(
  harness: ReturnType<typeof createUiHarness>,
  id: string,
  text: string,
  size = 4,
  target?: object,
) {
  const sink = harness.ui.openDataTarget(id)!;
  for (let index = 0; index < text.length; index += size) {
    sink.push(text.slice(index, index + size));
    if (target) await streamIdle(target);
  }
  return sink;
}

describe("globals", () => {
  test("kit component names are strings equal to their names; icons end in Icon; React and hooks are there", () => {
    const g = createUiHarness().globals as Record<string, unknown>;
    for (const name of KIT_COMPONENTS) expect(g[name]).toBe(name);
    expect(g.StarIcon).toBe("StarIcon");
    expect(g.Star).toBeUndefined(); // bare icon names would shadow user code and platform globals (Map)
    for (const name of [
      "mount",
      "Data",
      "StreamedData",
      "Slot",
      "z",
      "React",
      "useState",
      "useEffect",
      "useMemo",
      "useRef",
      "useCallback",
      "useReducer",
    ]) {
      expect(g[name], name).toBeDefined();
    }
  });
});

describe("mount", () => {
  test("opens with a snapshot and title; ui receives data, callbacks and errors", async () => {
    const harness = createUiHarness();
    const { mount } = globalsOf(harness);
    let seen: UiProps | undefined;
    const handle = mount({
      title: "Hello",
      data: { name: "Ada" },
      callbacks: { onHi: () => {} },
      ui: (props: UiProps) => {
        seen = props;
        return (
          <Card className="p-4">
            <CardContent>Hi {(props.data as { name: string }).name}</CardContent>
          </Card>
        );
      },
    });
    expect(handle.id).toBe("m1");
    expect(harness.messages[0]).toMatchObject({ type: MOUNT, kind: MOUNT_OPEN, mountId: "m1", title: "Hello" });
    expect(harness.html("m1")).toBe('<Card className="p-4"><CardContent>Hi Ada</CardContent></Card>');
    expect(seen?.errors).toEqual({});
    expect(typeof seen?.callbacks.onHi).toBe("function");
    expect(await harness.settle()).toBe(0); // nothing changed: no frame
  });

  test("validates its options with messages the model can act on", () => {
    const { mount } = globalsOf(createUiHarness());
    expect(() => mount({} as MountOptions)).toThrow(/needs ui to be a component/);
    expect(() => mount({ ui: () => null, outputSchema: { name: "string" } })).toThrow(/zod schema/);
    expect(() => mount(() => <div>shorthand</div>)).not.toThrow();
  });

  test("callback button: the click reaches the callback; state updates reach the host in one ops message", async () => {
    const harness = createUiHarness();
    const { mount, React } = globalsOf(harness);
    const approved: string[] = [];
    mount({
      callbacks: { onApprove: (who: string) => approved.push(who) },
      ui: ({ callbacks }: UiProps) => {
        const [count, setCount] = React.useState(0);
        return (
          <Button
            onClick={() => {
              setCount(count + 1);
              (callbacks.onApprove as (who: string) => void)(`click ${count + 1}`);
            }}
          >
            Approve ({count})
          </Button>
        );
      },
    });
    expect(harness.fire("m1", "Button", "onClick")).toBe(true);
    expect(harness.fire("m1", "Button", "onClick")).toBe(true);
    await harness.settle();
    expect(approved).toEqual(["click 1", "click 2"]); // the second click saw the re-rendered closure
    expect(harness.html("m1")).toBe("<Button onClick={fn}>Approve (2)</Button>");
    expect(harness.host("m1").opsMessages).toBe(1);
  });

  test("onChange and onValueChange/onCheckedChange get DOM-style and Radix-style arguments", async () => {
    const harness = createUiHarness();
    const { mount, React } = globalsOf(harness);
    mount(() => {
      const [name, setName] = React.useState("");
      const [on, setOn] = React.useState(false);
      return (
        <div>
          <Input name="name" value={name} onChange={(e: any) => setName(e.target.value)} />
          <Checkbox checked={on} onCheckedChange={(checked: boolean) => setOn(checked)} />
          <p>
            {name}:{String(on)}
          </p>
        </div>
      );
    });
    harness.fire("m1", "Input", "onChange", { value: "Grace" });
    harness.fire("m1", "Checkbox", "onCheckedChange", { checked: true });
    await harness.settle();
    expect(harness.html("m1")).toContain("<p>Grace:true</p>");
  });

  test("hooks keep their state across re-renders caused by Data", async () => {
    const harness = createUiHarness();
    const { mount, Data, React } = globalsOf(harness);
    const state = new Data({ label: "a" });
    let effects = 0;
    mount(() => {
      const [clicks, setClicks] = React.useState(0);
      const ref = React.useRef(0);
      ref.current += 1;
      const [total, add] = React.useReducer((sum: number, n: number) => sum + n, 0);
      const doubled = React.useMemo(() => clicks * 2, [clicks]);
      const onClick = React.useCallback(() => {
        setClicks((n) => n + 1);
        add(5);
      }, []);
      React.useEffect(() => {
        effects += 1;
      }, [clicks]);
      return (
        <Button onClick={onClick}>
          {state.label} {clicks} {doubled} {total}
        </Button>
      );
    });
    harness.fire("m1", "Button", "onClick");
    state.label = "b";
    await harness.settle();
    expect(harness.html("m1")).toBe("<Button onClick={fn}>b 1 2 5</Button>");
    expect(effects).toBe(2);
  });

  test("a component the model declared earlier works in a later mount", async () => {
    const harness = createUiHarness();
    const { mount, React } = globalsOf(harness);
    // statement 1
    function Stat({ label, value }: { label: string; value: number }) {
      const [open, setOpen] = React.useState(false);
      return (
        <Card onClick={() => setOpen(!open)}>
          {label}: {value}
          {open ? "!" : ""}
        </Card>
      );
    }
    // statement 2, later
    mount(() => (
      <div>
        <Stat label="Users" value={3} />
        <Stat label="Sales" value={9} />
      </div>
    ));
    harness.fire("m1", "Card", "onClick", {}, "Users: 3");
    await harness.settle();
    expect(harness.html("m1")).toBe("<div><Card onClick={fn}>Users: 3!</Card><Card onClick={fn}>Sales: 9</Card></div>");
  });

  test("handler exceptions are reported with the handler and component; the panel keeps working", async () => {
    const harness = createUiHarness({ locate: () => ({ line: 7 }) });
    const { mount } = globalsOf(harness);
    mount(() => (
      <Button
        onClick={() => {
          throw new TypeError("boom");
        }}
      >
        x
      </Button>
    ));
    harness.fire("m1", "Button", "onClick");
    mount(() => (
      <Button
        onClick={async () => {
          throw new Error("later");
        }}
      >
        y
      </Button>
    ));
    harness.fire("m2", "Button", "onClick");
    await harness.settle();
    expect(harness.errors.map((error) => [error.code, error.name, error.handler, error.component, error.line])).toEqual(
      [
        ["handler", "TypeError", "onClick", "Button", 7],
        ["handler", "Error", "onClick", "Button", 7],
      ],
    );
    expect(harness.host("m1").error).toBeNull();
  });

  test("functions other than handlers and element props are reported once, and dropped", async () => {
    const harness = createUiHarness();
    const { mount, Data } = globalsOf(harness);
    const state = new Data({ n: 0 });
    mount(() => (
      <LineChart data={[{ n: state.n }]} tickFormatter={(v: number) => `${v}%`} icon={<b />}>
        <Line dataKey="n" />
      </LineChart>
    ));
    state.n = 1;
    await harness.settle();
    expect(harness.errors.map((error) => error.code)).toEqual(["unsupported-prop", "unsupported-prop"]);
    expect(harness.html("m1")).toBe(
      '<LineChart data=[{"n":1}] tickFormatter={fn}><Line dataKey="n"></Line></LineChart>',
    );
  });

  test("invalid or stale UI events are dropped", () => {
    const harness = createUiHarness();
    const { mount } = globalsOf(harness);
    mount(() => <Button onClick={() => {}}>x</Button>);
    expect(
      harness.ui.handleUiEvent({ type: UI_EVENT, mountId: "m1", nodeId: 999, handler: "onClick", payload: {} }),
    ).toBe(false);
    expect(
      harness.ui.handleUiEvent({ type: UI_EVENT, mountId: "m9", nodeId: 1, handler: "onClick", payload: {} }),
    ).toBe(false);
    expect(harness.ui.handleUiEvent({ type: UI_EVENT, mountId: "m1", nodeId: 1, handler: "click", payload: {} })).toBe(
      false,
    );
    expect(harness.ui.handleUiEvent({ type: "other" })).toBe(false);
  });

  test("unmount closes the panel and rejects a pending result", async () => {
    const harness = createUiHarness();
    const { mount } = globalsOf(harness);
    const handle = mount(() => <div>x</div>);
    const result = Promise.resolve(handle.result).catch((error: { code: string }) => error.code);
    handle.unmount();
    expect(harness.host("m1").closed).toBe(true);
    expect(await result).toBe("mount-closed");
  });
});

describe("big trees on the wire", () => {
  test("a first render too big for one message is announced and sent in bounded parts the host rebuilds; a big update travels in bounded batches", async () => {
    // The harness's host checks every message with the port's bound (MAX_OPS_PER_MESSAGE) and rebuilds parts in order.
    const harness = createUiHarness();
    const { mount, Data } = globalsOf(harness);
    const grid = new Data({ rows: 40, label: "a" });
    mount({
      title: "Grid",
      ui: () => (
        <div>
          {Array.from({ length: grid.rows }, (_, r) => (
            <p key={r}>
              {Array.from({ length: 20 }, (_, c) => (
                <span key={c}>
                  {grid.label}
                  {c}
                </span>
              ))}
            </p>
          ))}
        </div>
      ),
    });
    // 1 + 40 × (1 + 20 × 3) nodes (a span holds two text nodes): 2,441 nodes, 4,882 create/insert ops.
    const open = harness.messages[0];
    expect(open).toMatchObject({
      type: MOUNT,
      kind: MOUNT_OPEN,
      mountId: "m1",
      title: "Grid",
      snapshot: { nodes: [] },
      parts: 5,
      nodes: 2441,
    });
    const parts = harness.messages.slice(1);
    expect(parts.map((message) => message.kind === MOUNT_OPEN_PART && message.index)).toEqual([0, 1, 2, 3, 4]);
    for (const part of parts)
      if (part.kind === MOUNT_OPEN_PART) expect(part.ops.length).toBeLessThanOrEqual(MAX_OPS_PER_MESSAGE);
    expect(harness.find("m1", (node) => node.type === "span")).toBeDefined();
    expect(harness.html("m1").match(/<span>/g)).toHaveLength(800);
    harness.messages.length = 0;
    grid.label = "b";
    grid.rows = 60;
    await harness.settle();
    const batches = harness.messages.filter((message) => message.kind === MOUNT_OPS);
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches)
      if (batch.kind === MOUNT_OPS) expect(batch.ops.length).toBeLessThanOrEqual(MAX_OPS_PER_MESSAGE);
    expect(harness.html("m1").match(/<span>b/g)).toHaveLength(1200);
  });
});

describe("Data", () => {
  test("mutations (nested, push, splice, delete) re-render the mounts that read it, once per frame", async () => {
    const harness = createUiHarness();
    const { mount, Data } = globalsOf(harness);
    const todos = new Data({
      title: "Todo",
      items: [{ text: "a", done: false }],
      meta: { tag: "x" } as Record<string, string>,
    });
    let renders = 0;
    let otherRenders = 0;
    mount(() => {
      renders += 1;
      return (
        <ul title={todos.title} data-tag={todos.meta.tag ?? "none"}>
          {todos.items.map((item, index) => (
            <li key={index}>
              {item.text}
              {item.done ? " ✓" : ""}
            </li>
          ))}
        </ul>
      );
    });
    mount(() => {
      otherRenders += 1;
      return <p>unrelated</p>;
    });
    renders = 0;
    todos.items[0].done = true;
    todos.items.push({ text: "b", done: false });
    todos.items.push({ text: "c", done: false });
    todos.items.splice(1, 1);
    delete todos.meta.tag;
    todos.title = "Todos";
    expect(await harness.settle()).toBe(1);
    expect(renders).toBe(1);
    expect(otherRenders).toBe(1); // only its first render
    expect(harness.html("m1")).toBe('<ul title="Todos" data-tag="none"><li>a ✓</li><li>c</li></ul>');
    expect(harness.host("m1").opsMessages).toBe(1);
  });

  test("a Data passed in data re-renders even when the ui reads it only in handlers; the ui gets a new identity per change", async () => {
    const harness = createUiHarness();
    const { mount, Data, React } = globalsOf(harness);
    const state = new Data({ items: [1, 2] });
    const identities = new Set<unknown>();
    mount({
      data: state,
      ui: ({ data }: UiProps) => {
        const items = (data as typeof state).items;
        identities.add(data);
        const sum = React.useMemo(() => items.reduce((a, b) => a + b, 0), [items]);
        return <Button onClick={() => (data as typeof state).items.push(10)}>{sum}</Button>;
      },
    });
    harness.fire("m1", "Button", "onClick");
    await harness.settle();
    expect(harness.html("m1")).toBe("<Button onClick={fn}>13</Button>");
    expect(identities.size).toBe(2);
  });
});

describe("StreamedData", () => {
  test("the realm's default hands a fence's deltas to the JSON parser at most once per frame, the first at once", async () => {
    vi.useFakeTimers();
    try {
      const ui = createUiGlobals({ post: () => {}, onError: () => {}, schedule: () => {} });
      const StreamedData = ui.globals.StreamedData as new (id: string) => any;
      const nums = new StreamedData("nums");
      const sink = ui.openDataTarget("nums")!;
      const drain = async () => {
        for (let index = 0; index < 20; index += 1) await Promise.resolve();
      };
      sink.push("[1,");
      await drain();
      expect(nums.value).toEqual([1]); // the first delta after a quiet frame: at the end of its task
      sink.push("2,");
      await drain();
      sink.push("3,");
      await drain();
      expect(nums.value).toEqual([1]); // the same frame: queued, not parsed
      await vi.advanceTimersByTimeAsync(16);
      expect(nums.value).toEqual([1, 2, 3]); // the next frame: both at once
      sink.push("4]");
      expect(sink.end(false)).toBeUndefined();
      expect(nums.value).toEqual([1, 2, 3, 4]); // the end is decided at once
    } finally {
      vi.useRealTimers();
    }
  });

  const rows = Array.from({ length: 6 }, (_, index) => ({ month: `M${index}`, sales: 1000 + index * 1111 }));

  test("a chart grows while the fence streams, never shows a half-typed number, re-renders at most once per frame", async () => {
    const harness = createUiHarness();
    const { mount, StreamedData } = globalsOf(harness);
    const sales = new StreamedData("sales");
    let renders = 0;
    mount({
      streamedData: sales,
      ui: ({ streamedData }: UiProps) => {
        renders += 1;
        // The prop is the current plain value (the prototype's API), not the StreamedData.
        const data = (streamedData ?? []) as typeof rows;
        return (
          <LineChart data={data}>
            <Line dataKey="sales" />
          </LineChart>
        );
      },
    });
    const sink = harness.ui.openDataTarget("sales")!;
    const text = JSON.stringify(rows);
    const lengths: number[] = [];
    let frames = 0;
    for (let index = 0; index < text.length; index += 4) {
      sink.push(text.slice(index, index + 4));
      await streamIdle(sales);
      frames += harness.frames.length;
      while (harness.frames.length > 0) harness.frames.shift()!();
      const chart = harness.find("m1", (node) => node.type === "LineChart") as any;
      const shown = chart.props.data as typeof rows;
      lengths.push(shown.length);
      for (const row of shown) if (row.sales !== undefined) expect(rows.map((r) => r.sales)).toContain(row.sales);
    }
    expect(sink.end(false)).toBeUndefined();
    await harness.settle();
    expect(renders).toBeLessThanOrEqual(frames + 2);
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    expect(new Set(lengths).size).toBe(rows.length); // 1, 2, …, 6 rows seen in turn
    expect((harness.find("m1", (node) => node.type === "LineChart") as any).props.data).toEqual(rows);
  });

  test("closed-over StreamedData, props read-through, await done, each fence replaces", async () => {
    const harness = createUiHarness();
    const { mount, StreamedData } = globalsOf(harness);
    const stats = new StreamedData("stats");
    mount(() => (
      <p>
        {stats.streaming ? "…" : ""}
        {JSON.stringify(stats)} {String(stats.total ?? "")}
      </p>
    ));
    const done = stats.done;
    let sink = await pushFence(harness, "stats", '{"total": 42, "by": {"a": 1}}', 4, stats);
    sink.end(false);
    expect(await done).toEqual({ total: 42, by: { a: 1 } });
    await harness.settle();
    expect(harness.html("m1")).toBe('<p>{"total":42,"by":{"a":1}} 42</p>');
    sink = await pushFence(harness, "stats", '{"total": 7}', 4, stats);
    sink.end(false);
    await harness.settle();
    expect(harness.html("m1")).toBe('<p>{"total":7} 7</p>');
  });

  test("malformed JSON keeps the last valid value and reports data-invalid; unknown ids have no target; duplicates are reported", async () => {
    const harness = createUiHarness();
    const { mount, StreamedData } = globalsOf(harness);
    const list = new StreamedData("list");
    mount(() => <p>{((list.value ?? []) as number[]).join(",")}</p>);
    const sink = await pushFence(harness, "list", "[1, 22, 333, oops]", 4, list);
    expect(sink.end(false)).toMatchObject({ code: "data-invalid" });
    await harness.settle();
    expect(harness.html("m1")).toBe("<p>1,22,333</p>");
    expect(harness.ui.openDataTarget("missing")).toBeUndefined();
    new StreamedData("list");
    expect(harness.errors.map((error) => error.code)).toEqual(["duplicate-target"]);
  });

  test("a render error while the stream is open is held (the panel keeps its tree); shown and reported only if it outlives the stream", async () => {
    const harness = createUiHarness();
    const { mount, StreamedData } = globalsOf(harness);
    const report = new StreamedData("report");
    // The model forgot that `items` is missing until it streams in.
    mount(() => (
      <ul>
        {(report.value as { items: string[] } | undefined)?.items.map((item) => <li key={item}>{item}</li>) ??
          "waiting"}
      </ul>
    ));
    expect(harness.html("m1")).toBe("<ul>waiting</ul>");
    let sink = await pushFence(harness, "report", '{"title": "x", "items": ["a", "b"]}', 4, report);
    await harness.settle();
    sink.end(false);
    await harness.settle();
    expect(harness.errors).toEqual([]);
    expect(harness.host("m1").error).toBeNull();
    expect(harness.html("m1")).toBe("<ul><li>a</li><li>b</li></ul>");
    // Now a fence that never brings `items`: the error is real.
    sink = await pushFence(harness, "report", '{"title": "y"}', 4, report);
    await harness.settle();
    expect(harness.host("m1").error).toBeNull(); // still streaming: held
    sink.end(false);
    await harness.settle();
    expect(harness.host("m1").error).toMatchObject({ code: "render", name: "TypeError" });
    expect(harness.errors.map((error) => error.code)).toEqual(["render"]);
  });
});

describe("render errors", () => {
  test("show in the panel and are reported once with the component; a later good render clears them", async () => {
    const harness = createUiHarness({ locate: () => ({ line: 12 }) });
    const { mount, Data } = globalsOf(harness);
    const state = new Data({ broken: true });
    function Broken(): any {
      if (state.broken) throw new RangeError("bad range");
      return <p>fixed</p>;
    }
    mount({
      title: "t",
      ui: () => (
        <Card>
          <Broken />
        </Card>
      ),
    });
    expect(harness.host("m1").error).toEqual({
      code: "render",
      name: "RangeError",
      message: "bad range",
      component: "Broken",
      line: 12,
    });
    expect(harness.errors).toHaveLength(1);
    expect(harness.errors[0]).toMatchObject({ code: "render", component: "Broken", mountId: "m1", line: 12 });
    state.broken = true; // same value: nothing happens
    await harness.settle();
    expect(harness.errors).toHaveLength(1);
    state.broken = false;
    await harness.settle();
    expect(harness.host("m1").error).toBeNull();
    expect(harness.html("m1")).toBe("<Card><p>fixed</p></Card>");
  });

  test("an error in a state update after a click shows in the panel and the panel keeps it", async () => {
    const harness = createUiHarness();
    const { mount, React } = globalsOf(harness);
    mount(() => {
      const [n, setN] = React.useState(0);
      if (n > 0) throw new Error("kaput");
      return <Button onClick={() => setN(1)}>go</Button>;
    });
    harness.fire("m1", "Button", "onClick");
    await harness.settle();
    expect(harness.host("m1").error).toMatchObject({ message: "kaput" });
    expect(harness.html("m1")).toBe("");
    await harness.settle();
    expect(harness.host("m1").error).toMatchObject({ message: "kaput" });
    expect(harness.errors).toHaveLength(1);
  });
});

describe("forms", () => {
  test("a valid submit resolves result with coerced numbers, booleans and nesting; waiting is shown while awaited", async () => {
    const harness = createUiHarness();
    const { mount, z } = globalsOf(harness);
    const comp = mount({
      outputSchema: z.object({
        name: z.string().min(1),
        age: z.number().int(),
        subscribe: z.boolean(),
        address: z.object({ city: z.string() }),
        tags: z.array(z.string()),
      }),
      ui: ({ errors }: UiProps) => (
        <form>
          <Input name="name" />
          <Input name="age" type="number" />
          {errors.age ? <p className="error">{errors.age}</p> : null}
          <Checkbox name="subscribe" />
          <Input name="address.city" />
          <Button type="submit">Send</Button>
        </form>
      ),
    });
    const result = (async () => await comp.result)();
    await Promise.resolve();
    expect(harness.host("m1").waiting).toBe(true);
    harness.fire("m1", "form", "onSubmit", {
      values: { name: "Ada", age: "36", subscribe: true, "address.city": "London", "tags.0": "x" },
    });
    expect(await result).toEqual({ name: "Ada", age: 36, subscribe: true, address: { city: "London" }, tags: ["x"] });
    expect(harness.host("m1").waiting).toBe(false);
  });

  test("an accepted submit tells the page the form was sent, also when nothing awaited the result yet", async () => {
    const harness = createUiHarness();
    const { mount, z } = globalsOf(harness);
    const comp = mount({
      outputSchema: z.object({ name: z.string() }),
      ui: () => (
        <form>
          <Input name="name" />
          <Button type="submit">Send</Button>
        </form>
      ),
    });
    harness.fire("m1", "form", "onSubmit", { values: { name: "Ada" } });
    await harness.settle();
    const waiting = harness.messages.filter((message) => message.kind === "waiting");
    expect(waiting).toEqual([{ type: "mount", kind: "waiting", mountId: "m1", waiting: false }]);
    // A second submit changes nothing: the page shows the form as sent, disabled.
    harness.fire("m1", "form", "onSubmit", { values: { name: "Bob" } });
    await harness.settle();
    expect(await comp.result).toEqual({ name: "Ada" });
  });

  test("Stop ends the wait of a form: the page is told (stopped), and code that awaits it again makes it wait again", async () => {
    const harness = createUiHarness();
    const { mount, z } = globalsOf(harness);
    const form = () => (
      <form>
        <Input name="name" />
      </form>
    );
    const awaited = mount({ outputSchema: z.object({ name: z.string() }), ui: form });
    mount({ outputSchema: z.object({ name: z.string() }), ui: form });
    void (async () => await awaited.result)();
    await Promise.resolve();
    expect(harness.host("m1").waiting).toBe(true);
    harness.ui.stopWaiting();
    const waiting = () => harness.messages.filter((message) => message.kind === "waiting");
    // Only the awaited one waited; the other is told nothing.
    expect(waiting()).toEqual([
      { type: "mount", kind: "waiting", mountId: "m1", waiting: true },
      { type: "mount", kind: "waiting", mountId: "m1", waiting: false, stopped: true },
    ]);
    harness.ui.stopWaiting();
    expect(waiting()).toHaveLength(2);
    void (async () => await awaited.result)();
    await Promise.resolve();
    expect(waiting().at(-1)).toEqual({ type: "mount", kind: "waiting", mountId: "m1", waiting: true });
  });

  test("an invalid submit sends field errors, passes them to the ui, and keeps waiting", async () => {
    const harness = createUiHarness();
    const { mount, z } = globalsOf(harness);
    const comp = mount({
      outputSchema: z.object({ email: z.string().email("Enter an email"), age: z.number().min(18) }),
      ui: ({ errors }: UiProps) => (
        <form>
          <Input name="email" />
          {errors.email && <p>{errors.email}</p>}
          <Input name="age" />
        </form>
      ),
    });
    let settled = false;
    void Promise.resolve(comp.result).then(() => (settled = true));
    harness.fire("m1", "form", "onSubmit", { values: { email: "nope", age: "12" } });
    await harness.settle();
    expect(harness.host("m1").formErrors).toEqual({ email: "Enter an email", age: expect.any(String) });
    expect(harness.html("m1")).toContain("<p>Enter an email</p>");
    expect(harness.host("m1").waiting).toBe(true);
    expect(settled).toBe(false);
    harness.fire("m1", "form", "onSubmit", { values: { email: "a@b.co", age: "20" } });
    await harness.settle();
    expect(settled).toBe(true);
    expect(harness.host("m1").formErrors).toEqual({});
    expect(harness.html("m1")).not.toContain("<p>");
  });

  test("without a schema the raw values resolve; submit() from code works for controlled inputs", async () => {
    const harness = createUiHarness();
    const { mount, z, React } = globalsOf(harness);
    const plain = mount(() => (
      <form>
        <Input name="q" />
      </form>
    ));
    harness.fire("m1", "form", "onSubmit", { values: { q: "hello", "a.b": "1" } });
    expect(await plain.result).toEqual({ q: "hello", a: { b: "1" } });
    const rating = mount({
      outputSchema: z.object({ stars: z.number().min(1).max(5) }),
      ui: ({ submit }: UiProps) => {
        const [stars, setStars] = React.useState(4);
        return (
          <div>
            <Button onClick={() => setStars(stars + 1)}>+</Button>
            <Button onClick={() => submit({ stars })}>Rate</Button>
          </div>
        );
      },
    });
    harness.fire("m2", "Button", "onClick", {}, "Rate");
    expect(await rating.result).toEqual({ stars: 4 });
  });

  test("a form with its own onSubmit and no schema is left to its handler", async () => {
    const harness = createUiHarness();
    const { mount } = globalsOf(harness);
    const got: unknown[] = [];
    const comp = mount(() => (
      <form
        onSubmit={(e: any) => {
          e.preventDefault();
          got.push(e.values);
        }}
      >
        <Input name="x" />
      </form>
    ));
    let settled = false;
    void Promise.resolve(comp.result).then(() => (settled = true));
    harness.fire("m1", "form", "onSubmit", { values: { x: "1" } });
    await harness.settle();
    expect(got).toEqual([{ x: "1" }]);
    expect(settled).toBe(false);
  });
});

describe("Slot", () => {
  test("the shell renders at once with fallbacks; each slot fills when mounted and can be replaced", async () => {
    const harness = createUiHarness();
    const { mount, Slot } = globalsOf(harness);
    const dash = mount(() => (
      <div>
        <h1>Dashboard</h1>
        <Slot name="chart" fallback={<Skeleton className="h-40" />} />
        <Slot name="table" />
      </div>
    ));
    expect(harness.html("m1")).toBe('<div><h1>Dashboard</h1><Skeleton className="h-40"></Skeleton></div>');
    dash.mountSlot("chart", () => <LineChart data={[1]} />);
    await harness.settle();
    expect(harness.html("m1")).toBe("<div><h1>Dashboard</h1><LineChart data=[1]></LineChart></div>");
    dash.mountSlot("table", ({ callbacks }: UiProps) => <table data-n={Object.keys(callbacks).length} />);
    dash.mountSlot("chart", () => <p>replaced</p>);
    await harness.settle();
    expect(harness.html("m1")).toBe("<div><h1>Dashboard</h1><p>replaced</p><table data-n=0></table></div>");
    expect(harness.host("m1").opsMessages).toBe(2);
    dash.mountSlot("nowhere", () => <p />);
    await harness.settle();
    expect(harness.errors.map((error) => error.code)).toEqual(["unknown-slot"]);
  });
});

describe("frames", () => {
  test("at most one ops message per mount per frame", async () => {
    const harness = createUiHarness();
    const { mount, Data } = globalsOf(harness);
    const state = new Data({ n: 0 });
    mount(() => <p>{state.n}</p>);
    for (let i = 0; i < 50; i++) state.n++;
    await harness.settle();
    const ops = harness.messages.filter((message) => message.kind === MOUNT_OPS);
    expect(ops).toHaveLength(1);
    expect(harness.html("m1")).toBe("<p>50</p>");
  });
});
