/* eslint-disable @typescript-eslint/no-explicit-any */
// The README's examples, as a model would write them, run against the runtime.
import { describe, expect, test } from "vitest";
import { createUiHarness } from "./uiTestHarness";

const names = [
  "Card",
  "Label",
  "Input",
  "Select",
  "SelectTrigger",
  "SelectValue",
  "SelectContent",
  "SelectItem",
  "Checkbox",
  "Button",
  "ResponsiveContainer",
  "LineChart",
  "CartesianGrid",
  "XAxis",
  "YAxis",
  "Tooltip",
  "Line",
  "Alert",
  "AlertTitle",
  "AlertDescription",
  "Skeleton",
  "Badge",
  "BarChart",
  "Bar",
] as const;

function realm() {
  const harness = createUiHarness();
  const g = harness.globals as any;
  const kit = Object.fromEntries(names.map((name) => [name, g[name]])) as Record<(typeof names)[number], any>;
  return { harness, g, kit };
}

describe("README examples", () => {
  test("form", async () => {
    const { harness, g, kit } = realm();
    const { Label, Input, Select, SelectTrigger, SelectValue, SelectContent, SelectItem, Checkbox, Button } = kit;
    const { mount, z } = g;
    const signup = mount({
      title: "Sign up",
      outputSchema: z.object({
        name: z.string().min(1),
        age: z.number().int().min(18),
        plan: z.enum(["free", "pro"]),
        newsletter: z.boolean(),
      }),
      ui: ({ errors }: any) => (
        <form className="grid gap-3">
          <Label>
            Name <Input name="name" />
          </Label>
          {errors.name && <p className="text-sm text-red-600">{errors.name}</p>}
          <Label>
            Age <Input name="age" type="number" />
          </Label>
          {errors.age && <p className="text-sm text-red-600">{errors.age}</p>}
          <Select name="plan" defaultValue="free">
            <SelectTrigger>
              <SelectValue />
            </SelectTrigger>
            <SelectContent>
              <SelectItem value="free">Free</SelectItem>
              <SelectItem value="pro">Pro</SelectItem>
            </SelectContent>
          </Select>
          <Label>
            <Checkbox name="newsletter" /> Newsletter
          </Label>
          <Button type="submit">Sign up</Button>
        </form>
      ),
    });
    const user = (async () => await signup.result)();
    harness.fire("m1", "form", "onSubmit", { values: { name: "", age: "12", plan: "pro", newsletter: false } });
    await harness.settle();
    expect(harness.html("m1")).toContain('<p className="text-sm text-red-600">Required</p>');
    expect(harness.html("m1")).toContain('<p className="text-sm text-red-600">Must be at least 18</p>');
    harness.fire("m1", "form", "onSubmit", { values: { name: "Ada", age: "36", plan: "pro", newsletter: true } });
    expect(await user).toEqual({ name: "Ada", age: 36, plan: "pro", newsletter: true });
  });

  test("Data todo", async () => {
    const { harness, g, kit } = realm();
    const { Card, Label, Checkbox, Button } = kit;
    const { mount, Data } = g;
    const todo = new Data({ items: [{ text: "Write report", done: false }] });
    mount({
      title: "Todo",
      ui: () => (
        <Card className="p-4 grid gap-2">
          {todo.items.map((item: any, i: number) => (
            <Label key={i}>
              <Checkbox checked={item.done} onCheckedChange={(v: boolean) => (item.done = v)} /> {item.text}
            </Label>
          ))}
          <Button onClick={() => todo.items.push({ text: `Task ${todo.items.length + 1}`, done: false })}>Add</Button>
        </Card>
      ),
    });
    harness.fire("m1", "Button", "onClick");
    harness.fire("m1", "Checkbox", "onCheckedChange", { checked: true });
    await harness.settle();
    expect(harness.html("m1")).toBe(
      '<Card className="p-4 grid gap-2"><Label><Checkbox checked=true onCheckedChange={fn}></Checkbox> Write report</Label>' +
        "<Label><Checkbox checked=false onCheckedChange={fn}></Checkbox> Task 2</Label><Button onClick={fn}>Add</Button></Card>",
    );
  });

  test("StreamedData chart", async () => {
    const { harness, g, kit } = realm();
    const { ResponsiveContainer, LineChart, CartesianGrid, XAxis, YAxis, Tooltip, Line } = kit;
    const { mount, StreamedData } = g;
    const sales = new StreamedData("sales");
    mount({
      title: "Monthly sales",
      ui: () => (
        <ResponsiveContainer width="100%" height={240}>
          <LineChart data={sales.value ?? []}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="month" />
            <YAxis />
            <Tooltip />
            <Line type="monotone" dataKey="total" />
          </LineChart>
        </ResponsiveContainer>
      ),
    });
    const sink = harness.ui.openDataTarget("sales")!;
    const text =
      '[{ "month": "Jan", "total": 1200 }, { "month": "Feb", "total": 1850 }, { "month": "Mar", "total": 1640 }]';
    for (let i = 0; i < text.length; i += 4) sink.push(text.slice(i, i + 4));
    expect(sink.end(false)).toBeUndefined();
    const rows = await sales.done;
    expect(rows.reduce((a: any, b: any) => (b.total > a.total ? b : a)).month).toBe("Feb");
    await harness.settle();
    expect((harness.find("m1", (node) => node.type === "LineChart") as any).props.data).toHaveLength(3);
  });

  test("callbacks", async () => {
    const { harness, g, kit } = realm();
    const { Alert, AlertTitle, AlertDescription, Button } = kit;
    const log: string[] = [];
    g.mount({
      title: "Deploy?",
      callbacks: { approve: () => log.push("approved by the user"), reject: () => log.push("rejected") },
      ui: ({ callbacks }: any) => (
        <Alert>
          <AlertTitle>Deploy v2 to production?</AlertTitle>
          <AlertDescription className="flex gap-2 mt-2">
            <Button onClick={callbacks.approve}>Approve</Button>
            <Button variant="outline" onClick={callbacks.reject}>
              Reject
            </Button>
          </AlertDescription>
        </Alert>
      ),
    });
    harness.fire("m1", "Button", "onClick", {}, "Reject");
    expect(log).toEqual(["rejected"]);
  });

  test("slots", async () => {
    const { harness, g, kit } = realm();
    const { Skeleton, Badge, BarChart, XAxis, YAxis, Bar } = kit;
    const { mount, Slot } = g;
    const dash = mount({
      title: "Dashboard",
      ui: () => (
        <div className="grid gap-4">
          <Slot name="kpis" fallback={<Skeleton className="h-16" />} />
          <Slot name="chart" fallback={<Skeleton className="h-60" />} />
        </div>
      ),
    });
    expect(harness.html("m1")).toBe(
      '<div className="grid gap-4"><Skeleton className="h-16"></Skeleton><Skeleton className="h-60"></Skeleton></div>',
    );
    const stats = { users: 3, mrr: 99, byMonth: [{ m: "Jan", v: 1 }] };
    dash.mountSlot("kpis", () => (
      <div className="flex gap-2">
        <Badge>Users {stats.users}</Badge>
        <Badge>MRR ${stats.mrr}</Badge>
      </div>
    ));
    await harness.settle();
    dash.mountSlot("chart", () => (
      <BarChart width={480} height={240} data={stats.byMonth}>
        <XAxis dataKey="m" />
        <YAxis />
        <Bar dataKey="v" />
      </BarChart>
    ));
    await harness.settle();
    expect(harness.html("m1")).toContain("<Badge>Users 3</Badge><Badge>MRR $99</Badge>");
    expect(harness.html("m1")).toContain('<BarChart width=480 height=240 data=[{"m":"Jan","v":1}]>');
  });
});
