/**
 * Generative UI end to end: the model's code mounts React UIs in the realm,
 * the host draws them in the chat, and data flows all four ways (DESIGN.md §1)
 * through the mock LLM, the real sandbox and the real renderer.
 */
import { describe, expect } from "vitest";
import type { Page } from "playwright-core";
import { appTest, FENCE, send, statusText } from "./fixture";
import { createGate, type MockLlm } from "./mockLlm";

// A fresh mock per test (the fixture's): a failed test must not leave queued turns behind.
const it = appTest({ configure: true });
let mock: MockLlm;
let page: Page;
it.beforeEach(({ page: opened, mock: started }) => {
  page = opened;
  mock = started;
});

function lastUserContent(index: number): string {
  const messages = mock.requests[index].body.messages as { role: string; content: unknown }[];
  const last = messages[messages.length - 1];
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}

describe("generative UI", () => {
  it("a form's validated submission reaches the code and the next turn", async () => {
    mock.enqueue({
      chunks: [
        "Tell me about you.\n\n",
        `${FENCE}tsx agent.run\n`,
        'const form = mount({\n  title: "About you",\n',
        "  outputSchema: z.object({ name: z.string().min(1), age: z.number().min(18) }),\n",
        '  ui: ({ errors }) => (\n    <form>\n      <Label htmlFor="name">Name</Label>\n      <Input id="name" name="name" />\n',
        '      <Label htmlFor="age">Age</Label>\n      <Input id="age" name="age" type="number" />\n',
        '      <Button type="submit">Send it</Button>\n    </form>\n  ),\n})\n',
        'const answer = await form.result\nconsole.log("got", answer.name, answer.age + 1)\n',
        `${FENCE}\n`,
      ],
    });
    mock.enqueue({ chunks: ["Nice to meet you."] });
    await send(page, "Ask me my name");
    const panel = page.getByLabel("Mounted UI");
    await panel.getByRole("button", { name: "Send it" }).waitFor({ timeout: 15_000 });
    await expect.poll(() => statusText(page), { timeout: 10_000 }).toMatch(/^Waiting for input/);

    // Invalid: the realm's schema rejects it and the error shows at the field; nothing goes to the model.
    await panel.getByLabel("Name").fill("Ada");
    await panel.getByLabel("Age").fill("12");
    await panel.getByRole("button", { name: "Send it" }).click();
    await expect.poll(() => panel.locator('[aria-invalid="true"]').count(), { timeout: 5_000 }).toBeGreaterThan(0);
    expect(mock.requests).toHaveLength(1);

    await panel.getByLabel("Age").fill("36");
    await panel.getByRole("button", { name: "Send it" }).click();
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(lastUserContent(1)).toContain("got Ada 37");
  });

  it("a mount's title is its panel's heading, above the box, also in the restored view after a reload", async ({
    app,
  }) => {
    mock.enqueue({
      chunks: [
        "Two panels.\n\n",
        `${FENCE}tsx agent.run\n`,
        'mount({ title: "Weekly sales", ui: () => <Card><CardContent><p>Sales body</p></CardContent></Card> })\n',
        "mount({ ui: () => <Card><CardContent><p>Untitled body</p></CardContent></Card> })\n",
        `${FENCE}\n`,
      ],
    });
    await send(page, "Show two panels");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    const heading = page.getByRole("heading", { name: "Weekly sales", exact: true });
    const panel = page.getByRole("group", { name: "Weekly sales" });
    // Drawn (panels draw near the viewport; the code's own text in the fence is not the panel).
    await panel.getByText("Sales body").waitFor({ timeout: 15_000 });
    await page.getByRole("group", { name: "Generated UI" }).getByText("Untitled body").waitFor({ timeout: 15_000 });
    const above = async () => {
      const [title, box] = await Promise.all([heading.boundingBox(), panel.boundingBox()]);
      return title !== null && box !== null && title.y + title.height <= box.y + 1;
    };
    expect(await heading.isVisible()).toBe(true);
    expect(await above()).toBe(true);
    // One heading: the untitled panel has none.
    expect(await page.locator(".lm-mount-origin h3").count()).toBe(1);

    await page.goto(app.url);
    await page.getByText("Restored view — not interactive").first().waitFor({ timeout: 30_000 });
    await heading.waitFor({ timeout: 10_000 });
    expect(await above()).toBe(true);
  });

  it("streams a data fence into a chart: the first rows show while the stream is paused", async () => {
    const gate = createGate();
    mock.enqueue({
      chunks: [
        `${FENCE}tsx agent.run\n`,
        'const sales = new StreamedData("sales")\n',
        'mount({ ui: () => (\n  <div>\n    <p>Rows: {(sales.value ?? []).length}</p>\n    <p>Totals: {(sales.value ?? []).map((row) => row.total ?? "?").join(",")}</p>\n',
        '    <LineChart width={400} height={200} data={sales.value ?? []}><XAxis dataKey="month" /><YAxis /><Line dataKey="total" /></LineChart>\n  </div>\n) })\n',
        `${FENCE}\n\n`,
        `${FENCE}json agent.data => "sales"\n[`,
        '{"month": "Jan", "total": 120}, {"month": "Feb", "total": 95},',
        ' {"month": "Mar", "total": 14',
        { waitFor: gate.promise },
        '3}, {"month": "Apr", "total": 180}]\n',
        `${FENCE}\n`,
        `${FENCE}tsx agent.run\nconst rows = await sales.done\nconsole.log("rows", rows.length)\n${FENCE}\n`,
      ],
    });
    mock.enqueue({ chunks: ["Charted."] });
    await send(page, "Chart the sales");
    const panel = page.getByLabel("Mounted UI");
    // Paused mid-number: the complete rows are there, the half-typed 14 is not.
    await expect.poll(() => panel.getByText(/Totals: /).textContent(), { timeout: 15_000 }).toBe("Totals: 120,95,?");
    gate.open();
    await expect.poll(() => panel.getByText(/Rows: \d/).textContent(), { timeout: 15_000 }).toBe("Rows: 4");
    await expect.poll(() => panel.locator("svg path").count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(lastUserContent(1)).toContain("rows 4");
  });

  it("a callback button the person clicks later starts a turn marked as a UI event; hook state survives re-renders", async () => {
    mock.enqueue({
      chunks: [
        `${FENCE}tsx agent.run\n`,
        "function Counter({ callbacks }) {\n  const [count, setCount] = useState(0)\n",
        "  return <div><p>Clicked {count} times</p><Button onClick={() => { setCount(count + 1); callbacks.clicked(count + 1) }}>Press</Button></div>\n}\n",
        'mount({ ui: Counter, callbacks: { clicked: (n) => { if (n === 2) console.log("pressed twice") } } })\n',
        `${FENCE}\n`,
      ],
    });
    mock.enqueue({ chunks: ["I saw that."] });
    await send(page, "Give me a button");
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(mock.requests).toHaveLength(1);
    const panel = page.getByLabel("Mounted UI");
    await panel.getByRole("button", { name: "Press" }).click();
    await panel.getByText("Clicked 1 times").waitFor();
    await panel.getByRole("button", { name: "Press" }).click();
    await panel.getByText("Clicked 2 times").waitFor();
    await mock.waitForRequests(2, 10_000);
    const event = lastUserContent(1);
    expect(event).toContain("[ui event]");
    expect(event).toContain("pressed twice");
    await page.getByText("I saw that.").waitFor({ timeout: 10_000 });
  });

  it("reactive Data re-renders the mount; Slots fill as their statements run", async () => {
    const gate = createGate();
    mock.enqueue({
      chunks: [
        `${FENCE}tsx agent.run\n`,
        "const progress = new Data({ done: 0 })\n",
        'const board = mount({ ui: () => <div><p>Done: {progress.done}</p><Slot name="late" fallback={<p>loading slot</p>} /></div> })\n',
        "progress.done = 3\n",
        "con",
        { waitFor: gate.promise },
        'sole.log("filling")\nboard.mountSlot("late", () => <p>slot filled</p>)\n',
        `${FENCE}\n`,
      ],
    });
    mock.enqueue({ chunks: ["Dashboard ready."] });
    await send(page, "Dashboard");
    const panel = page.getByLabel("Mounted UI");
    await panel.getByText("Done: 3").waitFor({ timeout: 15_000 });
    expect(await panel.getByText("loading slot").count()).toBe(1);
    gate.open();
    await panel.getByText("slot filled").waitFor({ timeout: 15_000 });
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
  });

  it("an unknown component shows inline and the model hears of it", async () => {
    mock.enqueue({
      chunks: [
        `${FENCE}tsx agent.run\nmount({ ui: () => <div><marquee>old</marquee><p>still here</p></div> })\n${FENCE}\n`,
      ],
    });
    mock.enqueue({ chunks: ["Fixed."] });
    await send(page, "Unknown");
    const panel = page.getByLabel("Mounted UI");
    await panel.getByText("still here").waitFor({ timeout: 15_000 });
    await expect.poll(() => panel.getByText(/marquee/).count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toMatch(/^Done/);
    expect(lastUserContent(1)).toMatch(/marquee/);
  });
});
