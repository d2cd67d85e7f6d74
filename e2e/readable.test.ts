/**
 * Numbers and words a person can read (issue 33 §3, §5): what the person
 * sees in a reply, against the mock OpenAI-compatible server.
 */
import { expect } from "vitest";
import type { Page } from "playwright-core";
import { appTest, FENCE, send, statusText as statusTextOf, waitDone } from "./fixture";
import { createGate, type MockLlm } from "./mockLlm";

const it = appTest({ configure: true });
let mock: MockLlm;
let page: Page;
it.beforeEach(({ page: opened, mock: started }) => {
  page = opened;
  mock = started;
});

const chatRequests = () =>
  mock.requests.filter((request) => request.method === "POST" && request.path.startsWith("/v1/chat/completions"));
const lastUserText = (index: number) => {
  const messages = chatRequests()[index].body.messages as { role: string; content: unknown }[];
  const last = messages.filter((message) => message.role === "user").at(-1)!;
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
};

it("points the person at the code block's own lines, as its gutter numbers them, and the model at the reply's", async () => {
  // Text on lines 1–5, the fence on 6: the code's first line is reply line 7.
  mock.enqueue({
    chunks: [
      "Here it is.\n\nIt prints, then fails.\n\nSee below.\n",
      `${FENCE}ts agent.run\n`,
      'const a = 1;\nconsole.log("hello", a);\n(null as any).x;\n',
      `${FENCE}\n`,
    ],
  });
  mock.enqueue({ chunks: ["Understood."] });
  await send(page, "run it");
  await waitDone(page);
  const block = page.getByRole("figure", { name: "Code block 1" });
  const error = block.locator(".lm-code__error");
  await expect.poll(() => error.textContent()).toContain("(code block 1, line 3");
  // The row that shows the error is numbered 3 in the gutter.
  const row = block.locator(".lm-code__row", { has: page.locator(".lm-code__error") });
  expect(await row.locator(".lm-code__number").textContent()).toBe("3");
  // The runtime output the person can open says the same.
  const feedback = page.locator("details.lm-feedback");
  expect(await feedback.locator(".lm-feedback__preview").textContent()).toBe("[code block 1, line 2] hello 1");
  expect(await feedback.locator("pre").textContent()).toContain("(code block 1, line 3");
  // The lifecycle steps too.
  expect(await page.locator(".lm-summary__steps").first().textContent()).toContain(
    "statement 1 of code block 1, line 1",
  );
  // The model keeps the reply-level numbers.
  const model = lastUserText(1);
  expect(model).toContain("[block 1 line 8] hello 1");
  expect(model).toContain("(block 1, line 9");
});

/** A reply that mounts a form with a schema and awaits its result. */
function formTurn(title: string) {
  return {
    chunks: [
      "Fill this in.\n\n",
      `${FENCE}tsx agent.run\n`,
      `const form = mount({\n  title: "${title}",\n  outputSchema: z.object({ name: z.string().min(1) }),\n`,
      '  ui: () => (\n    <form>\n      <Label htmlFor="name">Name</Label>\n      <Input id="name" name="name" />\n',
      '      <Button type="submit">Send it</Button>\n    </form>\n  ),\n})\n',
      'const answer = await form.result\nconsole.log("got", answer.name)\n',
      `${FENCE}\n`,
    ],
  };
}

it("an answered form shows it was sent and its submit is off: never a live form whose button does nothing", async () => {
  mock.enqueue(formTurn("Your name"));
  mock.enqueue({ chunks: ["Thanks."] });
  await send(page, "ask my name");
  const panel = page.getByRole("group", { name: "Your name" });
  await panel.getByRole("button", { name: "Send it" }).waitFor({ timeout: 15_000 });
  await expect.poll(() => statusTextOf(page), { timeout: 10_000 }).toMatch(/^Waiting for input/);
  await panel.getByLabel("Name").fill("Ada");
  await panel.getByRole("button", { name: "Send it" }).click();
  await waitDone(page);
  await panel
    .getByRole("note")
    .filter({ hasText: /^Sent$/ })
    .waitFor({ timeout: 10_000 });
  expect(await panel.getByRole("button", { name: "Send it" }).isDisabled()).toBe(true);
  expect(await panel.getByLabel("Name").isDisabled()).toBe(true);
  expect(chatRequests()).toHaveLength(2);
});

it("after Stop, a form whose code was waiting says it no longer sends, and its controls are off", async () => {
  mock.enqueue(formTurn("Waiting form"));
  await send(page, "ask my name");
  const panel = page.getByRole("group", { name: "Waiting form" });
  await panel.getByRole("button", { name: "Send it" }).waitFor({ timeout: 15_000 });
  await expect.poll(() => statusTextOf(page), { timeout: 10_000 }).toMatch(/^Waiting for input/);
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  await expect.poll(() => statusTextOf(page), { timeout: 10_000 }).toMatch(/^Stopped/);
  await panel.getByText("Stopped: this form no longer sends").waitFor({ timeout: 10_000 });
  expect(await panel.getByRole("button", { name: "Send it" }).isDisabled()).toBe(true);
  expect(await panel.getByLabel("Name").isDisabled()).toBe(true);
});

it("a reply's footer is one meta line with the summary behind it, and its actions show on hover and focus", async () => {
  mock.enqueue({ chunks: ["A short answer."], usage: { prompt: 120, completion: 8 } });
  await send(page, "hi");
  await waitDone(page);
  const reply = page.getByRole("article", { name: "Reply" }).last();
  const summary = reply.getByRole("group", { name: "Interaction summary" });
  // Collapsed: the line is the meta, the counts are behind it.
  const line = summary.locator("summary");
  await expect.poll(() => line.textContent()).toMatch(/^mock-model · \d{1,2}:\d\d(\s?[AP]M)? · 120 in \/ 8 out$/);
  expect(await summary.locator(".lm-summary__counts").isVisible()).toBe(false);
  await line.click();
  expect(await summary.locator(".lm-summary__counts").textContent()).toMatch(/^done · 1 turn · 0 statements run/);
  // The actions are there for a pointer only on hover (or focus).
  const actions = reply.getByRole("group", { name: "Reply actions" });
  const opacity = () => actions.evaluate((element) => getComputedStyle(element).opacity);
  await page.mouse.move(0, 0);
  await page.getByRole("textbox", { name: "Message" }).focus();
  await expect.poll(opacity).toBe("0");
  await reply.getByText("A short answer.").hover();
  await expect.poll(opacity).toBe("1");
  await page.mouse.move(0, 0);
  await expect.poll(opacity).toBe("0");
  await actions.getByRole("button", { name: "Copy" }).focus();
  await expect.poll(opacity).toBe("1");
});

it("a failed request reads as the failure, not as an interaction with 0 errors", async () => {
  mock.enqueue({ status: 500 });
  await send(page, "hi");
  await expect.poll(() => statusTextOf(page), { timeout: 20_000 }).toMatch(/^Error/);
  const reply = page.getByRole("article", { name: "Reply" }).last();
  const summary = reply.getByRole("group", { name: "Interaction summary" });
  await expect.poll(() => summary.locator("summary").textContent()).toMatch(/ · request failed$/);
  const counts = (await summary.locator(".lm-summary__counts").textContent()) ?? "";
  expect(counts).toMatch(/^request failed · 1 turn · /);
  expect(counts).not.toContain("0 errors");
  expect(counts).not.toContain("statements");
});

const touch = appTest({
  configure: true,
  context: { hasTouch: true, isMobile: true, viewport: { width: 390, height: 800 } },
});
touch("on a touch screen (no hover) a reply's actions are always shown", async ({ page: phone, mock: phoneMock }) => {
  phoneMock.enqueue({ chunks: ["Touch answer."] });
  await send(phone, "hi");
  await waitDone(phone);
  expect(await phone.evaluate(() => matchMedia("(hover: none)").matches)).toBe(true);
  const actions = phone.getByRole("article", { name: "Reply" }).last().getByRole("group", { name: "Reply actions" });
  expect(await actions.evaluate((element) => getComputedStyle(element).opacity)).toBe("1");
});

it("a plain tsx fence that looks meant to run says quietly that it was shown only; other fences say nothing", async () => {
  mock.enqueue({
    chunks: [
      `A component:\n\n${FENCE}tsx\nexport default function App() {\n  return <p>hi</p>;\n}\n${FENCE}\n\n`,
      `A type:\n\n${FENCE}tsx\ntype A = string;\n${FENCE}\n`,
    ],
  });
  await send(page, "an app");
  await waitDone(page);
  const reply = page.getByRole("article", { name: "Reply" }).last();
  await reply.getByText("Shown only, not run: this fence has no agent.run").waitFor({ timeout: 10_000 });
  expect(await reply.locator(".lm-fence__hint").count()).toBe(1);
  // No paid turn for it.
  expect(chatRequests()).toHaveLength(1);
});

it("with a key set, the empty screen still offers example prompts, and one click sends one", async () => {
  const examples = page.getByRole("group", { name: "Try one of these" });
  await examples.getByRole("button").first().waitFor({ timeout: 10_000 });
  expect(await examples.getByRole("button").count()).toBeGreaterThanOrEqual(3);
  // Not the demo's welcome: the demo is not what answers.
  expect(await page.getByRole("button", { name: "Start the demo" }).count()).toBe(0);
  const prompt = (await examples.getByRole("button").first().textContent())!;
  mock.enqueue({ chunks: ["On it."] });
  await examples.getByRole("button").first().click();
  await waitDone(page);
  expect(lastUserText(0)).toContain(prompt);
});

const dark = appTest({ context: { colorScheme: "dark" } });
dark(
  "Session settings never names a model that is not answering; selects and text areas wear the theme; no code words",
  async ({ page: demoPage }) => {
    // No key: the demo answers, whatever model Settings names.
    await demoPage.getByRole("button", { name: "Session settings" }).click();
    const dialog = demoPage.getByRole("dialog", { name: "Session settings" });
    const field = dialog.getByLabel("Session model");
    await field.waitFor({ timeout: 10_000 });
    expect(await field.getAttribute("placeholder")).toBe("the demo model answers now");
    expect(await dialog.textContent()).toContain(
      "The demo model (offline) answers until an API key is set in Settings",
    );
    // The instruction box is styled like the inputs beside it, in the dark theme too.
    const look = (name: string) =>
      dialog
        .getByLabel(name)
        .evaluate((element) => [getComputedStyle(element).backgroundColor, getComputedStyle(element).borderRadius]);
    expect(await look("Extra system instruction")).toEqual(await look("Session model"));
    await dialog.getByRole("button", { name: "Close" }).first().click();

    await demoPage.getByRole("button", { name: "Settings", exact: true }).click();
    const settings = demoPage.getByRole("dialog", { name: "Settings" });
    const preset = settings.getByLabel("Provider preset");
    const box = (element: Awaited<ReturnType<typeof preset.elementHandle>>) =>
      element!.evaluate((node) => [getComputedStyle(node).backgroundColor, getComputedStyle(node).color]);
    expect(await box(await preset.elementHandle())).toEqual(
      await box(await settings.getByLabel("Base URL", { exact: true }).elementHandle()),
    );
    await settings.getByRole("button", { name: "Cancel" }).click();

    // An attached file is described in words, not as code.
    await demoPage
      .locator("#lm-attach")
      .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
    const attached = demoPage.getByRole("list", { name: "Attached files" });
    await expect.poll(() => attached.textContent()).toContain("notes.txt");
    expect(await attached.textContent()).toContain("for the reply's code to read");
    expect(await attached.textContent()).not.toContain("attachment(");
  },
);

it("switching sessions while a reply runs asks first; Stay keeps it, Switch anyway records that the switch interrupted it", async () => {
  const gate = createGate();
  mock.enqueue({ chunks: ["Working on ", { waitFor: gate.promise }, "it."] });
  await send(page, "Tell me slowly");
  await expect.poll(() => statusTextOf(page), { timeout: 15_000 }).toMatch(/^Streaming/);
  const list = page.getByRole("navigation", { name: "Sessions" });
  await list.getByRole("button", { name: "New session" }).first().click();
  const ask = page.getByRole("dialog", { name: "A reply is still running" });
  await ask.getByRole("button", { name: "Stay" }).click();
  await ask.waitFor({ state: "detached" });
  expect(await statusTextOf(page)).toMatch(/^Streaming/);

  await list.getByRole("button", { name: "New session" }).first().click();
  await ask.getByRole("button", { name: "Switch anyway" }).click();
  await expect.poll(() => page.getByRole("article", { name: "Reply" }).count(), { timeout: 10_000 }).toBe(0);
  gate.open();
  await list.getByRole("button", { name: /^Tell me slowly/ }).click();
  await page.getByText("Interrupted: you switched sessions.").waitFor({ timeout: 10_000 });
  expect(await page.getByText("the page closed", { exact: false }).count()).toBe(0);
});
